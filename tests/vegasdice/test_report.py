"""The Las Vegas report: written by the run, every section there, its numbers the summary's, its example games replays."""

import html
import json
import re
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

import sim.vegasdice.report
from analysis.results import load_results
from analysis.stats import t95
from sim.vegasdice import tables
from sim.vegasdice.report import SECTIONS, build_report, example_picks, first_card_verdict, replay_game
from sim.vegasdice.summary import Tally, summarize
from sim.cli import main
from sim.config import Config
from sim.runner import run
from sim.vegasdice.nb import play_games
from sim.vegasdice.params import Rules
from sim.vegasdice.policies import parse_seats
from sim.vegasdice.records import LAYOUT, slice_records
from tests.analysis.test_report import page_of, section, visible


@pytest.fixture(scope="module")
def results(small_dice_run):
    return load_results(small_dice_run.directory)


@pytest.fixture(scope="module")
def records(results):
    return results.read_records()


# --- written by the run ------------------------------------------------------------------


def test_the_run_of_the_shipped_config_writes_a_self_contained_report(small_dice_run):
    text, page = page_of(small_dice_run.report)
    assert text.startswith("<!DOCTYPE html>") and "<title>Las Vegas balance report: vegas-dice</title>" in text
    tags = {tag for tag, _ in page.tags}
    assert not tags & {"script", "link", "iframe", "object", "embed"}
    assert all(src.startswith("data:image/png;base64,") for src in page.attrs("src"))
    assert len(page.attrs("src")) >= 5


def test_every_section_is_present_and_listed_in_the_contents(small_dice_run):
    text, page = page_of(small_dice_run.report)
    assert {"headline", *(anchor for anchor, _ in SECTIONS)} <= set(page.attrs("id"))
    for anchor, title in SECTIONS:
        assert f'href="#{anchor}"' in text
        assert f"<h2>{html.escape(title)}</h2>" in text


def test_the_method_says_how_the_shares_with_an_interval_get_it(small_dice_run):
    """The three headline shares carry a cluster interval over games: the method neither calls the ties' a
    Wilson interval over payouts nor says the money shares have none."""
    s = small_dice_run.summary
    assert all(s[f"{name}_ci"][0] is not None for name in ("tie_cancel_rate", "white_dice_share", "unclaimed_share"))
    text, _ = page_of(small_dice_run.report)
    method = " ".join(visible(section(text, "method")).split())
    assert "Wilson score interval over payouts" not in method and "somewhat narrow" not in method, method
    assert "they are shown without an interval" not in method, method
    assert ("Ties cancelling and the money won by the white dice and by nobody: a ratio of per-game sums with a "
            "cluster-robust standard error") in method, method


def test_the_headline_numbers_are_the_summary_exactly(small_dice_run):
    s = small_dice_run.summary
    assert page_of(small_dice_run.report)[1].metrics() == {
        "players": s["players"], "games": s["games"], "seed": s["seed"],
        "win_share_0": s["win_share"][0],
        "first_player_advantage": s["first_player_advantage"],
        "first_player_advantage_ci": s["first_player_advantage_ci"],
        "first_card_advantage": s["first_card_advantage"],
        "first_card_advantage_ci": s["first_card_advantage_ci"],
        "first_card_share": s["first_card_share"],
        "tie_cancel_rate": s["tie_cancel_rate"], "tie_cancel_rate_ci": s["tie_cancel_rate_ci"],
        "winner_margin_mean": s["winner_margin"]["mean"], "winner_margin_p50": s["winner_margin"]["p50"],
        "winner_margin_p95": s["winner_margin"]["p95"],
        "white_dice_share": s["white_dice_share"], "unclaimed_share": s["unclaimed_share"],
        "money_tie_rate": s["money_tie_rate"], "tie_rate": s["tie_rate"],
    }


