"""Plays asked for from the page: each a job with its own id and results directory, played one at a time.

A job is what ``lvsim run`` does (``sim.run``) with its results written to
a directory of the workbench's own, which lives as long as the server and
is removed when it stops. The games are played through :class:`Watched`,
a place to play chunks (``sim.runner.Cluster``) that plays them in this
process as a run does, counts them for the progress bar, stops between two
chunks when the job is cancelled, and tallies them itself, so that the
headline metrics are shown as soon as the games are played, before the
skill gap and the strength profile.

Jobs are played by one worker thread, in the order asked: the jitted
kernels of two plays never run at once (their thread settings and the
cores are the process's), and each job's results are its own directory,
so two pages playing at once wait for each other and never mix. Before a
job plays, its time is estimated with the calibrated costs of ``lvsim run
--dry-run`` (``sim.estimates``): a request for more than
:data:`MAX_PLAY_SECONDS` is refused without playing it, and one whose
records would not fit on the disk is refused before it is queued.
"""

from __future__ import annotations

import itertools
import json
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from sim.config import Config
from sim.errors import ConfigError, counted
from sim.workbench.fields import config_of, fields_of
from sim.workbench.states import (
    CANCELLED,
    DONE,
    ESTIMATING,
    MEASURING,
    PLAYING,
    QUEUED,
    REFUSED,
    Cancelled,
    Unknown,
    ending,
)

# A play from the page takes at most this long on this machine, estimated before it starts ("a few minutes").
MAX_PLAY_SECONDS = 180.0
# The records of every play stay on disk for comparisons: a play may take at most this share of the free space.
DISK_SHARE = 0.5
# About this many steps of the progress bar in a play (chunks never change a result: game i is (seed, i)'s).
PROGRESS_STEPS = 40
MIN_CHUNK_GAMES = 1_024

@dataclass
class Job:
    """One play asked for from the page, and where it stands."""

    id: str
    config: Config
    dir: Path
    state: str = QUEUED
    games_played: int = 0
    first_summary: dict[str, Any] | None = None  # the games' summary, before the skill gap and strength profile
    summary: dict[str, Any] | None = None  # the run's whole summary, once done
    error: str | None = None  # the one line of a refusal or failure, naming the field
    asked_at: float = field(default_factory=time.perf_counter)
    first_result_seconds: float | None = None  # from the request to the headline metrics
    seconds: float | None = None  # from the request to the whole summary
    estimate: list[float] | None = None  # the estimated seconds of the run, low and high
    cancel: threading.Event = field(default_factory=threading.Event)
    phases: dict[str, float] = field(default_factory=dict)  # state -> seconds from the request to entering it

    def enter(self, state: str) -> None:
        self.state = state
        self.phases[state] = time.perf_counter() - self.asked_at

    @property
    def results_dir(self) -> Path:
        return self.dir / "run"

    def view(self) -> dict[str, Any]:
        """The job as the page reads it."""
        return {"id": self.id, "state": self.state, "games": self.config.games, "games_played": self.games_played,
                "fields": fields_of(self.config), "summary": self.summary or self.first_summary,
                "complete": self.summary is not None, "error": self.error, "estimate": self.estimate,
                "first_result_seconds": self.first_result_seconds, "seconds": self.seconds,
                "differences": self.config.rules.differences(), "seats": list(self.config.seat_policies),
                "phases": self.phases}


