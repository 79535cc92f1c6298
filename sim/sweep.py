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
from each cell's baseline, a cell of its player count and seats
(``paired.parquet``), and the report (``sweep.html``).
Run again on the same directory, it keeps the finished cells (after
checking they were played with the same config) and plays the rest, so a
sweep killed at any moment resumes to the table an uninterrupted one gives.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import os
import re
import secrets
import shutil
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Mapping

import pandas as pd

from sim.config import RUN_KEYS, Config, config_from_mapping, rule_keys
from sim.errors import ConfigError, cut, shown
from sim.inputs import read_toml
from sim.runner import (
    CONFIG_FILE,
    DEFAULT_OUT,
    IN_PROCESS,
    META_FILE,
    RECORDS_FILE,
    SUMMARY_FILE,
    TALLY_FILE,
    Cluster,
    GamesPlayed,
    _DefaultOut,
    default_out_dir,
    out_path,
    run_meta,
    run_summary,
    staged_directory,
    write_json,
)

SWEEP_FILE_KEYS = ("base", "sweep", "cells")
# Cells share the seed: that is what makes their differences paired.
FIXED_KEYS = {"run.seed": "every cell of a sweep plays the same seed, so that cells are compared on the same deals; "
                          "set run.seed in the base config (or --seed)"}


def sweepable_keys(game_id: str) -> tuple[str, ...]:
    """The dotted keys a sweep of ``game_id`` may vary: its run keys but the seed, its rules, its seats."""
    keys = [*(f"run.{k}" for k in RUN_KEYS), *(f"rules.{k}" for k in rule_keys(game_id)), "policies.seats"]
    return tuple(k for k in keys if k not in FIXED_KEYS)


CELLS_DIR = "cells"
DEFINITION_FILE = "sweep.json"
TABLE_FILE = "sweep.parquet"
PAIRED_FILE = "paired.parquet"
REPORT_FILE = "sweep.html"
LOCK_FILE = ".lock"
PARTIAL_SUFFIX = ".partial"

# Without --max-games, adaptive precision stops a cell at this many times its games.
DEFAULT_MAX_GAMES_FACTOR = 10
# Aim past the estimated games needed: the estimate wobbles with the sample,
# and an extra small batch costs more than a few extra games.
GROWTH_MARGIN = 1.1
# A cell that grows grows by at least this fraction, so a cell never creeps
# towards its target in a long run of tiny batches.
MIN_GROWTH = 0.25
# What --target-ci narrows unless --target-metric says otherwise.
DEFAULT_TARGET_METRIC = "first_player_advantage"
# The most cells a sweep may have, the grid's and the [[cells]] together: each
# is checked as a config before anything is played, and gets its own results
# directory and report row. Larger studies are several sweeps.
MAX_CELLS = 1_000


# --- the sweep file ---------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One rule set of a sweep: the base config with ``overrides`` (dotted key -> value) put in."""

    index: int
    overrides: dict[str, Any]
    config: Config

    @property
    def name(self) -> str:
        return f"{self.index:03d}"

    @property
    def label(self) -> str:
        return ", ".join(f"{k}={_spell(v)}" for k, v in self.overrides.items()) or "base"


@dataclass(frozen=True)
class Sweep:
    """A validated sweep: its name, base config file, axes and cells in order."""

    name: str
    base: Path
    axes: dict[str, list[Any]]
    cells: tuple[Cell, ...]

    @property
    def parameters(self) -> list[str]:
        """Every dotted key some cell sets: the axes, then those of explicit cells."""
        keys = dict.fromkeys(k for axis in self.axes for k in zipped_keys(axis))
        for cell in self.cells:
            keys.update(dict.fromkeys(cell.overrides))
        return list(keys)

    @property
    def seed(self) -> int:
        return self.cells[0].config.seed

    @property
    def game(self):
        """The game every cell plays (a sweep varies the rules of one game)."""
        return self.cells[0].config.game_spec

    def values(self, key: str) -> list[Any]:
        """The values ``key`` takes over the cells, each once, in sweep order, as the table holds them."""
        return list(dict.fromkeys(self.column(key)))

    def column(self, key: str) -> list[Any]:
        """The value of ``key`` in each cell, in cell order, as the table holds it.

        A knob whose values are of different kinds (``white_dice = "auto"``
        and ``0``) is held as the sweep file spells it, all text: a table
        column holds one kind of value.
        """
        values = [_show(parameter_value(cell.config, key)) for cell in self.cells]
        kinds = {type(v) for v in values if v is not None}
        if len(kinds) > 1 and not kinds <= {int, float}:
            values = [_spell(v) for v in values]
        return values


