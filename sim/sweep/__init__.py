"""Parameter sweeps: one base config, a grid of overrides, every cell on the same deals.

A sweep file names a base config and the values to try::

    base = "default.toml"                    # relative to this file
    [sweep]
    "rules.players" = [3, 4, 5]
    "rules.golden_token" = [[2, 3], [3, 4], [4, 5]]

    [[cells]]                                # optional: cells beyond the grid
    "rules.players" = 4
    "rules.reserve" = "unlimited"

The cells are the grid of the ``[sweep]`` axes (first axis slowest), then
the ``[[cells]]``; each is the base config with its values put in, checked
like any config. Every cell is played from the same seed, so cells are
compared on the same deals.

:func:`run_sweep` plays the cells into ``cells/<NNN>/`` (each a normal run's
results, built in a staging directory and renamed into place when complete)
and writes the table of cells (``sweep.parquet``), the paired differences
from each cell's baseline, a cell of its player count, whatever its seats
(``paired.parquet``), and the report (``sweep.html``).
Run again on the same directory, it keeps the finished cells (after
checking they were played with the same config) and plays the rest, so a
sweep killed at any moment resumes to the table an uninterrupted one gives.

The modules: ``spec`` (the sweep file and its cells), ``precision``
(adaptive precision, ``--target-ci``), ``directory`` (the sweep's files,
lock and finished cells), ``running`` (:func:`run_sweep`), ``tables`` (the
table of cells and the paired differences), ``plan`` (the dry run).
"""

from sim.sweep.directory import (
    CELLS_DIR,
    DEFINITION_FILE,
    LOCK_FILE,
    PAIRED_FILE,
    REPORT_FILE,
    TABLE_FILE,
)
from sim.sweep.plan import plan_sweep, plan_text, report_seconds, resolution_lines, sweep_resolution
from sim.sweep.precision import DEFAULT_MAX_GAMES_FACTOR, DEFAULT_TARGET_METRIC, CellPlan, half_width
from sim.sweep.running import SweepResults, check_options, run_sweep
from sim.sweep.spec import (
    FIXED_KEYS,
    MAX_CELLS,
    SWEEP_FILE_KEYS,
    Cell,
    Sweep,
    load_sweep,
    parameter_value,
    sweep_from_mapping,
    sweepable_keys,
    zipped_keys,
)
from sim.sweep.tables import baselines, sweep_table, write_tables

__all__ = [
    "CELLS_DIR", "DEFAULT_MAX_GAMES_FACTOR", "DEFAULT_TARGET_METRIC", "DEFINITION_FILE", "FIXED_KEYS", "LOCK_FILE",
    "MAX_CELLS", "PAIRED_FILE", "REPORT_FILE", "SWEEP_FILE_KEYS", "TABLE_FILE", "Cell", "CellPlan", "Sweep",
    "SweepResults", "baselines", "check_options", "half_width", "load_sweep", "parameter_value", "plan_sweep",
    "plan_text", "report_seconds", "resolution_lines", "run_sweep", "sweep_from_mapping", "sweep_resolution",
    "sweep_table", "sweepable_keys", "write_tables", "zipped_keys",
]
