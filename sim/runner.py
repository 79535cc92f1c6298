"""Batch runs: play a config's games in chunks, summarise them, write the results.

:func:`run` is what ``lvsim run`` does, as one call for notebooks::

    import sim
    results = sim.run("configs/default.toml", out=None)   # in memory, nothing written
    results.summary["win_share"]
    results.to_pandas()

Games are played in chunks of :data:`CHUNK_GAMES`; each chunk's records are
tallied (the game's tally, which holds what its report needs too) and
streamed to Parquet, then
dropped, so memory stays bounded whatever the number of games, report
included. Chunking never changes the results: game ``i`` is a pure
function of ``(seed, i)``.

A run that writes results builds them in a hidden staging directory next to
the destination and renames it into place as soon as the records, summary
and tally are complete, so an error or Ctrl-C while the games play leaves
nothing half-written. The HTML report is written after that rename: a
report that fails or is interrupted leaves the finished results in place
and says how to finish it (``lvsim report DIR``).

The pieces are shared with parameter sweeps (``sim.sweep``): :func:`play_chunk`
is the unit of work (in this process or on a Dask worker, see
``sim.cluster``), :class:`GamesPlayed` takes chunks in game order and
tallies, streams and times them, :func:`staged_directory` makes a results
directory appear all at once.
"""

from __future__ import annotations

import json
import os
import platform
import secrets
import shlex
import shutil
import subprocess
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Protocol

import numpy as np
import pandas as pd

from sim import __version__
from sim.config import Config, load_config
from sim.errors import ConfigError, shown
from sim.layout import CONFIG_FILE, META_FILE, PARTIAL_SUFFIX, RECORDS_FILE, SUMMARY_FILE, TALLY_FILE

CHUNK_GAMES = 65_536
ROW_GROUP_GAMES = 4 * CHUNK_GAMES  # games per row group of the records file
REPORTS_DIR = Path("reports")
# The longest file name Linux, macOS and Windows file systems take, in bytes.
MAX_NAME_BYTES = 255
RESULT_NAMES = frozenset({CONFIG_FILE, META_FILE, RECORDS_FILE, SUMMARY_FILE, TALLY_FILE})


class _DefaultOut:
    """Marker for "a new directory under reports/": distinct from None (write nothing)."""

    def __repr__(self) -> str:
        return "reports/<config name>-<timestamp>"


DEFAULT_OUT = _DefaultOut()


@dataclass(repr=False)
class Results:
    """What a run leaves: its summary and report tally, and its records on disk or in memory.

    ``out_dir`` is None for an in-memory run (``run(config, out=None)``);
    ``records`` is None unless the records were kept in memory. ``tally``
    holds everything the report's tables need (the game's ``analysis/<game>/tables`` take it).
    """

    config: Config
    summary: dict[str, Any]
    out_dir: Path | None = None
    records: dict[str, np.ndarray] | None = None
    tally: Any = None  # the game's report tally
    report_seconds: float | None = None  # how long the HTML report took, when one was written

    @property
    def records_path(self) -> Path | None:
        return None if self.out_dir is None else self.out_dir / RECORDS_FILE

    def to_pandas(self) -> pd.DataFrame:
        """The per-game records, one row per game, one column per record cell."""
        if self.records is not None:
            return self.config.game_spec.records.to_frame(self.records)
        if self.records_path is not None:
            return pd.read_parquet(self.records_path)
        raise ValueError("this run kept no records: run it with out=<directory> or keep_records=True")

    def __repr__(self) -> str:
        where = f"out_dir={str(self.out_dir)!r}" if self.out_dir else "in memory"
        return f"<Results {self.config.name!r}: {self.summary['games']:,} games, {where}>"

    def __str__(self) -> str:
        return self.config.game_spec.summary_table(self.summary)


