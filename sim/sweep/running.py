"""Playing a sweep: every cell not yet played, into ``cells/<NNN>/``, then its tables, and only then its report."""

from __future__ import annotations

import json
import os
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from sim.atomic import write_text_atomically
from sim.errors import ConfigError, shown
from sim.layout import CONFIG_FILE, META_FILE, RECORDS_FILE, SUMMARY_FILE, TALLY_FILE
from sim.runner import (
    DEFAULT_OUT,
    IN_PROCESS,
    Cluster,
    GamesPlayed,
    _DefaultOut,
    default_out_dir,
    out_path,
    play_together,
    run_meta,
    run_summary,
    staged_directory,
    write_json,
)
from sim.sweep.directory import (
    CELLS_DIR,
    DEFINITION_FILE,
    PAIRED_FILE,
    REPORT_FILE,
    TABLE_FILE,
    _cell_plan_record,
    _definition,
    _finished_cells,
    _sweep_directory,
)
from sim.sweep.plan import resolution_lines, sweep_resolution
from sim.sweep.precision import DEFAULT_TARGET_METRIC, CellPlan, half_width
from sim.sweep.spec import Cell, Sweep, load_sweep
from sim.sweep.tables import write_tables


@dataclass(repr=False)
class SweepResults:
    """What a sweep leaves: ``table``, one row per cell in cell order (``analysis.sweep.summary_row``),
    ``paired``, one row per cell and metric against its baseline, and where they are; ``resumed`` lists the
    cells found already played."""

    sweep: Sweep
    out_dir: Path
    table: pd.DataFrame
    paired: pd.DataFrame
    baseline: int
    resumed: tuple[int, ...] = ()
    report: Path | None = None  # sweep.html, once written

    def cell_dir(self, index: int) -> Path:
        return self.out_dir / CELLS_DIR / self.sweep.cells[index].name

    def to_json(self) -> dict[str, Any]:
        """What ``lvsim sweep --json`` prints: plain JSON values, nan as None."""
        return {
            "name": self.sweep.name,
            "out_dir": str(self.out_dir),
            "seed": self.sweep.seed,
            "baseline": self.baseline,
            "resumed": list(self.resumed),
            "cells": _json_rows(self.table),
            "paired": _json_rows(self.paired),
        }

    def __repr__(self) -> str:
        return f"<SweepResults {shown(self.sweep.name)}: {len(self.table)} cells, out_dir={shown(str(self.out_dir))}>"


def _json_rows(table: pd.DataFrame) -> list[dict[str, Any]]:
    # Through pandas' JSON writer: numpy scalars become plain numbers and nan null.
    return json.loads(table.to_json(orient="records", double_precision=15))


