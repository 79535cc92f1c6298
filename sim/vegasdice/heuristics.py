"""The ``greedy`` policy: the best immediate standing on the casino chosen.

It is also the policy every seat plays in the rollouts of ``montecarlo``,
so it is cheap: two payouts of one casino per value shown.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.bits import popcount_nb
from sim.vegasdice import enums as E


@njit(cache=True)
def standing_nb(pub, casino, seat, add_seat, add_white):
    """``seat``'s take from ``casino`` paid out now, times ``players``, minus
    every player's take (its own included), with ``add_seat`` more dice of
    the seat and ``add_white`` more white dice on it.

    The same payout as :func:`~sim.vegasdice.mechanics.casino_gains_nb`,
    summed on the fly: the greedy policy asks it twice per value shown.
    """
    players = pub[E.P_PLAYERS]
    base = E.P_CASINO_DICE + casino * E.OWNERS
    # Bits of ``once``: numbers of dice some owner has here; of ``multi``:
    # numbers two or more owners have (see casino_gains_nb).
    n = pub[base + E.WHITE] + add_white
    once = (1 << n) & ~1
    multi = 0
    for o in range(players):
        n = pub[base + o] + (add_seat if o == seat else 0)
        bit = (1 << n) & ~1
        multi |= once & bit
        once |= bit
    unique = once & ~multi
    if unique == 0:
        return 0
    n_bills = pub[E.P_CASINO_NBILLS + casino]
    bills = E.P_CASINO_BILLS + casino * E.MAX_CASINO_BILLS
    total = 0
    for o in range(players):
        n = pub[base + o] + (add_seat if o == seat else 0)
        if (unique >> n) & 1:
            rank = popcount_nb(unique >> (n + 1))
            if rank < n_bills:
                bill = pub[bills + rank]
                total += players * bill - bill if o == seat else -bill
    return total


@njit(cache=True)
def placement_gain_nb(pub, seat, casino, n_own, n_white):
    """How much placing these dice on ``casino`` improves ``seat``'s take there
    against the other players, were the casino paid out now.

    The seat's change in dollars times ``players - 1``, minus the other
    players' changes: an integer, positive when the seat gains on the others.
    """
    return standing_nb(pub, casino, seat, n_own, n_white) - standing_nb(pub, casino, seat, 0, 0)


@njit(cache=True)
def greedy_value_nb(pub, own, white):
    """greedy — the value with the best :func:`placement_gain_nb`; on equal
    gains the one spending fewest of its own dice, then the lowest casino."""
    seat = pub[E.P_SEAT]
    best = -1
    best_score = 0
    for c in range(pub[E.P_CASINOS]):
        if own[c] + white[c] == 0:
            continue
        score = placement_gain_nb(pub, seat, c, own[c], white[c])
        if best < 0 or score > best_score or (score == best_score and own[c] < own[best]):
            best = c
            best_score = score
    return best