def run(
    config: Config | str | os.PathLike,
    out: str | os.PathLike | None | _DefaultOut = DEFAULT_OUT,
    *,
    keep_records: bool | None = None,
    progress: bool | None = None,
    cluster: Cluster | None = None,
    report: bool = True,
) -> Results:
    """Play every game of ``config`` and return the summary (and records).

    ``config`` is a :class:`~sim.config.Config` or the path of a TOML file.
    ``out`` is the results directory: by default a new
    ``reports/<config name>-<timestamp>/``; an existing directory must be
    empty; None writes nothing. ``progress`` shows a progress bar on
    stderr; by default only when stderr is a terminal. ``cluster`` plays
    the chunks elsewhere (see ``sim.cluster``); the results are the same
    either way. ``report`` writes the HTML report beside the results.

    What stays in memory: the summary and the report tally (``Results.tally``,
    integer sums and histograms: a few kilobytes whatever the number of
    games) and, when ``keep_records`` is true, every game's record (about
    300 bytes a game at 4 players). ``keep_records`` defaults to true only
    when nothing is written (``out=None``); ``run(config, out=None,
    keep_records=False)`` keeps only the tallies, so a notebook can play a
    hundred million games and still draw every table of the report
    (for Las Vegan, ``analysis.lasvegan.tables.win_share_by_seat(results.tally)``).
    """
    if not isinstance(config, Config):
        config = load_config(config)
    if out is None:
        out_dir = None
    elif isinstance(out, _DefaultOut):
        out_dir = default_out_dir(config.name)
    else:
        out_dir = out_path(out)
        check_out_dir(out_dir)
    if keep_records is None:
        keep_records = out_dir is None
    if progress is None:
        progress = sys.stderr.isatty()
    if cluster is None:
        cluster = IN_PROCESS

    if out_dir is None:
        played = GamesPlayed(config, keep_records=keep_records)
        _play(played, cluster, progress)
        return Results(config, run_summary(config, played), None, played.records(), played.tally.report)

    warn_about_partial_runs(out_dir)
    started = time.perf_counter()
    started_at = datetime.now(timezone.utc)
    with staged_directory(out_dir) as staging:
        (staging / CONFIG_FILE).write_text(config.to_toml(), encoding="utf-8")
        with GamesPlayed(config, staging / RECORDS_FILE, keep_records=keep_records) as played:
            _play(played, cluster, progress)
        summary = run_summary(config, played)
        write_json(staging / SUMMARY_FILE, summary)
        config.game_spec.report_tally_io.write(staging / TALLY_FILE, played.tally.report)
        meta = run_meta(config, played, out_dir, started_at, time.perf_counter() - started)
        write_json(staging / META_FILE, meta)
    # The results are complete and in place: whatever happens to the report
    # from here on, they stay.
    report_seconds = write_report_or_say_how(out_dir) if report else None
    return Results(config, summary, out_dir, played.records(), played.tally.report, report_seconds)


def run_summary(config: Config, played: "GamesPlayed") -> dict[str, Any]:
    """The run's summary, with the skill gap and the strength profile unless switched off."""
    summary = played.summary()
    if config.skill_gap_deals > 0:
        from sim.duel import skill_gap

        summary["skill_gap"] = skill_gap(config.game_spec, config.rules, config.skill_gap_deals, config.seed,
                                         threads=config.threads)
    games, lookahead_games = config.strength_sizes
    if games > 0 or lookahead_games > 0:
        summary["strength"] = strength_profile(config, games, lookahead_games)
    return summary


