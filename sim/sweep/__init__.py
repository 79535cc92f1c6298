"""Parameter sweeps: one base config, a grid of overrides, every cell on the same deals.

A sweep file names a base config and the values to try::

    base = "default.toml"                    # relative to this file
    [sweep]
    "rules.players" = [3, 4, 5]
    "rules.golden_token" = [[2, 3], [3, 4], [4, 5]]

    [[cells]]                                # optional: cells beyond the grid
    "rules.players" = 4
    "rules.reserve" = "unlimited"

:func:`run_sweep` plays the cells into ``cells/<NNN>/`` (each a normal run's
results) and writes the table of cells (``sweep.parquet``), the paired
differences from each cell's baseline (``paired.parquet``) and the report
(``sweep.html``); run again on the same directory, it plays only the cells
not yet finished.

The modules: ``spec`` (the sweep file and its cells), ``precision``
(adaptive precision, ``--target-ci``), ``directory`` (the sweep's files,
lock and finished cells), ``running`` (:func:`run_sweep`), ``tables`` (the
table of cells and the paired differences), ``plan`` (the dry run).
"""

from sim.sweep.directory import CELLS_DIR, LOCK_FILE, REPORT_FILE
from sim.sweep.plan import plan_sweep, plan_text, report_seconds, sweep_resolution
from sim.sweep.precision import CellPlan
from sim.sweep.running import SweepResults, check_options, run_sweep
from sim.sweep.spec import Cell, Sweep, load_sweep
from sim.sweep.tables import baselines, write_tables

__all__ = [
    "CELLS_DIR", "LOCK_FILE", "REPORT_FILE", "Cell", "CellPlan", "Sweep", "SweepResults", "baselines", "check_options",
    "load_sweep", "plan_sweep", "plan_text", "report_seconds", "run_sweep", "sweep_resolution", "write_tables",
]