def load_sweep(
    path: str | os.PathLike,
    *,
    games: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
) -> Sweep:
    """Read and check the sweep file at ``path``; ``games``/``seed``/``threads`` override every cell.

    Raises :class:`~sim.errors.ConfigError` with a one-line message naming
    the key, or the cell and key for a cell the rules reject.
    """
    path = Path(path)
    data = _read_toml(path)
    return sweep_from_mapping(data, base_dir=path.parent, name=path.stem, games=games, seed=seed, threads=threads)


def sweep_from_mapping(
    data: Mapping[str, Any],
    *,
    base_dir: Path = Path("."),
    name: str = "sweep",
    games: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
) -> Sweep:
    """A sweep from the mapping of a sweep file; ``base`` is read relative to ``base_dir``."""
    for key in data:
        if key not in SWEEP_FILE_KEYS:
            what = "table" if isinstance(data[key], dict) else "key"
            raise ConfigError(key, f"unknown {what} (known: {', '.join(SWEEP_FILE_KEYS)})")
    if "base" not in data:
        raise ConfigError("base", "missing (the config file every cell starts from, relative to the sweep file)")
    if not isinstance(data["base"], str):
        raise ConfigError("base", f"must be the path of a config file, got {shown(data['base'])}")
    base_path = base_dir / data["base"]
    base = _read_toml(base_path, field="base")
    try:
        game_id = config_from_mapping(base).game
    except ConfigError as err:
        raise ConfigError(f"base {data['base']}", str(err)) from None

    axes = _axes(data.get("sweep", {}), game_id)
    explicit = _explicit_cells(data.get("cells", []), game_id)
    if not axes and not explicit:
        raise ConfigError("sweep", "nothing to sweep: give a [sweep] table of values to try or [[cells]]")
    n_cells = (math.prod(map(len, axes.values())) if axes else 0) + len(explicit)
    if n_cells > MAX_CELLS:
        raise ConfigError("cells", f"the sweep has {n_cells:,} cells (its grid and its [[cells]]); "
                                   f"a sweep has at most {MAX_CELLS:,}")
    grid = [_unzipped(dict(zip(axes, values))) for values in itertools.product(*axes.values())] if axes else []

    cells = []
    for index, overrides in enumerate(grid + explicit):
        config = _cell_config(base, overrides, index, name=f"{name}-{index:03d}")
        config = config.with_overrides(games=games, seed=seed, threads=threads)
        cells.append(Cell(index, overrides, config))
    return Sweep(name=name, base=base_path, axes=axes, cells=tuple(cells))


def _read_toml(path: Path, field: str | None = None) -> dict[str, Any]:
    """The mapping of a TOML file; errors name ``field`` and the path, or the path alone."""

    def fail(problem: str) -> ConfigError:
        if field is None:
            return ConfigError(str(path), problem)
        return ConfigError(field, f"{path}: {problem}")

    return read_toml(path, fail)


