"""The games of one run so far: chunks taken in game order, tallied, streamed to Parquet, timed."""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from sim.config import Config
from sim.runner.chunks import CHUNK_GAMES, IN_PROCESS, Cluster
from sim.runner.parquet import ParquetRecords


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
        self._started = 0.0
        self._kept: list[dict[str, np.ndarray]] | None = [] if keep_records else None

    @property
    def games(self) -> int:
        return self.tally.games

    def play(self, first_game: int, n_games: int, cluster: Cluster, bar=None) -> None:
        """Play games ``first_game ..`` (the next ones: game indices continue) on ``cluster``."""
        self.begin(first_game, n_games, cluster, cluster.chunk_games(n_games))
        for rec, tally in cluster.play(self.config, first_game, n_games):
            self.take(rec, tally, bar)
        self.end()

    def begin(self, first_game: int, n_games: int, cluster: Cluster, chunk_games: int) -> None:
        """Start taking games ``first_game ..`` played on ``cluster`` in chunks of ``chunk_games`` (see :meth:`take`)."""
        if first_game != self.games:
            raise ValueError(f"games must be added in order: expected game {self.games}, got {first_game}")
        self.threads = cluster.threads_of(self.config)
        self.chunk_games = chunk_games
        self.where = cluster.where
        self._started = time.perf_counter()

    def take(self, rec: dict[str, np.ndarray], tally, bar=None) -> None:
        """The next chunk, in game order: tallied and written beside the next one."""
        self._finish_absorbing()
        self._absorbing = self._background.submit(self._absorb, rec, tally)
        if self._kept is not None:
            self._kept.append(rec)
        if bar is not None:
            bar.update(len(rec["game"]))

    def end(self) -> None:
        """The games begun are all taken: their tallies merged, their time counted."""
        self._finish_absorbing()
        self.seconds += time.perf_counter() - self._started

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


def play_together(cluster: Cluster, jobs: Sequence[tuple[Config, int, int]],
                  start: Callable[[int], GamesPlayed], bar=None) -> Iterator[tuple[int, GamesPlayed]]:
    """Play every job ``(config, first_game, n_games)`` on ``cluster`` at once; yield ``(i, played)`` as each ends.

    ``start(i)`` gives job ``i``'s :class:`GamesPlayed` when its first chunk
    arrives; it is yielded as soon as its last one is taken, so that each
    job's results are reduced (and written) as they arrive, not once every
    job is played. Each job's chunks are taken in game order, whatever
    order the cluster plays them in: the results are those of playing the
    jobs one after another.
    """
    jobs = list(jobs)
    chunk = cluster.batch_chunk_games([n for _, _, n in jobs])
    left = [n for _, _, n in jobs]
    played: dict[int, GamesPlayed] = {}
    for i in [i for i, n in enumerate(left) if n == 0]:  # nothing to play: done at once
        nothing = start(i)
        nothing.begin(jobs[i][1], 0, cluster, chunk)
        nothing.end()
        yield i, nothing
    for i, rec, tally in cluster.play_many(jobs, chunk):
        if i not in played:
            played[i] = start(i)
            played[i].begin(jobs[i][1], jobs[i][2], cluster, chunk)
        played[i].take(rec, tally, bar)
        left[i] -= len(rec["game"])
        if left[i] == 0:
            finished = played.pop(i)
            finished.end()
            yield i, finished
