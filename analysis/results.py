"""Reading a results directory written by ``lvsim run``.

A results directory holds ``records.parquet`` (one row per game),
``config.toml``, ``summary.json``, ``meta.json`` and ``tally.json`` (the
report's mergeable statistics, see ``analysis.tally``).
:func:`load_results` reads them back without reading the records: what the
report shows comes from the tally, so a run of any size loads in bounded
memory. A directory without ``tally.json`` (written before it existed, or
copied without it) gets its tally rebuilt from the records file in bounded
batches.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from analysis.tally import OutdatedTally
from sim.config import Config, load_config
from sim.errors import ConfigError, shown
from sim.inputs import read_json, read_text
from sim.layout import CONFIG_FILE, DECISIONS_FILE, META_FILE, RECORDS_FILE, SUMMARY_FILE, TALLY_FILE

RESULT_FILES = (RECORDS_FILE, CONFIG_FILE, SUMMARY_FILE, META_FILE)


@dataclass
class RunResults:
    """A finished run read back: its config, summary, metadata and report tally."""

    directory: Path
    config: Config
    config_text: str  # config.toml exactly as written
    summary: dict[str, Any]
    meta: dict[str, Any]
    tally: Any  # the game's report tally
    decisions: dict[str, Any] | None = None  # decisions.json: which decisions matter; None when the run wrote none

    @property
    def players(self) -> int:
        return self.config.players

    @property
    def games(self) -> int:
        return self.tally.games

    @property
    def records_path(self) -> Path:
        return self.directory / RECORDS_FILE

    def read_records(self, fields: Iterable[str] | None = None) -> dict[str, np.ndarray]:
        """Every game's record fields in memory (``fields`` limits them): for small runs and notebooks."""
        return read_records(self.records_path, self.config, fields)

    def game_rows(self, games: Sequence[int]) -> list[dict[str, np.ndarray]]:
        """The complete stored records of the given games (each without the games axis)."""
        return read_game_rows(self.records_path, games, self.config)


def _another_kind(directory: Path) -> str | None:
    """What to say of a sweep's or a tune's directory given where a run's is expected, else None."""
    if (directory / "sweep.json").is_file() and (directory / "cells").is_dir():
        return ("the directory of a sweep, not of a run: its report is sweep.html, and each cell is a run "
                f"(e.g. lvsim report {directory / 'cells' / '000'})")
    if (directory / "state" / "definition.json").is_file():
        best = f", and the run of the recommended rules is {directory / 'best'}" if (directory / "best").is_dir() else ""
        return f"the directory of a tune, not of a run: its report is tune.html{best}"
    return None


def load_results(results_dir: str | Path) -> RunResults:
    """Read the results directory ``results_dir``: its records only as far as their row count.

    A missing or incomplete directory raises :class:`ConfigError` naming it.
    """
    directory = Path(results_dir)
    if not directory.exists():
        raise ConfigError(str(directory), "no such results directory")
    if not directory.is_dir():
        raise ConfigError(str(directory), "is not a directory (expected the results directory of a run)")
    missing = [name for name in RESULT_FILES if not (directory / name).is_file()]
    if missing:
        raise ConfigError(
            str(directory), _another_kind(directory) or f"not the results directory of a run: {', '.join(missing)} missing"
        )
    summary = _read_json(directory / SUMMARY_FILE)
    meta = _read_json(directory / META_FILE)
    _check_meta(directory / META_FILE, meta)
    config_text = read_text(directory / CONFIG_FILE, lambda problem: ConfigError(str(directory / CONFIG_FILE), problem))
    config = load_config(directory / CONFIG_FILE)
    # config.toml's file name is not the experiment's name; meta.json keeps it.
    config = replace(config, name=meta.get("config_name", config.name))
    if "players" not in summary:
        raise ConfigError(str(directory / SUMMARY_FILE), "has no 'players'; was the file edited? (lvsim run writes it)")
    if summary.get("players") != config.players:
        raise ConfigError(
            str(directory / SUMMARY_FILE),
            f"is for {summary.get('players')} players but config.toml for {config.players}",
        )
    tally = _load_tally(directory, config)
    if tally.games != summary.get("games"):
        raise ConfigError(
            str(directory / RECORDS_FILE),
            f"holds {tally.games:,} games but summary.json counts {summary.get('games')}",
        )
    _check_summary(directory / SUMMARY_FILE, summary, config)
    _check_records(directory / RECORDS_FILE, tally.games)
    decisions = _read_json(directory / DECISIONS_FILE) if (directory / DECISIONS_FILE).is_file() else None
    if decisions is not None:
        _check_decisions(directory / DECISIONS_FILE, decisions)
    return RunResults(directory, config, config_text, summary, meta, tally, decisions)