def run_sweep(
    sweep: Sweep | str | os.PathLike,
    out: str | os.PathLike | _DefaultOut = DEFAULT_OUT,
    *,
    cluster: Cluster | None = None,
    target_ci: float | None = None,
    max_games: int | None = None,
    baseline: int = 0,
    sort_by: str = "cell",
    progress: bool | None = None,
    report: bool = True,
    target_metric: str | None = None,
    say=None,
    answered=None,
) -> SweepResults:
    """Play every cell of ``sweep`` not yet played into ``out`` and write the sweep's tables.

    ``out`` is the sweep's directory (by default a new
    ``reports/<sweep name>-<timestamp>/``); an existing one is resumed, its
    finished cells kept if played with the same config and options (else
    ConfigError). ``cluster`` plays the games elsewhere;
    ``target_ci``/``max_games`` turn on adaptive precision (:class:`CellPlan`);
    ``baseline`` is the cell the paired differences are taken from
    (:func:`baselines`). ``answered(results)`` is called once the tables are
    written, before ``sweep.html`` is drawn; a report that fails never costs
    the tables: ``say`` (else stderr) is told why and ``report`` is None.
    """
    from tqdm import tqdm

    if not isinstance(sweep, Sweep):
        sweep = load_sweep(sweep)
    if cluster is None:
        cluster = IN_PROCESS
    # On a cluster the workers load the kernels while this process checks the options and the cells
    # already played (in this process this starts nothing).
    cluster.warm_up(sweep.cells[0].config, wait=False)
    check_options(sweep, target_ci=target_ci, max_games=max_games, baseline=baseline, sort_by=sort_by,
                  target_metric=target_metric)
    out_dir = default_out_dir(sweep.name) if isinstance(out, _DefaultOut) else out_path(out)
    if progress is None:
        progress = sys.stderr.isatty()
    plans = [CellPlan.of(cell.config, target_ci, max_games, target_metric) for cell in sweep.cells]

    with _sweep_directory(out_dir) as out_dir:
        finished = _finished_cells(out_dir, sweep, plans)
        if say is not None and target_ci is not None:  # ``say``: told before playing which cells' caps come first
            for line in resolution_lines(sweep_resolution(sweep, target_ci=target_ci, max_games=max_games,
                                                          target_metric=target_metric)):
                say(line)
        definition = _definition(sweep, target_ci, max_games, target_metric)
        write_text_atomically(out_dir / DEFINITION_FILE, json.dumps(definition, indent=2))
        to_play = [c for c in sweep.cells if c.index not in finished]
        cells_bar = tqdm(total=len(sweep.cells), initial=len(finished), unit="cell", disable=not progress,
                         file=sys.stderr, position=0, leave=False)
        with cells_bar:
            if to_play:
                cluster.warm_up(to_play[0].config)
                _play_cells(to_play, plans, out_dir, cluster, progress, cells_bar)
        # The tables first: whatever happens to the report, they stay.
        table, paired = write_tables(out_dir, sweep, baseline)
        results = SweepResults(sweep, out_dir, table, paired, baseline, tuple(sorted(finished)))
        if answered is not None:
            answered(results)
        if report:
            from analysis.report_html import write_page
            from analysis.sweep_report import sweep_report_html

            def page() -> str:
                return sweep_report_html(table, paired, sweep_name=sweep.name, parameters=sweep.parameters,
                                         axes={k: sweep.values(k) for k in sweep.parameters},
                                         game=sweep.game, baseline=baseline, sort_by=sort_by, target_ci=target_ci,
                                         target_metric=target_metric or DEFAULT_TARGET_METRIC)

            kept = f"the sweep's tables are in {out_dir / TABLE_FILE} and {out_dir / PAIRED_FILE}"
            try:
                if write_page(out_dir / REPORT_FILE, page, kept=kept, say=say) is not None:
                    results.report = out_dir / REPORT_FILE
            except KeyboardInterrupt:
                (say or _stderr)(f"interrupted: {out_dir / REPORT_FILE} was not written; {kept}; the same command "
                                 f"with --out {out_dir} writes it, playing nothing again")
                raise
    return results


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def check_options(
    sweep: Sweep,
    *,
    target_ci: float | None = None,
    max_games: int | None = None,
    baseline: int = 0,
    sort_by: str = "cell",
    target_metric: str | None = None,
) -> None:
    """Refuse options that do not fit the sweep, before anything is played."""
    from analysis.sweep import metric_columns

    if target_ci is not None and not target_ci > 0:
        raise ConfigError("--target-ci", f"must be a positive half-width, got {target_ci}")
    if target_metric is not None:
        if target_ci is None:
            raise ConfigError("--target-metric", "only applies with --target-ci")
        summary = sweep.game.summarize(sweep.game.empty_tally(sweep.cells[0].config.rules),
                                       policies=list(sweep.cells[0].config.seat_policies))
        with_interval = [k[:-3] for k in summary if k.endswith("_ci") and isinstance(summary[k], list)
                         and len(summary[k]) == 2 and not isinstance(summary[k][0], list)]
        if target_metric not in with_interval:
            raise ConfigError("--target-metric", f"{shown(target_metric)} is not a metric with one interval "
                                               f"(e.g. {', '.join(with_interval[:6])})")
    if max_games is not None:
        if target_ci is None:
            raise ConfigError("--max-games", "only applies with --target-ci")
        first = max(cell.config.games for cell in sweep.cells)
        if max_games < first:
            raise ConfigError("--max-games", f"must be at least the {first:,} games a cell plays before "
                                             f"--target-ci adds any, got {max_games:,}")
    if not 0 <= baseline < len(sweep.cells):
        raise ConfigError("--baseline", f"must be a cell between 0 and {len(sweep.cells) - 1}, got {baseline}")
    known = dict.fromkeys(["cell", *sweep.parameters, "label"])
    for cell in sweep.cells:
        known.update(dict.fromkeys(metric_columns(cell.config)))
    if any(c.config.skill_gap_deals > 0 for c in sweep.cells):
        duels = sweep.cells[0].config.game_spec.skill_gap_duels
        known.update(dict.fromkeys(f"skill_gap_{d.name}{end}" for d in duels for end in ("", "_lo", "_hi")))
    column = sort_by.removeprefix("-")
    if column not in known:
        import difflib

        # The columns are many (every metric, its interval, per seat and round): name the likely ones.
        close = difflib.get_close_matches(column, list(known), n=3, cutoff=0.6)
        names = list(known)
        examples = [*names[:names.index("label") + 1], *names[names.index("label") + 1:][:3]]
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise ConfigError("--sort-by", f"unknown column {shown(column)} ({hint}the {len(known)} columns are those of "
                                     f"sweep.parquet, e.g. {', '.join(examples)})")


