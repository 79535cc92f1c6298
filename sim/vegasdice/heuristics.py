"""The ``greedy`` policy: the best immediate standing on the casino chosen.

It is also the policy every seat plays in the rollouts of ``montecarlo``,
so it is cheap: two payouts of one casino per value shown.
"""

from __future__ import annotations

from numba import njit

from sim.vegasdice import enums as E
from sim.vegasdice.mechanics import casino_gains_nb


@njit(cache=True)
def placement_gain_nb(pub, seat, casino, n_own, n_white, work):
    """How much placing these dice on ``casino`` improves ``seat``'s take there
    against the other players, were the casino paid out now.

    The seat's change in dollars times ``players - 1``, minus the other
    players' changes: an integer, positive when the seat gains on the
    others. ``work`` holds 2 * OWNERS scratch entries. ``pub`` is restored.
    """
    players = pub[E.P_PLAYERS]
    before = work[:E.OWNERS]
    after = work[E.OWNERS:2 * E.OWNERS]
    casino_gains_nb(pub, casino, before)
    base = E.P_CASINO_DICE + casino * E.OWNERS
    pub[base + seat] += n_own
    pub[base + E.WHITE] += n_white
    casino_gains_nb(pub, casino, after)
    pub[base + seat] -= n_own
    pub[base + E.WHITE] -= n_white
    score = 0
    for o in range(players):
        change = after[o] - before[o]
        score += (players - 1) * change if o == seat else -change
    return score


@njit(cache=True)
def greedy_value_nb(pub, own, white, work):
    """greedy — the value with the best :func:`placement_gain_nb`; on equal
    gains the one spending fewest of its own dice, then the lowest casino."""
    seat = pub[E.P_SEAT]
    best = -1
    best_score = 0
    for c in range(pub[E.P_CASINOS]):
        if own[c] + white[c] == 0:
            continue
        score = placement_gain_nb(pub, seat, c, own[c], white[c], work)
        if best < 0 or score > best_score or (score == best_score and own[c] < own[best]):
            best = c
            best_score = score
    return best
