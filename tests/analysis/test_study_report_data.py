"""The tune, sweep and sensitivity pages draw whatever numbers their results hold.

Each page is built from the results of a real small tune, sweep or study
(played once per module, with the random player and few games), their
estimates and intervals then moved by hypothesis: an estimate inside its
interval, at an end, beyond it or outside it (a bias-corrected estimate may
lie there), a zero-width interval, an interval with a missing end, a NaN or
missing estimate, a single candidate. Every page is drawn whole: every
figure is there, none replaced by the line saying it could not be drawn.
"""

from __future__ import annotations

import copy
import math
import re
from pathlib import Path
from textwrap import dedent

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

import sim.tune as T
from analysis.sensitivity import study_page
from analysis.sweep_report import sweep_report_html
from analysis.tune_report import tune_report_html
from sim.sweep import load_sweep, run_sweep

ROOT = Path(__file__).resolve().parents[2]
PLANTED = ROOT / "tests" / "data" / "planted_tune"

# Each example draws a whole page (a few figures): a few examples each, always the same ones.
PAGES = settings(derandomize=True, deadline=None, database=None, max_examples=6, phases=(Phase.explicit, Phase.generate),
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# The planted tune (tests/data/planted_tune) with a second target, on the worst seat's advantage: the
# bias-corrected estimate that first lay outside its interval.
TUNE = """
base = "base.toml"
[search]
"rules.rounds" = { range = [1, 4] }
"rules.golden_token[1]" = [4, 5]
[targets]
mean_rounds = [2.5, 3.5]
worst_seat_advantage = { max = 0.2 }
[tune]
players = [2]
policies = ["random"]
budget = 3
games = 200
seed = 3
finalists = 2
"""


def not_drawn(page: str) -> list[str]:
    """The lines of the page standing where a figure, table or section could not be made."""
    return re.findall(r'data-not-drawn="[a-z]+">([^<]*)<', page)


def images(page: str) -> int:
    return page.count("<img")


# --- what an estimate and its interval may be -------------------------------------------------------

NAN = math.nan
ends = st.floats(-1, 1, allow_nan=False, allow_infinity=False)


@st.composite
def measured(draw) -> list:
    """``[estimate, low, high]`` as a summary holds them, of every kind an interval has met."""
    low, high = sorted([draw(ends), draw(ends)])
    kind = draw(st.sampled_from(["inside", "at an end", "outside", "zero width", "missing ends", "one end",
                                 "nan estimate", "missing estimate", "nan ends"]))
    if kind == "inside":
        return [draw(st.floats(low, high)), low, high]
    if kind == "at an end":
        return [draw(st.sampled_from([low, high])), low, high]
    if kind == "outside":
        beyond = draw(st.floats(1e-6, 0.5))
        return [draw(st.sampled_from([low - beyond, high + beyond])), low, high]
    if kind == "zero width":
        return [low, low, low]
    if kind == "missing ends":
        return [low, None, None]
    if kind == "one end":
        return draw(st.sampled_from([[low, None, high], [low, low, None]]))
    if kind == "nan estimate":
        return [NAN, low, high]
    if kind == "missing estimate":
        return [None, draw(st.sampled_from([low, None])), draw(st.sampled_from([high, None]))]
    return [low, NAN, NAN]


# --- the tune -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    """A real small tune's answer (no reports): its summary, its candidates and its game."""
    d = tmp_path_factory.mktemp("tune")
    (d / "base.toml").write_text((PLANTED / "base.toml").read_text(encoding="utf-8"), encoding="utf-8")
    (d / "t.toml").write_text(dedent(TUNE), encoding="utf-8")
    results = T.tune(d / "t.toml", out=d / "out", progress=False, report=False)
    assert results.summary["runners_up"], "the tune is meant to have a runner-up"
    return results.summary, results.candidates, results.tune.game


def entries(summary) -> list[dict]:
    return [summary["recommendation"], *summary["runners_up"], summary["base_rules"]]


def expected_tune_images(summary) -> int:
    # A figure per target, the search's convergence and the trade-off between targets.
    return len(summary["targets"]) + 2


@st.composite
def tune_summaries(draw, summary):
    """``summary`` with every finalist's measured targets moved, and sometimes a single candidate."""
    moved = copy.deepcopy(summary)
    if draw(st.booleans()):  # the recommendation alone: the base rules, no runner-up
        moved["runners_up"] = []
        moved["recommendation"]["values"] = moved["base_rules"]["values"]
    for entry in entries(moved):
        for by_metric in entry["metrics"].values():
            for t in moved["targets"]:
                by_metric[t["metric"]] = draw(measured())
    for point in moved["convergence"]:
        point["shortfall"] = draw(st.one_of(st.none(), st.just(NAN), st.floats(0, 3)))
    return moved


def test_the_finalists_figure_draws_a_runner_up_outside_its_interval(tuned):
    """The tune that first failed here: a runner-up's bias-corrected worst seat's advantage of -0.0001 with
    its interval [0.0, 0.0040] (so estimate minus low end is negative) is drawn as it is."""
    summary, candidates, game = tuned
    moved = copy.deepcopy(summary)
    for by_metric in moved["runners_up"][0]["metrics"].values():
        by_metric["worst_seat_advantage"] = [-0.0001, 0.0, 0.0040]
    page = tune_report_html(moved, candidates, game=game)
    assert not_drawn(page) == []
    assert images(page) == expected_tune_images(moved)


@PAGES
@given(data=st.data())
@pytest.mark.slow("end to end")
def test_the_tune_page_draws_every_figure_whatever_its_estimates_and_intervals(tuned, data):
    summary, candidates, game = tuned
    moved = data.draw(tune_summaries(summary))
    page = tune_report_html(moved, candidates, game=game)
    assert not_drawn(page) == []
    assert images(page) == expected_tune_images(moved)


# --- the sweep ------------------------------------------------------------------------------------

SWEEP = """
base = "base.toml"
[sweep]
"rules.players" = [3, 4]
"rules.golden_token" = [[3, 4], [3, 5]]
"""
SWEEP_BASE = """
game = "lasvegan"
[run]
games = 60
seed = 3
skill_gap_games = 0
strength_games = 0
strength_lookahead_games = 0
[policies]
seats = "random"
"""


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """A real small sweep's tables (no report): 2 player counts by 2 golden tokens, 60 games a cell."""
    d = tmp_path_factory.mktemp("sweep")
    (d / "base.toml").write_text(dedent(SWEEP_BASE), encoding="utf-8")
    (d / "s.toml").write_text(dedent(SWEEP), encoding="utf-8")
    sweep = load_sweep(d / "s.toml")
    results = run_sweep(sweep, d / "out", progress=False, report=False)
    return sweep, results.table, results.paired


def sweep_page(sweep, table, paired) -> str:
    return sweep_report_html(table, paired, sweep_name=sweep.name, parameters=sweep.parameters,
                             axes={k: sweep.values(k) for k in sweep.parameters}, game=sweep.game)


def expected_sweep_images(sweep, table, paired) -> int:
    # A line figure against each of the two parameters, and their heatmap.
    return 3


@settings(PAGES, max_examples=3)  # its figures are the largest: a second or more each
@given(data=st.data())
@example(data=None)  # the sweep as played
@pytest.mark.slow("end to end")
def test_the_sweep_page_draws_every_figure_whatever_its_estimates_and_intervals(swept, data):
    sweep, table, paired = swept
    table, paired = table.copy(), paired.copy()
    if data is not None:
        metrics = [m for m in {*sweep.game.sweep_plotted, *sweep.game.sweep_heatmap} if f"{m}_lo" in table.columns]
        for i in table.index:
            for m in metrics:
                table.loc[i, [m, f"{m}_lo", f"{m}_hi"]] = [NAN if v is None else v for v in data.draw(measured())]
        for i in paired.index:
            paired.loc[i, ["difference", "difference_lo", "difference_hi"]] = [
                NAN if v is None else v for v in data.draw(measured())]
    page = sweep_page(sweep, table, paired)
    assert not_drawn(page) == []
    assert images(page) == expected_sweep_images(sweep, table, paired)


# --- the sensitivity study ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def studied():
    """A real small one-step study: two knobs of Las Vegan at 3 players, random players, 40 games each."""
    from sim.config import load_config
    from sim.sensitivity.study import study

    config = load_config(ROOT / "configs" / "default.toml").with_overrides(seed=3)
    result = study(config, 40, players=[3], seats="random", knobs=["rules.tokens[2][1]", "rules.set_aside_face"],
                   progress=False)
    return result, config


@PAGES
@given(data=st.data())
@example(data=None)  # the study as played
@pytest.mark.slow("end to end")
def test_the_sensitivity_page_draws_every_figure_whatever_its_effects_and_intervals(studied, data):
    result, config = studied
    moved = copy.deepcopy(result)
    if data is not None:
        for effect in moved["effects"]:
            delta, low, high = data.draw(measured())
            effect["delta"], effect["delta_ci"] = delta, data.draw(st.sampled_from([[low, high], None]))
            effect["clear"] = data.draw(st.booleans())
    page = study_page(moved, config)
    assert not_drawn(page) == []
    # A tornado per headline metric, whatever it holds (an empty one says so).
    assert images(page) == len(config.game_spec.headline_metrics)
