"""How long a run, sweep or tune will take, and which targets its games can resolve: said before playing.

Every time is a cost model calibrated on this machine: a call that plays
``n`` games costs ``fixed + n * per_game`` seconds. Both terms are fitted
by timing the same call at two sizes, the larger grown until one call
takes long enough to time (:func:`calibrate`): a slow policy is timed on
a few games and a fast one on thousands, and what a call costs whatever
its games (a duel's seat rotations, starting a run, writing its files) is
counted once per call instead of once per game.

The arithmetic (:func:`tune_games`, :func:`tune_seconds`, :func:`run_seconds`,
:func:`resolution`) takes the fitted costs, never a clock, so it is tested
with made-up costs; the calibrations take the clock as an argument.

A calibration's games depend on this machine's speed, so it only ever
gives times. What is said of a study's games before it plays them (which
targets a tune resolves, what a sweep cell's --target-ci needs) is read
from games the study's definition alone decides, on its seed
(:func:`base_rows`, :func:`games_sample`): the same on any machine.

The modules: ``costs`` (the cost model and calibration), ``runs`` (a run's
parts, a config's sample), ``resolution`` (standard errors against
targets' widths), ``tunes`` (a tune's evaluations and plan), ``compiling``
(compiling the kernels: said as it starts, timed). A sweep's plan is
``sim.sweep.plan``.
"""

from sim.estimates.costs import (
    BAND,
    ENOUGH_SECONDS,
    GROWTH,
    MAX_SPAN,
    Clock,
    Cost,
    Timed,
    band,
    calibrate,
    fit,
    forget,
    now,
    seconds_text,
    span_text,
)
from sim.estimates.resolution import (
    MIN_SE_GAMES,
    RESOLVING_SHARE,
    Z95,
    Resolution,
    Spread,
    resolution,
    resolution_lines,
    spread_of,
    target_spread,
)
from sim.estimates.runs import (
    SAMPLE_GAMES,
    SAMPLE_GAMES_SLOW,
    RunCosts,
    RunSize,
    Sample,
    decisions_played,
    extra_costs,
    games_cost,
    games_key,
    games_sample,
    plan_run,
    report_seconds,
    run_costs,
    run_plan_text,
    run_seconds,
    sample_games,
)
from sim.estimates.tunes import (
    TRIAL_SECONDS_PER_DIM,
    Evaluations,
    base_rows,
    evaluation_cost,
    plan_tune,
    resolution_of_rows,
    tune_games,
    tune_plan_text,
    tune_resolution,
    tune_seconds,
)

__all__ = [
    "BAND", "ENOUGH_SECONDS", "GROWTH", "MAX_SPAN", "MIN_SE_GAMES", "RESOLVING_SHARE", "SAMPLE_GAMES",
    "SAMPLE_GAMES_SLOW", "TRIAL_SECONDS_PER_DIM", "Z95",
    "Clock", "Cost", "Evaluations", "Resolution", "RunCosts", "RunSize", "Sample", "Spread", "Timed", "band",
    "base_rows", "calibrate", "decisions_played", "evaluation_cost", "extra_costs", "fit", "forget", "games_cost", "games_key",
    "games_sample", "now", "plan_run", "plan_tune", "report_seconds", "resolution", "resolution_lines",
    "resolution_of_rows", "run_costs", "run_plan_text", "run_seconds", "sample_games", "seconds_text", "span_text",
    "spread_of", "target_spread", "tune_games", "tune_plan_text", "tune_resolution", "tune_seconds",
]
