"""What every game's ``play_games`` shares around its jitted core: checks, threads, chunks, the call.

Each game's ``nb.play_games`` validates its batch, preallocates its
records, splits the batch into chunks and plays them on at most the
threads asked for (never changing the result); :class:`BatchKernel` does
those steps the same way for every game, and a game's ``nb.py`` says only
which jitted chunk of games it plays.

A game's ``play_games`` validates nothing itself (``Rules`` and
``parse_seats`` already did) and hands its ``play_chunk_nb`` the rules and
the batch as named structures. The chunk is ``nogil``: the threads here
play chunks side by side, and a run can write the previous batch to disk
while this one plays. Each game's randomness comes from its own streams
(``sim.rng``), so the records do not depend on thread count or chunking.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numba
import numpy as np

if TYPE_CHECKING:
    from sim.records import RecordLayout


def check_batch(seed: int, first_game: int, n_games: int) -> None:
    if n_games < 0 or first_game < 0:
        raise ValueError("first_game and n_games must be non-negative")
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must be between 0 and 2**64 - 1, got {seed}")


def threads_used(threads: int | None) -> int:
    """The threads a kernel runs on when ``threads`` are asked for (None: all numba may use)."""
    if threads is None:
        return numba.get_num_threads()
    return max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS))


def chunk_games(n_games: int, threads: int, chunk: int | None, most: int) -> int:
    """Games a thread takes at a time: ``chunk`` if given, else up to ``most``, fewer for a small
    batch so that every thread gets work (four chunks per thread)."""
    if chunk is None:
        chunk = min(most, -(-n_games // (4 * threads)))
    return max(1, int(chunk))


@dataclass(frozen=True)
class BatchKernel:
    """A game's jitted core as one Python call: ``play_games(rules, seed, first_game, n_games, policy_ids,
    policy_params, threads=None, chunk=None) -> records``.

    ``kernel`` plays one chunk, called as ``kernel(seed, first_game, lo, hi,
    rules.kernel_rules(), policy_ids, policy_params, out)`` for the games
    ``first_game + lo .. first_game + hi - 1`` into rows ``lo .. hi - 1`` of
    ``out``: the rules' numbers and arrays and the batch's record arrays
    each come as one named structure (``sim.records.kernel_struct``; ``out``
    is the layout's), read by name. ``most`` is the most games a thread
    takes at a time. A game's ``kernel`` looks its jitted chunk up when
    called (``lambda *args: play_chunk_nb(*args)``), so that a test may run
    the game loops as Python (tests/conformance).
    """

    kernel: Callable[..., None]
    layout: "RecordLayout"
    most: int

    def __call__(
        self,
        rules,
        seed: int,
        first_game: int,
        n_games: int,
        policy_ids: np.ndarray,
        policy_params: np.ndarray,
        threads: int | None = None,
        chunk: int | None = None,
    ) -> dict[str, np.ndarray]:
        """Play games ``first_game .. first_game + n_games - 1`` (ids and params from the game's ``parse_seats``);
        neither ``threads`` nor ``chunk`` (:func:`chunk_games`) ever changes the records."""
        check_batch(seed, first_game, n_games)
        rec = self.layout.empty(n_games, rules)
        if n_games == 0:
            return rec
        used = threads_used(threads)
        size = chunk_games(n_games, used, chunk, self.most)
        args = (rules.kernel_rules(), np.ascontiguousarray(policy_ids, dtype=np.int64),
                np.ascontiguousarray(policy_params, dtype=np.float64), self.layout.as_struct(rec))

        def play(lo: int) -> None:
            self.kernel(np.uint64(seed), first_game, lo, min(n_games, lo + size), *args)

        starts = range(0, n_games, size)
        if used == 1 or len(starts) == 1:
            for lo in starts:
                play(lo)
        else:
            with ThreadPoolExecutor(min(used, len(starts))) as pool:
                list(pool.map(play, starts))  # list: a chunk's error is raised here
        return rec
