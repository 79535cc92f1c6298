"""Confidence sequences: known answers, and the error rate of stopping once decided, measured by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analysis.sequential import (
    FIRST_LOOK, Stream, decisive_width, games_to_reach, half_width, materiality, rho2, verdict,
)
from sim.confirm.judging import Judge, PairedJudge, PairedRatio


def test_the_sequence_narrows_with_games_and_is_wider_than_a_fixed_sample_interval():
    r2 = rho2(0.05, 10_000)
    widths = [half_width(0.5, n, 0.05, r2) for n in (1_000, 10_000, 100_000, 1_000_000)]
    assert widths == sorted(widths, reverse=True)
    # At the games it is tuned for it costs about 1.5 times the fixed-sample 95% interval's width.
    assert 1.96 * 0.5 / 100 < widths[1] < 2 * 1.96 * 0.5 / 100


def test_games_to_reach_is_the_first_count_that_reaches_the_width():
    r2 = rho2(0.01, 50_000)
    n = games_to_reach(0.004, 0.45, 0.01, r2, FIRST_LOOK)
    assert half_width(0.45, n, 0.01, r2) <= 0.004
    assert half_width(0.45, n * 0.99, 0.01, r2) > 0.004
    assert games_to_reach(0.0, 0.45, 0.01, r2, FIRST_LOOK) is None


def test_no_events_in_many_games_still_gives_an_interval_of_some_width():
    s = Stream(0.05, rho2(0.05, 10_000))
    s.add(np.zeros(5_000))
    low, high = s.look()
    assert low < 0 < high and high > 1e-4
    assert low <= s.shown <= high


def test_nothing_is_judged_before_the_first_look():
    s = Stream(0.05, rho2(0.05, 10_000))
    s.add(np.ones(FIRST_LOOK - 1))
    assert s.look() == (-math.inf, math.inf)
    assert verdict(*s.look(), 0.0, 2.0) == "undecided"


def test_the_interval_never_widens_and_the_printed_estimate_stays_inside_it():
    rng = np.random.default_rng(3)
    s = Stream(0.05, rho2(0.05, 10_000))
    previous = (-math.inf, math.inf)
    for _ in range(30):
        s.add(rng.random(2_000) < 0.3)
        low, high = s.look()
        assert previous[0] <= low <= high <= previous[1]
        assert low <= s.shown <= high
        previous = (low, high)


def test_a_ratio_of_sums_is_estimated_by_its_ratio():
    s = Stream(0.05, rho2(0.05, 10_000))
    rng = np.random.default_rng(5)
    den = rng.integers(1, 10, 20_000)
    num = 2.5 * den + rng.normal(0, 1, 20_000)
    s.add(num, den)
    low, high = s.look()
    assert low < 2.5 < high
    assert abs(s.estimate - num.sum() / den.sum()) < 1e-12


@pytest.mark.parametrize("low,high,bounds,expected", [
    (0.45, 0.55, (0.40, 0.60), "met"),
    (0.35, 0.45, (0.40, 0.60), "undecided"),
    (0.65, 0.70, (0.40, 0.60), "missed"),
    (0.001, 0.009, (None, 0.01), "met"),
    (0.011, 0.02, (None, 0.01), "missed"),
    (0.005, 0.012, (None, 0.01), "undecided"),
])
def test_a_target_is_met_missed_or_undecided_by_where_its_interval_lies(low, high, bounds, expected):
    assert verdict(low, high, *bounds) == expected


def test_a_difference_is_material_only_when_its_whole_interval_is_beyond_the_threshold():
    assert materiality(0.031, 0.05, 0.03) == "material"
    assert materiality(-0.05, -0.031, 0.03) == "material"
    assert materiality(-0.02, 0.02, 0.03) == "immaterial"
    assert materiality(0.02, 0.04, 0.03) == "undecided"
    assert decisive_width(0.5, 0.4, 0.6) == pytest.approx(0.1)
    assert decisive_width(0.65, 0.4, 0.6) == pytest.approx(0.05)


def test_the_worst_seat_interval_holds_every_seat_and_its_estimate():
    rng = np.random.default_rng(9)
    judge = Judge("worst_seat_advantage", 4, 0.05, rho2(0.05, 10_000))
    winners = rng.choice(4, size=40_000, p=[0.27, 0.25, 0.25, 0.23])
    judge.add({f"win_share_s{k}": (winners == k).astype(float) for k in range(4)})
    x, low, high = judge.look()
    assert low <= x <= high
    assert low <= 0.02 <= high


def test_two_tables_that_play_alike_are_judged_immaterially_apart():
    rng = np.random.default_rng(11)
    values = {"tie_rate": (rng.random(30_000) < 0.1).astype(float)}
    judge = PairedJudge("tie_rate", 4, 0.05, rho2(0.05, 10_000))
    judge.add(values, values)
    d, low, high = judge.look()
    assert d == 0.0 and materiality(low, high, 0.03) == "immaterial"


def test_a_paired_ratio_is_the_difference_of_the_ratios_with_the_spread_of_its_linearisation():
    rng = np.random.default_rng(13)
    n = 20_000
    da, db = rng.integers(4, 30, n), rng.integers(4, 30, n)
    na, nb = 2.0 * da + rng.normal(0, 3, n), 2.1 * db + rng.normal(0, 3, n)
    r = PairedRatio(0.05, rho2(0.05, 10_000))
    r.add(na[:5_000], da[:5_000], nb[:5_000], db[:5_000])
    r.add(na[5_000:], da[5_000:], nb[5_000:], db[5_000:])
    assert r.estimate == pytest.approx(nb.sum() / db.sum() - na.sum() / da.sum(), abs=1e-12)
    ra, rb = na.sum() / da.sum(), nb.sum() / db.sum()
    u = (nb - rb * db) / db.mean() - (na - ra * da) / da.mean()
    assert r.sd == pytest.approx(math.sqrt((1 + (u ** 2).sum()) / (n + 1)), rel=1e-9)
    d, low, high = r.look()
    assert low <= d <= high and low < 0.1 < high
    same = PairedRatio(0.05, rho2(0.05, 10_000))
    same.add(na, da, na, da)
    assert same.look()[0] == 0.0 and materiality(*same.look()[1:], 0.05) == "immaterial"


def _stop_when_decided(p: float, bounds: tuple[float, float], seed: int, alpha: float, max_games: int) -> str:
    """One run of a rate: batches doubling from the first look's size, stopped at the first decision."""
    rng = np.random.default_rng(seed)
    judge = Judge("rate", 4, alpha, rho2(alpha, 200_000))
    n, batch = 0, 2 * FIRST_LOOK
    while n < max_games:
        # A batch of games each counted with probability p: Binomial(batch, p) of them, in any order (a judge keeps
        # sums of the values, which their order does not change).
        counted = int(rng.binomial(batch, p))
        judge.add({"rate": np.repeat([1.0, 0.0], [counted, batch - counted])})
        n += batch
        _, low, high = judge.look()
        v = verdict(low, high, *bounds)
        if v != "undecided":
            return v
        batch = n
    return "undecided"


@pytest.mark.slow
@pytest.mark.parametrize("bounds,wrong,max_games,decides", [
    # The truth (0.5) a hair outside or inside the target, or on its line: few runs decide within the budget,
    # and those that decide wrongly are the sequence's errors.
    ((0.40, 0.4998), "met", 1_000_000, False),
    ((0.40, 0.5002), "missed", 1_000_000, False),
    ((0.40, 0.5), "missed", 1_000_000, False),
    # Further off, most runs decide, and rightly.
    ((0.40, 0.498), "met", 4_000_000, True),
])
def test_stopping_once_decided_errs_at_most_alpha_of_the_time(bounds, wrong, max_games, decides):
    runs, alpha = 600, 0.05
    verdicts = [_stop_when_decided(0.5, bounds, seed, alpha, max_games) for seed in range(runs)]
    errors = sum(v == wrong for v in verdicts)
    # At most alpha, allowing three standard errors of the count.
    assert errors / runs <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / runs)
    if decides:
        assert sum(v not in ("undecided", wrong) for v in verdicts) > runs / 2
