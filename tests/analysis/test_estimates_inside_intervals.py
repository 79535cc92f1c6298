"""Every estimate the tool writes lies inside the 95% interval written beside it.

The statistics of ``analysis.stats`` and ``analysis.common`` are checked on
any counts (hypothesis), the edge cases included: no games, one game, too
few for an interval, no wins, every win; the walker of ``tests.helpers``
then checks whatever real runs write (``tests/test_estimates_inside_intervals.py``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from analysis.common import json_ready, win_share_metrics, win_unit, worst_seat_advantage, \
    worst_seat_advantage_corrected
from analysis.stats import (
    Moments, cluster_ratio_interval, mean_and_sd, mean_interval, ratio_interval, sample_mean_interval, share_interval,
    wilson_interval,
)
from tests.helpers import assert_estimates_inside_intervals, estimates_outside_intervals

# --- the walker -----------------------------------------------------------------------------------


def test_the_walker_finds_an_estimate_outside_its_interval_wherever_it_is_written():
    written = {
        "tie_rate": 0.5, "tie_rate_ci": [0.6, 0.7],  # a value and its _ci
        "win_share": [0.2, 0.8], "win_share_ci": [[0.1, 0.3], [0.1, 0.3]],  # a list by seat: seat 1
        "rows": [{"x": 2.0, "x_lo": 0.0, "x_hi": 1.0}],  # a flattened row
        "table": pd.DataFrame([{"rate": 0.9, "low": 0.0, "high": 0.5}, {"mean": 1.0, "low": 0.0, "high": 2.0}]),
        "strength": {"profiles": [{"metrics": {"tie_rate": [0.3, 0.4, 0.5]}}]},  # a [value, low, high] triple
        "paired": [{"difference": 0.1, "difference_lo": 0.0, "difference_hi": 0.2,
                    "unpaired_lo": 0.15, "unpaired_hi": 0.3}],
        "drivers": [{"gain_share": 0.5, "gain_low": 0.1, "gain_high": 0.4}],  # a share beside its _low and _high
        "backwards": {"y": 1.0, "y_ci": [2.0, 0.0]},
    }
    found = estimates_outside_intervals(written)
    assert [f.split(":")[0] for f in found] == [
        ".tie_rate", ".win_share[1]", ".rows[0].x", ".table[0].rate", ".strength.profiles[0].metrics.tie_rate",
        ".paired[0].difference", ".drivers[0].gain_share", ".backwards.y"]


def test_the_walker_passes_estimates_inside_and_values_it_cannot_judge():
    assert_estimates_inside_intervals({
        "a": 0.5, "a_ci": [0.5, 0.5],
        "b": None, "b_ci": [0.0, 1.0],
        "c": 3.0, "c_ci": [None, None],
        "d": math.nan, "d_lo": 0.0, "d_hi": 1.0,
        "win_share": [0.3, 0.7], "win_share_ci": [[0.2, 0.4], None],
        "end_round_share": [0.9, 0.05, 0.05],  # three numbers under no key that holds triples
    })


# --- the statistics, on any counts ----------------------------------------------------------------


@settings(deadline=None)
@given(st.integers(0, 10**12), st.integers(0, 10**12))
@example(0, 16)
@example(16, 16)
@example(1, 1)
@example(1, 10**12)
@example(10**12 - 1, 10**12)
def test_a_wilson_interval_holds_its_rate(a, b):
    successes, trials = min(a, b), max(a, b)
    low, high = wilson_interval(successes, trials)
    if trials == 0:
        assert math.isnan(low) and math.isnan(high)
    else:
        assert 0.0 <= low <= successes / trials <= high <= 1.0


@settings(deadline=None)
@given(st.lists(st.integers(-50, 50), max_size=40))
@example([])
@example([7])
@example([3, 3, 3, 3])
@example([0, 1, 0])
def test_a_mean_interval_is_centred_on_its_mean(values):
    n = len(values)
    mean, sd = mean_and_sd(sum(values), sum(v * v for v in values), n)
    assert_estimates_inside_intervals({"mean": mean, "mean_ci": list(mean_interval(mean, sd, n))})
    mean, low, high = sample_mean_interval(np.array(values, dtype=float) / 7)
    assert_estimates_inside_intervals({"mean": mean, "mean_lo": low, "mean_hi": high})


@settings(deadline=None)
@given(st.lists(st.tuples(st.integers(-20, 20), st.integers(0, 6)), max_size=30))
@example([])
@example([(0, 0)] * 5)
@example([(3, 3)] * 5)
@example([(1, 2), (0, 0), (0, 0), (0, 0)])
def test_a_ratio_of_sums_over_clusters_lies_inside_its_interval(clusters):
    x = np.array([c[0] for c in clusters], dtype=np.int64)
    y = np.array([c[1] for c in clusters], dtype=np.int64)
    moments = Moments.of(x, y)
    mean, low, high = moments.interval()
    assert_estimates_inside_intervals({"r": mean, "r_lo": low, "r_hi": high})
    mean, low, high = ratio_interval(x, y)
    assert_estimates_inside_intervals({"r": mean, "r_lo": low, "r_hi": high})
    g = len(clusters)
    mean, low, high = cluster_ratio_interval(int(x.sum()), int(y.sum()), int((x * x).sum()), int((x * y).sum()),
                                             int((y * y).sum()), g)
    assert_estimates_inside_intervals({"r": mean, "r_lo": low, "r_hi": high})


@settings(deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.25, 1 / 3, 0.5, 2 / 3, 1.0]), max_size=40), st.integers(1, 5))
@example([0.0] * 16, 4)
@example([1.0] * 16, 4)
@example([0.25] * 4, 4)
@example([0.0, 0.0, 0.0, 1.0], 2)
def test_a_duel_share_over_few_deals_lies_inside_its_interval(shares, players):
    shares = np.array(shares)
    low, high = share_interval(shares, players)
    if len(shares):
        assert_estimates_inside_intervals({"win_share": float(shares.mean()), "win_share_ci": [low, high]})


def _tally(games: list[tuple[int, ...]], players: int) -> tuple[list[int], list[int], int, int]:
    """Win units, their squares and the ties of ``games``, each the tuple of its winning seats (a tie shares)."""
    unit = win_unit(players)
    units = np.zeros((len(games), players), dtype=np.int64)
    for g, winners in enumerate(games):
        units[g, list(winners)] = unit // len(winners)
    ties = sum(len(w) > 1 for w in games)
    return units.sum(axis=0).tolist(), (units * units).sum(axis=0).tolist(), unit, ties


@st.composite
def tables_of_games(draw):
    players = draw(st.integers(2, 5))
    winners = st.sets(st.integers(0, players - 1), min_size=1, max_size=players).map(lambda s: tuple(sorted(s)))
    return players, draw(st.lists(winners, max_size=60))


@settings(deadline=None)
@given(tables_of_games())
@example((4, []))  # no games
@example((4, [(0,)]))  # one game: no interval
@example((3, [(0,), (1,), (2,)]))  # too few games for an interval
@example((4, [(s % 4,) for s in range(16)]))  # every seat exactly fair: the correction alone reads below 0
@example((4, [(0,)] * 16))  # one seat wins every game, the others none
@example((2, [(0, 1)] * 16))  # every game tied
@example((5, [(0,)] * 15 + [(1,)]))
def test_the_seat_metrics_lie_inside_their_intervals(table):
    players, games = table
    units, units_sq, unit, ties = _tally(games, players)
    metrics = json_ready(win_share_metrics(units, units_sq, unit, len(games), ties))
    assert_estimates_inside_intervals(metrics)
    low, high = metrics["worst_seat_advantage_corrected_ci"] or (None, None)
    if metrics["worst_seat_advantage_corrected"] is not None and low is not None:
        assert metrics["worst_seat_advantage_corrected"] >= 0


@settings(deadline=None)
@given(st.lists(st.floats(-0.2, 0.2), min_size=2, max_size=5), st.floats(1e-4, 0.05), st.floats(1.5, 4.0))
@example([0.0, 0.0, 0.0, 0.0], 0.01, 3.18)
def test_the_corrected_worst_seat_advantage_lies_inside_the_seats_range(advantage, se, q):
    """Any win shares and standard errors (not only those of a real tally), each seat's interval ±q·se."""
    fair = 1 / len(advantage)
    win = [fair + a for a in advantage]
    value, within = worst_seat_advantage(win, [[w - q * se, w + q * se] for w in win], fair)
    corrected = worst_seat_advantage_corrected(win, [se] * len(win), fair, within)
    assert within[0] <= value <= within[1]
    assert within[0] <= corrected <= within[1]


@pytest.mark.parametrize("within", [[math.nan, math.nan], [None, None]])
def test_an_unknown_range_clamps_nothing(within):
    raw = worst_seat_advantage_corrected([0.25] * 4, [0.01] * 4, 0.25, within)
    assert raw < 0