class Watched:
    """Where a job's chunks are played: in this process as a run plays them, counted, cancellable, tallied."""

    where = "in-process"

    def __init__(self, job: Job):
        from sim.runner import IN_PROCESS

        self.job = job
        self.inner = IN_PROCESS

    def threads_of(self, config: Config) -> int:
        return self.inner.threads_of(config)

    def chunk_games(self, n_games: int) -> int:
        from sim.runner import CHUNK_GAMES

        return max(MIN_CHUNK_GAMES, min(CHUNK_GAMES, -(-n_games // PROGRESS_STEPS)))

    def warm_up(self, config: Config, wait: bool = True) -> None:
        self.inner.warm_up(config, wait)

    def play(self, config: Config, first_game: int, n_games: int) -> Iterator[tuple[dict, Any]]:
        from sim.runner import chunk_ranges, play_records

        game = config.game_spec
        tally = game.empty_tally(config.rules)
        started = time.perf_counter()
        for first, n in chunk_ranges(first_game, n_games, self.chunk_games(n_games)):
            if self.job.cancel.is_set():
                raise Cancelled
            rec = play_records(config, first, n)
            one = game.tally(rec)
            tally = tally.merge(one)
            self.job.games_played += n
            yield rec, one
        # The games' summary as the run makes it from the same tallies: the page's first result.
        self.job.first_summary = game.summarize(tally, game=config.game, seed=config.seed,
                                                seconds=time.perf_counter() - started, policies=config.seat_policies)
        self.job.first_result_seconds = time.perf_counter() - self.job.asked_at
        self.job.enter(MEASURING)


def check_room(config: Config, where: Path, share: float = DISK_SHARE) -> None:
    """Refuse a play whose records would take more than ``share`` of the free disk space at ``where``."""
    game = config.game_spec
    per_game = sum(a.nbytes for a in game.records.empty(1, config.rules).values())
    free = shutil.disk_usage(where).free
    if config.games * per_game > share * free:
        most = int(share * free // per_game)
        raise ConfigError("run.games", f"{config.games:,} games' records would need {_gib(config.games * per_game)} "
                                       f"and the workbench may use {_gib(share * free)}; at most about {most:,} fit")


def _gib(n: float) -> str:
    return f"{n / 2**30:,.1f} GiB"


class Workbench:
    """The server's jobs, played one at a time in a directory that is removed by :meth:`close`."""

    def __init__(self, max_seconds: float = MAX_PLAY_SECONDS, max_tune_seconds: float | None = None):
        from sim.workbench.tunes import MAX_TUNE_SECONDS

        max_tune_seconds = MAX_TUNE_SECONDS if max_tune_seconds is None else max_tune_seconds
        self.max_seconds = max_seconds
        self._tmp = tempfile.TemporaryDirectory(prefix="lvsim-workbench-")
        self.root = Path(self._tmp.name)
        self.jobs: dict[str, Job] = {}
        self.tunes: dict[str, Any] = {}  # id -> sim.workbench.tunes.TuneJob
        self._ids = itertools.count(1)
        self._tune_ids = itertools.count(1)
        self._checks = itertools.count(1)
        self.max_tune_seconds = max_tune_seconds
        self._lock = threading.Lock()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lvsim-workbench")
        self._closed = False

    # --- asking -----------------------------------------------------------------------------

    def submit(self, fields: Mapping[str, str]) -> Job:
        """Check the form as ``lvsim run`` checks a config, refuse what would not fit, queue the play."""
        config = config_of(fields)
        check_room(config, self.root)
        with self._lock:
            if self._closed:
                raise RuntimeError("the workbench is stopping")
            job_id = f"p{next(self._ids)}"
            job = Job(job_id, config, self.root / job_id)
            self.jobs[job_id] = job
        self._worker.submit(self._play, job)
        return job

    def job(self, job_id: str) -> Job:
        try:
            return self.jobs[job_id]
        except KeyError:
            raise Unknown("job", f"no play {job_id!r} on this server (a server forgets its plays when it stops)") \
                from None

    def plays(self) -> list[Job]:
        """Every play the server holds, in the order asked (a copy: a play may be asked for meanwhile)."""
        with self._lock:
            return list(self.jobs.values())

    def cancel(self, job_id: str) -> Job:
        job = self.job(job_id)
        job.cancel.set()
        return job

    def submit_tune(self, fields: Mapping[str, str], tables: str):
        """Check the tune as ``lvsim tune`` checks a tune file whose base is the form's config; queue it."""
        from sim.workbench.tunes import TuneJob, tune_of

        with self._lock:
            if self._closed:
                raise RuntimeError("the workbench is stopping")
            checked = self.root / f"checking-{next(self._checks)}"
        # Checked apart first, so that a refused tune takes no id: the tunes listed are t1, t2, ... as asked.
        try:
            tune_of(fields, tables, checked)
        finally:
            shutil.rmtree(checked, ignore_errors=True)
        with self._lock:
            tune_id = f"t{next(self._tune_ids)}"
        where = self.root / tune_id
        try:
            config, tune = tune_of(fields, tables, where)
        except BaseException:
            shutil.rmtree(where, ignore_errors=True)
            raise
        job = TuneJob(tune_id, config, tables, where)
        with self._lock:
            self.tunes[tune_id] = job
        self._worker.submit(self._tune, job, tune)
        return job

    def tune_job(self, tune_id: str):
        try:
            return self.tunes[tune_id]
        except KeyError:
            raise Unknown("tune", f"no tune {tune_id!r} on this server (a server forgets its tunes when it "
                                  "stops)") from None

    def tune_jobs(self) -> list:
        """Every tune the server holds, in the order asked."""
        with self._lock:
            return list(self.tunes.values())

    def cancel_tune(self, tune_id: str):
        job = self.tune_job(tune_id)
        job.cancel.set()
        return job

    def _tune(self, job, tune) -> None:
        from sim.workbench.tunes import play_tune

        play_tune(job, tune, self.max_tune_seconds)
        if job.state == CANCELLED:
            shutil.rmtree(job.out_dir, ignore_errors=True)

    # --- playing ----------------------------------------------------------------------------

    def _play(self, job: Job) -> None:
        if job.cancel.is_set():
            job.state = CANCELLED
            return
        from sim.game import checked_between_batches

        def stop_if_cancelled() -> None:  # at every batch: the estimate's, the games', the measures' after them
            if job.cancel.is_set():
                raise Cancelled

        with ending(job), checked_between_batches(stop_if_cancelled):
            job.enter(ESTIMATING)
            refusal = self._refusal(job.config, job)
            if refusal is not None:
                job.state, job.error = REFUSED, refusal
                return
            stop_if_cancelled()
            job.enter(PLAYING)
            job.dir.mkdir()
            from sim.runner import run

            results = run(job.config, out=job.results_dir, cluster=Watched(job), progress=False, report=False)
            job.summary = None if job.cancel.is_set() else results.summary
            job.seconds = time.perf_counter() - job.asked_at
            job.enter(CANCELLED if job.cancel.is_set() else DONE)
        if job.state == CANCELLED:
            shutil.rmtree(job.dir, ignore_errors=True)

    def _refusal(self, config: Config, job: Job) -> str | None:
        """The line refusing a play estimated to take longer than the workbench allows, None if it may play."""
        from sim.estimates import plan_run, span_text

        plan = plan_run(config, report=False)
        job.estimate = list(plan["seconds"])
        low, high = plan["seconds"]
        if low <= self.max_seconds:
            return None
        per_game = plan["parts"]["total"] / config.games
        most = max(1, int(self.max_seconds / per_game)) if per_game > 0 else config.games
        return (f"run.games: {counted(config.games, 'game')} would take about {span_text(low, high)} on this machine; "
                f"the workbench plays at most {self.max_seconds:.0f} s a rule set (about {most:,} games): "
                f"play more with `lvsim run`")

    def warm_up(self) -> None:
        """Load the first game's kernels and time its costs on the worker thread, ahead of the first play (which
        would otherwise spend its first seconds on them); a failure here is the first play's to report."""
        self._worker.submit(_warm_up)

    def on_worker(self, fn, *args):
        """Run ``fn`` on the worker thread, after the plays before it, and return its result."""
        return self._worker.submit(fn, *args).result()

    # --- reading ----------------------------------------------------------------------------

    def finished(self, job_id: str) -> Job:
        job = self.job(job_id)
        if job.state != DONE:
            raise ConfigError("job", f"play {job_id} is {job.state}, not done")
        return job

    def compare(self, baseline_id: str, other_id: str) -> dict[str, Any]:
        """``other`` minus ``baseline`` for each of the game's paired metrics, game by game on the same deals."""
        from analysis.sweep import paired_differences
        from sim.layout import RECORDS_FILE

        base, other = self.finished(baseline_id), self.finished(other_id)
        a, b = base.config, other.config
        if a.game != b.game:
            raise ConfigError("compare", f"plays {base.id} and {other.id} are of different games ({a.game}, {b.game})")
        if a.seed != b.seed:
            raise ConfigError("compare", f"plays {base.id} and {other.id} have different seeds ({a.seed}, {b.seed}): "
                                         "they were dealt different games; play both on one seed")
        differences = paired_differences(other.results_dir / RECORDS_FILE, b, base.results_dir / RECORDS_FILE, a)
        game = a.game_spec
        return {"baseline": base.id, "other": other.id,
                "metrics": [{"key": m, "label": game.metric[m].label, "kind": game.metric[m].kind, **differences[m]}
                            for m in game.paired_metrics]}

    def report(self, job_id: str) -> Path:
        """The job's HTML report, written on first asking (on the worker thread: figures are drawn one at a time)."""
        from analysis.report import write_report
        from sim.layout import REPORT_FILE

        job = self.finished(job_id)
        path = job.results_dir / REPORT_FILE
        if not path.is_file():
            self.on_worker(write_report, job.results_dir)
        return path

    def sensitivity_section(self, job_id: str) -> str:
        """The report's "What moves the verdict" of a finished play, figures drawn (on the worker thread)."""
        job = self.finished(job_id)
        return self.on_worker(_sensitivity_html, job.results_dir)

    def decisions_section(self, job_id: str) -> str:
        """The report's "Which decisions matter" of a finished play (its table and sentence)."""
        from analysis.decisions_section import decisions_of
        from sim.layout import DECISIONS_FILE

        job = self.finished(job_id)
        path = job.results_dir / DECISIONS_FILE
        found = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
        return decisions_of(found, job.config, "play")

    def close(self) -> None:
        """Cancel every play, wait for the one playing to stop, and remove every file the workbench wrote."""
        with self._lock:
            self._closed = True
            for job in [*self.jobs.values(), *self.tunes.values()]:
                job.cancel.set()
        self._worker.shutdown(wait=True, cancel_futures=True)
        self._tmp.cleanup()

    def __enter__(self) -> "Workbench":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _sensitivity_html(results_dir: Path) -> str:
    from analysis.report_html import figures_drawn_together
    from analysis.results import load_results
    from analysis.sensitivity import report_section

    results = load_results(results_dir)
    with figures_drawn_together() as figures:
        page = report_section(results)
    return figures.fill(page)


def _warm_up() -> None:
    from sim.estimates import plan_run
    from sim.games import GAME_IDS

    try:
        plan_run(config_of({"game": GAME_IDS[0]}), report=False)
    except Exception:  # noqa: BLE001  (the first play meets it again and says what it is)
        pass