def _check_records(path: Path, games: int) -> None:
    """The records file opens and holds ``games`` rows: the report reads example games from it."""
    import pyarrow.parquet as pq

    try:
        with pq.ParquetFile(path) as parquet:
            rows, names = parquet.metadata.num_rows, parquet.schema_arrow.names
    except Exception as err:  # pyarrow raises many kinds for a bad or truncated file
        raise ConfigError(str(path), f"cannot read the records: {err}") from None
    if "game" not in names or rows != games:
        raise ConfigError(str(path), f"holds {rows:,} games but the run's tally counts {games:,}"
                          if "game" in names else "is not a records file of lvsim run (it has no game column)")


# What the reports read from meta.json, and the JSON type each must have.
META_TYPES = {"config_name": str, "started_at": str, "reproduce": str, "versions": dict, "seconds": (int, float),
              "threads": int}


def _check_meta(path: Path, meta: dict) -> None:
    for key, kind in META_TYPES.items():
        if key in meta and (not isinstance(meta[key], kind) or isinstance(meta[key], bool)):
            raise ConfigError(str(path), f"{key} is {shown(meta[key], 60)}, not what lvsim run writes; "
                                         "was the file edited?")


def _check_summary(path: Path, summary: dict, config: Config) -> None:
    """Every value a summary of ``config`` has is in ``summary``, in its form (number, list of n, text).

    The reports read the summary as ``lvsim run`` wrote it; an edited or
    truncated one is refused here, naming the key, rather than failing
    halfway through the report.
    """
    game = config.game_spec
    fresh = game.summarize(game.empty_tally(config.rules), game=config.game, seed=config.seed, seconds=1.0,
                           policies=config.seat_policies)
    for key, want in fresh.items():
        if key not in summary:
            raise ConfigError(str(path), f"has no {key!r}; was the file edited? (lvsim run writes it)")
        if want is None and key in game.metric and not game.metric[key].per:
            want = 0.0  # a declared metric of no games is null, but a number in a run of any
        problem = _form_problem(summary[key], want)
        if problem:
            raise ConfigError(str(path), f"{key} {problem}; was the file edited?")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_DECISIONS_FORM = {"games": _whole, "census_games": _whole, "near_free": _number,
                   "sentence": lambda v: isinstance(v, str),
                   "seats": lambda v: isinstance(v, list) and bool(v) and all(isinstance(x, str) for x in v),
                   "decisions": lambda v: isinstance(v, list)}
_COST_FORM = {"cost": _number, "low": lambda v: v is None or _number(v), "high": lambda v: v is None or _number(v),
              "verdict": lambda v: isinstance(v, str)}
_KIND_FORM = {"kind": lambda v: isinstance(v, str), **_COST_FORM, "choice_rate": _number, "asked": _whole,
              "agreement": lambda v: v is None or _number(v)}


def _check_decisions(path: Path, found: dict) -> None:
    """``decisions.json`` is as a run writes it (its table, or why it was skipped), so that the report's section
    reads it; an edited or truncated one is refused naming the key."""
    if "skipped" in found:
        if not isinstance(found["skipped"], str):
            raise ConfigError(str(path), f"skipped is {shown(found['skipped'], 60)}, not a reason; was the file "
                                         "edited?")
        return

    def check(where: str, value: Any, form: dict) -> None:
        if not isinstance(value, dict):
            raise ConfigError(str(path), f"{where} is {shown(value, 60)}, not an object; was the file edited?")
        for key, ok in form.items():
            name = f"{where}.{key}" if where else key
            if key not in value:
                raise ConfigError(str(path), f"has no {name!r}; was the file edited? (lvsim run writes it)")
            if not ok(value[key]):
                raise ConfigError(str(path), f"{name} is {shown(value[key], 60)}, not what lvsim run writes; was "
                                             "the file edited?")

    check("", found, _DECISIONS_FORM)
    for i, row in enumerate(found["decisions"]):
        check(f"decisions[{i}]", row, _KIND_FORM)
    if found.get("every_kind") is not None:
        check("every_kind", found["every_kind"], _COST_FORM)


