"""The bit and tuple helpers of the jitted kernels against plain Python."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from sim.bits import lowest_nb, pop_lowest_nb, popcount_nb, quotients_nb, stack_table_nb, sums_nb, tuple_item_nb


@njit(cache=True)
def _item4(a, b, c, d, i):
    return tuple_item_nb((a, b, c, d), i)


@njit(cache=True)
def _item10_int(t, i):
    return tuple_item_nb(t, i)


@njit(cache=True)
def _table_reads(a, b, c, d, order):
    table = stack_table_nb((a, b, c, d))
    out = np.empty(order.shape[0])
    for k in range(order.shape[0]):
        out[k] = table[order[k]]
    return out


floats = st.floats(allow_nan=False, allow_infinity=True)


@settings(max_examples=200, deadline=None)
@given(st.tuples(floats, floats, floats, floats), st.integers(0, 3))
def test_tuple_item_reads_the_float_at_the_index(values, i):
    got = _item4(*values, i)
    assert got == values[i]
    assert str(got) == str(values[i])  # the same float, the sign of a zero included


@settings(max_examples=200, deadline=None)
@given(st.tuples(floats, floats, floats, floats), st.lists(st.integers(0, 3), min_size=1, max_size=12))
def test_a_stack_table_reads_every_float_at_its_index_as_often_as_asked(values, order):
    got = _table_reads(*values, np.array(order, dtype=np.int64))
    assert [str(x) for x in got] == [str(values[i]) for i in order]


@settings(max_examples=200, deadline=None)
@given(st.tuples(*[st.integers(-2**63, 2**63 - 1)] * 10), st.integers(0, 9))
def test_tuple_item_reads_the_integer_at_the_index(values, i):
    assert _item10_int(values, i) == values[i]


@njit(cache=True)
def _lanes5(a, b):
    return quotients_nb(a, b), sums_nb(a, b)


@njit(cache=True)
def _lanes3_scalar(x, b):
    return quotients_nb(x, b), sums_nb(x, b)


any_floats = st.floats(allow_nan=True, allow_infinity=True)


def _same(got, expected):
    """The same floats bit for bit: the sign of a zero included, a NaN for a NaN."""
    return [np.float64(x).tobytes() if x == x else "nan" for x in got] == [
        np.float64(x).tobytes() if x == x else "nan" for x in expected]


@settings(max_examples=300, deadline=None)
@given(st.tuples(*[any_floats] * 5), st.tuples(*[any_floats] * 5))
def test_lane_quotients_and_sums_are_each_lanes_own_division_and_addition(a, b):
    quotients, sums = _lanes5(a, b)
    with np.errstate(all="ignore"):
        assert _same(quotients, [np.float64(x) / np.float64(y) for x, y in zip(a, b)])
        assert _same(sums, [np.float64(x) + np.float64(y) for x, y in zip(a, b)])


@settings(max_examples=200, deadline=None)
@given(any_floats, st.tuples(*[any_floats] * 3))
def test_a_float_against_lanes_is_the_same_float_in_every_lane(x, b):
    quotients, sums = _lanes3_scalar(x, b)
    with np.errstate(all="ignore"):
        assert _same(quotients, [np.float64(x) / np.float64(y) for y in b])
        assert _same(sums, [np.float64(x) + np.float64(y) for y in b])


@njit(cache=True)
def _bits(x):
    return popcount_nb(x), lowest_nb(x), pop_lowest_nb(x)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 2**64 - 1))
def test_bit_helpers_match_python(x):
    count, low, (card, bit, rest) = _bits(np.uint64(x))
    expected_low = (x & -x).bit_length() - 1
    assert count == bin(x).count("1")
    assert low == card == expected_low
    assert bit == 1 << expected_low
    assert rest == x & (x - 1)
