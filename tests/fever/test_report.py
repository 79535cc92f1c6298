"""The $ Fever report: written by the run, every section there, its numbers the summary's, its example
games replays; a race alone and the odd runs still get a whole report."""

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import sim.fever.report
from sim.fever import tables
from sim.fever.report import SECTIONS, build_report, replay_game, standin_warning
from sim.fever.summary import Tally, summarize
from analysis.common import num, num_ci, pct, pct_ci, title_line
from analysis.results import load_results
from sim.cli import main
from sim.config import Config
from sim.fever.nb import play_games
from sim.fever.params import Rules
from sim.fever.policies import parse_seats
from sim.fever.records import LAYOUT
from sim.runner import run
from tests.analysis.test_report import page_of, section, visible
from tests.helpers import assert_table_fits, table_block

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


@pytest.fixture(scope="module")
def fever_run(tmp_path_factory):
    """``lvsim run configs/fever.toml --json`` on a few hundred games; the run writes its report itself."""
    out = tmp_path_factory.mktemp("fever-run") / "results"
    result = CliRunner().invoke(main, ["run", str(CONFIGS / "fever.toml"), "--games", "600", "--seed", "5",
                                       "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)


@pytest.fixture(scope="module")
def results(fever_run):
    return load_results(fever_run[0])


def test_the_shipped_config_runs_and_writes_a_self_contained_report(fever_run):
    out, summary = fever_run
    text, page = page_of(out / "report.html")
    assert "<title>$ Fever balance report: fever</title>" in text
    assert not {tag for tag, _ in page.tags} & {"script", "link", "iframe"}
    assert len(page.attrs("src")) >= 3
    assert {"headline", *(anchor for anchor, _ in SECTIONS)} <= set(page.attrs("id"))
    for key in ("win_share", "win_share_ci", "first_player_advantage", "first_player_advantage_ci",
                "game_length_turns", "game_length_rounds", "unfinished_rate", "points_by_combination",
                "double_rate", "double_gain", "drought_rate", "reshuffles_per_game", "games_per_second"):
        assert key in summary, key
    assert set(summary["game_length_turns"]) == {"mean", "p05", "p50", "p95"}


def test_the_strength_table_names_each_profiles_policy_in_full(fever_run):
    """montecarlo:4 and montecarlo:16 are two columns of the printed table, not montecarlo twice."""
    from analysis.common import strength_lines
    from sim.games import get_game

    _, summary = fever_run
    header = strength_lines(summary, get_game("fever").strength_metrics.values())[2].split()
    assert header == [p["policy"] for p in summary["strength"]["profiles"]]
    assert len(set(header)) == len(header) >= 2


def test_the_headline_numbers_are_the_summary_exactly(fever_run):
    out, s = fever_run
    metrics = page_of(out / "report.html")[1].metrics()
    assert metrics["first_player_advantage"] == s["first_player_advantage"]
    assert metrics["unfinished_rate"] == s["unfinished_rate"]
    assert metrics["game_length_turns_p50"] == s["game_length_turns"]["p50"]
    assert metrics["double_gain"] == s["double_gain"] and metrics["drought_rate"] == s["drought_rate"]
    assert metrics["games"] == 600


def test_the_stand_in_deck_and_pay_table_are_flagged_and_a_designers_are_not(fever_run, results):
    text = (fever_run[0] / "report.html").read_text(encoding="utf-8")
    assert "[default]" in visible(section(text, "headline")) and "[default]" in visible(section(text, "standins"))
    assert standin_warning(results.config.rules)
    own = Rules(paytable=[{"symbols": ["cherry", "cherry", "*"], "points": 1}])
    assert "pay table" not in standin_warning(own) and "symbol deck" in standin_warning(own)
    assert standin_warning(Rules(deck={"a": 20}, paytable=[{"symbols": ["a"] * 3, "points": 1}])) == ""


def test_the_sections_show_the_summarys_numbers(fever_run, results):
    out, s = fever_run
    text = (out / "report.html").read_text(encoding="utf-8")
    seats = visible(section(text, "seats"))
    for share in s["win_share"]:
        assert f"{100 * share:.2f}%" in seats
    length = visible(section(text, "length"))
    assert f"{s['game_length_turns']['mean']:.1f}" in length
    # minutes at 15 s a turn: the median turns / 4
    assert f"{s['game_length_turns']['p50'] * 15 / 60:.1f} min" in length
    combos = visible(section(text, "combinations"))
    for label in ("seven x3", "cherry x3"):
        assert label in combos
    assert "Never scored, whatever the play: seven x3 (the deck holds only 2 cards of seven)." in combos
    assert "richer pattern" not in combos
    assert f"{100 * s['double_rate']:.2f}%" in visible(section(text, "doubling"))
    assert f"{100 * s['drought_rate']:.2f}%" in visible(section(text, "droughts"))


def test_a_pattern_never_scored_is_given_its_true_reason():
    """Too few cards of its symbol, a pattern that always matches first, or both: each said only when true."""
    from sim.fever.report import unreachable_reason

    assert unreachable_reason(Rules(), 7) == "the deck holds only 2 cards of seven"  # seven x3, the richest
    sevens = [{"symbols": ["seven"] * 3, "points": 6}, {"symbols": ["seven", "*", "*"], "points": 1},
              {"symbols": ["seven", "seven", "*"], "points": 1}]
    assert unreachable_reason(Rules(deck={"cherry": 20, "seven": 3}, paytable=sevens), 2) == (
        "every machine the deck can show that matches it matches first patterns that pay more, or as much and are "
        "listed before it, seven x3 and seven * *")
    both = Rules(deck={"cherry": 20, "seven": 2}, paytable=[{"symbols": ["seven", "seven", "*"], "points": 6},
                                                            {"symbols": ["seven", "seven", "seven|cherry"], "points": 1}])
    assert both.unreachable_patterns == (1,)
    assert unreachable_reason(both, 1) == ("the deck holds only 2 cards of seven, and every other machine that "
                                           "matches it matches first a richer pattern, seven seven *")


def test_the_tables_agree_with_the_records(results):
    rec = results.read_records()
    finished = rec["winner"] >= 0
    t = results.tally
    assert tables.length_histogram(t)["count"].sum() == finished.sum()
    assert results.summary["game_length_turns"]["p95"] == float(np.percentile(rec["turns"][finished], 95))
    combos = tables.combinations_table(t, results.config.rules)
    points = rec["pattern_points"].sum(axis=0)
    assert combos["share"].tolist() == pytest.approx((points / points.sum()).tolist())
    by_seat = t.win_share_by_seat()
    assert by_seat["mean"].tolist() == pytest.approx(rec["win_share"][finished].mean(axis=0).tolist())


def test_the_example_games_are_replays_equal_to_their_stored_records(fever_run, results):
    text, page = page_of(fever_run[0] / "report.html")
    games = [int(g) for g in page.attrs("data-game")]
    assert games == [game for _, _, game, _ in tables.example_games(results.tally)]
    assert page.attrs("data-replay-match") == ["true"] * len(games)
    config = results.config
    for game, stored in zip(games, results.game_rows(games)):
        replayed, trace = replay_game(config.rules, config.seed, game, config.seat_policies)
        assert LAYOUT.differences(replayed, stored) == []
        assert len(trace["turns"]) == stored["turns"]


@pytest.mark.slow("end to end")
def test_a_replay_that_does_not_match_its_record_is_reported(results, monkeypatch):
    def wrong(rules, seed, game, seats):
        replayed, trace = replay_game(rules, seed, game, seats)
        replayed["turns"] += 1
        return replayed, trace

    monkeypatch.setattr(sim.fever.report, "replay_game", wrong)
    text = build_report(results)
    assert 'data-replay-match="false"' in text and "turns differ" in text


@pytest.mark.slow("end to end")
def test_the_pace_in_seconds_per_turn_is_configurable(results, monkeypatch):
    p50 = results.summary["game_length_turns"]["p50"]
    assert f"{p50 * 40 / 60:.1f} min at 40 s a turn" in visible(build_report(results, seconds_per_turn=40))
    monkeypatch.setenv("LVSIM_SECONDS_PER_TURN", "6")
    assert f"{p50 * 6 / 60:.1f} min at 6 s a turn" in visible(build_report(results))


@pytest.mark.slow("end to end")
def test_lvsim_report_rewrites_the_report_from_the_records(fever_run, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(fever_run[0], copy)
    (copy / "report.html").unlink()
    (copy / "tally.json").unlink()
    result = CliRunner().invoke(main, ["report", str(copy)])
    assert result.exit_code == 0, result.output
    assert (copy / "report.html").read_text(encoding="utf-8") == (fever_run[0] / "report.html").read_text(
        encoding="utf-8")


@pytest.mark.parametrize("games, rules, seats", [
    (1, Rules(), "random"),
    (80, Rules(players=1), "greedy"),
    (60, Rules(players=2, double_up=False, turn_cap=30), "random"),
    (60, Rules(players=5, refill_after_scoring=False, reshuffle_discards=False), ("greedy", "random") * 2 + ("greedy",)),
], ids=["one-game", "race-alone", "2p-capped-no-double", "5p-no-refill-mixed"])
def test_the_smallest_and_oddest_runs_still_get_a_whole_report(tmp_path, games, rules, seats):
    out = tmp_path / "r"
    run(Config(name="small", game="fever", games=games, seed=9, rules=rules, seats=seats,
               skill_gap_games=0, strength_games=0, strength_lookahead_games=0), out=out, progress=False)
    text, page = page_of(out / "report.html")
    assert {"headline", *(anchor for anchor, _ in SECTIONS)} <= set(page.attrs("id"))
    assert 'data-replay-match="false"' not in text
    if rules.players == 1:
        assert "no seat to compare" in visible(section(text, "seats"))
        assert "first_player_advantage" not in page.metrics()


def test_a_race_alone_runs_end_to_end_with_the_strength_profile_and_no_skill_gap(tmp_path):
    """One seat has no others to duel: the skill gap (and which decisions matter, played with it) is left out."""
    out = tmp_path / "solo"
    result = CliRunner().invoke(main, ["run", str(CONFIGS / "fever.toml"), "--players", "1", "--games", "300",
                                       "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    s = json.loads(result.stdout)
    assert s["players"] == 1 and s["first_player_advantage"] is None and s["win_share"] == [1.0]
    assert "strength" in s and "skill_gap" not in s and not (out / "decisions.json").exists()
    assert title_line("$ Fever", s).startswith("$ Fever, 1 player, ")


@pytest.mark.parametrize("players", [1, 3, 5])
def test_the_tally_round_trips_and_merges_whatever_the_chunking(tmp_path, players):
    rules = Rules(players=players)
    rec = play_games(rules, 3, 0, 500, *parse_seats("greedy", players))
    whole = Tally.of(rec)
    parts = Tally.empty(players, rules.patterns)
    for a in range(0, 500, 64):
        parts = Tally.of({k: v[a:a + 64] for k, v in rec.items()}).merge(parts)
    assert parts == whole
    whole.write(tmp_path / "tally.json")
    assert Tally.read(tmp_path / "tally.json") == whole
    s = summarize(whole)
    assert s["unfinished_rate"] == pytest.approx((rec["winner"] < 0).mean())
    assert s["double_rate"] == pytest.approx(rec["doubles"].sum() / rec["turns"].sum())
    net = rec["double_points_won"].astype(int) - rec["double_points_given"]
    assert s["double_gain"] == pytest.approx(net.sum() / rec["doubles"].sum())
    assert s["drought_rate"] == pytest.approx(rec["drought_rounds"].sum() / rec["full_rounds"].sum())
    assert s["reshuffles_per_game"] == pytest.approx(rec["reshuffles"].mean())
    assert sum(s["points_by_combination"]) == pytest.approx(1.0)
    for m in re.findall(r"p(\d\d)", "p05 p50 p95"):
        assert s["game_length_turns"][f"p{m}"] == float(np.percentile(rec["turns"][rec["winner"] >= 0], int(m)))


def test_the_text_summary_writes_the_mean_game_length_to_the_digits_of_its_interval():
    from sim.fever.summary import summary_table

    summary = run(Config(name="t", game="fever", games=200, seed=2, skill_gap_games=0, strength_games=0,
                         strength_lookahead_games=0, sensitivity_games=0), out=None, progress=False).summary
    line = next(ln for ln in summary_table(summary).splitlines() if ln.strip().startswith("turns "))
    mean, low, high = re.findall(r"\d+\.\d+", line)[:3]
    assert len(mean.split(".")[1]) == len(low.split(".")[1]) == len(high.split(".")[1]) == 2, line


def test_the_text_summary_gives_each_estimate_its_interval():
    from sim.fever.summary import summary_table

    rec = play_games(Rules(players=4), 3, 0, 400, *parse_seats("greedy", 4))
    s = summarize(Tally.of(rec), seed=3, policies=["greedy"] * 4)
    text = summary_table(s)
    length, scoring = table_block(text, "Game length (finished games)"), table_block(text, "Scoring")
    assert length["turns"].startswith(f"{num(s['turns_mean'])} {num_ci(s['turns_mean_ci'])} p05 ")
    assert length["unfinished"] == (f"{pct(s['unfinished_rate'])} {pct_ci(s['unfinished_rate_ci'])} "
                                    "of games, ended by the turn cap")
    assert scoring["drought rounds"] == (f"{pct(s['drought_rate'])} {pct_ci(s['drought_rate_ci'])} "
                                         "rounds in which no seat could score")
    assert scoring["turns that double"] == f"{pct(s['double_rate'])} {pct_ci(s['double_rate_ci'])}"
    assert scoring["gain of a double"] == (f"{num(s['double_gain'])} {num_ci(s['double_gain_ci'])} "
                                           "points scored minus points given up")
    assert scoring["reshuffles per game"] == f"{num(s['reshuffles_per_game'])} {num_ci(s['reshuffles_per_game_ci'])}"
    assert_table_fits(text)
