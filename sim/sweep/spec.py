"""The sweep file: a base config, the axes of values to try and extra cells, each cell a checked config.

The cells are the grid of the ``[sweep]`` axes (first axis slowest), then
the ``[[cells]]``; each is the base config with its values put in
(``sim.overrides``), checked like any config.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from sim.config import RUN_KEYS, Config, config_from_mapping, read_base, rule_keys, run_key
from sim.errors import ConfigError, cut, shown
from sim.inputs import read_toml
from sim.overrides import NoSuchEntry, dotted, entry_at, put_entry, rule_entry

SWEEP_FILE_KEYS = ("base", "sweep", "cells")
# Cells share the seed: that is what makes their differences paired.
FIXED_KEYS = {"run.seed": "every cell of a sweep plays the same seed, so that cells are compared on the same deals; "
                          "set run.seed in the base config (or --seed)"}
# The most cells a sweep may have, the grid's and the [[cells]] together: each
# is checked as a config before anything is played, and gets its own results
# directory and report row. Larger studies are several sweeps.
MAX_CELLS = 1_000


def sweepable_keys(game_id: str) -> tuple[str, ...]:
    """The dotted keys a sweep of ``game_id`` may vary: its run keys but the seed, its rules, its seats."""
    keys = [*(f"run.{k}" for k in RUN_KEYS), *(f"rules.{k}" for k in rule_keys(game_id)), "policies.seats"]
    return tuple(k for k in keys if k not in FIXED_KEYS)


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
    name = path.stem
    data = read_toml(path, lambda problem: ConfigError(str(path), problem))
    base_path, base, base_config = read_base(data, path.parent, known=SWEEP_FILE_KEYS,
                                             starts="every cell starts from", file="sweep file")
    game_id = base_config.game

    axes = _axes(data.get("sweep", {}), game_id)
    explicit = _explicit_cells(data.get("cells", []), game_id)
    if not axes and not explicit:
        raise ConfigError("sweep", "nothing to sweep: give a [sweep] table of values to try or [[cells]]")
    n_cells = (math.prod(map(len, axes.values())) if axes else 0) + len(explicit)
    if n_cells > MAX_CELLS:
        raise ConfigError("cells", f"the sweep has {n_cells:,} cells (its grid and its [[cells]]); "
                                   f"a sweep has at most {MAX_CELLS:,}")
    grid = [_unzipped(dict(zip(axes, values))) for values in itertools.product(*axes.values())] if axes else []

    for option, value, key in (("--games", games, "run.games"), ("--threads", threads, "run.threads")):
        if value is not None and any(_current(k) == key for overrides in grid + explicit for k in overrides):
            raise ConfigError(option, f"the sweep varies {key}, which {option} would set alike in every cell: "
                                      f"give one or the other")
    cells = []
    for index, overrides in enumerate(grid + explicit):
        config = _cell_config(base, overrides, index, name=f"{name}-{index:03d}")
        config = config.with_overrides(games=games, seed=seed, threads=threads)
        cells.append(Cell(index, overrides, config))
    return Sweep(name=name, base=base_path, axes=axes, cells=tuple(cells))


def zipped_keys(key: str) -> list[str]:
    """The keys of a sweep axis: ``"rules.players, rules.starting_cabbages"`` varies both together."""
    return [k.strip() for k in key.split(",")] if "," in key else [key]


def _entry(key: str) -> tuple[str, tuple[int, ...]] | None:
    """One entry of a rule that is a list: ``"rules.tokens[2]"`` (a token) as ``("tokens", (2,))``,
    ``"rules.golden_token[1]"`` (a face); None for a key without an index."""
    entry = rule_entry(key)
    return entry if entry is not None and entry[1] else None


def _check_key(where: str, key: str, game_id: str) -> None:
    if key in FIXED_KEYS:
        raise ConfigError(f'{where}."{key}"', f"cannot vary: {FIXED_KEYS[key]}")
    entry = _entry(key)
    if entry is not None and entry[0] in rule_keys(game_id) and entry[0] != "players":
        return
    known = sweepable_keys(game_id)
    if _current(key) not in known:
        raise ConfigError(f'{where}."{key}"', f"unknown key (known: {', '.join(known)}; an entry of a list as "
                                              "rules.<key>[i])")


def _axes(table: Any, game_id: str) -> dict[str, list[Any]]:
    if not isinstance(table, dict):
        raise ConfigError("sweep", f"must be a table of dotted keys and the values to try, got {shown(table)}")
    axes = {}
    for key, values in dotted(table).items():
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
        overrides = dotted(cell)
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
        # The override replaces the base config's value even under an earlier name of the key.
        kept = {k: v for k, v in data.get(table, {}).items()
                if k == field or _current(f"{table}.{k}") != _current(key)}
        data[table] = {**kept, field: value}
    label = ", ".join(f"{k}={_spell(v)}" for k, v in overrides.items())
    try:
        if entries:
            rules = config_from_mapping(data, name=name).rules.to_dict()
            for key, value in entries.items():
                knob, path = _entry(key)
                try:
                    put_entry(rules, knob, path, value)
                except NoSuchEntry as missing:
                    held = missing.holder
                    raise ConfigError(key, f"no such entry: {missing.where} "
                                           f"has {len(held) if isinstance(held, list) else 'no'} entries") from None
                data["rules"] = {**data.get("rules", {}), knob: rules[knob]}
        return config_from_mapping(data, name=name)
    except ConfigError as err:
        raise ConfigError(f"sweep cell {index} ({label})", str(err)) from None


def parameter_value(config: Config, key: str) -> Any:
    """The value of dotted ``key`` in a resolved config (defaults spelled out); ``rules.tokens[2]`` one entry."""
    entry = _entry(key)
    if entry is not None:
        return entry_at(config.to_dict()["rules"], *entry)
    table, _, field = _current(key).partition(".")
    return config.to_dict()[table].get(field)


def _current(key: str) -> str:
    """A dotted key by its current name (``run.strength_lookahead_games`` as ``run.strength_slow_games``)."""
    table, _, field = key.partition(".")
    return f"run.{run_key(field)}" if table == "run" else key


def _show(value: Any) -> str | int | float | bool:
    """A parameter value as a table holds it: scalars as they are, lists as compact text."""
    if isinstance(value, (list, tuple)):
        return json.dumps(value, separators=(", ", ": "), default=str)
    return value


def _spell(value: Any) -> str:
    """A parameter value as the sweep file spells it (``[3, 4]``, ``false``), strings unquoted."""
    if value is None:
        return "none"
    # default=str: a TOML date, which no key takes, is spelled for the error that names it
    return value if isinstance(value, str) else json.dumps(value, separators=(", ", ": "), default=str)
