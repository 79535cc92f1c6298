"""Batch runs: play a config's games in chunks, summarise them, write the results.

:func:`run` is what ``lvsim run`` does, as one call for notebooks::

    import sim
    results = sim.run("configs/default.toml", out=None)   # in memory, nothing written
    results.summary["win_share"]
    results.to_pandas()

Games are played in chunks of :data:`CHUNK_GAMES`; each chunk's records are
tallied (the game's tally, which holds what its report needs too) and
streamed to Parquet, then dropped, so memory stays bounded whatever the
number of games, report included. Chunking never changes the results: game
``i`` is a pure function of ``(seed, i)``.

The modules, each with one job, are shared with sweeps and tunes:

- ``chunks``: :func:`play_chunk`, the unit of work, and where chunks are
  played (:data:`IN_PROCESS`, or a Dask cluster, see ``sim.cluster``);
- ``played``: :class:`GamesPlayed` takes chunks in game order and tallies,
  streams and times them;
- ``parquet``: the records file, one row per game;
- ``staging``: the results directory, which appears all at once
  (:func:`staged_directory`);
- ``provenance``: ``meta.json``, what reproduces a run;
- ``running``: :func:`run` itself, the summary, the skill gap and strength
  profile, the report.
"""

from sim.runner.chunks import CHUNK_GAMES, IN_PROCESS, Cluster, InProcess, chunk_ranges, play_chunk, play_records
from sim.runner.parquet import ROW_GROUP_GAMES, ParquetRecords, parquet_options
from sim.runner.played import GamesPlayed, play_together
from sim.runner.provenance import run_meta
from sim.runner.running import Results, run, run_summary, strength_profile, write_json, write_report_or_say_how
from sim.runner.staging import (
    DEFAULT_OUT,
    MAX_NAME_BYTES,
    REPORTS_DIR,
    RESULT_NAMES,
    _DefaultOut as _DefaultOut,
    check_creatable,
    check_out_dir,
    default_out_dir,
    out_path,
    partial_runs,
    staged_directory,
    warn_about_partial_runs,
)

__all__ = [
    "CHUNK_GAMES", "DEFAULT_OUT", "IN_PROCESS", "MAX_NAME_BYTES", "REPORTS_DIR", "RESULT_NAMES", "ROW_GROUP_GAMES",
    "Cluster", "GamesPlayed", "InProcess", "ParquetRecords", "Results", "check_creatable", "check_out_dir", "chunk_ranges",
    "default_out_dir", "out_path", "parquet_options", "partial_runs", "play_chunk", "play_records", "play_together", "run",
    "run_meta", "run_summary", "staged_directory", "strength_profile", "warn_about_partial_runs", "write_json",
    "write_report_or_say_how",
]
