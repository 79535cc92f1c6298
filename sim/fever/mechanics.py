"""Jitted pieces of the rules shared by the game kernel and the policies:
the plays a hand allows, the machine a play leaves, what a machine pays,
the cards a seat has not seen.

They read the public observation ``pub`` (layout in ``enums``) and a hand
of counts per symbol, so the game kernel and every policy see a play the
same way. A play is coded ``symbol * 8 + reel mask``.
"""

from __future__ import annotations

from numba import njit

from sim.fever import enums as E



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


@njit(cache=True)
def can_score_nb(pub, hand, table):
    """Whether some play the hand allows leaves a combination showing."""
    k = pub[E.P_SYMBOLS]
    max_play = pub[E.P_MAX_PLAY]
    for x in range(k):
        if hand[x] > 0:
            m = min(hand[x], max_play)
            for index in range(masks_up_to_nb(m)):
                if play_combination_nb(pub, x, nth_mask_nb(m, index), table) >= 0:
                    return True
    return False


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
