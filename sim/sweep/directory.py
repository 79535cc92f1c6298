"""The sweep's directory: its files, its lock, and which cells a sweep stopped earlier already played.

Run again on the same directory, a sweep keeps the finished cells (after
checking they were played with the same config and options) and plays the
rest, so a sweep killed at any moment resumes to the table an uninterrupted
one gives.
"""

from __future__ import annotations

import json
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping

from sim.atomic import locked
from sim.config import with_current_run_keys
from sim.errors import ConfigError
from sim.layout import META_FILE, PARTIAL_SUFFIX
from sim.overrides import dotted
from sim.sweep.precision import DEFAULT_TARGET_METRIC, CellPlan
from sim.sweep.spec import Cell, Sweep, _spell

CELLS_DIR = "cells"
DEFINITION_FILE = "sweep.json"
TABLE_FILE = "sweep.parquet"
PAIRED_FILE = "paired.parquet"
REPORT_FILE = "sweep.html"
LOCK_FILE = ".lock"


@contextmanager
def _sweep_directory(out_dir: Path) -> Iterator[Path]:
    """The sweep's directory, made if new, locked against a second sweep, cleared of leftovers.

    A directory holding anything but a sweep is refused. Staging
    directories and files left by a sweep that was killed are removed, and
    so is an empty cell directory (which an earlier version left when killed
    as it put a cell in place): the lock guarantees no sweep is still
    writing them.
    """
    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError("--out", f"{out_dir} exists and is not a directory")
    if (out_dir.is_dir() and any(out_dir.iterdir()) and not (out_dir / DEFINITION_FILE).is_file()
            and not _begun_before_its_definition(out_dir)):
        raise ConfigError("--out", f"{out_dir} is not empty and holds no sweep; choose a new directory or remove it")
    try:
        (out_dir / CELLS_DIR).mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError("--out", f"cannot create {out_dir}: {err.strerror or err}") from None
    with locked(out_dir / LOCK_FILE, "sweep"):
        for leftover in [*out_dir.glob(f".*{PARTIAL_SUFFIX}"), *(out_dir / CELLS_DIR).glob(f".*{PARTIAL_SUFFIX}")]:
            if leftover.is_dir():
                shutil.rmtree(leftover, ignore_errors=True)
            else:
                leftover.unlink(missing_ok=True)
        for cell in (out_dir / CELLS_DIR).iterdir():
            if _empty_directory(cell):
                cell.rmdir()
        yield out_dir


def _begun_before_its_definition(out_dir: Path) -> bool:
    """Whether ``out_dir`` holds only what a sweep stopped before it wrote its definition leaves (its lock, its
    empty cells directory, a half-written file): no cell was played, so a sweep may begin there."""
    cells = out_dir / CELLS_DIR
    if not cells.is_dir() or any(p.name not in (CELLS_DIR, LOCK_FILE) and not p.name.endswith(PARTIAL_SUFFIX)
                                 for p in out_dir.iterdir()):
        return False
    return all(p.name.endswith(PARTIAL_SUFFIX) or _empty_directory(p) for p in cells.iterdir())


def _empty_directory(path: Path) -> bool:
    return path.is_dir() and not any(path.iterdir())


def _finished_cells(out_dir: Path, sweep: Sweep, plans: list[CellPlan]) -> set[int]:
    """The cells already played in ``out_dir``; ConfigError if one was played differently."""
    by_name = {cell.name: cell for cell in sweep.cells}
    finished = set()
    for path in sorted((out_dir / CELLS_DIR).iterdir()):
        if path.name.startswith(".") or _empty_directory(path):  # an empty one is not played (a dry run sees it)
            continue
        where = f"{out_dir}/{CELLS_DIR}/{path.name}"
        if path.name not in by_name:
            raise ConfigError("--out", f"{where} is not a cell of this sweep ({len(sweep.cells)} cells); "
                                     "resume with the same sweep, or choose a new directory")
        cell = by_name[path.name]
        try:
            stored = json.loads((path / META_FILE).read_text(encoding="utf-8"))["sweep"]["plan"]
        except (OSError, ValueError, KeyError, TypeError):
            raise ConfigError("--out", f"{where} is not a finished cell (no readable {META_FILE}); remove it") from None
        wanted = _cell_plan_record(cell, plans[cell.index])
        if isinstance(stored, dict) and "config" in stored:  # stored before a run key was renamed: its name now
            stored = {**stored, "config": with_current_run_keys(stored["config"])}
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
    a, b = dotted(stored), dotted(wanted)
    for key in [*b, *a]:
        if a.get(key) != b.get(key):
            return key.removeprefix("config."), a.get(key), b.get(key)
    raise AssertionError("the plans differ")  # pragma: no cover


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
