"""Records on disk: a run's games streamed into one Parquet file, one row per game."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from sim.runner.chunks import CHUNK_GAMES

ROW_GROUP_GAMES = 4 * CHUNK_GAMES  # games per row group of the records file


class ParquetRecords:
    """Streams record batches into one Parquet file, one row per game.

    Batches are gathered into row groups of about :data:`ROW_GROUP_GAMES`
    games: the writer keeps every row group's metadata until the file is
    closed (about a kilobyte per column), so fewer, larger row groups keep
    a run of fifty million games from holding hundreds of megabytes of it.
    """

    def __init__(self, path: Path, row_group_games: int | None = None, *, to_table, background: bool = False):
        self.path = path
        self.to_table = to_table  # records -> a pyarrow Table, one row per game (the game's RecordLayout.to_arrow)
        self.writer = None
        self.row_group_games = ROW_GROUP_GAMES if row_group_games is None else row_group_games
        self._pending: list = []
        self._pending_games = 0
        # With ``background``, a row group is encoded and written on a thread of
        # its own, so that the batches after it need not wait for it; its error,
        # if any, is raised at the next row group or at ``close``.
        self._flusher = ThreadPoolExecutor(max_workers=1) if background else None
        self._flushing: Future | None = None

    def write(self, rec: dict[str, np.ndarray]) -> None:
        table = self.to_table(rec)
        self._pending.append(table)
        self._pending_games += table.num_rows
        if self._pending_games >= self.row_group_games:
            self._flush()

    def _flush(self) -> None:
        if not self._pending:
            return
        tables, self._pending, self._pending_games = self._pending, [], 0
        if self._flusher is None:
            self._write_group(tables)
        else:
            self._wait_for_group()
            self._flushing = self._flusher.submit(self._write_group, tables)

    def _write_group(self, tables: list) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.concat_tables(tables)
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.path, table.schema, **parquet_options(table.schema))
        self.writer.write_table(table, row_group_size=table.num_rows)

    def _wait_for_group(self) -> None:
        flushing, self._flushing = self._flushing, None
        if flushing is not None:
            flushing.result()

    def close(self) -> None:
        try:
            self._flush()
            self._wait_for_group()
        finally:
            if self._flusher is not None:
                self._flusher.shutdown(wait=True)
            if self.writer is not None:
                self.writer.close()
                self.writer = None

    def __enter__(self) -> "ParquetRecords":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def parquet_options(schema) -> dict[str, Any]:
    """How records are encoded: integers delta- and bit-packed, then Snappy.

    Record columns are small integers. Packing them costs about two thirds
    of dictionary-encoding them (Parquet's default) for a file about a sixth
    larger, and both are standard Parquet encodings that any reader takes.
    """
    import pyarrow as pa

    ints = [field.name for field in schema if pa.types.is_integer(field.type)]
    # Row-group statistics only for the game index, the one column a reader
    # looks games up by; the others' min/max cost an eighth of the encoding.
    statistics = ["game"] if "game" in schema.names else False
    return {"compression": "snappy", "use_dictionary": False, "write_statistics": statistics,
            "column_encoding": {name: "DELTA_BINARY_PACKED" for name in ints}}
