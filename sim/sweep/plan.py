"""A sweep's dry run: the cells it would play, an estimate of their time (``sim.estimates``), and which
cells' caps come before their ``--target-ci``. Writes nothing."""

from __future__ import annotations

import math
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from sim.config import Config
from sim.sweep.directory import DEFINITION_FILE, _finished_cells
from sim.sweep.precision import GROWTH_MARGIN, MIN_GROWTH, CellPlan, half_width
from sim.sweep.spec import Sweep
from sim.wording import wrapped


def plan_sweep(
    sweep: Sweep,
    out: str | os.PathLike | None = None,
    *,
    target_ci: float | None = None,
    max_games: int | None = None,
    calibrate: bool = True,
    target_metric: str | None = None,
    cluster=None,
) -> list[dict[str, Any]]:
    """The cells a run of ``sweep`` would play, with an estimate of their time; writes nothing.

    Each cell is timed as it plays (``sim.estimates.games_cost``), its
    skill-gap duels and strength profile too; a cell already finished in
    ``out`` is marked done. With adaptive precision a cell's games are those
    its interval needs, read from its first games (the same on any machine),
    and ``resolution`` says when the cap comes first. With ``cluster`` (a
    ``sim.cluster.ClusterShape``) the games, but not the duels and profiles
    the client plays, go as many times faster as it has threads beyond this
    process's.
    """
    from sim.batches import threads_used
    from sim.estimates import band, extra_costs, games_cost, games_sample

    plans = [CellPlan.of(cell.config, target_ci, max_games, target_metric) for cell in sweep.cells]
    done: set[int] = set()
    if out is not None and (Path(out) / DEFINITION_FILE).is_file():
        done = _finished_cells(Path(out), sweep, plans)
    rows = []
    for cell, plan in zip(sweep.cells, plans):
        row = {
            "cell": cell.index,
            "label": cell.label,
            "overrides": cell.overrides,
            "players": cell.config.players,
            "games": plan.games,
            "max_games": plan.max_games,
            "done": cell.index in done,
            "seconds": None,
            "max_seconds": None,
            "duel_seconds": None,
            "expected_games": None,
            "resolution": None,
        }
        if calibrate and cell.index not in done:
            timed = games_cost(cell.config, cap=plan.max_games or plan.games)
            cost = timed.cost if cluster is None else timed.cost.sped_up(cluster.speed_up(threads_used(cell.config.threads)))
            low_games, high_games, calls = plan.games, plan.max_games or plan.games, (1, 1)
            if plan.target_ci is not None:
                # From the cell's first games, not the timed ones: the same games on any machine.
                low_games, high_games, calls, row["resolution"] = _adaptive_games(
                    plan, games_sample(cell.config, plan.games))
                row["expected_games"] = [low_games, high_games]
            costs = extra_costs(cell.config)
            # The skill gap and the strength profile grow with the games the cell ends with.
            extra = [_extra(costs, replace(cell.config, games=n)) for n in (low_games, high_games)]
            # The first cell of a process pays the compiled core's loading (the cost's start); the others find it loaded.
            low = cost(low_games, calls[0]) + cost.start + extra[0]
            high = cost(high_games, calls[1]) + cost.start + extra[1]
            row["seconds"], row["max_seconds"] = band(low, high)
            row["duel_seconds"] = band(extra[0])[0]  # the share of the low end the duels and profiles take
        rows.append(row)
    return rows


def _extra(costs, config: Config) -> float:
    """Seconds of a cell's skill-gap duels and strength profile, from their calibrated ``costs``."""
    from sim.estimates import RunSize

    gap, fast, slow = costs
    size = RunSize.of(config)
    return ((gap(size.deals) if size.deals else 0.0) + (fast(size.strength_games) if size.strength_games else 0.0)
            + (slow(size.strength_slow_games) if size.strength_slow_games else 0.0))


def _adaptive_games(plan: CellPlan, timed) -> tuple[int, int, tuple[int, int], dict[str, Any] | None]:
    """The games a cell with ``--target-ci`` plays (a range), its batches (a range), and what its cap resolves,
    from the interval of its first games (``timed``, a ``sim.estimates.Sample``), the half-width shrinking as
    ``1 / sqrt(games)``; without an interval there, the whole range from its games to its cap."""
    from sim.estimates import MIN_SE_GAMES, Z95

    cap = plan.max_games
    summary = timed.result
    try:
        half = half_width(summary, plan.metric)
    except (KeyError, TypeError):
        half = math.inf
    if timed.games < MIN_SE_GAMES or not math.isfinite(half) or half <= 0:
        value = summary.get(plan.metric) if isinstance(summary, Mapping) else None
        if not isinstance(value, (int, float)) or not -1 <= value <= 1:
            return plan.games, cap, (1, 2 + math.ceil(math.log(max(cap / plan.games, 1), 1 + MIN_GROWTH))), None
        # Too few games to read the interval: a share's at its widest, 1.96 sqrt(0.25 / games).
        half = Z95 * math.sqrt(0.25 / timed.games)
    needed = math.ceil(timed.games * (half / plan.target_ci) ** 2 * GROWTH_MARGIN)
    expected = min(cap, max(plan.games, needed))
    if expected > plan.games:  # a cell that grows grows by at least MIN_GROWTH
        expected = min(cap, max(expected, math.ceil(plan.games * (1 + MIN_GROWTH))))
    at_cap = half * math.sqrt(timed.games / cap)
    resolution = {"metric": plan.metric, "target_ci": plan.target_ci, "games_needed": needed, "max_games": cap,
                  "half_width_at_cap": at_cap, "resolved": needed <= cap}
    if expected <= plan.games:
        return plan.games, plan.games, (1, 1), resolution
    # The interval of the first batch wobbles: its games may need a second batch, or land a little short.
    return (max(plan.games, math.floor(expected / 1.3)), min(cap, math.ceil(expected * 1.3)), (2, 3), resolution)