def test_the_sections_show_the_summarys_numbers(small_dice_run):
    s = small_dice_run.summary
    text = small_dice_run.report.read_text(encoding="utf-8")
    seats = visible(section(text, "seats"))
    for seat, share in enumerate(s["win_share"]):
        assert f"{100 * share:.2f}%" in seats
        assert f"${s['money_mean'][seat]:,.0f}" in seats
    assert first_card_verdict(s) in html.unescape(seats)
    money = visible(section(text, "money"))
    assert f"${s['winner_margin']['p95']:,.0f}" in money and f"${s['winner_margin']['mean']:,.0f}" in money
    ties = visible(section(text, "ties-white"))
    assert f"{100 * s['tie_cancel_rate']:.2f}%" in ties and f"{100 * s['white_dice_share']:.2f}%" in ties
    strength = visible(section(text, "strength"))
    assert s["strength"]["verdict"]["sentence"] in html.unescape(strength)
    skill = visible(section(text, "skill"))
    assert "One greedy seat among random seats wins" in skill


def test_the_tables_agree_with_the_summary_and_the_records(results, records):
    s = results.summary
    t = results.tally
    by_seat = t.win_share_by_seat()
    assert by_seat["mean"].tolist() == pytest.approx(s["win_share"], abs=1e-12)
    assert by_seat["low"].tolist() == pytest.approx([ci[0] for ci in s["win_share_ci"]], abs=1e-12)
    money = tables.money_by_seat(t)
    assert money["mean"].tolist() == pytest.approx(s["money_mean"], rel=1e-12)
    for q in tables.QUANTILES:  # exact percentiles, from the histograms
        assert money[f"p{q:02d}"].tolist() == [float(np.percentile(records["money"][:, seat], q))
                                               for seat in range(t.players)]
    assert tables.money_percentile(t, 50) == float(np.percentile(records["money"], 50))
    by_place = tables.won_by_place(t)
    # The card holder's edge per round is place 0's winnings minus the even share.
    assert by_place["mean"][0] - by_place["fair"][0] == pytest.approx(s["first_card_advantage"], abs=1e-6)
    assert by_place["mean"].mean() == pytest.approx(by_place["fair"][0], rel=1e-12)
    holder = records["won"][np.arange(len(records["game"]))[:, None], np.arange(t.rounds), records["first_player"]]
    assert by_place["mean"][0] == pytest.approx(holder.mean(), rel=1e-12)
    margins = tables.margin_histogram(t)
    assert margins["count"].sum() == t.games
    assert {m: c for m, c in zip(margins["margin"], margins["count"]) if c} == {
        int(m): int(c) for m, c in zip(*np.unique(records["margin"], return_counts=True))
    }


# --- example games -----------------------------------------------------------------------------


def test_the_example_games_are_a_typical_game_and_the_closest_finish(results, records):
    picks = {anchor: game for anchor, _, game, _ in example_picks(results.tally)}
    margin = records["margin"]
    closest = picks.get("closest-finish", picks["typical"])
    assert margin[closest] == margin.min() and closest == int(np.flatnonzero(margin == margin.min())[0])
    typical = picks["typical"]
    median = np.percentile(margin, 50)
    nearest = min(np.unique(margin), key=lambda m: (abs(m - median), m))
    assert margin[typical] == nearest and typical == int(np.flatnonzero(margin == nearest)[0])


def test_the_example_games_are_replays_equal_to_their_stored_records(small_dice_run, results):
    text, page = page_of(small_dice_run.report)
    games = [int(g) for g in page.attrs("data-game")]
    assert games == [game for _, _, game, _ in example_picks(results.tally)]
    assert page.attrs("data-replay-match") == ["true"] * len(games)
    config = results.config
    for game, stored in zip(games, results.game_rows(games)):
        replayed, trace = replay_game(config.rules, config.seed, game, config.seat_policies)
        assert LAYOUT.differences(replayed, stored) == []
        assert trace["money"] == stored["money"].tolist()