def strength_profile(config: Config, games: int, lookahead_games: int) -> dict[str, Any]:
    """The run's rules and deals played with every seat one strength of player.

    What the verdicts of a run look like under each of the game's profile
    policies (for Las Vegan ``random``, ``greedy`` and ``expert``:
    ``games`` each, on the run's seed, so the same deals for all) and under
    its slow, strong policy on a subsample (``lookahead_games``; for Las
    Vegan ``lookahead``). ``analysis.strength`` compares them.
    """
    from analysis.strength import profile_entry, verdict

    game = config.game_spec
    plan = [(p, games) for p in game.strength_policies if games > 0]
    if lookahead_games > 0 and game.strength_slow_policy is not None:
        plan.append((game.strength_slow_policy, lookahead_games))
    profiles = []
    for policy, n in plan:
        one = replace(config, seats=policy, games=n, skill_gap_games=0, strength_games=0, strength_lookahead_games=0)
        summary = run(one, out=None, keep_records=False, progress=False, report=False).summary
        profiles.append({"policy": policy, "games": n, "metrics": profile_entry(summary, game.strength_metrics)})
    strength = {"profiles": profiles}
    seats = set(config.seat_policies)
    strength["verdict"] = verdict(strength, next(iter(seats)) if len(seats) == 1 else None, game.strength_metrics,
                                  game.strength_order)
    return strength


def default_out_dir(name: str, now: datetime | None = None) -> Path:
    """``reports/<name>-<YYYYmmdd-HHMMSS>``, with a suffix if a run of the same second took it."""
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    name = os.fsencode(name)[:200].decode("utf-8", errors="ignore")  # the stamp and a suffix must fit too
    path = REPORTS_DIR / f"{name}-{stamp}"
    n = 2
    while path.exists():
        path = REPORTS_DIR / f"{name}-{stamp}-{n}"
        n += 1
    return path


def out_path(out: str | os.PathLike, field: str = "--out") -> Path:
    """The results directory ``out`` names, refused now if no directory could ever be made there.

    Checked before any game is played: an empty name, a NUL byte, a name
    longer than the file system allows.
    """
    text = os.fsdecode(out)
    if not text.strip():
        raise ConfigError(field, "is empty: name a directory (e.g. results/run1, or . for this one)")
    if "\0" in text:
        raise ConfigError(field, f"{shown(text)} holds a NUL byte, which no file name may")
    path = Path(text)
    for part in path.parts:
        size = len(os.fsencode(part))
        if size > MAX_NAME_BYTES:
            raise ConfigError(field, f"{shown(part, 60)} is a name of {size} bytes; the file system takes at most "
                                     f"{MAX_NAME_BYTES}")
    return path


def check_out_dir(out_dir: Path) -> None:
    """Refuse a results directory that would overwrite something."""
    try:
        exists, is_dir = out_dir.exists(), out_dir.is_dir()
        entries = sorted(p.name for p in out_dir.iterdir()) if is_dir else []
    except OSError as err:
        raise ConfigError("--out", f"{out_dir}: {err.strerror or err}") from None
    if exists and not is_dir:
        raise ConfigError("--out", f"{out_dir} exists and is not a directory")
    if entries and all(name.endswith(PARTIAL_SUFFIX) for name in entries):
        raise ConfigError("--out", f"{out_dir} holds only the unfinished results of a run that was killed "
                                 f"({', '.join(entries)}); remove them or choose a new directory")
    if entries:
        raise ConfigError("--out", f"{out_dir} already exists and is not empty; choose a new directory or remove it")


# --- playing -----------------------------------------------------------------


def play_chunk(config: Config, first_game: int, n_games: int, threads: int | None = None):
    """Play games ``first_game .. first_game + n_games - 1`` of ``config``; return ``(records, tally)``.

    The unit of work of every run, in this process or on a cluster worker:
    it depends on nothing but its arguments. ``threads`` applies when the
    config sets none.
    """
    rec = play_records(config, first_game, n_games, threads)
    return rec, config.game_spec.tally(rec)


def play_records(config: Config, first_game: int, n_games: int, threads: int | None = None) -> dict[str, np.ndarray]:
    """The records of :func:`play_chunk`, without their tally."""
    game = config.game_spec
    rules = config.rules
    policy_ids, policy_params = game.parse_seats(config.seats, rules.players)
    return game.play_games(
        rules, config.seed, first_game, n_games, policy_ids, policy_params,
        threads=config.threads if config.threads is not None else threads,
    )


