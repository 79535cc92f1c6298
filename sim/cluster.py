"""Playing chunks of games on a Dask distributed cluster.

A run or a sweep hands its games out as chunks ``(config, first_game,
n_games)``; a worker plays one with ``sim.chunk.play_chunk`` and sends back
its records and tally. The client takes the results in chunk order
(Parquet is written and tallies merged in game order), so the results are
bit-identical to an in-process run whatever the chunking or the number of
workers: every game is a pure function of ``(seed, game index)`` and
tallies are integers.

At most a few chunks per worker are in flight at a time, so neither the
client nor the workers ever hold more than a handful of chunks, however
many games are asked for::

    with open_cluster(workers=4) as cluster:          # a LocalCluster on loopback
        sim.run(config, cluster=cluster)
    with open_cluster(scheduler="tcp://10.0.0.5:8786") as cluster:
        ...
"""

from __future__ import annotations

import math
import os
import warnings
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np

from sim.config import Config
from sim.errors import ConfigError
from sim.memory import check_fits
from sim.chunk import play_chunk_on_worker, warm_up_worker
from sim.runner import CHUNK_GAMES, chunk_ranges

# Below this a chunk costs more in messages than in playing: a task's round trip is a few
# milliseconds, a hundred games of the slowest scripted policy take longer.
MIN_CHUNK_GAMES = 256
# Chunks waiting or playing per worker: one playing, one queued behind it,
# so no worker idles while the client takes a result.
IN_FLIGHT_PER_WORKER = 2
# Chunks a batch (a sweep's cells, a tune's candidates) is cut into per worker, at least: enough that
# the last ones to finish leave the others idle for a fraction of the batch only.
CHUNKS_PER_WORKER = 4
CONNECT_TIMEOUT = "10s"
# Memory a local worker process takes once it has loaded a game's kernels (about 200 MB measured on Las Vegan):
# more workers than this machine's free memory holds are refused before one is started.
WORKER_BYTES = 256 * 2**20

def chunk_size(n_games: Sequence[int], workers: int, threads: int = 1) -> int:
    """Games per chunk of a batch of jobs of ``n_games`` each on ``workers`` workers of ``threads`` threads:
    :data:`CHUNKS_PER_WORKER` chunks per worker at least, at most :data:`CHUNK_GAMES` and the largest job,
    never below :data:`MIN_CHUNK_GAMES` per thread."""
    total = sum(n_games)
    if total == 0:
        return CHUNK_GAMES
    per_worker = math.ceil(total / (CHUNKS_PER_WORKER * max(1, workers)))
    floor = MIN_CHUNK_GAMES * max(1, threads)
    return max(1, min(CHUNK_GAMES, max(n_games), max(floor, per_worker)))


