"""What every game's ``play_games`` shares around its jitted core: checks, threads, chunks, the call.

Each game's ``nb.play_games`` validates its batch, preallocates its
records, runs its parallel kernel on at most the threads asked for (never
changing the result) and splits the batch into chunks a thread takes at a
time; :class:`BatchKernel` does those steps the same way for every game,
and a game's ``nb.py`` says only which kernel it calls with which arrays.

A game's ``play_games`` validates nothing itself (``Rules`` and
``parse_seats`` already did) and hands plain arrays to its
``play_games_nb``, which runs chunks of games in parallel; ``nogil``, so
that a run can write the previous chunk to disk while this one plays.
Each game's randomness comes from its own streams (``sim.rng``), so the
records do not depend on thread count or chunking.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator

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


@contextmanager
def kernel_threads(threads: int | None) -> Iterator[int]:
    """Run the block's kernels on :func:`threads_used` threads, then restore the setting; yields their number."""
    previous = numba.get_num_threads()
    if threads is not None:
        numba.set_num_threads(threads_used(threads))
    try:
        yield numba.get_num_threads()
    finally:
        numba.set_num_threads(previous)


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

    ``kernel`` is the parallel kernel, called as ``kernel(seed, first_game,
    n_games, chunk, *rule_arrays(rules), policy_ids, policy_params,
    *records)``, the records in the order of the layout's fields (its
    ``out_*`` arguments); ``most`` is the most games a thread takes at a
    time. A game's ``kernel`` looks its jitted kernel up when called
    (``lambda *args: play_games_nb(*args)``), so that a test may run the
    game loops as Python (tests/conformance).
    """

    kernel: Callable[..., None]
    layout: "RecordLayout"
    rule_arrays: Callable[[Any], tuple]
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
        """Play games ``first_game .. first_game + n_games - 1``; return their records.

        ``policy_ids`` / ``policy_params`` come from the game's
        ``parse_seats``. ``threads`` caps the worker threads (default:
        all); it never changes the result, and neither does ``chunk``, the
        games a thread takes at a time (default: up to ``most``, fewer for
        a small batch so that every thread gets work).
        """
        check_batch(seed, first_game, n_games)
        rec = self.layout.empty(n_games, rules)
        if n_games == 0:
            return rec
        arrays = self.rule_arrays(rules)
        ids = np.ascontiguousarray(policy_ids, dtype=np.int64)
        params = np.ascontiguousarray(policy_params, dtype=np.float64)
        with kernel_threads(threads) as used:
            self.kernel(
                np.uint64(seed), first_game, n_games, chunk_games(n_games, used, chunk, self.most),
                *arrays, ids, params, *(rec[name] for name in self.layout.fields),
            )
        return rec
