"""Reading a results directory written by ``lvsim run``.

A results directory holds ``records.parquet`` (one row per game),
``config.toml``, ``summary.json`` and ``meta.json``. :func:`load_results`
reads them back; it reads only the record fields asked for, since a large
run's records are mostly columns a given table does not need.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from sim.config import Config, load_config
from sim.errors import ConfigError
from sim.lasvegan.records import RECORD_FIELDS, field_columns, field_shape
from sim.runner import CONFIG_FILE, META_FILE, RECORDS_FILE, SUMMARY_FILE

RESULT_FILES = (RECORDS_FILE, CONFIG_FILE, SUMMARY_FILE, META_FILE)


@dataclass
class RunResults:
    """A finished run read back: its config, summary, metadata and (some of) its records."""

    directory: Path
    config: Config
    config_text: str  # config.toml exactly as written
    summary: dict[str, Any]
    meta: dict[str, Any]
    records: dict[str, np.ndarray]  # the fields read, each with a leading games axis

    @property
    def players(self) -> int:
        return self.config.players

    @property
    def rounds(self) -> int:
        return self.config.rules.rounds

    @property
    def games(self) -> int:
        return len(self.records["game"])

    @property
    def records_path(self) -> Path:
        return self.directory / RECORDS_FILE

    def game_rows(self, games: Sequence[int]) -> list[dict[str, np.ndarray]]:
        """The complete stored records of the given games (each without the games axis)."""
        return read_game_rows(self.records_path, games, self.players, self.rounds)


def load_results(results_dir: str | Path, fields: Iterable[str] | None = None) -> RunResults:
    """Read the results directory ``results_dir``; ``fields`` limits the record fields read.

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
            str(directory), f"not the results directory of a run: {', '.join(missing)} missing"
        )
    summary = _read_json(directory / SUMMARY_FILE)
    meta = _read_json(directory / META_FILE)
    config_text = (directory / CONFIG_FILE).read_text(encoding="utf-8")
    config = load_config(directory / CONFIG_FILE)
    # config.toml's file name is not the experiment's name; meta.json keeps it.
    config = replace(config, name=meta.get("config_name", config.name))
    if summary.get("players") != config.players:
        raise ConfigError(
            str(directory / SUMMARY_FILE),
            f"is for {summary.get('players')} players but config.toml for {config.players}",
        )
    records = read_records(directory / RECORDS_FILE, config.players, config.rules.rounds, fields)
    if len(records["game"]) != summary.get("games"):
        raise ConfigError(
            str(directory / RECORDS_FILE),
            f"holds {len(records['game']):,} games but summary.json counts {summary.get('games')}",
        )
    return RunResults(directory, config, config_text, summary, meta, records)


def read_records(
    path: Path, players: int, rounds: int, fields: Iterable[str] | None = None
) -> dict[str, np.ndarray]:
    """The record fields of every game in a records file, shaped as ``records.RECORD_FIELDS``.

    The games axis is always read (``game``), whatever ``fields`` says.
    """
    import pyarrow.parquet as pq

    names = list(RECORD_FIELDS) if fields is None else list(dict.fromkeys(["game", *fields]))
    for name in names:
        if name not in RECORD_FIELDS:
            raise ValueError(f"unknown record field {name!r}")
    columns = {name: field_columns(name, players, rounds) for name in names}
    try:
        table = pq.read_table(path, columns=[c for cols in columns.values() for c in cols])
    except Exception as err:  # pyarrow raises many kinds for a bad or truncated file
        raise ConfigError(str(path), f"cannot read the records: {err}") from None
    return {name: _field_array(table, name, cols, players, rounds) for name, cols in columns.items()}


def read_game_rows(path: Path, games: Sequence[int], players: int, rounds: int) -> list[dict[str, np.ndarray]]:
    """Every field of the given games' records, one dict per game in the order given."""
    import pyarrow.parquet as pq

    table = pq.read_table(path, filters=[("game", "in", [int(g) for g in games])])
    found = table.column("game").to_numpy()
    rows = []
    for game in games:
        [at] = np.flatnonzero(found == game)
        row = table.slice(int(at), 1)
        rows.append(
            {
                name: _field_array(row, name, field_columns(name, players, rounds), players, rounds)[0]
                for name in RECORD_FIELDS
            }
        )
    return rows


def _field_array(table, name: str, columns: list[str], players: int, rounds: int) -> np.ndarray:
    dtype = RECORD_FIELDS[name][1]
    shape = field_shape(name, players, rounds)
    if not shape:
        return table.column(columns[0]).to_numpy().astype(dtype, copy=False)
    stacked = np.column_stack([table.column(c).to_numpy() for c in columns]).astype(dtype, copy=False)
    return stacked.reshape((len(stacked),) + shape)


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ConfigError(str(path), f"not valid JSON ({err})") from None
    if not isinstance(data, dict):
        raise ConfigError(str(path), "must hold a JSON object")
    return data
