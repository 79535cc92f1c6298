"""The run summary: exact merging of chunks, exact percentiles, known intervals.

The records here are synthetic (drawn with numpy, not played), so these
tests check the statistics alone, whatever the engine does.
"""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.stats import Z95, IntHistogram, mean_and_sd, mean_interval, t95, wilson_interval
from sim.lasvegan.summary import Tally, summarize, summarize_records, summary_table
from sim.lasvegan.records import empty_records, slice_records
from analysis.common import num, num_ci, pct, pct_ci
from tests.helpers import assert_table_fits, table_block


def fake_records(n_games: int, players: int = 4, rounds: int = 4, seed: int = 0) -> dict[str, np.ndarray]:
    """Records with the layout and invariants of real ones, random contents."""
    rng = np.random.default_rng(seed)
    rec = empty_records(n_games, players, rounds)
    rec["game"][:] = np.arange(n_games)
    rec["rounds_played"][:] = rng.integers(1, rounds + 1, n_games)
    played = np.arange(rounds)[None, :] < rec["rounds_played"][:, None]
    rec["delta"][:] = rng.integers(-12, 4, (n_games, rounds, players)) * played[:, :, None]
    rec["amount"][:] = rng.integers(-6, 3, (n_games, rounds, 3, players)) * played[:, :, None, None]
    rec["shortfall"][:] = rng.integers(0, 3, (n_games, rounds)) * (rng.random((n_games, rounds)) < 0.1) * played
    # Few distinct values, so that ties for most cabbages are common.
    final = rng.integers(0, 6, (n_games, players))
    rec["final_cabbages"][:] = final
    winners = final == final.max(axis=1, keepdims=True)
    rec["win_share"][:] = winners / winners.sum(axis=1, keepdims=True)
    rec["elim_round"][:] = np.where((final == 0).any(axis=1), rec["rounds_played"], 0)
    rec["seven_no_slot"][:] = rng.random(n_games) < 0.05
    return rec


# --- statistics ------------------------------------------------------------


def test_wilson_interval_matches_published_values():
    # Newcombe (1998), "Two-sided confidence intervals for the single
    # proportion", Table I, method 3 (score interval).
    assert wilson_interval(81, 263) == pytest.approx((0.2553, 0.3662), abs=5e-5)
    assert wilson_interval(15, 148) == pytest.approx((0.0624, 0.1605), abs=5e-5)
    assert wilson_interval(0, 20) == pytest.approx((0.0, 0.1611), abs=5e-5)
    assert wilson_interval(1, 29) == pytest.approx((0.0061, 0.1718), abs=5e-5)


@pytest.mark.parametrize("successes, trials", [(0, 1), (0, 50), (50, 50), (1, 1), (3, 7)])
def test_wilson_interval_contains_the_estimate_at_the_edges(successes, trials):
    low, high = wilson_interval(successes, trials)
    assert 0.0 <= low <= successes / trials <= high <= 1.0


def test_wilson_interval_of_no_trials_is_undefined():
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


def test_z95_is_the_normal_quantile():
    assert Z95 == pytest.approx(1.959963984540054, abs=1e-15)


def test_mean_and_sd_from_integer_sums_match_numpy():
    x = np.random.default_rng(1).integers(-1000, 1000, 10_001)
    mean, sd = mean_and_sd(x.sum(), (x * x).sum(), x.size)
    assert mean == pytest.approx(x.mean(), rel=1e-15)
    assert sd == pytest.approx(x.std(ddof=1), rel=1e-12)
    low, high = mean_interval(mean, sd, x.size)
    assert (high - low) / 2 == pytest.approx(t95(x.size) * x.std(ddof=1) / math.sqrt(x.size), rel=1e-12)


def test_mean_interval_of_one_sample_is_undefined():
    mean, sd = mean_and_sd(5, 25, 1)
    assert mean == 5 and math.isnan(sd)
    assert all(math.isnan(x) for x in mean_interval(mean, sd, 1))


@pytest.mark.parametrize("n", [1, 2, 3, 10, 101, 5000])
def test_histogram_percentiles_equal_numpy(n):
    data = np.random.default_rng(n).integers(-40, 25, n)
    hist = IntHistogram.of(data)
    for q in (0, 2.5, 5, 10, 25, 33.3, 50, 66.7, 75, 90, 95, 97.5, 99, 100):
        assert hist.percentile(q) == np.percentile(data, q), q


