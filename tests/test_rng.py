import numpy as np
import pytest

from sim.rng import (
    Stream, below_at_nb, below_nb, coin_at_nb, coin_nb, count_below_at_nb, next_at_nb, next_nb, seed_stream_at_nb,
    seed_stream_nb, shuffle_at_nb, shuffle_nb,
)


def jit_stream(seed, game, stream):
    state = np.zeros(4, dtype=np.uint64)
    seed_stream_nb(state, np.uint64(seed), game, stream)
    return state


@pytest.mark.parametrize("seed,game,stream", [(0, 0, 0), (1, 2, 3), (2**64 - 1, 10**12, 6), (12345, 678, 1)])
def test_python_and_jitted_streams_agree(seed, game, stream):
    py = Stream(seed, game, stream)
    nb = jit_stream(seed, game, stream)
    assert [py.next() for _ in range(50)] == [int(next_nb(nb)) for _ in range(50)]
    assert [py.below(n) for n in range(1, 60)] == [below_nb(nb, n) for n in range(1, 60)]
    assert [py.coin() for _ in range(50)] == [coin_nb(nb) for _ in range(50)]


def test_shuffles_agree():
    py = Stream(7, 11, 0)
    nb = jit_stream(7, 11, 0)
    items = list(range(40))
    py.shuffle(items)
    arr = np.arange(40, dtype=np.int64)
    shuffle_nb(nb, arr, 40)
    assert items == arr.tolist()
    assert sorted(items) == list(range(40))


def test_streams_read_in_place_agree_with_python():
    """The twins that keep a game's streams as rows of one array: the row's
    draws are the stream's, and the other rows are left alone."""
    states = np.zeros((3, 4), dtype=np.uint64)
    seed_stream_at_nb(states, 0, np.uint64(9), 4, 0)
    seed_stream_at_nb(states, 2, np.uint64(9), 4, 2)
    row0 = states[0].copy()
    py = Stream(9, 4, 2)
    assert [py.next() for _ in range(20)] == [int(next_at_nb(states, 2)) for _ in range(20)]
    assert [py.below(n) for n in range(1, 40)] == [below_at_nb(states, 2, n) for n in range(1, 40)]
    assert [py.coin() for _ in range(20)] == [coin_at_nb(states, 2) for _ in range(20)]
    items = list(range(40))
    py.shuffle(items)
    arr = np.arange(40, dtype=np.int64)
    shuffle_at_nb(states, 2, arr, 40)
    assert items == arr.tolist()
    counts = np.zeros(6, dtype=np.int64)
    count_below_at_nb(states, 2, 25, 6, counts)
    expected = np.bincount([py.below(6) for _ in range(25)], minlength=6)
    assert counts.tolist() == expected.tolist()
    assert int(next_at_nb(states, 2)) == py.next()  # the words were stored back
    assert states[0].tolist() == row0.tolist() and states[1].tolist() == [0, 0, 0, 0]


def test_streams_differ_by_game_and_stream():
    firsts = {Stream(1, g, s).next() for g in range(100) for s in range(6)}
    assert len(firsts) == 600


def test_below_is_uniform():
    # 60 000 draws over 6 values: each count within 5 standard errors of 10 000.
    s = Stream(3, 0, 0)
    counts = np.bincount([s.below(6) for _ in range(60_000)], minlength=6)
    sd = np.sqrt(60_000 * (1 / 6) * (5 / 6))
    assert np.all(np.abs(counts - 10_000) < 5 * sd)
