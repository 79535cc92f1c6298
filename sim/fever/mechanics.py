"""Jitted pieces of the rules shared by the game kernel and the policies:
the plays a hand allows, the machine a play leaves, what a machine pays,
the cards a seat has not seen.

They read the public observation ``pub`` (layout in ``enums``) and a hand
of counts per symbol, so the game kernel and every policy see a play the
same way. A play is coded ``symbol * 8 + reel mask``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.bits import lowest_nb, popcount_nb
from sim.fever import enums as E

HELD_BITS = E.HELD_BITS
ONE_CARD = (1 << HELD_BITS) - 1  # a held word's plays of one card
ONE_OR_TWO_CARDS = (1 << (2 * HELD_BITS)) - 1  # its plays of one or two cards


@njit(cache=True, inline="always")
def mask_cards_nb(mask):
    return (mask & 1) + ((mask >> 1) & 1) + ((mask >> 2) & 1)


@njit(cache=True, inline="always")
def combination_nb(r0, r1, r2, table, k):
    """The pattern reels showing ``r0, r1, r2`` match (-1: none, or a reel is empty)."""
    if r0 < 0 or r1 < 0 or r2 < 0:
        return -1
    return table[(r0 * k + r1) * k + r2]


@njit(cache=True, inline="always")
def reel_after_nb(pub, reel, symbol, mask):
    """What ``reel`` shows once ``symbol`` is played on the reels of ``mask``."""
    if (mask >> reel) & 1:
        return symbol
    return pub[E.P_REELS + reel]


@njit(cache=True, inline="always")
def play_combination_nb(pub, symbol, mask, table):
    """The pattern the machine shows after playing ``symbol`` on the reels of ``mask`` (-1: none)."""
    k = pub[E.P_SYMBOLS]
    return combination_nb(reel_after_nb(pub, 0, symbol, mask), reel_after_nb(pub, 1, symbol, mask),
                          reel_after_nb(pub, 2, symbol, mask), table, k)


@njit(cache=True, inline="always")
def play_allowed_nb(hand, symbol, mask, max_play):
    n = mask_cards_nb(mask)
    return n <= hand[symbol] and n <= max_play


# The reel masks covering at most n cards, ascending: 1, 2, 4 (n = 1); 1 to 6 (n = 2); 1 to 7 (n = 3).


@njit(cache=True, inline="always")
def masks_up_to_nb(n):
    """How many reel masks cover at most ``n`` cards."""
    if n <= 0:
        return 0
    if n == 1:
        return 3
    if n == 2:
        return 6
    return 7


@njit(cache=True, inline="always")
def nth_mask_nb(n, index):
    """The ``index``-th mask (ascending) among those covering at most ``n`` cards."""
    if n == 1:
        return 1 << index
    if n == 2:
        return index + 1
    return index + 1


@njit(cache=True)
def count_plays_nb(pub, hand):
    """How many plays the hand allows this turn (symbols ascending, then masks 1..7)."""
    k = pub[E.P_SYMBOLS]
    max_play = pub[E.P_MAX_PLAY]
    n = 0
    for x in range(k):
        if hand[x] > 0:
            n += masks_up_to_nb(min(hand[x], max_play))
    return n


@njit(cache=True)
def nth_play_nb(pub, hand, index):
    """The ``index``-th play the hand allows, in the order of :func:`count_plays_nb`; -1 if none."""
    k = pub[E.P_SYMBOLS]
    max_play = pub[E.P_MAX_PLAY]
    for x in range(k):
        if hand[x] > 0:
            m = min(hand[x], max_play)
            n = masks_up_to_nb(m)
            if index < n:
                return x * 8 + nth_mask_nb(m, index)
            index -= n
    return -1


# --- the same plays from a ``held`` word ------------------------------------------------
#
# Which symbols a hand holds is a coin toss to the branch predictor, so a loop over the
# symbols asking "any of this one?" mispredicts on most turns. The word below is built
# without a branch, and counting or indexing the plays reads it with bit instructions.


@njit(cache=True, inline="always")
def held_symbol_nb(count, x):
    """Symbol ``x``'s bits in a ``held`` word when the hand holds ``count`` cards of it."""
    return (np.int64(count > 0) | (np.int64(count > 1) << HELD_BITS) | (np.int64(count > 2) << (2 * HELD_BITS))) << x


