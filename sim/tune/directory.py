"""The tune's directory: its files, what a tune leaves there, and finding or accepting one to continue a
stopped tune in (``state/`` holds every evaluation, the sampler's journal and the tune's definition)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.config import with_current_run_keys
from sim.errors import ConfigError
from sim.layout import PARTIAL_SUFFIX
from sim.runner import REPORTS_DIR
from sim.runner.staging import glob_escape
from sim.tune.spec import Tune

STATE_DIR = "state"
JOURNAL_FILE = "journal.log"
EVALS_DIR = "evals"
DEFINITION_FILE = "definition.json"
LOCK_FILE = ".lock"
RESULT_FILE = "tune.json"
CANDIDATES_FILE = "candidates.parquet"
BEST_FILE = "best.toml"
REPORT_FILE = "tune.html"
BEST_RUN_DIR = "best"


def unfinished_tune_dir(tune: Tune) -> Path | None:
    """The newest ``reports/<name>-*`` directory holding an unfinished tune of the same definition."""
    if not REPORTS_DIR.is_dir():
        return None
    wanted = tune.definition()
    found = []
    for path in REPORTS_DIR.glob(f"{glob_escape(tune.name)}-*"):
        state = path / STATE_DIR / DEFINITION_FILE
        if not state.is_file() or (path / RESULT_FILE).is_file():
            continue
        try:
            if _stored_definition(state) == wanted:
                found.append(path)
        except (OSError, ValueError):
            continue
    return max(found, key=lambda p: p.name) if found else None


def _tune_directory(out_dir: Path, tune: Tune) -> Path:
    """The tune's state directory in ``out_dir``, made if new; one of another tune, or of anything else, is refused."""
    state = out_dir / STATE_DIR
    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError("--out", f"{out_dir} exists and is not a directory")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not _begun_before_its_definition(out_dir, state):
        stored_path = state / DEFINITION_FILE
        if not stored_path.is_file():
            raise ConfigError("--out", f"{out_dir} is not empty and holds no tune; choose a new directory or remove it")
        try:
            stored = _stored_definition(stored_path)
        except (OSError, ValueError):
            raise ConfigError("--out", f"{stored_path} is unreadable; choose a new directory") from None
        if stored != tune.definition():
            raise ConfigError("--out", f"{out_dir} holds a tune with another definition (search, targets, budget, "
                                     "games or seed); resume with the same tune file and options, or choose a new "
                                     "directory")
    try:
        state.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError("--out", f"cannot create {out_dir}: {err.strerror or err}") from None
    for leftover in out_dir.glob(f".*{PARTIAL_SUFFIX}"):
        leftover.unlink(missing_ok=True)
    return state


def _begun_before_its_definition(out_dir: Path, state: Path) -> bool:
    """Whether ``out_dir`` holds only what a tune stopped before it wrote its definition leaves (its state directory,
    with at most its lock and a half-written file): nothing played, so a new tune may begin there."""
    if [p.name for p in out_dir.iterdir()] != [STATE_DIR] or not state.is_dir():
        return False
    return all(p.name == LOCK_FILE or p.name.endswith(PARTIAL_SUFFIX) for p in state.iterdir())


def _stored_definition(path: Path) -> dict[str, Any]:
    """The definition a tune stored, its base config's run keys by their current names."""
    stored = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(stored, dict) and "base" in stored:
        stored = {**stored, "base": with_current_run_keys(stored["base"])}
    return stored


@dataclass(repr=False)
class TuneResults:
    """What a tune leaves: the recommendation, the ranked finalists, every evaluation, where they are."""

    tune: Tune
    out_dir: Path | None
    summary: dict[str, Any]
    candidates: Any  # pandas DataFrame, one row per evaluation

    @property
    def recommendation(self) -> dict[str, Any]:
        return self.summary["recommendation"]

    def __repr__(self) -> str:
        return f"<TuneResults {self.tune.name!r}: {self.recommendation['sentence']}>"