def test_histogram_merge_equals_histogram_of_all():
    rng = np.random.default_rng(2)
    parts = [rng.integers(-5, 5, 100), rng.integers(20, 30, 7), np.array([], dtype=np.int64), rng.integers(-50, -40, 3)]
    merged = IntHistogram()
    for part in parts:
        merged = merged.merge(IntHistogram.of(part))
    whole = np.concatenate(parts)
    assert merged == IntHistogram.of(whole)
    assert merged.count == whole.size and merged.total == whole.sum()
    assert merged.percentile(50) == np.percentile(whole, 50)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.integers(-2**40, 2**40) | st.integers(-60, 60), max_size=30), max_size=5))
def test_histograms_merged_in_any_split_are_the_histogram_of_every_value(parts):
    """Whatever the parts (empty, equal, overlapping, far apart), the merge keeps each value once, counted."""
    merged = IntHistogram()
    for part in parts:
        merged = merged.merge(IntHistogram.of(np.array(part, dtype=np.int64)))
    values, counts = np.unique(np.array([v for part in parts for v in part], dtype=np.int64), return_counts=True)
    assert merged.values.tolist() == values.tolist() and merged.count == counts.sum()
    assert merged == IntHistogram.of(values.repeat(counts))


@pytest.mark.parametrize("spread", [10, 10**6, 10**8], ids=["narrow", "dollars", "wide"])
def test_a_histogram_of_values_spread_over_millions_keeps_and_merges_only_what_occurred(spread):
    """Money counted in dollars: a few hundred values over a range of millions merge exactly and stay small."""
    rng = np.random.default_rng(spread)
    parts = [rng.integers(-spread, spread, n) for n in (300, 1, 0, 250)]
    merged = IntHistogram()
    for part in parts:
        merged = merged.merge(IntHistogram.of(part))
    whole = np.concatenate(parts)
    assert merged == IntHistogram.of(whole) and len(merged.values) == len(np.unique(whole))
    assert merged.count == whole.size and merged.total == int(whole.sum()) and merged.total_sq == int((whole * whole).sum())
    for q in (0, 2.5, 50, 97.5, 100):
        assert merged.percentile(q) == np.percentile(whole, q), q
    assert merged.scaled(3) == IntHistogram.of(whole * 3)
    if spread <= 10**6:  # its JSON lists the counts from the least value to the largest
        assert IntHistogram.from_json(merged.to_json()) == merged
        assert merged.to_json()["offset"] == whole.min() and sum(merged.to_json()["counts"]) == whole.size


def test_a_histogram_given_its_counts_from_an_offset_reads_back_the_same():
    hist = IntHistogram(np.array([0, 2, 0, 0, 1, 0]), offset=-3)
    assert hist.as_dict() == {-2: 2, 1: 1} and hist.offset == -2 and hist.counts.tolist() == [2, 0, 0, 1]
    assert IntHistogram().to_json() == {"offset": 0, "counts": []} and IntHistogram().count == 0


# --- tally and summary -----------------------------------------------------


def test_merged_chunks_give_exactly_the_summary_of_the_whole():
    rec = fake_records(5_000, seed=3)
    whole = Tally.of(rec)
    cuts = [0, 1, 1, 700, 2_048, 4_999, 5_000]  # includes an empty chunk and a single game
    merged = Tally.empty(4, 4)
    for a, b in zip(cuts, cuts[1:]):
        merged = merged.merge(Tally.of(slice_records(rec, slice(a, b))))
    assert merged == whole
    assert summarize(merged, seed=1) == summarize(whole, seed=1)


def test_merge_is_order_independent():
    rec = fake_records(1_000, players=3, rounds=2, seed=4)
    a, b = Tally.of(slice_records(rec, slice(0, 400))), Tally.of(slice_records(rec, slice(400, None)))
    assert a.merge(b) == b.merge(a) == Tally.of(rec)


def test_tallies_of_different_tables_do_not_merge():
    with pytest.raises(ValueError, match="cannot merge"):
        Tally.empty(4, 4).merge(Tally.empty(3, 4))