def _dotted(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"rules": {"players": x}}`` and ``{"rules.players": x}`` both as ``{"rules.players": x}``.

    No config value is itself a table, so a nested table is always a path.
    """
    out = {}
    for key, value in table.items():
        full = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_dotted(value, f"{full}."))
        else:
            out[full] = value
    return out


# One entry of a rule that is a list: "rules.tokens[2]" (a token), "rules.golden_token[1]" (a face).
_ENTRY_KEY = re.compile(r"^rules\.([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])+)$")


def zipped_keys(key: str) -> list[str]:
    """The keys of a sweep axis: ``"rules.players, rules.starting_cabbages"`` varies both together."""
    return [k.strip() for k in key.split(",")] if "," in key else [key]


def _entry(key: str) -> tuple[str, tuple[int, ...]] | None:
    """``"rules.tokens[2]"`` as ``("tokens", (2,))``; None for a key without an index."""
    match = _ENTRY_KEY.match(key)
    if match is None:
        return None
    return match.group(1), tuple(int(i) for i in re.findall(r"\[(\d+)\]", match.group(2)))


def _check_key(where: str, key: str, game_id: str) -> None:
    if key in FIXED_KEYS:
        raise ConfigError(f'{where}."{key}"', f"cannot vary: {FIXED_KEYS[key]}")
    entry = _entry(key)
    if entry is not None and entry[0] in rule_keys(game_id) and entry[0] != "players":
        return
    known = sweepable_keys(game_id)
    if key not in known:
        raise ConfigError(f'{where}."{key}"', f"unknown key (known: {', '.join(known)}; an entry of a list as "
                                              "rules.<key>[i])")


def _axes(table: Any, game_id: str) -> dict[str, list[Any]]:
    if not isinstance(table, dict):
        raise ConfigError("sweep", f"must be a table of dotted keys and the values to try, got {shown(table)}")
    axes = {}
    for key, values in _dotted(table).items():
        keys = zipped_keys(key)
        for k in keys:
            _check_key("sweep", k, game_id)
        if len(set(keys)) != len(keys):
            raise ConfigError(f'sweep."{key}"', "names a key more than once")
        if not isinstance(values, list) or not values:
            raise ConfigError(f'sweep."{key}"', f"must be a non-empty list of the values to try, got {shown(values)}")
        if len(keys) > 1:
            for v in values:
                if not isinstance(v, list) or len(v) != len(keys):
                    raise ConfigError(f'sweep."{key}"', f"zips {len(keys)} keys: each value is a list of {len(keys)} "
                                                        f"values, one per key, got {cut(_spell(v))}")
        axes[key] = values
    cells = math.prod(len(values) for values in axes.values())
    if cells > MAX_CELLS:
        sizes = " x ".join(f"{len(v):,}" for v in axes.values())
        raise ConfigError("sweep", f"its grid has {sizes} = {cells:,} cells; a sweep has at most {MAX_CELLS:,}")
    for key, values in axes.items():
        seen = set()
        for v in map(_show, values):
            seen_as = v if isinstance(v, (str, int, float)) else json.dumps(v, sort_keys=True, default=str)
            if seen_as in seen:
                raise ConfigError(f'sweep."{key}"', f"lists {cut(_spell(v))} more than once")
            seen.add(seen_as)
    return axes


def _explicit_cells(cells: Any, game_id: str) -> list[dict[str, Any]]:
    if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
        raise ConfigError("cells", "must be an array of tables ([[cells]]), each of dotted keys and values")
    if len(cells) > MAX_CELLS:
        raise ConfigError("cells", f"lists {len(cells):,} cells; a sweep has at most {MAX_CELLS:,}")
    out = []
    for i, cell in enumerate(cells):
        overrides = _dotted(cell)
        if not overrides:
            raise ConfigError(f"cells[{i}]", "is empty: give the keys this cell changes")
        for key in overrides:
            _check_key(f"cells[{i}]", key, game_id)
        out.append(overrides)
    return out


def _unzipped(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """A cell's overrides with each zipped axis's value spread over its keys."""
    out = {}
    for key, value in overrides.items():
        keys = zipped_keys(key)
        out.update(zip(keys, value) if len(keys) > 1 else [(key, value)])
    return out


def _cell_config(base: Mapping[str, Any], overrides: Mapping[str, Any], index: int, name: str) -> Config:
    data = copy.deepcopy(dict(base))
    entries = {}
    for key, value in overrides.items():
        if _entry(key) is not None:
            entries[key] = value  # put into the resolved list below, after the whole values
            continue
        table, _, field = key.partition(".")
        data[table] = {**data.get(table, {}), field: value}
    label = ", ".join(f"{k}={_spell(v)}" for k, v in overrides.items())
    try:
        if entries:
            rules = config_from_mapping(data, name=name).rules.to_dict()
            for key, value in entries.items():
                knob, path = _entry(key)
                holder = rules[knob]
                for depth, i in enumerate(path):
                    if not isinstance(holder, list) or i >= len(holder):
                        raise ConfigError(key, f"no such entry: rules.{knob}{''.join(f'[{j}]' for j in path[:depth])} "
                                               f"has {len(holder) if isinstance(holder, list) else 'no'} entries")
                    if depth == len(path) - 1:
                        holder[i] = copy.deepcopy(value)
                    else:
                        holder = holder[i]
                data["rules"] = {**data.get("rules", {}), knob: rules[knob]}
        return config_from_mapping(data, name=name)
    except ConfigError as err:
        raise ConfigError(f"sweep cell {index} ({label})", str(err)) from None


def parameter_value(config: Config, key: str) -> Any:
    """The value of dotted ``key`` in a resolved config (defaults spelled out); ``rules.tokens[2]`` one entry."""
    entry = _entry(key)
    if entry is not None:
        value = config.to_dict()["rules"].get(entry[0])
        for i in entry[1]:
            value = value[i]
        return value
    table, _, field = key.partition(".")
    return config.to_dict()[table].get(field)


def _show(value: Any) -> str | int | float | bool:
    """A parameter value as a table holds it: scalars as they are, lists as compact text."""
    if isinstance(value, (list, tuple)):
        return json.dumps(value, separators=(", ", ": "))
    return value


def _spell(value: Any) -> str:
    """A parameter value as the sweep file spells it (``[3, 4]``, ``false``), strings unquoted."""
    if value is None:
        return "none"
    return value if isinstance(value, str) else json.dumps(value, separators=(", ", ": "))


# --- adaptive precision ------------------------------------------------------------


@dataclass(frozen=True)
class CellPlan:
    """How many games a cell plays: its config's games, or more until precise enough.

    With ``target_ci`` set, games are added until the half-width of the
    95% interval of ``metric`` (the first-player advantage, or e.g. the
    worst seat's advantage) is at most ``target_ci`` or the cell has played
    ``max_games``. Each batch continues the game indices, so the result
    equals a single run of the final total.
    """

    games: int
    target_ci: float | None = None
    max_games: int | None = None
    metric: str = DEFAULT_TARGET_METRIC

    @classmethod
    def of(cls, config: Config, target_ci: float | None, max_games: int | None,
           metric: str = None) -> "CellPlan":
        if target_ci is None:
            return cls(config.games)
        cap = max_games if max_games is not None else DEFAULT_MAX_GAMES_FACTOR * config.games
        return cls(min(config.games, cap), target_ci, cap, metric or DEFAULT_TARGET_METRIC)

    def more_games(self, summary: Mapping[str, Any]) -> int:
        """Games to add after the games of ``summary``; 0 when the cell is done."""
        if self.target_ci is None:
            return 0
        n = summary["games"]
        half = half_width(summary, self.metric)
        if half <= self.target_ci or n >= self.max_games:
            return 0
        # The half-width shrinks as 1/sqrt(games).
        needed = math.ceil(n * (half / self.target_ci) ** 2 * GROWTH_MARGIN) if math.isfinite(half) else 2 * n
        total = min(self.max_games, max(needed, n + math.ceil(MIN_GROWTH * n)))
        return total - n

    def as_dict(self) -> dict[str, Any]:
        plan = {"target_ci": self.target_ci, "max_games": self.max_games}
        if self.metric != DEFAULT_TARGET_METRIC:  # cells of earlier sweeps, without the key, still resume
            plan["target_metric"] = self.metric
        return plan


def half_width(summary: Mapping[str, Any], metric: str = None) -> float:
    """Half-width of the 95% interval of ``metric`` (the first-player advantage); inf while undefined."""
    low, high = summary[f"{metric or DEFAULT_TARGET_METRIC}_ci"]
    return math.inf if low is None else (high - low) / 2


# --- running ------------------------------------------------------------------------


@dataclass(repr=False)
class SweepResults:
    """What a sweep leaves: the table of cells, the paired differences and where they are.

    ``table`` has one row per cell in cell order (see ``analysis.sweep.summary_row``
    for the metric columns); ``paired`` one row per cell and metric against
    its baseline (:func:`baselines`: of its player count and seats; a cell
    with none has no row). ``resumed`` lists the cells found already played.
    """

    sweep: Sweep
    out_dir: Path
    table: pd.DataFrame
    paired: pd.DataFrame
    baseline: int
    resumed: tuple[int, ...] = ()

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
) -> SweepResults:
    """Play every cell of ``sweep`` not yet played into ``out`` and write the sweep's tables.

    ``out`` is the sweep's directory: by default a new
    ``reports/<sweep name>-<timestamp>/``. An existing sweep directory is
    resumed: its finished cells are kept if they were played with the same
    config and options (else ConfigError) and the others are played.
    ``cluster`` plays the games elsewhere (``sim.cluster.open_cluster``);
    ``target_ci``/``max_games`` turn on adaptive precision (:class:`CellPlan`);
    ``baseline`` is the cell the paired differences are taken from (at
    another player count or seating, the cell like it: :func:`baselines`);
    ``sort_by`` orders the report's table; ``report`` writes ``sweep.html``.
    """
    from tqdm import tqdm

    if not isinstance(sweep, Sweep):
        sweep = load_sweep(sweep)
    check_options(sweep, target_ci=target_ci, max_games=max_games, baseline=baseline, sort_by=sort_by,
                  target_metric=target_metric)
    out_dir = default_out_dir(sweep.name) if isinstance(out, _DefaultOut) else out_path(out)
    if progress is None:
        progress = sys.stderr.isatty()
    if cluster is None:
        cluster = IN_PROCESS
    plans = [CellPlan.of(cell.config, target_ci, max_games, target_metric) for cell in sweep.cells]

    with _sweep_directory(out_dir) as out_dir:
        finished = _finished_cells(out_dir, sweep, plans)
        if say is not None and target_ci is not None:  # ``say``: told before playing which cells' caps come first
            for line in resolution_lines(sweep_resolution(sweep, target_ci=target_ci, max_games=max_games,
                                                          target_metric=target_metric)):
                say(line)
        _write_atomically(out_dir / DEFINITION_FILE, json.dumps(_definition(sweep, target_ci, max_games, target_metric),
                                                                 indent=2))
        to_play = [c for c in sweep.cells if c.index not in finished]
        cells_bar = tqdm(total=len(sweep.cells), initial=len(finished), unit="cell", disable=not progress,
                         file=sys.stderr, position=0, leave=False)
        with cells_bar:
            if to_play:
                cluster.warm_up(to_play[0].config)
            for cell in to_play:
                cells_bar.set_postfix_str(cell.label, refresh=False)
                _play_cell(cell, plans[cell.index], out_dir, cluster, progress)
                cells_bar.update(1)
        table, paired = write_tables(out_dir, sweep, baseline)
        if report:
            from analysis.sweep_report import sweep_report_html

            html = sweep_report_html(table, paired, sweep_name=sweep.name, parameters=sweep.parameters,
                                     axes={k: sweep.values(k) for k in sweep.parameters},
                                     game=sweep.game, baseline=baseline, sort_by=sort_by, target_ci=target_ci,
                                     target_metric=target_metric or DEFAULT_TARGET_METRIC)
            _write_atomically(out_dir / REPORT_FILE, html)
    return SweepResults(sweep, out_dir, table, paired, baseline, tuple(sorted(finished)))


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
        if max_games < 1:
            raise ConfigError("--max-games", f"must be at least 1, got {max_games}")
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


def _play_cell(cell: Cell, plan: CellPlan, out_dir: Path, cluster: Cluster, progress: bool) -> None:
    """Play one cell into ``cells/<NNN>``, which appears complete or not at all."""
    from tqdm import tqdm

    cell_dir = out_dir / CELLS_DIR / cell.name
    started = time.perf_counter()
    started_at = datetime.now(timezone.utc)
    bar = tqdm(total=plan.games, unit="game", unit_scale=True, disable=not progress, file=sys.stderr,
               position=1, leave=False)
    with bar, staged_directory(cell_dir) as staging:
        with GamesPlayed(cell.config, staging / RECORDS_FILE) as played:
            played.play(0, plan.games, cluster, bar)
            while more := plan.more_games(played.summary()):
                bar.total += more
                bar.refresh()
                played.play(played.games, more, cluster, bar)
        # The config as played: its games are what was played, so that
        # `lvsim run cells/<NNN>/config.toml` repeats the cell.
        config = replace(cell.config, games=played.games)
        (staging / CONFIG_FILE).write_text(config.to_toml(), encoding="utf-8")
        summary = run_summary(config, played)
        write_json(staging / SUMMARY_FILE, summary)
        # A cell is a run like any other: `lvsim report cells/<NNN>` writes its report from this.
        cell.config.game_spec.report_tally_io.write(staging / TALLY_FILE, played.tally.report)
        meta = run_meta(config, played, cell_dir, started_at, time.perf_counter() - started)
        meta["sweep"] = {
            "cell": cell.index,
            "overrides": cell.overrides,
            "plan": _cell_plan_record(cell, plan),
            "target_met": None if plan.target_ci is None else half_width(summary, plan.metric) <= plan.target_ci,
        }
        write_json(staging / META_FILE, meta)


def _cell_plan_record(cell: Cell, plan: CellPlan) -> dict[str, Any]:
    """What decides a cell's results: its config (threads aside) and its precision plan."""
    config = cell.config.to_dict()
    config["run"].pop("threads", None)  # never changes the results
    # Through JSON, as it is stored, so that a stored plan compares equal.
    return json.loads(json.dumps({"config": config, **plan.as_dict()}))


def _definition(sweep: Sweep, target_ci: float | None, max_games: int | None,
                target_metric: str | None = None) -> dict[str, Any]:
    return {
        "name": sweep.name,
        "base": str(sweep.base),
        "seed": sweep.seed,
        "axes": sweep.axes,
        "cells": [{"cell": c.index, "label": c.label, "overrides": c.overrides} for c in sweep.cells],
        "target_ci": target_ci,
        "target_metric": (target_metric or DEFAULT_TARGET_METRIC) if target_ci is not None else None,
        "max_games": max_games,
    }


# --- the sweep directory --------------------------------------------------------------


@contextmanager
def _sweep_directory(out_dir: Path) -> Iterator[Path]:
    """The sweep's directory, made if new, locked against a second sweep, cleared of leftovers.

    A directory holding anything but a sweep is refused. Staging
    directories and files left by a sweep that was killed are removed:
    the lock guarantees no sweep is still writing them.
    """
    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError("--out", f"{out_dir} exists and is not a directory")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not (out_dir / DEFINITION_FILE).is_file():
        raise ConfigError("--out", f"{out_dir} is not empty and holds no sweep; choose a new directory or remove it")
    try:
        (out_dir / CELLS_DIR).mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError("--out", f"cannot create {out_dir}: {err.strerror or err}") from None
    with _locked(out_dir / LOCK_FILE):
        for leftover in [*out_dir.glob(f".*{PARTIAL_SUFFIX}"), *(out_dir / CELLS_DIR).glob(f".*{PARTIAL_SUFFIX}")]:
            if leftover.is_dir():
                shutil.rmtree(leftover, ignore_errors=True)
            else:
                leftover.unlink(missing_ok=True)
        yield out_dir


@contextmanager
def _locked(path: Path, what: str = "sweep") -> Iterator[None]:
    """Hold an exclusive lock on ``path``; the system drops it when the process dies, even by kill -9."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no protection against two sweeps at once
        yield
        return
    with path.open("a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfigError("--out", f"{path.parent} is in use by another lvsim {what}") from None
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _finished_cells(out_dir: Path, sweep: Sweep, plans: list[CellPlan]) -> set[int]:
    """The cells already played in ``out_dir``; ConfigError if one was played differently."""
    cells_dir = out_dir / CELLS_DIR
    finished = set()
    for path in sorted(cells_dir.iterdir()):
        if path.name.startswith("."):
            continue
        where = f"{out_dir}/{CELLS_DIR}/{path.name}"
        names = [cell.name for cell in sweep.cells]
        if path.name not in names:
            raise ConfigError("--out", f"{where} is not a cell of this sweep ({len(sweep.cells)} cells); "
                                     "resume with the same sweep, or choose a new directory")
        cell = sweep.cells[names.index(path.name)]
        try:
            stored = json.loads((path / META_FILE).read_text(encoding="utf-8"))["sweep"]["plan"]
        except (OSError, ValueError, KeyError, TypeError):
            raise ConfigError("--out", f"{where} is not a finished cell (no readable {META_FILE}); remove it") from None
        wanted = _cell_plan_record(cell, plans[cell.index])
        if stored != wanted:
            key, was, now = _first_difference(stored, wanted)
            raise ConfigError(
                "--out",
                f"{where} was played with {key} = {_spell(was)}, this sweep has {key} = {_spell(now)}; "
                "resume with the same sweep and options, or choose a new directory",
            )
        finished.add(cell.index)
    return finished


def _first_difference(stored: Mapping[str, Any], wanted: Mapping[str, Any]) -> tuple[str, Any, Any]:
    a, b = _dotted(stored), _dotted(wanted)
    for key in [*b, *a]:
        if a.get(key) != b.get(key):
            return key.removeprefix("config."), a.get(key), b.get(key)
    raise AssertionError("the plans differ")  # pragma: no cover


def _write_atomically(path: Path, text: str) -> None:
    """Write ``path`` so that it is never seen half-written, even if the process is killed."""
    staging = path.with_name(f".{path.name}.{secrets.token_hex(4)}{PARTIAL_SUFFIX}")
    staging.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    os.replace(staging, path)


def _write_parquet_atomically(path: Path, table: pd.DataFrame) -> None:
    staging = path.with_name(f".{path.name}.{secrets.token_hex(4)}{PARTIAL_SUFFIX}")
    table.to_parquet(staging, index=False)
    os.replace(staging, path)


# --- the tables -----------------------------------------------------------------------


def sweep_table(out_dir: Path, sweep: Sweep) -> pd.DataFrame:
    """One row per cell from the cells' summaries: the cell, its parameters, every metric."""
    from analysis.sweep import metric_columns, summary_row

    rows = []
    columns = {key: sweep.column(key) for key in sweep.parameters}
    for i, cell in enumerate(sweep.cells):
        summary = json.loads((out_dir / CELLS_DIR / cell.name / SUMMARY_FILE).read_text(encoding="utf-8"))
        params = {key: values[i] for key, values in columns.items()}
        rows.append({"cell": cell.index, **params, "label": cell.label, **summary_row(summary)})
    # Seats and rounds that only some cells have: their columns in seat order
    # among the others (nan for the cells without them), not at the end.
    widest = max((c.config for c in sweep.cells), key=lambda c: (c.players, c.rules.rounds))
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
    """The cell each cell's paired differences are taken from: a baseline per player count and seating.

    Game ``i`` is dealt alike only at the same player count, and a
    difference across seatings mixes the rules with the players: each cell
    is compared with the cell that has its player count and seats and the
    ``baseline`` cell's other values; failing that, the first cell with its
    player count and seats (a cell with none is its own baseline).
    """
    def setting(cell: Cell) -> tuple:
        return cell.config.players, cell.config.seat_policies

    def rest(cell: Cell) -> str:
        data = cell.config.to_dict()
        data["rules"].pop("players")
        data["run"].pop("threads", None)
        data.pop("policies")
        return json.dumps(data, sort_keys=True)

    base = sweep.cells[baseline]
    out = {}
    for cell in sweep.cells:
        same = [c for c in sweep.cells if setting(c) == setting(cell)]
        if setting(cell) == setting(base):
            out[cell.index] = baseline
            continue
        matching = [c for c in same if rest(c) == rest(base)]
        out[cell.index] = (matching or same)[0].index
    return out


def write_tables(out_dir: Path, sweep: Sweep, baseline: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Write ``sweep.parquet`` and ``paired.parquet`` from the played cells; return both tables."""
    from analysis.sweep import paired_table

    table = sweep_table(out_dir, sweep)
    records = {c.index: out_dir / CELLS_DIR / c.name / RECORDS_FILE for c in sweep.cells}
    configs = {c.index: c.config for c in sweep.cells}
    paired = paired_table(records, configs, baselines(sweep, baseline))
    _write_parquet_atomically(out_dir / TABLE_FILE, table)
    _write_parquet_atomically(out_dir / PAIRED_FILE, paired)
    return table, paired


# --- dry run --------------------------------------------------------------------------


def plan_sweep(
    sweep: Sweep,
    out: str | os.PathLike | None = None,
    *,
    target_ci: float | None = None,
    max_games: int | None = None,
    calibrate: bool = True,
    target_metric: str | None = None,
) -> list[dict[str, Any]]:
    """The cells a run of ``sweep`` would play, with an estimate of their time; writes nothing.

    Each distinct rule set and seating is timed as a cell plays it (records
    written, summary made) at two numbers of games, the larger grown until
    it takes a fraction of a second, so a slow cell is timed on a few games
    (``sim.estimates``); its skill-gap duels and strength profile likewise,
    once per rule set. A cell already finished in ``out`` is marked done.
    With adaptive precision a cell's games are those its calibration says
    its interval needs, within its games and cap, and ``resolution`` says
    when the cap comes first.
    """
    from sim.estimates import band, extra_costs, games_cost

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
            low_games, high_games, calls = plan.games, plan.max_games or plan.games, (1, 1)
            if plan.target_ci is not None:
                low_games, high_games, calls, row["resolution"] = _adaptive_games(plan, timed)
                row["expected_games"] = [low_games, high_games]
            costs = extra_costs(cell.config)
            # The skill gap and the strength profile grow with the games the cell ends with.
            extra = [_extra(costs, replace(cell.config, games=n)) for n in (low_games, high_games)]
            low = timed.cost(low_games, calls[0]) + extra[0]
            high = timed.cost(high_games, calls[1]) + extra[1]
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
    """The games a cell with ``--target-ci`` plays (a range), its batches (a range), and what its cap resolves.

    From the interval of the calibration's summary: the half-width shrinks as
    ``1 / sqrt(games)``. Without an interval there (too few games to say), the
    whole range from the cell's games to its cap.
    """
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
    """Per cell, whether its cap lets ``--target-ci`` be reached: rows as :func:`plan_sweep`'s, its games only timed."""
    from sim.estimates import games_cost

    rows = []
    for cell in sweep.cells:
        plan = CellPlan.of(cell.config, target_ci, max_games, target_metric)
        timed = games_cost(cell.config, cap=plan.max_games)
        rows.append({"cell": cell.index, "resolution": _adaptive_games(plan, timed)[3]})
    return rows


def report_seconds(sweep: Sweep) -> float:
    """About how long the sweep's tables and ``sweep.html`` take: the report built from the calibrations' summaries."""
    from analysis.sweep import summary_row
    from analysis.sweep_report import sweep_report_html
    from sim.estimates import games_cost

    rows = []
    columns = {key: sweep.column(key) for key in sweep.parameters}
    for i, cell in enumerate(sweep.cells):
        summary = games_cost(cell.config).result  # timed already by the plan: kept for the process
        params = {k: values[i] for k, values in columns.items()}
        rows.append({"cell": cell.index, **params, "label": cell.label, **summary_row(summary)})
    table = pd.DataFrame(rows)
    # The paired differences the page draws: each cell against the first of its player count and seats.
    first: dict[tuple, int] = {}
    paired_rows = []
    for cell in sweep.cells:
        base = first.setdefault((cell.config.players, cell.config.seat_policies), cell.index)
        if base != cell.index:
            paired_rows += [{"cell": cell.index, "baseline": base, "metric": m, "games": cell.config.games,
                             "difference": 0.0, "difference_lo": -0.01, "difference_hi": 0.01, "unpaired_lo": -0.02,
                             "unpaired_hi": 0.02, "tighter": 2.0} for m in sweep.game.paired_metrics]
    paired = pd.DataFrame(paired_rows, columns=["cell", "baseline", "metric", "games", "difference", "difference_lo",
                                                "difference_hi", "unpaired_lo", "unpaired_hi", "tighter"])
    kwargs = dict(sweep_name=sweep.name, parameters=sweep.parameters,
                  axes={k: sweep.values(k) for k in sweep.parameters}, game=sweep.game)
    started = time.perf_counter()
    sweep_report_html(table, paired, **kwargs)
    return time.perf_counter() - started


def plan_text(sweep: Sweep, rows: list[dict[str, Any]], report: float | None = None) -> str:
    """The dry run as text: one line per cell, then the total; ``report``: the seconds of ``sweep.html``."""
    from sim.estimates import band

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
        parts.append(f"{_seconds(duels)} of skill-gap duels and strength profiles")
    if report is not None:
        parts.append(f"{_seconds(report)} for the report")
    within = f" ({' and '.join(parts)} included)" if parts else ""
    lines += ["", f"{len(todo)} cells to play{done}: about {total.strip()}{within} in this process on this "
                  "machine. Nothing was written."]
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
    if row["done"]:
        return "done"
    if row["seconds"] is None:
        return "?"
    low, high = row["seconds"], row["max_seconds"]
    text = _seconds(low)
    return text if high is None or _seconds(high) == text else f"{text}-{_seconds(high)}"


def _seconds(s: float) -> str:
    from sim.estimates import seconds_text

    return seconds_text(s)
