"""Intervals over few samples: Student t quantiles, shares over few deals, "too few deals to say"."""

import json
import math
from dataclasses import replace
from statistics import NormalDist

import numpy as np
import pytest

from analysis.common import skill_gap_lines, strength_lines
from analysis.stats import (
    MIN_SAMPLES, TOO_FEW, TOO_FEW_REASON, Z95, betainc, mean_interval, ratio_interval, sample_mean_interval,
    share_interval, t95, t_cdf, t_quantile, _t_quantile_expansion,
)
from sim.duel import duel, duel_table, skill_gap
from sim.lasvegan.game import GAME
from sim.lasvegan.params import Rules

# --- the t quantile ----------------------------------------------------------------------------


@pytest.mark.parametrize("p, df, table", [
    # Student t tables (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2), to their 3 decimals.
    (0.975, 1, 12.706), (0.975, 2, 4.303), (0.975, 3, 3.182), (0.975, 4, 2.776), (0.975, 7, 2.365),
    (0.975, 15, 2.131), (0.975, 30, 2.042), (0.975, 100, 1.984), (0.95, 10, 1.812), (0.995, 5, 4.032),
])
def test_the_t_quantile_matches_the_tables(p, df, table):
    assert t_quantile(p, df) == pytest.approx(table, abs=5e-4)


def test_the_t_quantile_to_more_digits_and_in_closed_form():
    assert t_quantile(0.975, 3) == pytest.approx(3.182446305284263, abs=1e-10)
    assert t_quantile(0.975, 15) == pytest.approx(2.131449545559774, abs=1e-10)
    # One and two degrees of freedom have closed forms: tan(pi (p - 1/2)) and (2p - 1) / sqrt(2p(1 - p)).
    for p in (0.6, 0.9, 0.975, 0.999):
        assert t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-10)
        assert t_quantile(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-10)


def test_the_t_quantile_tends_to_the_normal_one_and_its_expansion_agrees_where_it_takes_over():
    assert t_quantile(0.975, 10**7) == pytest.approx(Z95, abs=1e-6)
    # Up to 1000 degrees of freedom by bisection, beyond by the expansion in 1/df: they agree there.
    z = NormalDist().inv_cdf(0.975)
    for df in (200, 600, 1000):
        assert _t_quantile_expansion(z, df) == pytest.approx(t_quantile(0.975, df), abs=1e-11)
    values = [t_quantile(0.975, df) for df in range(1, 2000, 7)]
    assert all(a > b for a, b in zip(values, values[1:]))


def test_the_t_quantile_inverts_the_t_distribution_and_is_symmetric():
    for df in (1, 3, 8, 40, 500):
        for p in (0.01, 0.3, 0.5, 0.8, 0.975):
            assert t_cdf(t_quantile(p, df), df) == pytest.approx(p, abs=1e-12)
        assert t_quantile(0.1, df) == -t_quantile(0.9, df)


def test_the_incomplete_beta_function_at_known_points():
    for x in (0.1, 0.5, 0.93):
        assert betainc(1, 1, x) == pytest.approx(x, abs=1e-14)
        assert betainc(2.5, 1, x) == pytest.approx(x**2.5, rel=1e-12)
        assert betainc(1, 3, x) == pytest.approx(1 - (1 - x) ** 3, rel=1e-12)
    assert betainc(7, 7, 0.5) == pytest.approx(0.5, abs=1e-14)


@pytest.mark.parametrize("bad", [(0.0, 3), (1.0, 3), (0.975, 0)])
def test_the_t_quantile_refuses_what_has_none(bad):
    with pytest.raises(ValueError):
        t_quantile(*bad)


# --- intervals of means ---------------------------------------------------------------------------


def test_a_mean_of_four_samples_takes_t_with_three_degrees_of_freedom_not_1_96():
    x = np.array([0.2, 0.9, 0.4, 0.7])
    mean, low, high = sample_mean_interval(x)
    assert (high - low) / 2 == pytest.approx(3.1824463 * x.std(ddof=1) / 2, rel=1e-7)
    assert t95(4) == pytest.approx(3.1824463, rel=1e-7)
    assert t95(16) == pytest.approx(2.1314495, rel=1e-7)


