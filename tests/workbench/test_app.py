"""The workbench's API: a form is checked as a config is, a play is `sim.run` of it, plays compare on the same deals."""

import json
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

import sim  # noqa: E402
from sim.config import config_from_mapping, load_config  # noqa: E402
from sim.errors import ConfigError  # noqa: E402
from sim.games import GAME_IDS, get_game  # noqa: E402
from sim.workbench.fields import config_of, fields_of, game_form, parse_value  # noqa: E402
from sim.workbench.jobs import Workbench  # noqa: E402
from sim.workbench.states import CANCELLED, DONE, ESTIMATING, FAILED, MEASURING, QUEUED, REFUSED  # noqa: E402
from tests.workbench.conftest import SMALL, TUNE_TABLES, until_finished  # noqa: E402

FEWER_CABBAGES = {**SMALL, "rules.starting_cabbages": "10"}


def get(client, path):
    response = client.get(path)
    assert response.status_code == 200, response.text
    return response.json()


def play(client, fields) -> dict:
    response = client.post("/api/plays", json=fields)
    assert response.status_code == 202, response.text
    return until_finished(lambda path: get(client, path), response.json()["id"])


@pytest.fixture(scope="module")
def rulebook_play(client):
    return play(client, SMALL)


@pytest.fixture(scope="module")
def fewer_cabbages_play(client):
    return play(client, FEWER_CABBAGES)


# --- the form --------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_knob_of_a_game_is_a_field_named_by_its_config_key(game_id):
    form = game_form(game_id)
    game = get_game(game_id)
    assert [k["key"] for k in form["knobs"]] == [f"rules.{name}" for name in game.knobs]
    assert [k["label"] for k in form["knobs"]] == [k.label for k in game.knobs.values()]
    assert [p["name"] for p in form["policies"]] == list(game.policy_syntax)
    assert [m["key"] for m in form["metrics"]] == list(game.headline_metrics)
    # Each field's rulebook value reads back as the knob's default.
    for knob, field in zip(game.knobs.values(), form["knobs"]):
        assert parse_value(field["default"]) == knob.domain.plain(knob.default)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_shortest_fields_of_a_config_set_it_again(game_id):
    game = get_game(game_id)
    config = config_of({"game": game_id, "run.games": "300", "run.seed": "5"})
    assert config.rules == game.Rules() and config.games == 300 and config.seed == 5
    assert config_of(fields_of(config)) == config


def test_a_changed_rule_is_kept_in_the_fields_and_an_unchanged_one_is_not():
    fields = fields_of(config_of({**FEWER_CABBAGES, "rules.rounds": "4"}))
    assert fields["rules.starting_cabbages"] == "10"
    assert "rules.rounds" not in fields and "policies.seats" not in fields


def test_lists_and_words_are_read_as_a_config_file_writes_them():
    config = config_of({**SMALL, "rules.tokens": "[[1, -1], [2, -2]]", "rules.reserve": "unlimited",
                        "rules.end_on_elimination": "false", "policies.seats": "expert, greedy, greedy, random"})
    assert config.rules.tokens == ((1, -1), (2, -2))
    assert config.rules.reserve == "unlimited" and config.rules.end_on_elimination is False
    assert config.seat_policies == ("expert", "greedy", "greedy", "random")
    # Seats as a config file lists them, in JSON or TOML, as the docs say a list may be written.
    for seats in ('["expert", "greedy", "greedy", "random"]', "['expert', 'greedy', 'greedy', 'random']"):
        assert config_of({**SMALL, "policies.seats": seats}).seat_policies == ("expert", "greedy", "greedy", "random")


# --- refusals: the command line's checks, naming the field ------------------------------------