def _form_problem(value: Any, want: Any) -> str | None:
    """How ``value`` differs in form from ``want`` (a value of an empty summary), None if it does not.

    ``want`` None (a statistic of no games) says nothing about the form.
    """
    if want is None:
        return None
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            return None
        return f"is {shown(value, 60)}, not a number"
    if isinstance(want, (list, tuple)):
        if not isinstance(value, list):
            return f"is {shown(value, 60)}, not a list of {len(want)}"
        if len(value) != len(want):
            return f"lists {len(value)} values where the run's config gives {len(want)}"
        for item, wanted in zip(value, want):
            problem = _form_problem(item, wanted)
            if problem:
                return problem
        return None
    if isinstance(want, dict):
        if not isinstance(value, dict):
            return f"is {shown(value, 60)}, not a table"
        for k, wanted in want.items():
            if k not in value:
                return f"has no {k!r}"
            problem = _form_problem(value[k], wanted)
            if problem:
                return problem
        return None
    if isinstance(want, (str, bool)) and type(value) is not type(want):
        return f"is {shown(value, 60)}, not {type(want).__name__}"
    return None


def _load_tally(directory: Path, config: Config):
    """The stored report tally, or one rebuilt from the records file in bounded batches."""
    io = config.game_spec.report_tally_io
    path = directory / TALLY_FILE
    try:
        tally = io.read(path) if path.is_file() else None
    except OutdatedTally:  # written by an older version: the records give the tally again, below
        tally = None
    except (ValueError, UnicodeDecodeError, KeyError, TypeError, IndexError, RecursionError) as err:
        # A tally.json edited by hand can fail in as many ways as it has fields.
        raise ConfigError(str(path), f"cannot be read ({type(err).__name__}: {shown(str(err), 100)[1:-1]}); "
                                     "remove it and lvsim report rebuilds it from the records") from None
    if tally is not None:
        have, want = io.shape(tally), io.rules_shape(config.rules)
        if have != want:
            raise ConfigError(
                str(path), "is for " + " x ".join(f"{n} {name}" for n, name in zip(have, io.names))
                + " but config.toml for " + " x ".join(str(n) for n in want)
            )
        return tally
    try:
        return io.from_records_file(directory / RECORDS_FILE, config.rules)
    except Exception as err:  # pyarrow raises many kinds for a bad or truncated file
        raise ConfigError(str(directory / RECORDS_FILE), f"cannot read the records: {err}") from None


def read_records(path: Path, config: Config, fields: Iterable[str] | None = None) -> dict[str, np.ndarray]:
    """The record fields of every game in a records file of ``config``'s game, as its record layout shapes them.

    The games axis is always read (``game``), whatever ``fields`` says.
    """
    import pyarrow.parquet as pq

    layout, rules = config.game_spec.records, config.rules
    names = list(layout.fields) if fields is None else list(dict.fromkeys(["game", *fields]))
    for name in names:
        if name not in layout.fields:
            raise ValueError(f"unknown record field {name!r}")
    columns = {name: layout.field_columns(name, rules) for name in names}
    try:
        table = pq.read_table(path, columns=[c for cols in columns.values() for c in cols])
    except Exception as err:  # pyarrow raises many kinds for a bad or truncated file
        raise ConfigError(str(path), f"cannot read the records: {err}") from None
    return {name: layout.field_array(table, name, rules, cols) for name, cols in columns.items()}


def read_game_rows(path: Path, games: Sequence[int], config: Config) -> list[dict[str, np.ndarray]]:
    """Every field of the given games' records, one dict per game in the order given.

    Only the row groups that hold the games are read (their ``game``
    statistics say which), so this costs a chunk of games, not the run.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    layout, rules = config.game_spec.records, config.rules
    wanted = {int(g) for g in games}
    found: dict[int, dict[str, np.ndarray]] = {}
    with pq.ParquetFile(Path(path).absolute()) as parquet:  # absolute: pyarrow reads a leading "~" as the home
        game_column = parquet.schema_arrow.get_field_index("game")
        for group in range(parquet.metadata.num_row_groups):
            stats = parquet.metadata.row_group(group).column(game_column).statistics
            if stats is not None and stats.has_min_max and not any(stats.min <= g <= stats.max for g in wanted):
                continue
            table: pa.Table = parquet.read_row_group(group)
            at_game = {int(g): i for i, g in enumerate(table.column("game").to_numpy()) if int(g) in wanted}
            for game, at in at_game.items():
                row = table.slice(at, 1)
                found[game] = {name: layout.field_array(row, name, rules)[0] for name in layout.fields}
            if len(found) == len(wanted):
                break
    missing = sorted(wanted - set(found))
    if missing:
        raise ConfigError(str(path), f"holds no record of game {missing[0]}")
    return [found[int(g)] for g in games]


def _read_json(path: Path) -> dict:
    data = read_json(path, lambda problem: ConfigError(str(path), problem))
    if not isinstance(data, dict):
        raise ConfigError(str(path), "must hold a JSON object")
    return data
