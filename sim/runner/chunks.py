"""Chunks of games, the unit of work of every run, and where they are played.

:func:`play_chunk` (``sim.chunk``) plays a range of a config's games and tallies them: in
this process (:data:`IN_PROCESS`) or on a Dask worker (``sim.cluster``). It
depends on nothing but its arguments, since game ``i`` is a pure function
of ``(seed, i)``: chunking never changes a result.
"""

from __future__ import annotations

from typing import Any, Iterator, Protocol, Sequence

import numpy as np

from sim.chunk import play_chunk, play_records
from sim.config import Config

CHUNK_GAMES = 65_536

__all__ = ["CHUNK_GAMES", "IN_PROCESS", "Cluster", "InProcess", "chunk_ranges", "play_chunk", "play_records"]


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
    never depend on where it ran. ``play_many`` plays several such jobs at
    once (a sweep's cells, a tune's candidates), chunks of
    ``batch_chunk_games`` games, each job's chunks in its game order
    (see ``sim.runner.played.play_together``).
    """

    where: str
    slots: int  # chunks played at once

    def threads_of(self, config: Config) -> int | None: ...

    def chunk_games(self, n_games: int) -> int: ...

    def warm_up(self, config: Config, wait: bool = True) -> None: ...

    def play(self, config: Config, first_game: int, n_games: int) -> Iterator[tuple[dict[str, np.ndarray], Any]]: ...

    def batch_chunk_games(self, n_games: Sequence[int]) -> int: ...

    def play_many(self, jobs: Sequence[tuple[Config, int, int]],
                  chunk_games: int) -> Iterator[tuple[int, dict[str, np.ndarray], Any]]: ...


class InProcess:
    """Plays the chunks here, one after another, each on every thread numba may use."""

    where = "in-process"
    slots = 1

    def threads_of(self, config: Config) -> int:
        from sim.batches import threads_used

        return threads_used(config.threads)

    def chunk_games(self, n_games: int) -> int:
        return CHUNK_GAMES

    def warm_up(self, config: Config, wait: bool = True) -> None:
        """Compile (or load) the kernels here; not waited for, nothing is started: the first game compiles."""
        if wait:
            play_chunk(config, 0, 1)

    def play(self, config: Config, first_game: int, n_games: int) -> Iterator[tuple[dict[str, np.ndarray], Any]]:
        """Records of each chunk, untallied (``None``): the run tallies them beside the next chunk."""
        for first, n in chunk_ranges(first_game, n_games, self.chunk_games(n_games)):
            yield play_records(config, first, n), None

    def batch_chunk_games(self, n_games: Sequence[int]) -> int:
        return CHUNK_GAMES

    def play_many(self, jobs: Sequence[tuple[Config, int, int]],
                  chunk_games: int) -> Iterator[tuple[int, dict[str, np.ndarray], Any]]:
        """Each job's chunks, one job after another: ``(job index, records, None)``."""
        for i, (config, first_game, n_games) in enumerate(jobs):
            for first, n in chunk_ranges(first_game, n_games, chunk_games):
                yield i, play_records(config, first, n), None


IN_PROCESS = InProcess()
