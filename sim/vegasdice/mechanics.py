"""Jitted pieces of the rules shared by the game kernel and the policies:
rolls, placements, whose turn, and what a casino pays.

They work on the public observation ``pub`` (layout in ``enums``), so the
game kernel and the rollouts of the ``montecarlo`` policy play a round by
exactly the same steps.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.bits import popcount_nb
from sim.rng import below_nb, count_below_at_nb
from sim.vegasdice import enums as E


@njit(cache=True, inline="always")
def casino_gains_nb(pub, casino, gains):
    """What each owner takes from ``casino`` if it is paid out now.

    Fills ``gains[owner]`` (seats, then ``WHITE``) with the bill each owner
    takes, 0 for the others. Owners sharing a number of dice are removed;
    the rest, from most dice to fewest, take the largest bill left.
    Returns how many owners the ties removed.
    """
    players = pub[E.P_PLAYERS]
    base = E.P_CASINO_DICE + casino * E.OWNERS
    # Numbers of dice as bits of two masks: ``once`` has bit n when some
    # owner has n dice here, ``multi`` when two or more do. An owner keeps
    # its place when its bit is in ``unique``, and its rank among those who
    # keep theirs is the number of unique bits above its own.
    once = np.uint64(0)
    multi = np.uint64(0)
    for o in range(E.OWNERS):
        gains[o] = 0
        if o < players or o == E.WHITE:
            n = pub[base + o]
            if n > 0:
                bit = np.uint64(1) << np.uint64(n)
                multi |= once & bit
                once |= bit
    if once == 0:
        return 0
    unique = once & ~multi
    n_bills = pub[E.P_CASINO_NBILLS + casino]
    bills = E.P_CASINO_BILLS + casino * E.MAX_CASINO_BILLS
    removed = 0
    for o in range(E.OWNERS):
        if o < players or o == E.WHITE:
            n = pub[base + o]
            if n > 0:
                if (unique >> np.uint64(n)) & np.uint64(1):
                    rank = popcount_nb(unique >> np.uint64(n + 1))
                    if rank < n_bills:
                        gains[o] = pub[bills + rank]
                else:
                    removed += 1
    return removed


@njit(cache=True)
def start_round_nb(pub, round_, first_player, dice, white):
    """Clear the casinos' dice and hand every seat its dice for a new round.

    The casinos' bills are laid out by the caller.
    """
    pub[E.P_ROUND] = round_
    pub[E.P_FIRST_PLAYER] = first_player
    pub[E.P_SEAT] = first_player
    pub[E.P_TURN] = 0
    for i in range(E.MAX_CASINOS * E.OWNERS):
        pub[E.P_CASINO_DICE + i] = 0
    for s in range(pub[E.P_PLAYERS]):
        pub[E.P_DICE_LEFT + s] = dice
        pub[E.P_WHITE_LEFT + s] = white


@njit(cache=True, inline="always")
def holds_dice_nb(pub, seat):
    return pub[E.P_DICE_LEFT + seat] + pub[E.P_WHITE_LEFT + seat] > 0


@njit(cache=True, inline="always")
def next_seat_nb(pub, seat):
    """The first seat after ``seat``, clockwise, that still holds dice (``seat``
    itself last); -1 when every die is placed."""
    players = pub[E.P_PLAYERS]
    s = seat
    for _ in range(players):
        s += 1
        if s == players:
            s = 0
        if holds_dice_nb(pub, s):
            return s
    return -1


@njit(cache=True)
def roll_nb(rng, n_own, n_white, casinos, own, white):
    """Roll ``n_own`` coloured dice, then ``n_white`` white ones, one draw each.

    Fills ``own[c]`` and ``white[c]`` with how many dice of each kind show
    casino ``c`` (0-based).
    """
    for c in range(casinos):
        own[c] = 0
        white[c] = 0
    for _ in range(n_own):
        own[below_nb(rng, casinos)] += 1
    for _ in range(n_white):
        white[below_nb(rng, casinos)] += 1


@njit(cache=True, inline="always")
def roll_at_nb(states, row, n_own, n_white, casinos, own, white):
    """:func:`roll_nb` drawing from ``states[row]`` (the game kernel's streams, read in place)."""
    for c in range(casinos):
        own[c] = 0
        white[c] = 0
    count_below_at_nb(states, row, n_own, casinos, own)
    count_below_at_nb(states, row, n_white, casinos, white)


@njit(cache=True, inline="always")
def place_nb(pub, seat, casino, n_own, n_white):
    """``seat`` places ``n_own`` of its dice and ``n_white`` white ones on ``casino``."""
    pub[E.P_CASINO_DICE + casino * E.OWNERS + seat] += n_own
    pub[E.P_CASINO_DICE + casino * E.OWNERS + E.WHITE] += n_white
    pub[E.P_DICE_LEFT + seat] -= n_own
    pub[E.P_WHITE_LEFT + seat] -= n_white
    pub[E.P_TURN] += 1


@njit(cache=True, inline="always")
def add_bill_nb(pub, casino, value):
    """Lay a bill on a casino, keeping its bills largest first."""
    bills = E.P_CASINO_BILLS + casino * E.MAX_CASINO_BILLS
    n = pub[E.P_CASINO_NBILLS + casino]
    k = n
    while k > 0 and pub[bills + k - 1] < value:
        pub[bills + k] = pub[bills + k - 1]
        k -= 1
    pub[bills + k] = value
    pub[E.P_CASINO_NBILLS + casino] = n + 1
