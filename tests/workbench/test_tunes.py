"""A tune from the page: the form's rules as the base, checked and played as `lvsim tune` plays its tune file."""


import pytest

pytest.importorskip("fastapi")

import sim  # noqa: E402
from sim.config import load_config  # noqa: E402
from sim.errors import ConfigError  # noqa: E402
from sim.games import GAME_IDS, get_game  # noqa: E402
from sim.tune import load_tune  # noqa: E402
from sim.workbench.fields import config_of  # noqa: E402
from sim.workbench.jobs import Workbench  # noqa: E402
from sim.workbench.tunes import BASE_FILE, CANCELLED, DONE, REFUSED, TUNE_FILE, template, tune_of  # noqa: E402
from tests.workbench.conftest import SMALL, TUNE_TABLES, until_finished, until_settled  # noqa: E402

def until_tuned(get, tune_id: str) -> dict:
    return until_settled(lambda: get(tune_id), f"tune {tune_id}")


@pytest.fixture(scope="module")
def tuned(client):
    response = client.post("/api/tunes", json={"fields": SMALL, "tables": TUNE_TABLES})
    assert response.status_code == 202, response.text
    return until_tuned(lambda i: client.get(f"/api/tunes/{i}").json(), response.json()["id"])


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_template_of_every_game_is_a_tune_the_tune_reader_takes(game_id, tmp_path):
    game = get_game(game_id)
    fields = {"game": game_id, "rules.players": str(game.min_players), "run.games": "500", "run.seed": "3"}
    config, tune = tune_of(fields, template(config_of(fields)), tmp_path)
    assert tune.base.rules == config.rules and tune.base.seats == config.seats
    assert tune.players == (game.min_players,)
    assert tune.dims and tune.targets


def test_a_tune_from_the_page_recommends_what_lvsim_tune_of_the_same_files_does(tuned, tmp_path):
    assert tuned["state"] == DONE, tuned["error"]
    _, tune = tune_of(SMALL, TUNE_TABLES, tmp_path / "files")
    expected = sim.run_tune(load_tune(tmp_path / "files" / TUNE_FILE), tmp_path / "out", progress=False,
                            report=False).summary
    assert tuned["answer"]["recommendation"]["values"] == expected["recommendation"]["values"]
    assert tuned["answer"]["verdict"] == expected["verdict"]
    low, likely, high = tuned["games_said"]
    assert 0 < low <= likely <= high and low <= tuned["games_played"] <= high, tuned


def test_the_server_lists_every_tune_it_holds_as_each_one_reads(client, tuned):
    listed = client.get("/api/tunes")
    assert listed.status_code == 200, listed.text
    assert {t["id"]: t for t in listed.json()["tunes"]}[tuned["id"]] == tuned
    assert tuned["tables"] == TUNE_TABLES


def test_the_recommended_rules_download_as_a_config_and_load_into_the_form(client, tuned, tmp_path):
    response = client.get(f"/api/tunes/{tuned['id']}/best.toml")
    assert response.status_code == 200
    path = tmp_path / "best.toml"
    path.write_text(response.text, encoding="utf-8")
    best = load_config(path)
    # It names the tune file the page downloads, not the server's copy (gone when the server stops).
    assert f"lvsim tune lasvegan-{tuned['id']}.toml" in response.text and "lvsim-workbench" not in response.text
    expected = tuned["answer"]["recommendation"]["values"]
    assert best.rules.starting_cabbages == expected["rules.starting_cabbages"]
    form = tuned["best_fields"]
    assert form.get("rules.starting_cabbages", "15") == str(best.rules.starting_cabbages)
    # Played with the page's games and seed, not the tune's.
    assert (form["run.games"], form["run.seed"]) == (SMALL["run.games"], SMALL["run.seed"])