def sweep_resolution(sweep: Sweep, *, target_ci: float, max_games: int | None = None,
                     target_metric: str | None = None) -> list[dict[str, Any]]:
    """Per cell, whether its cap lets ``--target-ci`` be reached: rows as :func:`plan_sweep`'s, from the same
    first games of each cell (``sim.estimates.games_sample``), nothing timed."""
    from sim.estimates import games_sample

    rows = []
    for cell in sweep.cells:
        plan = CellPlan.of(cell.config, target_ci, max_games, target_metric)
        rows.append({"cell": cell.index, "resolution": _adaptive_games(plan, games_sample(cell.config, plan.games))[3]})
    return rows


def report_seconds(sweep: Sweep) -> float:
    """About how long the sweep's tables and ``sweep.html`` take: the report built from the calibrations' summaries."""
    from analysis.sweep import PAIRED_COLUMNS
    from analysis.sweep_report import sweep_report_html
    from sim.estimates import games_cost
    from sim.sweep.tables import baselines, table_of

    # The cells' summaries timed already by the plan, kept for the process.
    table = table_of(sweep, [games_cost(cell.config).result for cell in sweep.cells])
    # The paired differences the page draws: each cell against its baseline (cell 0's, at its player count).
    bases = baselines(sweep, 0)
    paired = pd.DataFrame([{"cell": cell.index, "baseline": bases[cell.index], "metric": m, "games": cell.config.games,
                            "difference": 0.0, "difference_lo": -0.01, "difference_hi": 0.01, "unpaired_lo": -0.02,
                            "unpaired_hi": 0.02, "tighter": 2.0}
                           for cell in sweep.cells if bases[cell.index] != cell.index
                           for m in sweep.game.paired_metrics], columns=PAIRED_COLUMNS)
    started = time.perf_counter()
    sweep_report_html(table, paired, sweep_name=sweep.name, parameters=sweep.parameters,
                      axes={k: sweep.values(k) for k in sweep.parameters}, game=sweep.game)
    return time.perf_counter() - started


def plan_text(sweep: Sweep, rows: list[dict[str, Any]], report: float | None = None, cluster=None,
              compiled: float = 0.0) -> str:
    """The dry run as text: one line per cell, then the total; ``report``: the seconds of ``sweep.html``;
    ``cluster``: the ``sim.cluster.ClusterShape`` the estimate is for; ``compiled``: the seconds the dry run spent
    compiling kernels."""
    from sim.estimates import band, seconds_text
    from sim.estimates.costs import compiled_text

    width = max(len(r["label"]) for r in rows)
    lines = [f"Sweep {sweep.name}: {len(rows)} cells, seed {sweep.seed}, base {sweep.base}", ""]
    lines.append(f"{'cell':<6}{'changes':<{width + 2}}{'games':>16}{'time':>16}")
    for r in rows:
        shown_games = r.get("expected_games") or [r["games"], r["max_games"]]
        games = f"{shown_games[0]:,}" + (f"-{shown_games[1]:,}" if shown_games[1] not in (None, shown_games[0]) else "")
        lines.append(f"{r['cell']:03d}   {r['label']:<{width + 2}}{games:>16}{_duration(r):>16}")
    todo = [r for r in rows if not r["done"]]
    report_low, report_high = band(report or 0.0)
    total = _duration({"seconds": sum(r["seconds"] or 0 for r in todo) + report_low,
                       "max_seconds": sum(r["max_seconds"] or 0 for r in todo) + report_high, "done": False})
    done = f", {len(rows) - len(todo)} already played" if len(todo) < len(rows) else ""
    duels = sum(r.get("duel_seconds") or 0 for r in todo)
    parts = []
    if duels:
        parts.append(f"{seconds_text(duels)} of skill-gap duels and strength profiles")
    if report is not None:
        parts.append(f"{seconds_text(report)} for the report")
    within = f" ({' and '.join(parts)} included)" if parts else ""
    where = "in this process on this machine" if cluster is None else f"{cluster.words()}, timed on this machine"
    lines += ["", *compiled_text(compiled, "sweep"),
              wrapped(f"{len(todo)} cells to play{done}: about {total.strip()}{within} {where}. Nothing was written.")]
    lines += resolution_lines(todo)
    return "\n".join(lines)


def resolution_lines(rows: list[dict[str, Any]]) -> list[str]:
    """One sentence per cell whose cap comes before its --target-ci: what would resolve it."""
    out = []
    for r in rows:
        res = r.get("resolution")
        if res is None or res["resolved"]:
            continue
        out.append(f"Cell {r['cell']:03d}: {res['metric']} to ±{res['target_ci']:g} needs about "
                   f"{res['games_needed']:,} games, more than its cap of {res['max_games']:,}; it will stop near "
                   f"±{res['half_width_at_cap']:.2g} (give --max-games {res['games_needed']:,} to resolve it).")
    return out


def _duration(row: Mapping[str, Any]) -> str:
    from sim.estimates import seconds_text

    if row["done"]:
        return "done"
    if row["seconds"] is None:
        return "?"
    low, high = row["seconds"], row["max_seconds"]
    text = seconds_text(low)
    return text if high is None or seconds_text(high) == text else f"{text}-{seconds_text(high)}"