def chunk_ranges(first_game: int, n_games: int, chunk_games: int) -> Iterator[tuple[int, int]]:
    """``(first_game, n_games)`` of each chunk of the given games, in game order.

    Made one at a time: a run of billions of games has millions of chunks,
    and their list alone would fill the memory before the first was played.
    """
    end = first_game + n_games
    for g in range(first_game, end, chunk_games):
        yield g, min(chunk_games, end - g)


class Cluster(Protocol):
    """Where chunks of games are played: :data:`IN_PROCESS`, or a ``sim.cluster.DaskCluster``.

    ``play`` yields ``(records, tally)`` of consecutive chunks in game order
    (a tally of ``None``: tally them here),
    whatever order they were played in, so a run's records and summary
    never depend on where it ran.
    """

    where: str

    def threads_of(self, config: Config) -> int | None: ...

    def chunk_games(self, n_games: int) -> int: ...

    def warm_up(self, config: Config) -> None: ...

    def play(self, config: Config, first_game: int, n_games: int) -> Iterator[tuple[dict[str, np.ndarray], Any]]: ...


class InProcess:
    """Plays the chunks here, one after another, each on every thread numba may use."""

    where = "in-process"

    def threads_of(self, config: Config) -> int:
        from sim.batches import threads_used

        return threads_used(config.threads)

    def chunk_games(self, n_games: int) -> int:
        return CHUNK_GAMES

    def warm_up(self, config: Config) -> None:
        play_chunk(config, 0, 1)

    def play(self, config: Config, first_game: int, n_games: int) -> Iterator[tuple[dict[str, np.ndarray], Any]]:
        """Records of each chunk, untallied (``None``): the run tallies them beside the next chunk."""
        for first, n in chunk_ranges(first_game, n_games, self.chunk_games(n_games)):
            yield play_records(config, first, n), None


IN_PROCESS = InProcess()


class GamesPlayed:
    """The games of one run so far: chunks taken in game order, tallied, streamed, timed.

    Records go to ``records_path`` (Parquet, one row per game) when given
    and stay in memory when ``keep_records``; what is kept otherwise, the
    tally, does not grow with the number of games. Use it as a context
    manager so that the Parquet file is closed.
    """

    def __init__(self, config: Config, records_path: Path | None = None, *, keep_records: bool = False):
        self.config = config
        self.game = config.game_spec
        self.tally = self.game.empty_tally(config.rules)
        self.seconds = 0.0
        self.threads = 1
        self.chunk_games = CHUNK_GAMES
        self.where = IN_PROCESS.where
        self._records_file = (
            ParquetRecords(records_path, to_table=self.game.records.to_arrow, background=True)
            if records_path is not None else None
        )
        # One chunk is tallied and written on a second thread while the next
        # one plays (the kernel releases the GIL): tallying, converting and
        # encoding a chunk take about two thirds of the CPU time playing it does.
        self._background = ThreadPoolExecutor(max_workers=1)
        self._absorbing: Future | None = None
        self._kept: list[dict[str, np.ndarray]] | None = [] if keep_records else None

    @property
    def games(self) -> int:
        return self.tally.games

    def play(self, first_game: int, n_games: int, cluster: Cluster, bar=None) -> None:
        """Play games ``first_game ..`` (the next ones: game indices continue) on ``cluster``."""
        if first_game != self.games:
            raise ValueError(f"games must be added in order: expected game {self.games}, got {first_game}")
        self.threads = cluster.threads_of(self.config)
        self.chunk_games = cluster.chunk_games(n_games)
        self.where = cluster.where
        started = time.perf_counter()
        for rec, tally in cluster.play(self.config, first_game, n_games):
            self._finish_absorbing()
            self._absorbing = self._background.submit(self._absorb, rec, tally)
            if self._kept is not None:
                self._kept.append(rec)
            if bar is not None:
                bar.update(len(rec["game"]))
        self._finish_absorbing()
        self.seconds += time.perf_counter() - started

    def _absorb(self, rec: dict[str, np.ndarray], tally) -> Any:
        """Tally a chunk (unless its worker did) and write its records; return the tally."""
        if tally is None:
            tally = self.game.tally(rec)
        if self._records_file is not None:
            self._records_file.write(rec)
        return tally

    def _finish_absorbing(self) -> None:
        """Wait for the chunk being absorbed and merge its tally, in game order; its error is raised here."""
        absorbing, self._absorbing = self._absorbing, None
        if absorbing is not None:
            self.tally = self.tally.merge(absorbing.result())

    def summary(self) -> dict[str, Any]:
        config = self.config
        return self.game.summarize(
            self.tally, game=config.game, seed=config.seed, seconds=self.seconds, policies=config.seat_policies
        )

    def records(self) -> dict[str, np.ndarray] | None:
        if self._kept is None:
            return None
        if not self._kept:
            return self.game.records.empty(0, self.config.rules)
        return self.game.records.concat(self._kept)

    def close(self) -> None:
        # After a complete play() nothing is pending; after an error or
        # Ctrl-C, let the chunk being written finish before closing.
        self._background.shutdown(wait=True)
        self._absorbing = None
        if self._records_file is not None:
            self._records_file.close()

    def __enter__(self) -> "GamesPlayed":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _play(played: GamesPlayed, cluster: Cluster, progress: bool) -> None:
    """Play every game of the run's config into ``played``."""
    from tqdm import tqdm

    config = played.config
    # Compiling (or loading the compiled core from cache) is not playing:
    # keep it out of the timing.
    cluster.warm_up(config)
    bar = tqdm(total=config.games, unit="game", unit_scale=True, disable=not progress, file=sys.stderr, leave=False)
    with bar:
        played.play(0, config.games, cluster, bar)