def test_the_tune_file_downloads_with_the_form_as_its_base(client, tuned, tmp_path):
    text = client.get(f"/api/tunes/{tuned['id']}/tune.toml").text
    (tmp_path / TUNE_FILE).write_text(text, encoding="utf-8")
    # Its base is the form as the tune started, served beside it whatever the form holds now.
    base = client.get(f"/api/tunes/{tuned['id']}/base.toml")
    assert base.status_code == 200 and base.text == client.get("/api/config.toml", params=SMALL).text
    (tmp_path / BASE_FILE).write_text(base.text, encoding="utf-8")
    tune = load_tune(tmp_path / TUNE_FILE)
    assert tune.budget == 3 and [d.name for d in tune.dims] == ["rules.starting_cabbages"]


@pytest.mark.parametrize("tables, field", [
    ("[search", "tune"),
    ("a = " + "[" * 500 + "]" * 500, "tune"),
    ('base = "default.toml"\n' + TUNE_TABLES, "tune.base"),
    (TUNE_TABLES.replace("starting_cabbages", "nope"), 'search."rules.nope"'),
    (TUNE_TABLES.replace("budget = 3", "budget = 0"), "tune.budget"),
    (TUNE_TABLES.replace("elimination_rate", "wizardry"), "targets.wizardry"),
])
def test_a_malformed_tune_is_refused_in_one_line_naming_the_key(client, bench, tables, field):
    before = set(bench.tunes)
    response = client.post("/api/tunes", json={"fields": SMALL, "tables": tables})
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["field"] == field and body["error"].startswith(f"{field}: ") and "\n" not in body["error"]
    assert set(bench.tunes) == before


def test_a_refused_tune_takes_no_id_and_leaves_no_directory():
    with Workbench() as own:
        with pytest.raises(ConfigError):
            own.submit_tune(SMALL, TUNE_TABLES.replace("budget = 3", "budget = 0"))
        assert sorted(p.name for p in own.root.iterdir()) == []
        job = own.submit_tune(SMALL, TUNE_TABLES)
        assert job.id == "t1" and sorted(p.name for p in own.root.iterdir()) == ["t1"]
        own.cancel_tune(job.id)


def test_a_malformed_form_is_refused_before_the_tune(client):
    response = client.post("/api/tunes", json={"fields": {**SMALL, "rules.players": "7"}, "tables": TUNE_TABLES})
    assert response.status_code == 400 and response.json()["field"] == "rules.players"


def test_a_tune_longer_than_the_workbench_allows_is_refused_before_it_plays():
    with Workbench(max_tune_seconds=0.001) as small:
        job = small.submit_tune(SMALL, TUNE_TABLES)
        view = until_tuned(lambda i: small.tune_job(i).view(), job.id)
        assert view["state"] == REFUSED and view["error"].startswith("tune.budget: 3 candidates of 300 games")
        assert view["games_played"] == 0


@pytest.mark.slow("end to end")
def test_a_queued_tune_cancelled_never_plays():
    with Workbench() as own:
        ahead = own.submit(SMALL)
        behind = own.submit_tune(SMALL, TUNE_TABLES)
        own.cancel_tune(behind.id)
        view = until_tuned(lambda i: own.tune_job(i).view(), behind.id)
        assert view["state"] == CANCELLED and view["games_played"] == 0
        assert own.job(ahead.id).state in ("done", "playing", "measuring", "estimating", "queued")


@pytest.mark.slow("end to end")
def test_a_finished_play_shows_the_reports_sensitivity_section_and_report_inline(client):
    play_id = client.post("/api/plays", json=SMALL).json()["id"]
    assert until_finished(lambda path: client.get(path).json(), play_id)["state"] == DONE
    section = client.get(f"/api/plays/{play_id}/sensitivity.html")
    assert section.status_code == 200 and "What moves the verdict" in section.text
    report = client.get(f"/api/plays/{play_id}/report.html", params={"inline": "true"})
    assert report.status_code == 200 and report.headers["content-disposition"].startswith("inline")
    assert "<img" in report.text