def test_a_cluster_ratio_takes_t_over_its_clusters():
    sums, counts = np.array([3.0, 5.0, 1.0, 4.0, 2.0]), np.array([2.0, 3.0, 1.0, 2.0, 2.0])
    mean, low, high = ratio_interval(sums, counts)
    z_mean, z_low, z_high = ratio_interval(sums, counts, z=Z95)
    assert mean == z_mean
    assert (high - low) / (z_high - z_low) == pytest.approx(t95(5) / Z95)


@pytest.mark.parametrize("n", range(MIN_SAMPLES))
def test_below_the_fewest_samples_there_is_no_interval(n):
    x = np.linspace(0, 1, n)
    assert all(math.isnan(v) for v in sample_mean_interval(x)[1:]) if n else True
    assert all(math.isnan(v) for v in ratio_interval(x, np.ones(n))[1:]) if n else True
    assert all(math.isnan(v) for v in share_interval(x, 4))
    assert all(math.isnan(v) for v in mean_interval(0.5, 0.3, n))


def test_a_share_over_deals_that_all_came_out_alike_still_has_a_width():
    # Four deals on which the strong seat won every game: a t interval would be [1, 1].
    low, high = share_interval(np.ones(4), 4)
    assert high == 1.0 and low < 0.9
    low, high = share_interval(np.full(4, 0.25), 4)
    assert low < 0.25 < high


@pytest.mark.parametrize("seed", range(20))
def test_a_share_interval_holds_its_estimate_within_0_and_1(seed):
    rng = np.random.default_rng(seed)
    x = rng.choice([0, 0.25, 0.5, 0.75, 1.0], size=int(rng.integers(4, 40)), p=[0.05, 0.05, 0.1, 0.2, 0.6])
    low, high = share_interval(x, 4)
    assert 0.0 <= low <= x.mean() <= high <= 1.0


# --- duels and the skill gap: "too few deals to say" -------------------------------------------------


def test_a_duel_below_the_fewest_deals_says_too_few_deals_to_say():
    result = duel(GAME, Rules(), ["greedy", "random", "random", "random"], MIN_SAMPLES - 1, 3)
    for row in result["policies"].values():
        assert row["win_share_ci"] == [None, None]
        assert row["win_share_ci_reason"] == TOO_FEW_REASON
    table = duel_table(result)
    assert TOO_FEW in table and "[" not in table.split("95% CI")[1]


def test_a_duel_of_the_fewest_deals_gives_an_interval_and_no_reason():
    result = duel(GAME, Rules(), ["greedy", "random", "random", "random"], MIN_SAMPLES, 3)
    for row in result["policies"].values():
        low, high = row["win_share_ci"]
        assert low <= row["win_share"] <= high and row["win_share_ci_reason"] is None
    assert TOO_FEW not in duel_table(result)


def test_the_skill_gap_says_too_few_deals_to_say_in_the_summary_table():
    # Greedy against random, on as many deals as the run's skill gap is given.
    one = tuple(replace(d, factor=1) for d in GAME.skill_gap_duels if d.name == "greedy_vs_random")
    game = replace(GAME, skill_gap_duels=one)
    few = skill_gap(game, Rules(), MIN_SAMPLES - 1, seed=2)
    enough = skill_gap(game, Rules(), MIN_SAMPLES, seed=2)
    assert [e["win_share_ci_reason"] for e in few.values()] == [TOO_FEW_REASON]
    assert [e["win_share_ci_reason"] for e in enough.values()] == [None]
    few_lines, enough_lines = skill_gap_lines({"skill_gap": few}), skill_gap_lines({"skill_gap": enough})
    assert TOO_FEW_REASON in few_lines[-1] and "[" not in few_lines[-1]
    assert TOO_FEW not in enough_lines[-1] and "[" in enough_lines[-1]
    # As JSON, as summary.json keeps it (the skill gap joins the summary after it was made JSON-ready):
    # no interval (null, not NaN, which is no JSON) and the reason beside it.
    entry = json.loads(json.dumps(few, allow_nan=False))["greedy_vs_random"]
    assert entry["win_share_ci"] == [None, None] and entry["win_share_ci_reason"] == TOO_FEW_REASON


# --- the strength table ------------------------------------------------------------------------------