# --- writing -----------------------------------------------------------------


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


def partial_runs(out_dir: Path) -> list[Path]:
    """Staging directories that runs into ``out_dir`` left behind when they were killed."""
    found = []
    if out_dir.is_dir():  # a run into an existing empty directory stages inside it
        found += out_dir.glob(f".*{PARTIAL_SUFFIX}")
    if out_dir.parent.is_dir():
        found += out_dir.parent.glob(f".{_glob_escape(_staging_stem(out_dir.name))}.*{PARTIAL_SUFFIX}")
    return sorted(found)


def warn_about_partial_runs(out_dir: Path) -> None:
    """Say so when an earlier run into ``out_dir`` was killed and left its partial results."""
    for leftover in partial_runs(out_dir):
        print(
            f"warning: an earlier run into {out_dir} was killed before it finished and left its partial "
            f"results in {leftover}; they are incomplete, remove that directory when you no longer need it",
            file=sys.stderr,
        )


def _glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def _staging_stem(name: str) -> str:
    """``name``, cut so that ``.<stem>.<8 hex digits>.partial`` fits in a file name."""
    room = MAX_NAME_BYTES - len(f"..{'0' * 8}{PARTIAL_SUFFIX}")
    return os.fsencode(name)[:room].decode("utf-8", errors="ignore")


