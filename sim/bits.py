"""Bit tricks on uint64 card masks, compiled to single machine instructions.

The intrinsics write LLVM IR through numba's ``intrinsic`` and ``cgutils``, so
numba is pinned to the versions they are tested on (tests/test_numba_range.py)."""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def _ctpop(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _cttz(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, False))

    return sig, codegen


@intrinsic
def tuple_item_nb(typingctx, tup, i):
    """``tup[i]`` of a tuple of one type, read from a copy on the stack: one
    load where numba's own indexing branches on ``i`` (a jump table, which
    mispredicts when ``i`` changes from card to card). ``i`` must be in range."""
    if not isinstance(tup, types.UniTuple) or not isinstance(i, types.Integer):
        return None
    sig = tup.dtype(tup, i)

    def codegen(context, builder, signature, args):
        value, index = args
        item = context.get_value_type(tup.dtype)
        slots = cgutils.alloca_once(builder, item, size=tup.count)
        for k in range(tup.count):
            builder.store(builder.extract_value(value, k), cgutils.gep(builder, slots, k))
        return builder.load(builder.gep(slots, [context.cast(builder, index, i, types.intp)]))

    return sig, codegen


@intrinsic
def stack_table_nb(typingctx, tup):
    """The items of a tuple of one type copied once to the stack, as a
    pointer ``t`` that a loop reads with ``t[i]`` (one load each): for what a
    decision works out once and every card reads at its own index, where
    :func:`tuple_item_nb` would copy the tuple again on every read. The
    copy lives as long as the function it is made in (kernels inlined into
    it included): never return it."""
    if not isinstance(tup, types.UniTuple):
        return None
    sig = types.CPointer(tup.dtype)(tup)

    def codegen(context, builder, signature, args):
        (value,) = args
        slots = cgutils.alloca_once(builder, context.get_value_type(tup.dtype), size=tup.count)
        for k in range(tup.count):
            builder.store(builder.extract_value(value, k), cgutils.gep(builder, slots, k))
        return slots

    return sig, codegen


def _lanewise(typingctx, a, b, op):
    """Typing and code of an operation on two tuples of floats of one
    length (or a float, the same in every lane, and a tuple), lane by lane,
    as one vector instruction."""
    if not (isinstance(b, types.UniTuple) and b.dtype == types.float64
            and (a == types.float64 or (isinstance(a, types.UniTuple) and a.count == b.count
                                        and a.dtype == types.float64))):
        return None
    sig = b(a, b)

    def codegen(context, builder, signature, args):
        lanes = ir.VectorType(ir.DoubleType(), b.count)
        vectors = []
        for ty, value in zip(signature.args, args):
            v = ir.Constant(lanes, ir.Undefined)
            for k in range(b.count):
                item = value if ty == types.float64 else builder.extract_value(value, k)
                v = builder.insert_element(v, item, ir.Constant(ir.IntType(32), k))
            vectors.append(v)
        result = getattr(builder, op)(vectors[0], vectors[1])
        out = context.get_constant_undef(b)
        for k in range(b.count):
            out = builder.insert_value(out, builder.extract_element(result, ir.Constant(ir.IntType(32), k)), k)
        return out

    return sig, codegen


@intrinsic
def quotients_nb(typingctx, a, b):
    """``(a[0] / b[0], a[1] / b[1], ...)`` for two tuples of floats of one
    length (``a / b[k]`` for a float ``a``), as one vector division: each quotient the float its own
    division gives (IEEE division is exact to the bit, lane by lane), the
    divider used once for several where it would otherwise be what the
    code waits on."""
    return _lanewise(typingctx, a, b, "fdiv")


@intrinsic
def sums_nb(typingctx, a, b):
    """``(a[0] + b[0], a[1] + b[1], ...)``, the companion of :func:`quotients_nb`."""
    return _lanewise(typingctx, a, b, "fadd")


@njit(cache=True, inline="always")
def popcount_nb(x):
    """Number of set bits (cards in a mask)."""
    return np.int64(_ctpop(np.uint64(x)))


@njit(cache=True, inline="always")
def lowest_nb(x):
    """Index of the lowest set bit (the lowest card); 64 for an empty mask."""
    return np.int64(_cttz(np.uint64(x)))


@njit(cache=True, inline="always")
def bit_nb(i):
    return np.uint64(1) << np.uint64(i)


@njit(cache=True, inline="always")
def pop_lowest_nb(x):
    """The lowest card of a non-empty mask: ``(card, its bit, the mask without it)``, the loop step over a
    hand's cards lowest first."""
    card = lowest_nb(x)
    return card, bit_nb(card), x & (x - np.uint64(1))


@njit(cache=True, inline="always")
def nth_bit_nb(x, n):
    """Index of the n-th (0-based) set bit of x, counting from the lowest."""
    x = np.uint64(x)
    for _ in range(n):
        x &= x - np.uint64(1)
    return lowest_nb(x)