def test_the_terminal_strength_table_shows_each_values_interval():
    strength = {
        "profiles": [
            {"policy": "random", "games": 1000,
             "metrics": {"elimination_rate": [0.86, 0.837, 0.880], "mean_rounds": [2.99, 2.93, 3.04],
                         "first_player_advantage": [-0.0071, -0.033, 0.019]}},
            {"policy": "lookahead:16", "games": 16,
             "metrics": {"elimination_rate": [0.5625, 0.332, 0.769], "mean_rounds": [3.62, None, None],
                         "first_player_advantage": [-0.125, -0.307, 0.057]}},
        ],
        "verdict": {"sentence": "The verdict holds."},
    }
    metrics = [GAME.metric[m] for m in ("elimination_rate", "mean_rounds", "first_player_advantage")]
    lines = strength_lines({"strength": strength}, metrics)
    text = "\n".join(lines)
    assert "95% CI" in lines[1]
    rate = lines.index(next(line for line in lines if "elimination rate" in line))
    assert lines[rate + 1].split() == ["[83.7%,", "88.0%]", "[33.2%,", "76.9%]"]
    rounds = lines.index(next(line for line in lines if "rounds played" in line))
    assert lines[rounds + 1].split() == ["[2.93,", "3.04]", "n/a"]
    assert "[-30.7, +5.7]" in text
    assert max(len(line) for line in lines[:-1]) <= 120


# --- the report ---------------------------------------------------------------------------------------


@pytest.mark.slow("end to end")
def test_the_report_says_too_few_deals_to_say_and_draws_no_bar_for_that_duel(tmp_path, monkeypatch):
    from analysis import figure_style
    from sim.lasvegan.report import write_report
    from sim.config import Config
    from sim.runner import run
    from tests.analysis.test_report import visible

    out = tmp_path / "few"
    run(Config(name="few", games=300, seed=4, rules=Rules(players=3), seats=("greedy", "random", "random"),
               skill_gap_games=0, strength_games=0, strength_lookahead_games=0), out=out, progress=False)
    summary = json.loads((out / "summary.json").read_text())
    summary["skill_gap"] = {
        "lookahead_vs_greedy": {"policy": "lookahead:32", "against": "greedy", "games": 3, "win_share": 0.5,
                                "win_share_ci": [None, None], "win_share_ci_reason": TOO_FEW_REASON,
                                "fair_share": 1 / 3},
        "greedy_vs_random": {"policy": "greedy", "against": "random", "games": 60, "win_share": 0.62,
                             "win_share_ci": [0.5, 0.72], "win_share_ci_reason": None, "fair_share": 1 / 3},
    }
    (out / "summary.json").write_text(json.dumps(summary))
    drawn = []
    skill_figure = figure_style.skill_figure
    monkeypatch.setattr(figure_style, "skill_figure",
                        lambda entries, title: drawn.append((title, list(entries["label"]))) or skill_figure(entries, title))
    page = write_report(out).read_text(encoding="utf-8")
    text = visible(page)
    assert ("One lookahead:32 seat among greedy seats wins 50.0% of games over 3 deals, against a fair 33.3%: "
            f"{TOO_FEW_REASON}.") in text
    assert "One greedy seat among random seats wins 62.0% (50.0–72.0%) of games over 60 deals" in text
    gap = [labels for title, labels in drawn if title.startswith("Skill gap")]
    assert gap == [["one greedy vs random"]]  # the duel too short for an interval has no bar


def test_a_seat_that_never_wins_has_a_win_share_interval_that_does_not_exclude_a_small_rate():
    """Every game alike (seat 0 never wins): a t interval would have no width; the win shares take Wilson's."""
    from analysis.common import win_share_metrics
    from analysis.stats import wilson_interval
    from analysis.tables import win_share_by_policy

    n, unit = 1300, 2
    found = win_share_metrics([0, n * unit], [0, n * unit * unit], unit, n, 0)
    assert found["win_share_ci"][0] == list(wilson_interval(0, n)) and found["win_share_ci"][0][1] > 0.002
    assert found["win_share_ci"][1] == list(wilson_interval(n, n)) and found["win_share_ci"][1][0] < 0.998
    low, high = found["first_player_advantage_ci"]
    assert low <= found["first_player_advantage"] < high
    by_policy = win_share_by_policy([0, n * unit], [0, 0, 0, n * unit * unit], n, unit, ["random", "greedy"])
    assert by_policy["low"].tolist()[1] < 1 and by_policy["high"].tolist()[0] > 0
