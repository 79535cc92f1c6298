"""The HTML balance report: written by `lvsim run` and `lvsim report`, self-contained, true to the summary."""

import base64
import html
import json
import re
import shutil
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sim.lasvegan.report
from sim.lasvegan import tables
from sim.lasvegan.report import SECTIONS, build_report, first_player_verdict, length_verdict, write_report
from analysis.results import load_results, read_game_rows
from sim.cli import main
from sim.config import Config
from sim.lasvegan.params import Rules
from sim.lasvegan.records import empty_records
from sim.lasvegan.story import record_differences, replay_game
from sim.runner import run

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class _Page(HTMLParser):
    """Tags with their attributes, element ids and the data-metric values of a page."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def attrs(self, name: str) -> list[str]:
        return [a[name] for _, a in self.tags if a.get(name) is not None]

    def metrics(self) -> dict:
        return {a["data-metric"]: json.loads(a["data-value"]) for _, a in self.tags if "data-metric" in a}


def page_of(path) -> tuple[str, _Page]:
    text = path.read_text(encoding="utf-8")
    return text, _Page(text)


def section(text: str, anchor: str) -> str:
    """The HTML of one section of the report."""
    start = text.index(f'<section id="{anchor}"')
    return text[start:text.index("</section>", start)]


def visible(text: str) -> str:
    """The page's text as a reader sees it: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", text))


# --- written by the run, self-contained ----------------------------------------------------


def test_the_run_writes_its_report_without_the_staging_directory_in_it(small_run):
    text, _ = page_of(small_run.report)
    assert ".partial" not in text
    assert text.startswith("<!DOCTYPE html>")
    # The reproduction command names the final directory, the one the user gets.
    assert f"lvsim run {small_run.directory / 'config.toml'}" in visible(text)


def test_the_report_is_one_self_contained_file(small_run):
    text, page = page_of(small_run.report)
    tags = {tag for tag, _ in page.tags}
    assert not tags & {"script", "link", "iframe", "object", "embed"}
    assert not re.search(r"(src|href)\s*=\s*[\"']?\s*(https?:)?//", text, re.I)
    assert "@import" not in text and "url(" not in text
    assert all(href.startswith("#") for href in page.attrs("href"))
    sources = page.attrs("src")
    assert len(sources) >= 7
    for src in sources:
        prefix = "data:image/png;base64,"
        assert src.startswith(prefix)
        assert base64.b64decode(src[len(prefix):]).startswith(PNG_SIGNATURE)
    for _, attrs in page.tags:
        if "src" in attrs:
            assert attrs.get("alt"), "every figure has a text alternative"


def test_every_section_is_present_and_listed_in_the_contents(small_run):
    text, page = page_of(small_run.report)
    ids = set(page.attrs("id"))
    assert {"headline", *(anchor for anchor, _ in SECTIONS)} <= ids
    for anchor, title in SECTIONS:
        assert f'href="#{anchor}"' in text
        assert f"<h2>{html.escape(title)}</h2>" in text


def test_the_headline_numbers_are_the_summary_exactly(small_run):
    s = small_run.summary
    metrics = page_of(small_run.report)[1].metrics()
    assert metrics == {
        "players": s["players"],
        "games": s["games"],
        "seed": s["seed"],
        "win_share_0": s["win_share"][0],
        "first_player_advantage": s["first_player_advantage"],
        "first_player_advantage_ci": s["first_player_advantage_ci"],
        "elimination_rate": s["elimination_rate"],
        "elimination_rate_ci": s["elimination_rate_ci"],
        "mean_rounds": s["mean_rounds"],
        "mean_rounds_ci": s["mean_rounds_ci"],
    }


def test_the_headline_states_the_setup_and_a_verdict_for_each_number(small_run):
    text = visible(small_run.report.read_text(encoding="utf-8"))
    assert "none: the rulebook game" in text
    assert "expert at every seat" in text
    assert re.search(r"Seat 0 wins \d+\.\d+% ± \d+\.\d+% of games against a fair 25%: "
                     r"(a first-player (edge|handicap) of \d+\.\d+ points|no first-player edge)", text)
    assert re.search(r"Someone runs out of cabbages in \d+\.\d+% of games \(95% CI \d+\.\d+–\d+\.\d+%\)", text)
    assert re.search(r"Games last \d\.\d+ ± \d\.\d+ of 4 rounds on average; \d+\.\d% are played to the last round",
                     text)