def test_the_example_games_are_told_round_by_round(small_dice_run, results):
    text = small_dice_run.report.read_text(encoding="utf-8")
    first = re.search(r'<article class="example" id="example-typical".*?</article>', text, re.S).group()
    story = visible(first)
    for r in range(1, results.config.rules.rounds + 1):
        assert f"Round {r} · seat {(r - 1) % results.players} holds the first-player card" in story
    assert story.count("casino 1") >= results.config.rules.rounds
    assert re.search(r"(Seat \d wins (with|on)|share the win)", story)
    game = int(re.search(r'data-game="(\d+)"', first).group(1))
    money = results.game_rows([game])[0]["money"]
    assert all(f"${m:,}" in story for m in money.tolist())


@pytest.mark.slow("end to end")
def test_a_replay_that_does_not_match_its_record_is_reported(results, monkeypatch):
    def replay_with_a_wrong_record(rules, seed, game, seats):
        replayed, trace = replay_game(rules, seed, game, seats)
        replayed["money"][0] += 10000
        return replayed, trace

    monkeypatch.setattr(sim.vegasdice.report, "replay_game", replay_with_a_wrong_record)
    text = build_report(results)
    assert 'data-replay-match="false"' in text
    assert "The replay does <strong>not</strong> match the stored record: money differ" in text


# --- the tally ---------------------------------------------------------------------------------


def played(players=4, n=600, seats="random", seed=3, **knobs):
    rules = Rules(players=players, **knobs)
    ids, params = parse_seats(seats, players)
    return rules, play_games(rules, seed, 0, n, ids, params)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_the_tally_round_trips_through_json_with_the_reports_fields(tmp_path, players):
    _, rec = played(players)
    tally = Tally.of(rec)
    assert tally.by_margin.counts and len(tally.money_seat) == players and tally.money_step > 0
    again = Tally.from_json(json.loads(json.dumps(tally.to_json())))
    assert again == tally
    assert again.money_seat == tally.money_seat and again.by_margin == tally.by_margin
    assert again.win_cross == tally.win_cross and again.place_won_xy == tally.place_won_xy
    tally.write(tmp_path / "tally.json")
    assert Tally.read(tmp_path / "tally.json") == tally


def test_final_money_in_different_steps_merges_exactly():
    _, rec = played(2, n=400)
    rec["money"][:200] = 20000 * (np.arange(400).reshape(200, 2) % 7)
    rec["money"][200:] = 5000 * (np.arange(400).reshape(200, 2) % 9)
    a, b = Tally.of(slice_records(rec, slice(0, 200))), Tally.of(slice_records(rec, slice(200, 400)))
    assert (a.money_step, b.money_step) == (20000, 5000)
    merged = a.merge(b)
    assert merged == Tally.of(rec) and merged.money_step == 5000
    by_seat = tables.money_by_seat(merged)
    for q in tables.QUANTILES:
        assert by_seat[f"p{q:02d}"].tolist() == [float(np.percentile(rec["money"][:, s], q)) for s in range(2)]


def test_the_first_game_of_each_margin_is_kept_whatever_the_chunking():
    _, rec = played(3, n=500)
    whole = Tally.of(rec)
    parts = Tally.empty(3, 4)
    for a in range(0, 500, 64):
        parts = Tally.of(slice_records(rec, slice(a, a + 64))).merge(parts)
    assert parts.by_margin == whole.by_margin
    for (margin,), first in whole.by_margin.first.items():
        assert first == int(np.flatnonzero(rec["margin"] == margin)[0])


def test_win_share_by_policy_sums_its_seats():
    _, rec = played(3, n=600, seats=["greedy", "random", "random"])
    t = Tally.of(rec)
    by_policy = t.win_share_by_policy(["greedy", "random", "random"]).set_index("policy")
    assert by_policy.loc["random", "mean"] == pytest.approx(rec["win_share"][:, 1:].sum(axis=1).mean(), rel=1e-12)
    per_game = rec["win_share"][:, 1:].sum(axis=1)
    half = t95(len(per_game)) * per_game.std(ddof=1) / np.sqrt(len(per_game))
    assert by_policy.loc["random", "high"] - by_policy.loc["random", "mean"] == pytest.approx(half, rel=1e-9)
    assert by_policy.loc["greedy", "fair"] == pytest.approx(1 / 3)
    assert summarize(t)["games"] == 600


