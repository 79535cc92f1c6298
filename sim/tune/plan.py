"""A tune's dry run: what it would play, an estimate of its time and which targets its games resolve
(``sim.estimates``). Writes nothing."""

from __future__ import annotations

from typing import Any, Mapping

from sim.tune.spec import Tune


def plan_tune(tune: Tune, *, calibrate: bool = True, report: bool = True,
              report_games: int | None = None, cluster=None) -> dict[str, Any]:
    """What a tune would play, an estimate of its time (a range: the final replay stops once the targets are
    decided) and which targets its games resolve, as ``sim.estimates`` works them out; writes nothing.
    ``cluster``: the ``sim.cluster.ClusterShape`` that would play it."""
    from sim.estimates import plan_tune as plan

    return plan(tune, calibrate_costs=calibrate, report=report, report_games=report_games, cluster=cluster)


def plan_text(tune: Tune, plan: Mapping[str, Any]) -> str:
    from sim.estimates import tune_plan_text

    return tune_plan_text(tune, plan)