@pytest.mark.slow("end to end")
def test_rules_that_differ_from_the_rulebook_are_listed(tmp_path):
    rules = Rules(players=3, reserve="unlimited", end_on_elimination=False)
    out = tmp_path / "r"
    run(Config(name="variant", games=300, seed=2, rules=rules), out=out, progress=False)
    text = (out / "report.html").read_text(encoding="utf-8")
    headline = visible(section(text, "headline"))
    assert 'reserve = "unlimited"' in headline and "end_on_elimination = false" in headline
    assert "players = " not in headline  # the player count has its own line: it is not a difference
    assert "Las Vegan balance report: variant" in visible(text)


# --- verdicts ------------------------------------------------------------------------------


def summary_with(share, share_ci, players=4, games=100_000):
    fair = 1 / players
    return {
        "players": players, "games": games, "win_share": [share], "win_share_ci": [share_ci],
        "first_player_advantage": share - fair, "first_player_advantage_ci": [x - fair for x in share_ci],
    }


def test_the_first_player_verdict_names_an_edge_a_handicap_or_none():
    assert first_player_verdict(summary_with(0.271, [0.268, 0.274])) == (
        "Seat 0 wins 27.10% ± 0.30% of games against a fair 25%: a first-player edge of 2.10 points."
    )
    assert first_player_verdict(summary_with(0.30, [0.29, 0.31], players=3, games=8000)) == (
        "Seat 0 wins 30.0% ± 1.0% of games against a fair 33.3%: a first-player handicap of 3.3 points."
    )
    assert first_player_verdict(summary_with(0.2505, [0.2479, 0.2531])) == (
        "Seat 0 wins 25.05% ± 0.26% of games against a fair 25%: no first-player edge that 100,000 games can "
        "tell from chance (between \u22120.21 and +0.31 points)."
    )


def test_seat_0s_advantage_is_not_called_a_first_player_edge_when_the_seats_play_different_policies():
    from analysis.common import seat_lines

    mixed = {**summary_with(0.44, [0.42, 0.46]), "policies": ["expert", "greedy", "greedy", "greedy"],
             "win_share_ci": [[0.42, 0.46]] + [[0.17, 0.21]] * 3, "win_share": [0.44, 0.18, 0.19, 0.19],
             "first_player_advantage_ci": [0.17, 0.21]}
    sentence = first_player_verdict(mixed)
    assert "edge of" not in sentence and "seat 0 expert; the others greedy" in sentence
    said = " ".join(" ".join(seat_lines(mixed)).split())
    assert "mixes the first seat's place with its policy's strength" in said
    assert "as the worst seat's advantage mixes every seat's" in said and "worst seat's advantage" in sentence
    alike = {**mixed, "policies": ["expert"] * 4}
    assert "a first-player edge of" in first_player_verdict(alike)
    assert len(seat_lines(alike)) == 6


def test_most_such_games_means_more_than_half_of_the_eliminations():
    from sim.lasvegan.report import elimination_verdict

    def ends(counts):  # eliminations by round, the other end reasons empty
        return pd.DataFrame([{"round": r + 1, "reason": tables.END_REASONS[0], "count": c} for r, c in
                             enumerate(counts)] + [{"round": 4, "reason": tables.END_REASONS[2], "count": 500}])

    summary = {"elimination_rate": 0.5, "elimination_rate_ci": [0.49, 0.51], "games": 1000}
    assert elimination_verdict(summary, ends([10, 60, 186, 244]), True).endswith(
        "more such games end in round 4 (49%) than in any other.")
    assert elimination_verdict(summary, ends([10, 40, 100, 350]), True).endswith(
        "most such games (70%) end in round 4.")
    # 63 against 60 eliminations: the games do not tell the two rounds apart, nor 52% from a half.
    close = elimination_verdict(summary, ends([5, 31, 60, 63]), True)
    assert "more such games" not in close and "most such games" not in close, close
    assert close.endswith("159 such games cannot tell in which round most of them end: round 4 (40%) or round 3 (38%).")
    assert "most such games" not in elimination_verdict(summary, ends([0, 10, 20, 32]), True)