class DaskCluster:
    """Plays chunks on the workers of a ``distributed.Client``.

    ``threads`` is what each chunk may use on its worker when the config
    sets none (None: every core of the worker).
    """

    def __init__(self, client, threads: int | None = None, where: str | None = None):
        self.client = client
        self.threads = threads
        self.where = where or f"dask {client.scheduler.address}"
        self._warmed: set[tuple[tuple[str, tuple[str, ...]], str]] = set()  # (kernels, worker) warmed or warming
        self._warming: list = []
        self._cores: int | None = None

    @property
    def workers(self) -> int:
        # Workers may come and go while a sweep runs: ask each time.
        return max(1, len(self.client.scheduler_info()["workers"]))

    @property
    def slots(self) -> int:
        """Chunks the cluster plays at once: one per worker (each plays one kernel at a time, on its threads)."""
        return self.workers

    def threads_of(self, config: Config) -> int | None:
        """Threads a chunk uses on its worker; None: as many as the worker has cores."""
        return config.threads if config.threads is not None else self.threads

    @property
    def threads_per_chunk(self) -> int:
        """The threads each chunk is played on: those given, or (asked once) the cores of the workers' machines."""
        if self.threads is not None:
            return self.threads
        if self._cores is None:
            self._cores = max([1, *(n or 1 for n in self.client.run(os.cpu_count).values())])
        return self._cores

    def chunk_games(self, n_games: int) -> int:
        return self.batch_chunk_games([n_games])

    def batch_chunk_games(self, n_games: Sequence[int]) -> int:
        return chunk_size(n_games, self.workers, self.threads_per_chunk)

    def warm_up(self, config: Config, wait: bool = True) -> None:
        """Load the config's kernels on every worker, once per worker; ``wait``: until every one has.

        Not waited for, the chunks sent after it queue behind it on each
        worker while the client goes on with its own preparation. As tasks
        rather than ``client.run``, so that a long compilation does not block
        the worker's event loop and its heartbeats.
        """
        kernels = (config.game, tuple(config.seat_policies))
        workers = [w for w in self.client.scheduler_info()["workers"] if (kernels, w) not in self._warmed]
        futures = [self.client.submit(warm_up_worker, config, workers=[w], allow_other_workers=False, pure=False)
                   for w in workers]
        self._warmed.update((kernels, w) for w in workers)
        if wait:
            self.client.gather(futures)
        else:
            # Kept until done: a future let go of may be forgotten by the scheduler before it runs.
            self._warming = [f for f in self._warming if not f.done()] + futures

    def play(self, config: Config, first_game: int, n_games: int) -> Iterator[tuple[dict[str, np.ndarray], Any]]:
        for _, rec, tally in self.play_many([(config, first_game, n_games)], self.chunk_games(n_games)):
            yield rec, tally

    def play_many(self, jobs: Sequence[tuple[Config, int, int]],
                  chunk_games: int) -> Iterator[tuple[int, dict[str, np.ndarray], Any]]:
        """Every job's chunks, submitted in job order, each job's handed back in its game order.

        At most :data:`IN_FLIGHT_PER_WORKER` chunks per worker are playing or
        queued, and as many again finished but waiting for an earlier chunk
        of their job, however many jobs and games.
        """
        from distributed import as_completed

        chunks = ((i, config, first, n) for i, (config, first_game, n_games) in enumerate(jobs)
                  for first, n in chunk_ranges(first_game, n_games, chunk_games))
        in_flight = IN_FLIGHT_PER_WORKER * self.workers
        queues: dict[int, deque] = {}  # per job, its submitted chunks in game order
        job_of: dict[str, int] = {}
        finished: dict[str, Any] = {}  # results taken from the workers, waiting for an earlier chunk of their job
        playing = 0
        # The results are fetched by the client's own thread as each chunk ends, while this one reduces the
        # chunks before: the workers never wait for a round trip of this thread.
        completed = as_completed(with_results=True)
        try:
            def submit_more() -> None:
                nonlocal playing
                while playing < in_flight and playing + len(finished) < 2 * in_flight:
                    item = next(chunks, None)
                    if item is None:
                        return
                    i, config, first, n = item
                    future = self.client.submit(play_chunk_on_worker, config, first, n, self.threads, pure=False)
                    queues.setdefault(i, deque()).append(future)
                    job_of[future.key] = i
                    completed.add(future)
                    playing += 1

            submit_more()
            for future, result in completed:
                playing -= 1
                finished[future.key] = result
                i = job_of[future.key]
                queue = queues[i]
                while queue and queue[0].key in finished:
                    head = queue.popleft()
                    del job_of[head.key]
                    rec, tally = finished.pop(head.key)
                    yield i, rec, tally
                submit_more()
        finally:
            # An abandoned run (error, Ctrl-C) leaves no work behind on the cluster.
            for queue in queues.values():
                for future in queue:
                    future.cancel()


