"""The tables of a played sweep: one row per cell, and the paired differences from each cell's baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from sim.atomic import write_parquet_atomically
from sim.layout import RECORDS_FILE, SUMMARY_FILE
from sim.sweep.directory import CELLS_DIR, PAIRED_FILE, TABLE_FILE
from sim.sweep.spec import Cell, Sweep


def sweep_table(out_dir: Path, sweep: Sweep) -> pd.DataFrame:
    """One row per cell from the cells' summaries: the cell, its parameters, every metric."""
    return table_of(sweep, [json.loads((out_dir / CELLS_DIR / cell.name / SUMMARY_FILE).read_text(encoding="utf-8"))
                            for cell in sweep.cells])


def table_of(sweep: Sweep, summaries: list[dict]) -> pd.DataFrame:
    """The table of cells from each cell's summary, in cell order."""
    from analysis.sweep import metric_columns, summary_row

    columns = {key: sweep.column(key) for key in sweep.parameters}
    rows = [{"cell": cell.index, **{key: values[i] for key, values in columns.items()}, "label": cell.label,
             **summary_row(summary)} for i, (cell, summary) in enumerate(zip(sweep.cells, summaries))]
    # Seats and rounds that only some cells have: their columns in seat order among the others (nan for the
    # cells without them), not at the end: those of the largest table shape (the most seats, then rounds).
    widest = max((c.config for c in sweep.cells), key=lambda c: c.game_spec.table_shape(c.rules))
    columns = ["cell", *sweep.parameters, "label", *metric_columns(widest)]
    # Metrics an empty summary does not have (the skill gap) follow, in order.
    extra = dict.fromkeys(k for row in rows for k in row if k not in set(columns))
    # The skill gap's columns are there even when no cell played its duels (empty), so
    # that scripts reading sweep.parquet do not depend on whether the duels were skipped.
    for duel in sweep.game.skill_gap_duels:
        extra.update(dict.fromkeys(f"skill_gap_{duel.name}{end}" for end in ("", "_lo", "_hi")))
    table = pd.DataFrame(rows, columns=columns + list(extra))
    skill = [c for c in table.columns if c.startswith("skill_gap_")]
    table[skill] = table[skill].astype(float)
    return table


def baselines(sweep: Sweep, baseline: int) -> dict[int, int]:
    """The cell each cell's paired differences are taken from: a baseline per player count.

    Game ``i`` is dealt alike only at the same player count (the seats'
    policies draw from streams of their own, so they never change a deal):
    each cell is compared with the ``baseline`` cell at its player count,
    whatever its seats, and at another player count with the cell that has
    the ``baseline`` cell's other values; failing that, its other values
    but its seats (seats listed one by one cannot be the same at another
    count); failing that, the first cell with that player count (a cell
    alone at its player count is its own baseline).
    """
    def rest(cell: Cell, seats: bool = True) -> str:
        data = cell.config.to_dict()
        data["rules"].pop("players")
        data["run"].pop("threads", None)
        # The seats as one name when every seat plays it, so that "greedy" reads the same at any count.
        names = cell.config.seat_policies
        data["policies"] = (names[0] if len(set(names)) == 1 else list(names)) if seats else None
        return json.dumps(data, sort_keys=True)

    base = sweep.cells[baseline]
    out = {}
    for cell in sweep.cells:
        if cell.config.players == base.config.players:
            out[cell.index] = baseline
            continue
        same = [c for c in sweep.cells if c.config.players == cell.config.players]
        like = [c for c in same if rest(c) == rest(base)] or [c for c in same if rest(c, False) == rest(base, False)]
        out[cell.index] = (like or same)[0].index
    return out


def write_tables(out_dir: Path, sweep: Sweep, baseline: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Write ``sweep.parquet`` and ``paired.parquet`` from the played cells; return both tables."""
    from analysis.sweep import paired_table

    table = sweep_table(out_dir, sweep)
    records = {c.index: out_dir / CELLS_DIR / c.name / RECORDS_FILE for c in sweep.cells}
    configs = {c.index: c.config for c in sweep.cells}
    paired = paired_table(records, configs, baselines(sweep, baseline))
    write_parquet_atomically(out_dir / TABLE_FILE, table)
    write_parquet_atomically(out_dir / PAIRED_FILE, paired)
    return table, paired