def test_most_cabbages_lost_means_more_than_half_of_them():
    from sim.lasvegan.report import loss_words

    def drivers(shares, half=0.01):
        return pd.DataFrame({"kind": ["golden", "colour", "value"], "loss_share": shares, "losses": [1, 1, 1],
                             "loss_low": [x - half for x in shares], "loss_high": [x + half for x in shares]})

    assert loss_words(drivers([0.466, 0.406, 0.128])) == (
        " More cabbages are lost on golden machines than on any other kind (46.6% of all losses).")
    assert loss_words(drivers([0.2, 0.7, 0.1])).startswith(" Most cabbages lost come from colour machines (70.0%")
    # 70% of them, but over so few games that the interval reaches below a half: not "most".
    assert "Most" not in loss_words(drivers([0.2, 0.7, 0.1], half=0.25))


def test_the_kind_most_cabbages_are_lost_on_is_named_only_when_the_intervals_tell_it_apart():
    """Points and golden machines at 42.7% and 42.3% of the losses over 5,000 games, their intervals overlapping:
    neither is said to lose more."""
    from sim.lasvegan.report import loss_words

    drivers = pd.DataFrame({"kind": ["colour", "points", "golden"], "loss_share": [0.150, 0.427, 0.423],
                            "losses": [1, 1, 1], "loss_low": [0.148, 0.423, 0.419],
                            "loss_high": [0.153, 0.431, 0.426]})
    words = loss_words(drivers)
    assert "More cabbages" not in words and "Most" not in words, words
    assert words == (" These games do not tell which kind of machine most cabbages are lost on: points machines "
                     "(42.7%) or golden machines (42.3%) of all losses, their 95% intervals overlapping.")


def test_the_length_verdict_says_when_every_game_goes_the_distance():
    summary = {"rounds": 4, "mean_rounds": 4.0, "mean_rounds_ci": [4.0, 4.0], "end_round_share": [0, 0, 0, 1.0]}
    assert length_verdict(summary) == "Every game is played to the last of its 4 rounds."


# --- example games -------------------------------------------------------------------------


@pytest.mark.slow("end to end")
def test_the_example_games_are_replays_equal_to_their_stored_records(small_run):
    text, page = page_of(small_run.report)
    articles = [a for tag, a in page.tags if tag == "article"]
    assert [a["id"] for a in articles] == ["example-typical", "example-quickest-elimination"]
    assert all(a["data-replay-match"] == "true" for a in articles)
    assert visible(text).count("the reference engine's record of this game equals the run's stored row") == 2

    # The same check, made here independently of the report.
    results = load_results(small_run.directory)
    games = [int(a["data-game"]) for a in articles]
    assert games[0] == tables.typical_game(results.tally)[0]
    assert games[1] == tables.quickest_elimination(results.tally)[0]
    stored = read_game_rows(results.records_path, games, results.config)
    for game, row in zip(games, stored):
        replayed = replay_game(results.config.rules, results.config.seed, game, results.config.seat_policies)
        assert record_differences(replayed.records, row) == []
        assert replayed.trace["rounds"]  # something to tell


def test_the_example_games_are_told_trick_by_trick(small_run):
    text = visible(small_run.report.read_text(encoding="utf-8"))
    assert "Round 1 · seat 0 leads" in text
    assert re.search(r"seat \d \([GBRP]\d: (highest (green|blue|red|purple)|(the last )?zero of another suit)\)", text)
    assert re.search(r"Seat \d+( and seat \d+)* (has|have) no cabbages left: the game ends after round \d", text)
    assert re.search(r"(Seat \d wins with \d+ cabbages\.|share the win with \d+ cabbages each\.)", text)


@pytest.mark.slow("end to end")
def test_a_replay_that_does_not_match_its_record_is_reported(small_run, monkeypatch):
    def replay_with_a_wrong_record(rules, seed, game, seats):
        replayed = replay_game(rules, seed, game, seats)
        replayed.records["final_cabbages"][0] += 1
        return replayed

    monkeypatch.setattr(sim.lasvegan.report, "replay_game", replay_with_a_wrong_record)
    text = build_report(load_results(small_run.directory))
    assert 'data-replay-match="false"' in text
    assert "The replay does <strong>not</strong> match the stored record: final_cabbages differ" in text