@njit(cache=True, inline="always")
def playable_nb(held, max_play):
    """``held`` without the plays of more than ``max_play`` cards."""
    if max_play <= 1:
        return held & ONE_CARD
    if max_play == 2:
        return held & ONE_OR_TWO_CARDS
    return held


@njit(cache=True)
def held_nb(hands, seat, k, max_play):
    """The plays the hand ``hands[seat]`` allows this turn as a ``held`` word (the layout of ``HELD_BITS``).

    The hands are read in place: a row view would be reference-counted every turn."""
    held = 0
    for x in range(k):
        held |= held_symbol_nb(hands[seat, x], x)
    return playable_nb(held, max_play)


@njit(cache=True, inline="always")
def held_plays_nb(held):
    """How many plays a ``held`` word allows: a symbol held once gives masks 1, 2, 4; twice
    (and two cards allowed), 1 to 6; three times (three allowed), 1 to 7."""
    return 3 * popcount_nb(held & ONE_OR_TWO_CARDS) + popcount_nb(held >> (2 * HELD_BITS))


@njit(cache=True, inline="always")
def nth_held_play_nb(held, index):
    """The ``index``-th play of a ``held`` word, in play order (as :func:`nth_play_nb`); -1 if none."""
    symbols = held & ONE_CARD
    while symbols != 0:
        x = lowest_nb(symbols)
        n = 3 + 3 * ((held >> (HELD_BITS + x)) & 1) + ((held >> (2 * HELD_BITS + x)) & 1)
        if index < n:
            return x * 8 + ((1 << index) if n == 3 else index + 1)
        index -= n
        symbols &= symbols - 1
    return -1


@njit(cache=True, inline="always")
def machine_nb(r0, r1, r2, k):
    """The machine showing ``r0, r1, r2`` as one index (an empty reel, -1, counts as a symbol
    of its own): ``Rules.machine_patterns`` and ``Rules.completions`` are indexed by it."""
    return ((r0 + 1) * (k + 1) + r1 + 1) * (k + 1) + r2 + 1


@njit(cache=True)
def best_scoring_play_nb(pub, hand, table, points):
    """The richest play that scores now: ``(code, points)``, fewest cards on equal points,
    the first in play order on both; ``(-1, 0)`` when no play scores."""
    k = pub[E.P_SYMBOLS]
    max_play = pub[E.P_MAX_PLAY]
    best = -1
    best_points = 0
    best_cards = 99
    for x in range(k):
        if hand[x] > 0:
            for mask in range(1, 8):
                if play_allowed_nb(hand, x, mask, max_play):
                    c = play_combination_nb(pub, x, mask, table)
                    if c >= 0:
                        p = points[c]
                        n = mask_cards_nb(mask)
                        if p > best_points or (p == best_points and n < best_cards):
                            best = x * 8 + mask
                            best_points = p
                            best_cards = n
    return best, best_points


@njit(cache=True)
def unseen_nb(pub, hand, unseen):
    """Fill ``unseen[symbol]``: cards the seat to move has not seen (the deck and the other hands);
    return how many."""
    k = pub[E.P_SYMBOLS]
    total = 0
    for x in range(k):
        n = pub[E.P_TOTAL + x] - hand[x] - pub[E.P_DISCARDS + x] - pub[E.P_SCORED + x] - pub[E.P_OUT + x]
        for r in range(E.REELS):
            if pub[E.P_REELS + r] == x:
                n -= 1
        unseen[x] = n
        total += n
    return total
