"""What a tune costs: how many evaluations it plays at each number of games, what each costs at each
setting, and which targets its games resolve; ``lvsim tune --dry-run``.

A tune is read through what it offers (its settings, targets, ``halving``...);
an evaluation is played by ``sim.tune.evaluation``, imported when first timed.

The times come from calibrations, whose games depend on this machine's
speed; everything else said before a tune (which targets its games
resolve, how many games its final replay is likely to play) comes from the
base rules' evaluation at the tune's games on its seed
(:func:`base_rows`), the same on any machine: the search plays that
evaluation first, so a tune that says it first pays nothing more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from sim.estimates.compiling import usual_text
from sim.estimates.costs import Clock, Cost, Timed, band, calibrate, compiled_text, kept, now, seconds_text, span_text
from sim.estimates.resolution import RESOLVING_SHARE, Z95, Resolution, resolution, resolution_lines, target_spread
from sim.estimates.runs import RunSize, report_seconds, run_costs, run_seconds
from sim.errors import counted
from sim.wording import wrapped

# What the search spends per candidate beyond its games, per value searched: the sampler's ask and
# tell and the journal (measured on this machine: about 35 ms a trial with 10 values, at 150 trials).
TRIAL_SECONDS_PER_DIM = 0.0035
_EVALUATION_COSTS: dict[tuple, Timed] = kept()
_BASE_ROWS: dict[tuple, dict[str, Any]] = kept()


@dataclass(frozen=True)
class Evaluations:
    """How many evaluations (one candidate at every setting) a tune plays at each number of games.

    ``low`` and ``high`` map games -> evaluations: about the least and the
    most the tune can play; ``likely`` the most to expect: one finalist
    replayed up to ``max_games`` (it sits on a target's edge), the others
    stopping once their targets are decided.
    """

    low: dict[int, int]
    likely: dict[int, int]
    high: dict[int, int]

    def games(self, which: str) -> int:
        return sum(g * n for g, n in getattr(self, which).items())


def _add(counts: dict[int, int], games: int, n: int) -> None:
    if n > 0:
        counts[games] = counts.get(games, 0) + n


def tune_games(*, budget: int, domain: int, games: int, max_games: int, finalists: int, dims: int,
               halving: int, final_growth: int, decided_games: int | None = None) -> Evaluations:
    """The evaluations of a tune by games: search, simplification, successive halving and the final replay.

    ``domain`` is how many distinct candidates exist; ``dims`` the values
    searched (the simplification tries each changed value back towards the
    base's, twice at most per value and finalist in the count of the
    ``high`` end); ``decided_games`` the games at which a target's
    interval is narrow enough to be decided for a candidate that is not on
    its edge (None: the first final replay decides).
    """
    searched = min(budget, domain)
    # The simplified candidates join the searched ones in the halving: none, each changed value of each
    # finalist tried once, and once more a step towards the base's.
    simplified = {"low": 0, "likely": finalists * dims, "high": finalists * 2 * dims}
    out = {}
    for end, extra in simplified.items():
        counts: dict[int, int] = {}
        _add(counts, games, searched + extra)
        n, g = searched + extra, games
        while n > finalists and g * halving <= max_games:
            n = max(finalists, math.ceil(n / halving))
            g *= halving
            _add(counts, g, n)
        kept = min(n, finalists)
        # The finalists and the base rules (unless the base is a finalist: at the low end it is) on the fresh
        # seed, each replayed with more games until its targets are decided: one in a target's middle half at
        # ``decided_games``, one on a target's edge (a finalist met the targets on the search's deals, often
        # only just) at ``max_games``.
        steps = [min(max_games, g * final_growth ** k) for k in range(_growth_steps(g, max_games, final_growth))]
        decided_steps = []
        for step in steps:
            decided_steps.append(step)
            if decided_games is None or step >= decided_games:
                break
        if end == "high":
            for step in steps:
                _add(counts, step, finalists + 1)
        else:
            for step in decided_steps:
                _add(counts, step, kept + (end == "likely"))
            if end == "likely":
                for step in steps[len(decided_steps):]:
                    _add(counts, step, 1)
        out[end] = counts
    low, likely, high = out["low"], out["likely"], out["high"]
    return Evaluations(low, likely, high)


def _growth_steps(games: int, max_games: int, growth: int) -> int:
    k = 1
    while games * growth ** (k - 1) < max_games:
        k += 1
    return k


def tune_seconds(evaluations: Evaluations, costs: Sequence[Cost], *, report: float = 0.0,
                 trial: float = 0.0) -> dict[str, float]:
    """Seconds at each end: every evaluation costs the sum over the settings of each setting's cost at its games.

    ``report`` is the balance report's seconds; ``trial`` what the search
    spends per candidate beyond its games (the sampler, the stored file).
    """
    def total(counts: Mapping[int, int]) -> float:
        return sum(n * (sum(c(g) for c in costs) + trial) for g, n in counts.items()) + report

    return {"low": total(evaluations.low), "likely": total(evaluations.likely), "high": total(evaluations.high)}


def _key(tune, players: int, policy: str) -> str:
    import json

    return json.dumps([tune.definition(), players, policy], sort_keys=True, default=str)


def evaluation_cost(tune, players: int, policy: str, *, clock: Clock = now) -> Timed:
    """The cost of one evaluation of a candidate at one setting (its games and the skill-gap duels its targets name).

    Timed on the base rules at growing games, up to the tune's; the timed
    call's result is the evaluation's row, of as many games as this machine
    plays in the time taken: it only ever gives times. Kept for the life of
    the process.
    """
    key = (_key(tune, players, policy), tune.base.threads)
    if key not in _EVALUATION_COSTS:
        from sim.tune.evaluation import evaluate

        values = tune.base_values()
        _EVALUATION_COSTS[key] = calibrate(
            lambda n: evaluate(tune, values, players, policy, n, tune.seed), tune.games, start=2 * players,
            clock=clock)
    return _EVALUATION_COSTS[key]


def base_rows(tune) -> dict[tuple[int, str], dict[str, Any]]:
    """The base rules' evaluation at every setting, at the tune's games on its seed: ``{(players, policy): row}``.

    The search's first candidate (the same evaluation, kept in the tune's
    directory), and the same on any machine: what is said of the targets
    before a tune is read from it. An evaluation is a pure function of its
    rules, setting, games and seed, so a calibration that reached the
    tune's games gave it already; otherwise it is played here. Kept for the
    life of the process.
    """
    from sim.tune.evaluation import evaluate

    out = {}
    for players, policy in tune.settings:
        key = _key(tune, players, policy)
        if key not in _BASE_ROWS:
            timed = next((t for k, t in _EVALUATION_COSTS.items() if k[0] == key and t.games == tune.games), None)
            _BASE_ROWS[key] = (timed.result if timed is not None
                               else evaluate(tune, tune.base_values(), players, policy, tune.games, tune.seed))
        out[(players, policy)] = _BASE_ROWS[key]
    return out


def tune_resolution(tune, rows: Mapping[tuple[int, str], Mapping[str, Any]] | None = None) -> list[Resolution]:
    """For each two-sided target and setting: one standard error at the search's games against the target's width,
    from the base rules' evaluation at those games on the tune's seed (``rows``, else :func:`base_rows`)."""
    rows = base_rows(tune) if rows is None else rows
    return resolution_of_rows(tune, {s: (row, tune.games) for s, row in rows.items()})


def resolution_of_rows(tune, rows: Mapping[tuple[int, str], tuple[Mapping[str, Any], int]]) -> list[Resolution]:
    """:func:`tune_resolution` from evaluations already played: ``{(players, policy): (row, games)}``."""
    out = []
    for (players, policy), (row, games) in rows.items():
        for t in tune.targets:
            if t.low is None or t.high is None:
                continue  # a bare bound has no width to resolve
            spread = target_spread(t, row, players, games)
            if spread is not None:
                out.append(resolution(getattr(t, "label", t.metric), f"{players} players, {policy}", t.high - t.low,
                                      spread, tune.games))
    return out


def _decided_games(tune, rows: Mapping[tuple[int, str], Mapping[str, Any]]) -> int | None:
    """The games at which every target's 95% half-width is a quarter of its width (a candidate in its middle half
    is decided), at the slowest-resolving setting, from the base rules' ``rows`` at the tune's games; None when no
    target can say."""
    need = None
    for (players, _), row in rows.items():
        for t in tune.targets:
            if t.low is None or t.high is None:
                continue  # a bare bound is decided as soon as the interval clears it: no width says when
            spread = target_spread(t, row, players, tune.games)
            width = t.high - t.low
            if spread is None or width <= 0:
                continue
            n = spread.games_for(RESOLVING_SHARE * width / Z95)
            need = n if need is None else max(need, n)
    return need


def _report_configs(tune, games: int) -> list:
    """The runs of the tune's balance report: one per setting the tune reports, else one at the base's setting."""
    values = tune.base_values()
    return [replace(tune.config(values, players, policy, name=f"{tune.name}-best"), games=games)
            for players, policy in tune.report_settings()]


def plan_tune(tune, *, calibrate_costs: bool = True, report: bool = True, report_games: int | None = None,
              clock: Clock = now, cluster=None) -> dict[str, Any]:
    """What a tune would play, about how long it takes and which targets its games can resolve; writes nothing.

    ``cluster`` (a ``sim.cluster.ClusterShape``) plays the evaluations'
    games, as many times faster as it has threads playing at once beyond
    this process's; not the skill-gap duels a target names, nor the
    report, which the client plays.
    """

    from sim.estimates.compiling import compiled_seconds, compiled_since

    compiled = compiled_seconds()
    rows = {s: evaluation_cost(tune, *s, clock=clock) for s in tune.settings} if calibrate_costs else {}
    # What is said of the games comes from the base rules at the tune's games, never from the timed calls.
    base = base_rows(tune) if rows else {}
    decided = _decided_games(tune, base) if base else None
    counts = tune_games(budget=tune.budget, domain=tune.domain_size(), games=tune.games, max_games=tune.max_games,
                        finalists=tune.finalists, dims=len(tune.dims), halving=tune.halving,
                        final_growth=tune.final_growth, decided_games=decided)
    report_games = (report_games or tune.games) if report else 0
    plan: dict[str, Any] = {
        "name": tune.name, "game": tune.base.game, "seed": tune.seed, "budget": tune.budget,
        "settings": [tune.setting_name(p, pol) for p, pol in tune.settings],
        "games_per_setting": {"low": counts.games("low"), "likely": counts.games("likely"),
                              "high": counts.games("high"), "report": report_games},
        "evaluations": {k: {str(g): n for g, n in sorted(getattr(counts, k).items())}
                        for k in ("low", "likely", "high")},
        "seconds": None, "worst_seconds": None, "resolution": [],
    }
    if not rows:
        return plan
    report_s = 0.0
    if report:
        for config in _report_configs(tune, report_games):
            report_s += run_seconds(RunSize.of(config), run_costs(config, clock=clock))["total"]
            report_s += report_seconds(config, clock=clock)  # tune.html, drawn as a run's report is
    costs = [r.cost for r in rows.values()]
    if cluster is not None and not any(t.metric.startswith("skill_gap_") for t in tune.targets):
        from sim.batches import threads_used

        costs = [c.sped_up(cluster.speed_up(threads_used(tune.base.threads))) for c in costs]
    plan["where"] = None if cluster is None else cluster.words()
    seconds = tune_seconds(counts, costs, report=report_s,
                           trial=TRIAL_SECONDS_PER_DIM * len(tune.dims))
    low, high = band(seconds["low"], seconds["likely"])
    plan["seconds"] = [low, high]
    plan["worst_seconds"] = band(seconds["high"])[1]
    plan["report_seconds"] = report_s
    plan["costs"] = {tune.setting_name(p, pol): rows[(p, pol)].cost.as_dict() for p, pol in tune.settings}
    plan["resolution"] = [r.as_dict() for r in tune_resolution(tune, base)]
    plan["compiled_seconds"] = compiled_since(compiled)
    return plan


def tune_plan_text(tune, plan: Mapping[str, Any]) -> str:
    g = plan["games_per_setting"]
    skill = any(t.metric.startswith("skill_gap_") for t in tune.targets)
    lines = [
        f"Tune {tune.name}: {tune.game.title}, {counted(len(tune.dims), 'value')} searched, "
        f"{counted(len(tune.targets), 'target')}, seed {tune.seed}",
        f"judged at: {'; '.join(plan['settings'])}",
        "",
        f"search      {tune.budget:,} candidates x {tune.games:,} games (fewer if the domain is smaller)",
        f"simplify    none to {tune.finalists * 2 * len(tune.dims):,} candidates x {tune.games:,} games "
        "(each changed value of the best put back towards the base's)",
        f"halving     the best third, three times the games, same deals, until {tune.finalists} remain",
        f"final       the finalists and the base on a fresh seed, the games x{tune.final_growth} until every target "
        f"is decided (at most {tune.max_games:,})",
        f"in all      {g['low']:,} to {g['likely']:,} games per setting"
        + (f" ({g['high']:,} if every finalist's replay reaches {tune.max_games:,})" if g["high"] > g["likely"] else ""),
        f"report      {g['report']:,} games of the recommended rules, with skill gap and strength profile",
    ]
    if skill:
        lines.append("skill gap   every evaluation also plays the skill-gap duels the targets name, on about its "
                     "games (timed with them)")
    found = [Resolution(**{**{k: r[k] for k in ("metric", "setting", "width", "games", "games_needed")},
                           "se": r["standard_error"]}) for r in plan.get("resolution", [])]
    res = resolution_lines(found)
    if res:
        lines += [""] + res
    if plan["seconds"] is not None:
        low, high = plan["seconds"]
        worst = plan.get("worst_seconds")
        more = (f"; up to {seconds_text(worst)} if a finalist sits on a target's edge and its replay grows to "
                f"{tune.max_games:,} games") if worst is not None and seconds_text(worst) != seconds_text(high) else ""
        where = "in this process on this machine" if plan.get("where") is None else f"{plan['where']}, timed on this machine"
        lines.append("")
        lines += compiled_text(plan.get("compiled_seconds"), "tune")
        if plan.get("where") is not None:
            lines.append(wrapped(f"A worker whose kernel cache does not hold the kernels yet compiles them first "
                                 f"({usual_text(tune.base.game)}), not counted here; workers on this machine share its "
                                 "cache."))
        lines.append(wrapped(f"About {span_text(low, high)} {where}{more}. Nothing was written."))
    return "\n".join(lines)