@dataclass(frozen=True)
class ClusterShape:
    """What a cluster plays at once, for a dry run's estimate: ``workers`` kernels of ``threads`` threads, on
    ``cores`` cores."""

    workers: int
    threads: int  # each kernel's threads
    cores: int  # the cores the workers run on, in all

    @property
    def parallel(self) -> int:
        return max(1, min(self.workers * self.threads, self.cores))

    def speed_up(self, threads_here: int) -> float:
        """How many times faster than this process, on ``threads_here`` threads, the cluster plays games."""
        return self.parallel / max(1, threads_here)

    def words(self) -> str:
        return (f"on {self.workers} worker{'s' if self.workers != 1 else ''} ({self.workers} x {self.threads} "
                f"thread{'s' if self.threads != 1 else ''}, {self.parallel} playing at once)")


def _checked(workers: int | None, scheduler: str | None) -> bool:
    """Whether a cluster is asked for; a ConfigError for both at once, no worker, or more local workers than
    this machine's free memory holds."""
    if workers is not None and scheduler is not None:
        raise ConfigError("--workers", "give either --workers N (local worker processes) or --scheduler ADDRESS, not both")
    if workers is not None and workers < 1:
        raise ConfigError("--workers", f"must be at least 1, got {workers}")
    if workers is not None:
        check_fits("--workers", workers, WORKER_BYTES, "local worker processes")
    return workers is not None or scheduler is not None


def _connect(scheduler: str, timeout: str):
    from distributed import Client

    try:
        return Client(scheduler, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as err:
        raise ConfigError("--scheduler", f"cannot connect to {scheduler}: {err}") from None


def cluster_shape(workers: int | None = None, scheduler: str | None = None, *,
                  timeout: str = CONNECT_TIMEOUT) -> ClusterShape | None:
    """The shape of the cluster ``open_cluster`` would give, None for this process; starts no worker.

    ``--workers N`` shares this machine's cores as ``open_cluster`` splits
    them; ``--scheduler`` asks the scheduler for its workers and each for its
    cores (each kernel uses every core of its worker's machine).
    """
    if not _checked(workers, scheduler):
        return None
    cores = os.cpu_count() or 1
    if workers is not None:
        return ClusterShape(workers, max(1, cores // workers), cores)
    with _connect(scheduler, timeout) as client:
        per_worker = client.run(os.cpu_count)
    hosts: dict[str, int] = {}
    for address, n in per_worker.items():
        host = address.rsplit(":", 1)[0]
        hosts[host] = max(hosts.get(host, 0), n or 1)
    workers = max(1, len(per_worker))
    total = sum(hosts.values()) or 1
    return ClusterShape(workers, max(1, total // workers), total)


@contextmanager
def open_cluster(
    workers: int | None = None, scheduler: str | None = None, *, timeout: str = CONNECT_TIMEOUT
) -> Iterator:
    """A cluster to play on: ``workers`` local processes, the cluster at ``scheduler``, or this process.

    With neither, yields ``sim.runner.IN_PROCESS``. A local cluster listens on
    loopback only and has no dashboard; it is shut down on leaving.
    ``timeout`` bounds the wait for the scheduler to answer.
    """
    from sim.runner import IN_PROCESS

    if not _checked(workers, scheduler):
        yield IN_PROCESS
        return

    from distributed import Client, LocalCluster

    if scheduler is not None:
        with _connect(scheduler, timeout) as client:
            yield DaskCluster(client)
        return

    # Worker processes share this machine's cores: split them rather than
    # let every worker's kernel start a thread per core.
    threads = max(1, (os.cpu_count() or 1) // workers)
    with warnings.catch_warnings():
        # Without a dashboard the scheduler still serves its health checks over
        # HTTP on loopback, and says so when its usual port is taken.
        warnings.filterwarnings("ignore", message="Port .* is already in use")
        local = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        )
    with local, Client(local) as client:
        yield DaskCluster(client, threads=threads, where=f"dask LocalCluster ({workers} worker{'s' if workers != 1 else ''})")
