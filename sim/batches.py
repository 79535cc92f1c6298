"""What every game's ``play_games`` shares around its jitted core: checks, threads, chunks.

Each game's ``nb.play_games`` validates its batch, runs its parallel kernel
on at most the threads asked for (never changing the result) and splits
the batch into chunks a thread takes at a time; this module does those
three steps the same way for every game.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import numba


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