@contextmanager
def staged_directory(out_dir: Path) -> Iterator[Path]:
    """A hidden staging directory whose contents become ``out_dir`` if the block succeeds.

    A new ``out_dir`` is staged beside it, under a name that always fits,
    and renamed into place; an existing empty one (``--out .`` included) is
    staged inside it and the files are moved out of the staging directory.
    On any failure, Ctrl-C and SIGTERM included, the staging directory and
    any parent directories made for it are removed again (a process killed
    outright cannot do that: the next run into ``out_dir`` names what it
    left, see :func:`warn_about_partial_runs`).
    """
    token = secrets.token_hex(4)
    inside = out_dir.is_dir()
    # Not tempfile.mkdtemp: its private permissions would stick to the results.
    if inside:
        staging = out_dir / f".{token}{PARTIAL_SUFFIX}"
    else:
        staging = out_dir.parent / f".{_staging_stem(out_dir.name)}.{token}{PARTIAL_SUFFIX}"
    made: list[Path] = []
    try:
        try:
            made = [] if inside else _make_parents(out_dir.parent)
            staging.mkdir()
        except OSError as err:
            raise ConfigError("--out", f"cannot create {out_dir}: {err.strerror or err}") from None
        yield staging
        # Again: something may have appeared while the games ran.
        if inside:
            others = [p.name for p in out_dir.iterdir() if p != staging]
            if others:
                raise ConfigError("--out", f"{out_dir} is no longer empty ({', '.join(sorted(others))} appeared "
                                         "while the games were played); nothing was written")
            for path in sorted(staging.iterdir()):
                path.rename(out_dir / path.name)
            staging.rmdir()
        else:
            check_out_dir(out_dir)
            if out_dir.exists():
                out_dir.rmdir()
            staging.rename(out_dir)
    except BaseException as err:
        shutil.rmtree(staging, ignore_errors=True)
        if inside:  # files already moved out of the staging directory
            for path in out_dir.iterdir():
                if path.name in RESULT_NAMES:
                    path.unlink(missing_ok=True)
        for directory in reversed(made):
            try:
                directory.rmdir()
            except OSError:
                break
        if isinstance(err, KeyboardInterrupt):
            print(f"interrupted: the unfinished results in {staging} were removed; nothing was written",
                  file=sys.stderr)
        raise


def _make_parents(directory: Path) -> list[Path]:
    """Create ``directory`` and its missing parents; return those created, outermost first."""
    missing = []
    while not directory.exists():
        missing.append(directory)
        directory = directory.parent
    missing.reverse()
    made = []
    try:
        for d in missing:
            d.mkdir()
            made.append(d)
    except OSError:
        for d in reversed(made):
            d.rmdir()
        raise
    return made


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def write_report_or_say_how(out_dir: Path) -> float | None:
    """Write the HTML report of the finished results in ``out_dir``; the seconds it took, None if it failed.

    The results are already complete and in place: a report that fails, or
    is interrupted, leaves them there and says in one line how to finish
    the job. Ctrl-C still ends the program, after that line.
    """
    from analysis.report import write_report

    finish = f"the results are complete in {out_dir}; run 'lvsim report {shlex.quote(str(out_dir))}' to write it"
    started = time.perf_counter()
    try:
        write_report(out_dir)
    except KeyboardInterrupt:
        print(f"interrupted: the HTML report was not written; {finish}", file=sys.stderr)
        raise
    except Exception as err:  # the games and their records are worth keeping without the report
        for leftover in out_dir.glob("report.html*"):
            leftover.unlink()
        print(f"warning: the HTML report could not be written ({type(err).__name__}: {err}); {finish}",
              file=sys.stderr)
        return None
    return time.perf_counter() - started


def run_meta(config: Config, played: GamesPlayed, out_dir: Path, started_at: datetime, wall_seconds: float) -> dict:
    """Everything needed to reproduce the run and to tell where it came from."""
    import numba
    import pyarrow

    return {
        "config_name": config.name,
        "game": config.game,
        "seed": config.seed,
        "games": played.games,
        "players": config.players,
        "seats": list(config.seat_policies),
        "first_game": 0,
        "chunk_games": played.chunk_games,
        "threads": played.threads,
        "played": played.where,
        "seconds": played.seconds,
        "wall_seconds": wall_seconds,
        "started_at": started_at.isoformat(timespec="seconds"),
        "command": shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "reproduce": f"lvsim run {shlex.quote(str(out_dir / CONFIG_FILE))}",
        "files": {"records": RECORDS_FILE, "config": CONFIG_FILE, "summary": SUMMARY_FILE, "tally": TALLY_FILE},
        "versions": {
            "lvsim": __version__,
            "source_commit": _source_commit(),
            "python": platform.python_version(),
            "numba": numba.__version__,
            "numpy": np.__version__,
            "pandas": pd.__version__,
            "pyarrow": pyarrow.__version__,
        },
        "platform": platform.platform(),
    }


def _source_commit() -> str | None:
    """The commit of the source tree the package runs from, if it is a checkout."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None