@pytest.mark.slow("end to end")
def test_a_run_whose_report_example_does_not_replay_says_so_whichever_games_it_picked(tmp_path, monkeypatch):
    """Las Vegan's report picks its example games (a typical one, the quickest elimination), not the first and
    last the run checks itself: an example the engine does not replay as stored is named too."""
    def replay_with_a_wrong_record(rules, seed, game, seats):
        replayed = replay_game(rules, seed, game, seats)
        replayed.records["final_cabbages"][0] += 1
        return replayed

    monkeypatch.setattr(sim.lasvegan.report, "replay_game", replay_with_a_wrong_record)
    config = tmp_path / "c.toml"
    config.write_text('game = "lasvegan"\n[run]\ngames = 300\nseed = 2\nskill_gap_games = 0\n'
                      'strength_games = 0\nsensitivity_games = 0\n[policies]\nseats = "greedy"\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["run", str(config), "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    examples = sorted(int(g) for g in re.findall(r'data-game="(\d+)"', page))
    assert examples and set(examples) != {0, 299}
    named = ("game " if len(examples) == 1 else "games ") + " and ".join(map(str, examples))
    assert (f"warning: the reference engine does not play {named} of this run as the jitted core did (the "
            "report's example games say how)" in result.stderr), result.stderr


# --- the command ----------------------------------------------------------------------------


@pytest.mark.slow("end to end")
def test_lvsim_report_writes_the_file_given_and_prints_its_path(small_run, tmp_path):
    out = tmp_path / "mine.html"
    result = CliRunner().invoke(main, ["report", str(small_run.directory), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(out)
    assert out.read_text(encoding="utf-8") == small_run.report.read_text(encoding="utf-8")


@pytest.mark.slow("end to end")
def test_lvsim_report_defaults_to_the_results_directory(small_run, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(small_run.directory, copy)
    (copy / "report.html").unlink()
    result = CliRunner().invoke(main, ["report", str(copy)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(copy / "report.html")
    assert (copy / "report.html").is_file()


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda d: None, "no such results directory"),
        (lambda d: d.mkdir(), "not the results directory of a run: records.parquet, config.toml, summary.json, "
                              "meta.json missing"),
        (lambda d: (d.mkdir(), (d / "summary.json").write_text("{"), (d / "meta.json").write_text("{}"),
                    (d / "config.toml").write_text('game = "lasvegan"'), (d / "records.parquet").write_text("")),
         "summary.json: not valid JSON"),
    ],
    ids=["missing", "empty", "corrupt"],
)
def test_lvsim_report_on_a_bad_directory_is_one_line_and_exit_2(tmp_path, make, message):
    results = tmp_path / "results"
    make(results)
    result = CliRunner().invoke(main, ["report", str(results)])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    assert message in result.stderr
    assert not (results / "report.html").exists()


@pytest.mark.slow("end to end")
def test_the_run_command_says_where_the_report_is(tmp_path):
    out = tmp_path / "r"
    result = CliRunner().invoke(main, ["run", "--games", "200", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert re.search(rf"Report: {re.escape(str(out / 'report.html'))} \(written in [\d.]+ s\)$", result.stdout.rstrip())


# --- sections that depend on the run ---------------------------------------------------------


@pytest.mark.slow("end to end")
def test_skill_shows_win_share_per_policy_and_the_skill_gap(tmp_path):
    rules = Rules(players=3, end_on_elimination=False)
    out = tmp_path / "mixed"
    run(Config(name="mixed", games=600, seed=4, rules=rules, seats=("greedy", "random", "random")), out=out,
        progress=False)
    summary = json.loads((out / "summary.json").read_text())
    summary["skill_gap"] = {
        "lookahead_vs_greedy": {"policy": "lookahead:32", "against": "greedy", "games": 200, "win_share": 0.41,
                                "win_share_ci": [0.36, 0.46], "fair_share": 1 / 3},
        "greedy_vs_random": {"policy": "greedy", "against": "random", "games": 200, "win_share": 0.62,
                             "win_share_ci": [0.58, 0.66], "fair_share": 1 / 3},
    }
    (out / "summary.json").write_text(json.dumps(summary))
    text = visible(write_report(out).read_text(encoding="utf-8"))
    assert "Share of all wins taken by each policy's seats" in text
    assert re.search(r"greedy\s*0\s*\d+\.\d+%", text) and re.search(r"random\s*1, 2\s*\d+\.\d+%", text)
    assert "One lookahead:32 seat among greedy seats wins 41.0% (36.0–46.0%) of games over 200 deals" in text
    assert "One greedy seat among random seats wins 62.0%" in text
    # With elimination not ending the game, players at 0 play on: a rule hole this run meets.
    assert re.search(r"A player at 0 cabbages played on: in [\d,]+ of 600 games", text)


def test_a_rule_hole_never_met_is_said_to_be_zero(small_run):
    text = visible(small_run.report.read_text(encoding="utf-8"))
    games = f"{small_run.summary['games']:,}"
    assert f"A 7 found no free slot: never, in {games} games" in text
    assert "It cannot happen here: a player at 0 ends the game." in text


# --- tables ---------------------------------------------------------------------------------


def test_the_tables_agree_with_the_summary(small_run):
    s = small_run.summary
    rec = load_results(small_run.directory).tally
    by_seat = tables.win_share_by_seat(rec)
    np.testing.assert_allclose(by_seat["mean"], s["win_share"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(by_seat[["low", "high"]].to_numpy(), s["win_share_ci"], rtol=0, atol=1e-12)
    ends = tables.game_ends(rec)
    assert ends["count"].sum() == s["games"]
    ran_out = ends[ends["reason"] != "nobody ran out"]["count"].sum()
    assert ran_out / s["games"] == pytest.approx(s["elimination_rate"], abs=1e-15)
    assert ends.groupby("round")["rate"].sum().tolist() == pytest.approx(s["end_round_share"], abs=1e-15)
    drivers = tables.swing_drivers(rec)
    assert drivers["gain_share"].sum() == pytest.approx(1) and drivers["loss_share"].sum() == pytest.approx(1)
    assert drivers["mean"].tolist() == pytest.approx([s["amount_mean"][k] for k in tables.KINDS], abs=1e-12)
    trajectory = tables.trajectory_quantiles(rec, starting=15)
    assert trajectory.loc[0, ["p05", "p50", "p95"]].tolist() == [15, 15, 15]
    assert trajectory["p50"].iloc[-1] == s["final_cabbages"]["p50"]
    by_policy = tables.win_share_by_policy(rec, ["random"] * 4)
    assert by_policy["mean"].iloc[0] == pytest.approx(1.0)


def synthetic_records(elim_rounds, rounds_played, deltas):
    n = len(elim_rounds)
    rec = empty_records(n, 4, 4)
    rec["game"][:] = np.arange(100, 100 + n)
    rec["elim_round"][:] = elim_rounds
    rec["rounds_played"][:] = rounds_played
    rec["delta"][:, 0, 0] = deltas
    return rec


def test_the_quickest_elimination_is_the_earliest_and_then_the_first():
    rec = synthetic_records([0, 3, 2, 0, 2], [4, 3, 2, 4, 2], [0, -1, -2, 0, -3])
    game, why = tables.quickest_elimination(rec)
    assert game == 102
    assert "round 2" in why and "(2 games of 5 did)" in why
    assert tables.quickest_elimination(synthetic_records([0, 0], [4, 4], [1, 2])) is None


def test_the_typical_game_has_the_common_length_and_the_median_movement():
    # Games 100-103 last 4 rounds without elimination; their movements are 1, 5, 3, 9 (median 4):
    # 5 and 3 are both 1 away, the lower index wins.
    rec = synthetic_records([0, 0, 0, 0, 2], [4, 4, 4, 4, 2], [1, -5, 3, -9, -20])
    game, why = tables.typical_game(rec)
    assert game == 101
    assert "lasts 4 rounds" in why and "without anyone running out" in why


@pytest.mark.parametrize(
    "games, rules",
    [(1, Rules()), (40, Rules(players=2, rounds=1)), (60, Rules(players=3, set_aside=4, set_aside_face="revealed"))],
    ids=["one-game", "2p-one-round", "3p-four-set-aside"],
)
@pytest.mark.slow("end to end")
def test_the_smallest_and_oddest_runs_still_get_a_whole_report(tmp_path, games, rules):
    out = tmp_path / "r"
    run(Config(name="small", games=games, seed=9, rules=rules), out=out, progress=False)
    text, page = page_of(out / "report.html")
    assert {"headline", *(anchor for anchor, _ in SECTIONS)} <= set(page.attrs("id"))
    assert 'data-replay-match="false"' not in text
    if games == 1:
        assert "too few games to tell an edge from chance" in visible(text)
