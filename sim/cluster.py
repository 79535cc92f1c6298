"""Playing chunks of games on a Dask distributed cluster.

A run or a sweep hands its games out as chunks ``(config, first_game,
n_games)``; a worker plays one with ``sim.runner.play_chunk`` and sends back
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
import threading
import warnings
from collections import deque
from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np

from sim.config import Config
from sim.errors import ConfigError
from sim.runner import CHUNK_GAMES, chunk_ranges, play_chunk

# Below this a chunk costs more in messages than in playing.
MIN_CHUNK_GAMES = 4_096
# Chunks waiting or playing per worker: one playing, one queued behind it,
# so no worker idles while the client takes a result.
IN_FLIGHT_PER_WORKER = 2
CONNECT_TIMEOUT = "10s"

# numba's default threading layer must not be entered by two threads at
# once; a worker started with several threads would run tasks concurrently.
_KERNEL_LOCK = threading.Lock()


def play_chunk_on_worker(config: Config, first_game: int, n_games: int, threads: int | None):
    """``play_chunk`` for a worker: one kernel at a time per worker process."""
    with _KERNEL_LOCK:
        return play_chunk(config, first_game, n_games, threads)


def _warm_up_worker(config: Config) -> None:
    play_chunk_on_worker(config, 0, 1, 1)


class DaskCluster:
    """Plays chunks on the workers of a ``distributed.Client``.

    ``threads`` is what each chunk may use on its worker when the config
    sets none (None: every core of the worker).
    """

    def __init__(self, client, threads: int | None = None, where: str | None = None):
        self.client = client
        self.threads = threads
        self.where = where or f"dask {client.scheduler.address}"

    @property
    def workers(self) -> int:
        # Workers may come and go while a sweep runs: ask each time.
        return max(1, len(self.client.scheduler_info()["workers"]))

    def threads_of(self, config: Config) -> int | None:
        """Threads a chunk uses on its worker; None: as many as the worker has cores."""
        return config.threads if config.threads is not None else self.threads

    def chunk_games(self, n_games: int) -> int:
        """Small enough to keep every worker busy, large enough to be worth a message."""
        per_worker = math.ceil(n_games / (IN_FLIGHT_PER_WORKER * self.workers))
        return max(MIN_CHUNK_GAMES, min(CHUNK_GAMES, per_worker))

    def warm_up(self, config: Config) -> None:
        # Compiling (or loading the compiled core) on every worker at once,
        # not inside the first chunks each worker receives. As tasks rather
        # than client.run, so that a long compilation does not block the
        # worker's event loop and its heartbeats.
        workers = list(self.client.scheduler_info()["workers"])
        self.client.gather([
            self.client.submit(_warm_up_worker, config, workers=[w], allow_other_workers=False, pure=False)
            for w in workers
        ])

    def play(self, config: Config, first_game: int, n_games: int) -> Iterator[tuple[dict[str, np.ndarray], Any]]:
        in_flight = IN_FLIGHT_PER_WORKER * self.workers
        pending: deque = deque()
        try:
            for first, n in chunk_ranges(first_game, n_games, self.chunk_games(n_games)):
                pending.append(
                    self.client.submit(play_chunk_on_worker, config, first, n, self.threads, pure=False)
                )
                if len(pending) >= in_flight:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            # An abandoned run (error, Ctrl-C) leaves no work behind on the cluster.
            for future in pending:
                future.cancel()


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

    if workers is not None and scheduler is not None:
        raise ConfigError("--workers", "give either --workers N (local worker processes) or --scheduler ADDRESS, not both")
    if workers is None and scheduler is None:
        yield IN_PROCESS
        return

    from distributed import Client, LocalCluster

    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=timeout)
        except (OSError, TimeoutError, ValueError) as err:
            raise ConfigError("--scheduler", f"cannot connect to {scheduler}: {err}") from None
        with client:
            yield DaskCluster(client)
        return

    if workers < 1:
        raise ConfigError("--workers", f"must be at least 1, got {workers}")
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
        yield DaskCluster(client, threads=threads, where=f"dask LocalCluster ({workers} workers)")