@pytest.mark.parametrize("fields, field", [
    ({**SMALL, "rules.players": "7"}, "rules.players"),
    ({**SMALL, "rules.players": "four"}, "rules.players"),
    ({**SMALL, "rules.nope": "1"}, "rules.nope"),
    ({**SMALL, "rules.tokens": "[[1, 2, 3]]"}, "rules.tokens"),
    ({**SMALL, "run.games": "0"}, "run.games"),
    ({**SMALL, "run.games": "lots"}, "run.games"),
    ({**SMALL, "run.seed": "-1"}, "run.seed"),
    ({**SMALL, "run.threads": "2"}, "run.threads"),
    ({**SMALL, "policies.seats": "wizard"}, "policies.seats"),
    ({**SMALL, "game": "lasvegas"}, "game"),
    ({**SMALL, "rules.tokens": "[" * 500 + "]" * 500}, "rules.tokens"),
    ({**SMALL, "rules.tokens": "{a=" * 300 + "1" + "}" * 300}, "rules.tokens"),
    ({**SMALL, "policies.seats": '["expert", 3]'}, "policies.seats"),
    ({k: v for k, v in SMALL.items() if k != "game"}, "game"),
    # A number of more digits than Python converts, alone or in a list.
    ({**SMALL, "run.games": "9" * 5000}, "run.games"),
    ({**SMALL, "rules.tokens": "[[1, " + "9" * 5000 + "]]"}, "rules.tokens"),
    # One simulation only expands the search's root: it never chooses a move.
    ({**SMALL, "policies.seats": "ismcts:1"}, "policies.seats"),
])
def test_a_malformed_field_is_refused_in_one_line_naming_it(client, fields, field):
    response = client.post("/api/plays", json=fields)
    assert response.status_code == 400
    body = response.json()
    assert body["field"].split("[")[0] == field
    assert body["error"].startswith(f"{body['field']}: ") and "\n" not in body["error"]


def test_a_number_too_long_to_read_is_refused_naming_its_field_wherever_a_form_is_read(client, bench):
    before = (set(bench.jobs), set(bench.tunes))
    long = {**SMALL, "run.games": "9" * 5000}
    for response in (client.get("/api/config.toml", params=long), client.get("/api/tune-template", params=long),
                     client.post("/api/tunes", json={"fields": long, "tables": TUNE_TABLES})):
        assert response.status_code == 400, response.text
        body = response.json()
        assert body["field"] == "run.games" and "too long" in body["error"] and "\n" not in body["error"]
    assert (set(bench.jobs), set(bench.tunes)) == before


def test_half_a_character_in_a_request_is_refused_in_one_line(client, bench):
    """JSON's \\u escapes may spell a lone surrogate, which is not text: refused naming where it is, never a 500."""
    before = (set(bench.jobs), set(bench.tunes))
    response = client.post("/api/plays", content=b'{"game": "lasvegan", "rules.\\ud800": "4"}',
                           headers={"Content-Type": "application/json"})
    assert response.status_code == 400, response.text
    assert response.json()["field"] == "rules.\\ud800" and "unknown key" in response.json()["error"]
    for tables in (TUNE_TABLES + "# \ud800\n", TUNE_TABLES.replace('"greedy"', '"greedy\ud800"')):
        response = client.post("/api/tunes", content=json.dumps({"fields": SMALL, "tables": tables}),
                               headers={"Content-Type": "application/json"})
        assert response.status_code == 400, response.text
        assert response.json()["field"] == "tune" and "surrogate" in response.json()["error"]
    assert (set(bench.jobs), set(bench.tunes)) == before
    assert client.get("/api/plays").status_code == 200