@pytest.mark.parametrize("players, rounds", [(2, 1), (3, 4), (4, 4), (5, 3)])
def test_summary_values_equal_direct_computation(players, rounds):
    n = 3_000
    rec = fake_records(n, players, rounds, seed=players * 10 + rounds)
    s = summarize_records(rec, seed=9, seconds=2.0, policies=["random"] * players)

    win = rec["win_share"]
    assert s["win_share"] == pytest.approx(win.mean(axis=0), rel=1e-12)
    assert sum(s["win_share"]) == pytest.approx(1.0, abs=1e-12)
    half = t95(n) * win.std(axis=0, ddof=1) / math.sqrt(n)
    for (low, high), m, h in zip(s["win_share_ci"], win.mean(axis=0), half):
        assert low == pytest.approx(m - h, rel=1e-9) and high == pytest.approx(m + h, rel=1e-9)
    assert s["first_player_advantage"] == pytest.approx(win[:, 0].mean() - 1 / players, abs=1e-12)
    assert s["tie_rate"] == np.mean((win > 0).sum(axis=1) > 1)
    assert s["elimination_rate"] == np.mean(rec["elim_round"] > 0)
    assert s["end_round_share"] == [np.mean(rec["rounds_played"] == r + 1) for r in range(rounds)]
    assert s["mean_rounds"] == pytest.approx(rec["rounds_played"].mean(), rel=1e-12)

    played = np.arange(rounds)[None, :] < rec["rounds_played"][:, None]
    swings = rec["delta"][played].ravel()
    assert s["swing"]["mean"] == pytest.approx(swings.mean(), rel=1e-12)
    assert s["swing"]["sd"] == pytest.approx(swings.std(ddof=1), rel=1e-12)
    for q in (5, 50, 95):
        assert s["swing"][f"p{q:02d}"] == np.percentile(swings, q)
        assert s["final_cabbages"][f"p{q:02d}"] == np.percentile(rec["final_cabbages"], q)
    assert s["final_cabbages_mean"] == pytest.approx(rec["final_cabbages"].mean(axis=0), rel=1e-12)
    assert s["shortfall_rate"] == np.mean(rec["shortfall"][played] > 0)
    assert s["amount_mean"]["golden"] == pytest.approx(rec["amount"][:, :, 2, :][played].mean(), rel=1e-12)
    assert s["seven_no_slot_rate"] == np.mean(rec["seven_no_slot"] > 0)
    assert s["games_per_second"] == n / 2.0
    assert (s["players"], s["games"], s["seed"], s["policies"]) == (players, n, 9, ["random"] * players)


def test_summary_of_one_game_is_valid_json_with_undefined_intervals():
    s = summarize_records(fake_records(1))
    text = json.dumps(s, allow_nan=False)  # no NaN sneaks into the JSON
    assert json.loads(text) == s
    assert s["win_share_ci"][0] == [None, None]
    assert s["mean_rounds_ci"] == [None, None]
    assert s["swing"]["sd"] is not None  # every seat of the game gave a swing


def test_summary_table_shows_every_seat_and_the_headline_figures():
    s = summarize_records(fake_records(500, players=5), seed=3, seconds=0.25, policies=["random"] * 5)
    text = summary_table(s)
    for seat in range(5):
        assert f"seat {seat}" in text
    for phrase in ("first-player advantage", "elimination rate", "ended after round", "swing", "final",
                   "tie rate", "reserve shortfall rate", "Played 500 games in 0.25 s (2,000 games/s)"):
        assert phrase in text


def test_summary_table_gives_each_estimate_its_interval():
    rec = fake_records(600, players=4, seed=5)
    rec["zero_playing_on"][:] = np.random.default_rng(6).random(600) < 0.03
    s = summarize_records(rec, seed=3, policies=["random"] * 4)
    text = summary_table(s)
    games = table_block(text, "Games")
    assert games["tie rate"] == f"{pct(s['tie_rate'])} {pct_ci(s['tie_rate_ci'])} of games"
    assert games["mean |swing| per round"].startswith(f"{num(s['mean_abs_swing'])} {num_ci(s['mean_abs_swing_ci'])} ")
    # Shares of the games, counted exactly: the Wilson interval of their count.
    ends = np.bincount(rec["rounds_played"] - 1, minlength=4)
    for r, count in enumerate(ends):
        assert games[f"ended after round {r + 1}"] == f"{pct(count / 600)} {pct_ci(wilson_interval(count, 600))}"
    for label, field in (("7s with no free slot", "seven_no_slot"), ("seat playing on at 0", "zero_playing_on")):
        count = int(np.count_nonzero(rec[field]))
        assert 0 < count < 600
        assert games[label] == f"{pct(count / 600)} {pct_ci(wilson_interval(count, 600))} of games"
    by_seat = table_block(text, "Final cabbages by seat, mean (95% CI)")
    assert by_seat == {f"seat {i}": f"{num(m)} {num_ci(ci)}"
                       for i, (m, ci) in enumerate(zip(s["final_cabbages_mean"], s["final_cabbages_mean_ci"]))}
    assert_table_fits(text)


def test_a_long_sentence_of_the_table_is_wrapped_with_its_command_whole():
    from analysis.common import paragraph

    command = "'lvsim confirm --config RESULTS_DIR/config.toml --players 4'"
    sentence = "Stronger seats move nothing clearly: " + "many deals cannot decide it, " * 12 + f"and {command} plays on."
    lines = paragraph(sentence)
    assert len(lines) > 1 and all(len(line) <= 120 and line.startswith("  ") for line in lines)
    assert " ".join(line.strip() for line in lines) == sentence
    assert any(command in line for line in lines)
