"""Counter-based randomness: every game's draws are a pure function of
``(seed, game_index, stream)``.

A stream is a xoshiro256** generator whose four words come from SplitMix64
started at a key that mixes the seed, the game index and the stream number.
No state is shared between games, so results do not depend on thread count,
chunking or which worker played a game.

Two draws are used everywhere, in the jitted core and in the reference
engine alike:

* ``below(n)``: ``((next >> 32) * n) >> 32``, an integer in ``[0, n)``
  (the bias is below 1e-8 for the n <= 64 used here);
* ``coin()``: ``next >> 63``, 0 or 1.

The pure-Python :class:`Stream` and the ``*_nb`` kernels produce the same
numbers; ``tests/test_rng.py`` checks it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

MASK = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15


def _mix(z: int) -> int:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & MASK
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB & MASK
    return z ^ (z >> 31)


def stream_key(seed: int, game: int, stream: int) -> int:
    k = _mix((seed + GOLDEN_GAMMA) & MASK)
    k = _mix((k ^ game) + GOLDEN_GAMMA & MASK)
    return _mix((k ^ stream) + GOLDEN_GAMMA & MASK)


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & MASK


class Stream:
    """Pure-Python twin of the jitted stream, for the reference engine."""

    def __init__(self, seed: int, game: int, stream: int):
        x = stream_key(seed & MASK, game & MASK, stream & MASK)
        s = []
        for _ in range(4):
            x = (x + GOLDEN_GAMMA) & MASK
            s.append(_mix(x))
        self.s = s

    def next(self) -> int:
        s0, s1, s2, s3 = self.s
        result = _rotl(s1 * 5 & MASK, 7) * 9 & MASK
        t = (s1 << 17) & MASK
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = _rotl(s3, 45)
        self.s = [s0, s1, s2, s3]
        return result

    def below(self, n: int) -> int:
        return ((self.next() >> 32) * n) >> 32

    def coin(self) -> int:
        return self.next() >> 63

    def shuffle(self, items: list) -> None:
        """Fisher-Yates from the top, in place: the order both engines use."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


# --- jitted twins ---------------------------------------------------------

_U = np.uint64


@njit(cache=True, inline="always")
def _mix_nb(z):
    z = (z ^ (z >> _U(30))) * _U(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U(27))) * _U(0x94D049BB133111EB)
    return z ^ (z >> _U(31))


@njit(cache=True, inline="always")
def _rotl_nb(x, k):
    return (x << _U(k)) | (x >> _U(64 - k))


@njit(cache=True)
def seed_stream_nb(state, seed, game, stream):
    """Fill ``state`` (uint64[4]) for ``(seed, game, stream)``."""
    g = _U(GOLDEN_GAMMA)
    k = _mix_nb(_U(seed) + g)
    k = _mix_nb((k ^ _U(game)) + g)
    x = _mix_nb((k ^ _U(stream)) + g)
    for i in range(4):
        x = x + g
        state[i] = _mix_nb(x)


@njit(cache=True, inline="always")
def _step_nb(s0, s1, s2, s3):
    """One xoshiro256** step on words held in local variables: ``(output, s0, s1, s2, s3)``."""
    result = _rotl_nb(s1 * _U(5), 7) * _U(9)
    t = s1 << _U(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl_nb(s3, 45)
    return result, s0, s1, s2, s3


@njit(cache=True, inline="always")
def next_nb(state):
    result, state[0], state[1], state[2], state[3] = _step_nb(state[0], state[1], state[2], state[3])
    return result


@njit(cache=True, inline="always")
def below_nb(state, n):
    return np.int64(((next_nb(state) >> _U(32)) * _U(n)) >> _U(32))


@njit(cache=True, inline="always")
def coin_nb(state):
    return np.int64(next_nb(state) >> _U(63))


@njit(cache=True)
def shuffle_nb(state, items, n):
    """Fisher-Yates over ``items[:n]`` from the top, like :meth:`Stream.shuffle`."""
    for i in range(n - 1, 0, -1):
        j = below_nb(state, i + 1)
        tmp = items[i]
        items[i] = items[j]
        items[j] = tmp


# --- the same draws on row ``row`` of a 2-D array of states ---------------
#
# A game keeps all its streams in one (streams, 4) array. Passing that array
# and a row index, instead of the row ``states[row]`` as an array of its own,
# spares the hot loop building (and reference-counting) a view per draw.


@njit(cache=True, inline="always")
def seed_stream_at_nb(states, row, seed, game, stream):
    """Fill ``states[row]`` for ``(seed, game, stream)``, like :func:`seed_stream_nb`."""
    g = _U(GOLDEN_GAMMA)
    k = _mix_nb(_U(seed) + g)
    k = _mix_nb((k ^ _U(game)) + g)
    x = _mix_nb((k ^ _U(stream)) + g)
    for i in range(4):
        x = x + g
        states[row, i] = _mix_nb(x)


@njit(cache=True, inline="always")
def next_at_nb(states, row):
    result, states[row, 0], states[row, 1], states[row, 2], states[row, 3] = _step_nb(
        states[row, 0], states[row, 1], states[row, 2], states[row, 3])
    return result


@njit(cache=True, inline="always")
def below_at_nb(states, row, n):
    return np.int64(((next_at_nb(states, row) >> _U(32)) * _U(n)) >> _U(32))


@njit(cache=True, inline="always")
def coin_at_nb(states, row):
    return np.int64(next_at_nb(states, row) >> _U(63))


@njit(cache=True)
def shuffle_at_nb(states, row, items, n):
    """:func:`shuffle_nb` drawing from ``states[row]``, its words held in registers meanwhile."""
    s0, s1, s2, s3 = states[row, 0], states[row, 1], states[row, 2], states[row, 3]
    for i in range(n - 1, 0, -1):
        x, s0, s1, s2, s3 = _step_nb(s0, s1, s2, s3)
        j = np.int64(((x >> _U(32)) * _U(i + 1)) >> _U(32))
        tmp = items[i]
        items[i] = items[j]
        items[j] = tmp
    states[row, 0], states[row, 1], states[row, 2], states[row, 3] = s0, s1, s2, s3


@njit(cache=True, inline="always")
def count_below_at_nb(states, row, draws, n, counts):
    """Draw ``below(n)`` ``draws`` times from ``states[row]``; add 1 to ``counts[k]`` for each ``k`` drawn.

    The same draws as ``draws`` calls of :func:`below_at_nb`, with the
    stream's words held in registers between them (a store to ``counts``
    would otherwise force them back to memory after every draw).
    """
    s0, s1, s2, s3 = states[row, 0], states[row, 1], states[row, 2], states[row, 3]
    for _ in range(draws):
        x, s0, s1, s2, s3 = _step_nb(s0, s1, s2, s3)
        counts[np.int64(((x >> _U(32)) * _U(n)) >> _U(32))] += 1
    states[row, 0], states[row, 1], states[row, 2], states[row, 3] = s0, s1, s2, s3