def test_the_refusal_is_the_line_lvsim_run_prints(client, tmp_path):
    path = tmp_path / "seven.toml"
    path.write_text('game = "lasvegan"\n[rules]\nplayers = 7\n', encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    body = client.post("/api/plays", json={**SMALL, "rules.players": "7"}).json()
    assert body["error"] == str(err.value)


def test_a_comparison_without_its_plays_is_refused_in_one_line_naming_the_parameter(client):
    for query, field in (("", "baseline"), ("?baseline=p1", "other")):
        response = client.get(f"/api/compare{query}")
        assert response.status_code == 400, response.text
        body = response.json()
        assert body["field"] == field and body["error"].startswith(f"{field}: ") and "\n" not in body["error"]


def test_a_request_that_is_not_an_object_of_fields_is_refused(client, bench):
    before = len(bench.plays())
    for body in (b"[1, 2]", b"[" * 500 + b"]" * 500, b'{"game": ' + b"[" * 500 + b"]" * 500 + b"}", b"\xff"):
        response = client.post("/api/plays", content=body, headers={"Content-Type": "application/json"})
        assert response.status_code == 400 and response.json()["field"] == "request", response.text
    # A page elsewhere may post text/plain without asking first: only JSON starts a play.
    response = client.post("/api/plays", content=json.dumps(SMALL), headers={"Content-Type": "text/plain"})
    assert response.status_code == 400 and "application/json" in response.json()["error"]
    assert len(bench.plays()) == before


def test_a_play_without_its_games_plays_the_forms_default(client):
    from sim.workbench.fields import WORKBENCH_GAMES

    form = next(g for g in client.get("/api/games").json()["games"] if g["id"] == "lasvegan")
    assert form["run"]["run.games"] == str(WORKBENCH_GAMES)
    assert config_of({"game": "lasvegan"}).games == WORKBENCH_GAMES


def test_more_games_than_the_disk_holds_are_refused_before_anything_plays(client, bench):
    before = set(bench.jobs)
    response = client.post("/api/plays", json={**SMALL, "run.games": str(10**15)})
    assert response.status_code == 400
    body = response.json()
    assert body["field"] == "run.games" and "at most about" in body["error"]
    assert set(bench.jobs) == before


@pytest.mark.slow("end to end")
def test_more_games_than_a_few_minutes_play_are_refused_before_any_game_of_them_plays():
    with Workbench(max_seconds=0.5) as small:
        job = small.submit({**SMALL, "run.games": "50000000"})
        view = until_finished(lambda path: small.job(path.rsplit("/", 1)[1]).view(), job.id)
        assert view["state"] == REFUSED
        assert view["error"].startswith("run.games: 50,000,000 games would take about ")
        assert view["games_played"] == 0 and not job.dir.exists()


# --- a play is `sim.run` of its config ---------------------------------------------------------


@pytest.mark.slow("end to end")
def test_a_play_shows_the_headline_metrics_of_sim_run_of_the_same_config_and_seed(rulebook_play):
    assert rulebook_play["state"] == DONE and rulebook_play["complete"]
    expected = sim.run(config_of(SMALL), out=None, progress=False).summary
    shown = rulebook_play["summary"]
    for name in get_game("lasvegan").headline_metrics:
        assert shown[name] == expected[name], name
        assert shown.get(f"{name}_ci") == expected.get(f"{name}_ci"), name
    assert shown["win_share"] == expected["win_share"]
    # A play's verdict names the config.toml of its results in the command that would decide more.
    verdict = {k: v for k, v in shown["strength"]["verdict"].items() if k != "confirm"}
    wanted = {k: v for k, v in expected["strength"]["verdict"].items() if k != "confirm"}
    if "confirm" in shown["strength"]["verdict"]:
        command = shown["strength"]["verdict"]["confirm"]
        assert command.startswith("lvsim confirm --config ") and command.endswith("RESULTS_DIR/config.toml --players 4")
        wanted["sentence"] = wanted["sentence"].replace(expected["strength"]["verdict"]["confirm"], command)
    assert verdict == wanted


@pytest.mark.slow("end to end")
def test_the_first_result_is_the_games_summary_before_the_skill_gap(rulebook_play):
    phases = rulebook_play["phases"]
    assert phases["estimating"] <= phases["playing"] <= phases["measuring"] <= phases["done"]
    assert rulebook_play["first_result_seconds"] <= rulebook_play["seconds"]


@pytest.mark.slow("end to end")
def test_two_plays_asked_at_once_each_give_their_own_run(client):
    first = client.post("/api/plays", json=SMALL).json()
    second = client.post("/api/plays", json=FEWER_CABBAGES).json()
    assert first["id"] != second["id"]
    views = [until_finished(lambda path: get(client, path), p["id"]) for p in (first, second)]
    for view, fields in zip(views, (SMALL, FEWER_CABBAGES)):
        expected = sim.run(config_of(fields), out=None, progress=False).summary
        assert view["summary"]["elimination_rate"] == expected["elimination_rate"]
        assert view["summary"]["mean_rounds"] == expected["mean_rounds"]


@pytest.mark.slow("end to end")
def test_a_queued_play_cancelled_never_plays():
    with Workbench() as own:
        ahead = own.submit(SMALL)
        behind = own.submit(FEWER_CABBAGES)
        assert behind.state == QUEUED
        own.cancel(behind.id)
        view = until_finished(lambda path: own.job(path.rsplit("/", 1)[1]).view(), behind.id)
        assert view["state"] == CANCELLED and view["games_played"] == 0 and not behind.dir.exists()
        assert until_finished(lambda path: own.job(path.rsplit("/", 1)[1]).view(), ahead.id)["state"] == DONE


@pytest.mark.slow("end to end")
def test_a_play_cancelled_while_playing_stops_between_chunks_and_leaves_no_results():
    import time

    with Workbench(max_seconds=3600) as own:
        job = own.submit({**SMALL, "run.games": "400000"})
        while job.games_played == 0 and job.state not in (CANCELLED, DONE, REFUSED):
            time.sleep(0.02)
        own.cancel(job.id)
        view = until_finished(lambda path: own.job(path.rsplit("/", 1)[1]).view(), job.id)
        assert view["state"] == CANCELLED
        assert 0 < view["games_played"] < 400_000
        assert not job.dir.exists()


def test_a_play_cancelled_while_estimating_stops_at_the_estimates_next_batch(monkeypatch):
    """The estimate times small batches of the play's games first; a cancel meanwhile stops it there."""
    from sim.estimates import runs

    with Workbench(max_seconds=3600) as own:
        timed = []
        original = own._refusal

        def cancelled_at_once(config, job):
            own.cancel(job.id)
            runs._GAMES_COSTS.clear()  # time them again: this process may have timed them already
            try:
                return original(config, job)
            finally:
                timed.append(job.state)

        monkeypatch.setattr(own, "_refusal", cancelled_at_once)
        job = own.submit({**SMALL, "run.seed": "8"})
        view = until_finished(lambda path: own.job(path.rsplit("/", 1)[1]).view(), job.id)
        assert timed == [ESTIMATING] and view["state"] == CANCELLED and view["games_played"] == 0
        assert view["estimate"] is None  # stopped within the estimate, not after it
        assert not job.dir.exists()


@pytest.mark.slow("end to end")
def test_a_play_cancelled_while_measuring_stops_and_claims_no_verdict():
    """Its games played, a play goes on to the skill gap and strength profile: a cancel then stops it at their
    next batch, and the page is shown the games' summary only, marked incomplete, with no verdict."""
    import time

    with Workbench(max_seconds=3600) as own:
        job = own.submit({**SMALL, "run.games": "2000"})
        while job.state not in (MEASURING, CANCELLED, DONE, REFUSED, FAILED):
            time.sleep(0.01)
        own.cancel(job.id)
        view = until_finished(lambda path: own.job(path.rsplit("/", 1)[1]).view(), job.id)
        assert view["state"] == CANCELLED and view["complete"] is False
        assert "strength" not in view["summary"] and "skill_gap" not in view["summary"]
        assert not job.dir.exists()


# --- compare, share, report ----------------------------------------------------------------------


@pytest.mark.slow("end to end")
def test_two_plays_compare_as_the_sweep_pairs_them_on_the_same_deals(client, rulebook_play, fewer_cabbages_play,
                                                                     tmp_path):
    from analysis.sweep import paired_differences

    got = get(client, f"/api/compare?baseline={rulebook_play['id']}&other={fewer_cabbages_play['id']}")
    base, other = config_of(SMALL), config_of(FEWER_CABBAGES)
    sim.run(base, out=tmp_path / "a", progress=False, report=False)
    sim.run(other, out=tmp_path / "b", progress=False, report=False)
    expected = paired_differences(tmp_path / "b" / "records.parquet", other, tmp_path / "a" / "records.parquet", base)
    assert [m["key"] for m in got["metrics"]] == list(get_game("lasvegan").paired_metrics)
    for m in got["metrics"]:
        assert {k: m[k] for k in expected[m["key"]]} == expected[m["key"]], m["key"]
    # Fewer cabbages eliminate someone more often, game by game.
    elimination = next(m for m in got["metrics"] if m["key"] == "elimination_rate")
    assert elimination["difference_lo"] > 0


def test_a_play_compared_with_itself_differs_by_nothing(client, rulebook_play):
    got = get(client, f"/api/compare?baseline={rulebook_play['id']}&other={rulebook_play['id']}")
    assert all(m["difference"] == 0 for m in got["metrics"])


@pytest.mark.slow("end to end")
def test_plays_on_different_seeds_are_not_compared(client, rulebook_play):
    other = play(client, {**SMALL, "run.seed": "8"})
    response = client.get(f"/api/compare?baseline={rulebook_play['id']}&other={other['id']}")
    assert response.status_code == 400 and response.json()["field"] == "compare"
    assert "different seeds" in response.json()["error"]


@pytest.mark.slow("end to end")
def test_the_server_lists_every_play_it_holds_as_each_one_reads(client, rulebook_play, fewer_cabbages_play):
    # What a reloaded page rebuilds its list from: the plays played, in the order asked, each as its own route says.
    listed = get(client, "/api/plays")["plays"]
    ids = [p["id"] for p in listed]
    assert ids == sorted(ids, key=lambda i: int(i[1:])) and len(set(ids)) == len(ids)
    by_id = {p["id"]: p for p in listed}
    for played, fields in ((rulebook_play, SMALL), (fewer_cabbages_play, FEWER_CABBAGES)):
        assert by_id[played["id"]] == played
        assert played["state"] == DONE and config_of(played["fields"]) == config_of(fields)
    # A play just asked for is listed at once, as it stands, and then as it ended.
    asked = client.post("/api/plays", json={**FEWER_CABBAGES, "run.games": "300"}).json()
    assert asked["id"] in [p["id"] for p in get(client, "/api/plays")["plays"]]
    ended = until_finished(lambda path: get(client, path), asked["id"])
    assert {p["id"]: p for p in get(client, "/api/plays")["plays"]}[asked["id"]] == ended
    assert ended["state"] == DONE


def test_an_unknown_play_or_tune_is_not_found_naming_it(client):
    for path in ("/api/plays/p999", "/api/plays/p999/report.html", "/api/compare?baseline=p999&other=p998",
                 "/api/tunes/t999", "/api/tunes/t999/best.toml"):
        response = client.get(path)
        assert response.status_code == 404 and "999" in response.json()["error"], path
    assert client.post("/api/plays/p999/cancel").status_code == 404


def test_the_config_downloads_as_toml_that_lvsim_run_reads_back(client, tmp_path):
    fields = {**FEWER_CABBAGES, "rules.tokens": "[[1, -1], [2, -2]]", "policies.seats": "greedy"}
    response = client.get("/api/config.toml", params=fields)
    assert response.status_code == 200 and "attachment" in response.headers["content-disposition"]
    path = tmp_path / "shared.toml"
    path.write_text(response.text, encoding="utf-8")
    loaded = load_config(path)
    assert loaded.rules == config_of(fields).rules and loaded.seats == "greedy"
    assert (loaded.games, loaded.seed) == (2000, 7)
    assert config_from_mapping(tomllib.loads(response.text)).rules.starting_cabbages == 10


def test_a_malformed_config_is_not_downloaded(client):
    response = client.get("/api/config.toml", params={**SMALL, "rules.players": "7"})
    assert response.status_code == 400 and response.json()["field"] == "rules.players"


@pytest.mark.slow("end to end")
def test_a_play_downloads_its_full_report(client, rulebook_play):
    response = client.get(f"/api/plays/{rulebook_play['id']}/report.html")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    assert 'data-metric="elimination_rate"' in response.text


def test_the_page_and_its_assets_come_from_the_package(client):
    page = client.get("/")
    assert page.status_code == 200 and 'data-action="play"' in page.text
    for asset in ("/static/workbench.js", "/static/workbench.css"):
        assert client.get(asset).status_code == 200
    assert "http://" not in page.text and "https://" not in page.text


def test_the_sensitivity_section_says_whether_it_is_available(client, rulebook_play):
    import importlib.util

    got = get(client, f"/api/plays/{rulebook_play['id']}/sensitivity")
    assert got["available"] == (importlib.util.find_spec("sim.sensitivity") is not None)


@pytest.mark.slow("end to end")
def test_stopping_removes_every_file_the_workbench_wrote():
    with Workbench() as own:
        job = own.submit(SMALL)
        until_finished(lambda path: own.job(path.rsplit("/", 1)[1]).view(), job.id)
        root = own.root
        assert (job.results_dir / "records.parquet").is_file()
    assert not Path(root).exists()


def test_the_decisions_section_shows_the_play_s_table(client, rulebook_play):
    page = client.get(f"/api/plays/{rulebook_play['id']}/decisions.html")
    assert page.status_code == 200
    assert "Not measured" in page.text or ("<code>lead</code>" in page.text and "choice rate" in page.text)