def _play_cells(cells: list[Cell], plans: list[CellPlan], out_dir: Path, cluster: Cluster, progress: bool,
                cells_bar) -> None:
    """Play the cells into ``cells/<NNN>``, all at once: each appears complete, as soon as it is, or not at all.

    Every cell's games go to the cluster together, so its workers stay busy;
    a cell with ``--target-ci`` that needs more games plays them with the
    others that do, once every cell has played its first games.
    """
    from tqdm import tqdm

    bar = tqdm(total=sum(plans[c.index].games for c in cells), unit="game", unit_scale=True, disable=not progress,
               file=sys.stderr, position=1, leave=False)
    in_play: dict[int, _CellInPlay] = {}
    batch = [(cell, 0, plans[cell.index].games) for cell in cells]
    try:
        with bar:
            while batch:
                more_batch: list[tuple[Cell, int, int]] = []

                def start(i: int, batch=batch) -> GamesPlayed:
                    cell = batch[i][0]
                    if cell.index not in in_play:
                        in_play[cell.index] = _CellInPlay(cell, plans[cell.index], out_dir)
                    return in_play[cell.index].played

                jobs = [(cell.config, first, n) for cell, first, n in batch]
                for i, played in play_together(cluster, jobs, start, bar):
                    cell = batch[i][0]
                    if more := plans[cell.index].more_games(played.summary()):
                        bar.total += more
                        bar.refresh()
                        more_batch.append((cell, played.games, more))
                        continue
                    in_play.pop(cell.index).finish()
                    cells_bar.update(1)
                batch = more_batch
    except BaseException:
        error = sys.exc_info()
        for cell in in_play.values():
            cell.abandon(error)
        raise


class _CellInPlay:
    """One cell being played: its staging directory and its games so far, until it is finished or abandoned."""

    def __init__(self, cell: Cell, plan: CellPlan, out_dir: Path):
        self.cell, self.plan = cell, plan
        self.cell_dir = out_dir / CELLS_DIR / cell.name
        self.started = time.perf_counter()
        self.started_at = datetime.now(timezone.utc)
        self._staged = ExitStack()
        self.staging = self._staged.enter_context(staged_directory(self.cell_dir))
        self.played = GamesPlayed(cell.config, self.staging / RECORDS_FILE)

    def finish(self) -> None:
        """Write the cell's files and put its directory in place."""
        cell, plan, played, staging = self.cell, self.plan, self.played, self.staging
        with self._staged:
            played.close()
            # The config as played: its games are what was played, so that
            # `lvsim run cells/<NNN>/config.toml` repeats the cell.
            config = replace(cell.config, games=played.games)
            (staging / CONFIG_FILE).write_text(config.to_toml(), encoding="utf-8")
            summary = run_summary(config, played)
            write_json(staging / SUMMARY_FILE, summary)
            # A cell is a run like any other: `lvsim report cells/<NNN>` writes its report from this.
            cell.config.game_spec.report_tally_io.write(staging / TALLY_FILE, played.tally.report)
            meta = run_meta(config, played, self.cell_dir, self.started_at, time.perf_counter() - self.started)
            meta["sweep"] = {
                "cell": cell.index,
                "overrides": cell.overrides,
                "plan": _cell_plan_record(cell, plan),
                "target_met": None if plan.target_ci is None else half_width(summary, plan.metric) <= plan.target_ci,
            }
            write_json(staging / META_FILE, meta)

    def abandon(self, error) -> None:
        """Remove the cell's staging directory, on ``error`` (``sys.exc_info()``) elsewhere."""
        try:
            self.played.close()
        finally:
            self._staged.__exit__(*error)