# --- the command and odd runs ------------------------------------------------------------------


@pytest.mark.slow("end to end")
def test_lvsim_report_rewrites_the_report_of_a_dice_run(small_dice_run, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(small_dice_run.directory, copy)
    (copy / "report.html").unlink()
    (copy / "tally.json").unlink()  # rebuilt from the records file
    result = CliRunner().invoke(main, ["report", str(copy)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(copy / "report.html")
    # The tally rebuilt from the records gives the report the run wrote, byte for byte.
    assert (copy / "report.html").read_text(encoding="utf-8") == small_dice_run.report.read_text(encoding="utf-8")


@pytest.mark.slow("end to end")
def test_a_tally_an_older_version_wrote_is_rebuilt_from_the_records_and_a_garbled_one_refused(small_dice_run, tmp_path):
    """A run's tally.json from before the shares' moments were kept is not malformed: the records give it again."""
    copy = tmp_path / "copy"
    shutil.copytree(small_dice_run.directory, copy)
    (copy / "report.html").unlink()
    stored = json.loads((copy / "tally.json").read_text(encoding="utf-8"))
    del stored["share_moments"]
    (copy / "tally.json").write_text(json.dumps(stored), encoding="utf-8")
    result = CliRunner().invoke(main, ["report", str(copy)])
    assert result.exit_code == 0, result.output
    assert (copy / "report.html").read_text(encoding="utf-8") == small_dice_run.report.read_text(encoding="utf-8")
    # Without another field too, it is no tally any version wrote.
    del stored["tie_cancels"]
    (copy / "tally.json").write_text(json.dumps(stored), encoding="utf-8")
    result = CliRunner().invoke(main, ["report", str(copy)])
    assert result.exit_code == 2 and "tally.json: cannot be read" in result.output


def test_mixed_seats_show_the_win_share_by_policy(tmp_path):
    out = tmp_path / "mixed"
    run(Config(name="mixed", game="vegas-dice", games=300, seed=4, rules=Rules(players=3),
               seats=("greedy", "random", "random"), skill_gap_games=0, strength_games=0,
               strength_lookahead_games=0), out=out, progress=False)
    text = visible((out / "report.html").read_text(encoding="utf-8"))
    assert "Share of all wins taken by each policy's seats" in text
    assert re.search(r"greedy\s*0\s*\d+\.\d+%", text) and re.search(r"random\s*1, 2\s*\d+\.\d+%", text)
    assert "This run skipped the strength profile" in text
    assert "the table rolls 2 more each round" in text


@pytest.mark.parametrize(
    "games, rules",
    [(1, Rules()), (40, Rules(players=2, rounds=1, white_dice=0)), (60, Rules(players=5)),
     (50, Rules(players=3, empty_pile="end", rounds=10))],
    ids=["one-game", "2p-one-round-no-white", "5p", "3p-pile-runs-out"],
)
def test_the_smallest_and_oddest_runs_still_get_a_whole_report(tmp_path, games, rules):
    out = tmp_path / "r"
    run(Config(name="small", game="vegas-dice", games=games, seed=9, rules=rules, skill_gap_games=0,
               strength_games=0, strength_lookahead_games=0), out=out, progress=False)
    text, page = page_of(out / "report.html")
    assert {"headline", *(anchor for anchor, _ in SECTIONS)} <= set(page.attrs("id"))
    assert 'data-replay-match="false"' not in text
    assert 'data-replay-match="true"' in text
    if games == 1:
        assert "too few games to tell an edge from chance" in visible(text)
