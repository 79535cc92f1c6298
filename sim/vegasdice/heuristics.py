"""The ``greedy`` policy: the best immediate standing on the casino chosen.

It is also the policy every seat plays in the rollouts of ``montecarlo``,
so it is cheap: two payouts of one casino per value shown.
"""

from __future__ import annotations

from numba import njit

from sim.bits import popcount_nb
from sim.vegasdice import enums as E


@njit(cache=True, inline="always")
def _with_nb(once, multi, n):
    """The masks of :func:`placement_gain_nb` with one more owner holding ``n`` dice (none when 0)."""
    bit = (1 << n) & ~1
    return once | bit, multi | (once & bit)


@njit(cache=True, inline="always")
def _take_nb(pub, bills, n_bills, unique, n):
    """The bill an owner with ``n`` dice takes, given the ``unique`` numbers of dice; 0 if none."""
    rank = popcount_nb(unique >> (n + 1))  # at most OWNERS - 1: within the casino's slots
    return pub[bills + rank] * (((unique >> n) & 1) * (rank < n_bills))


@njit(cache=True, inline="always")
def _standing_nb(pub, bills, n_bills, players, once, multi, n_seat, n_white):
    """``seat``'s take times ``players`` minus every player's take (its own
    included), the other players' dice being the masks ``once``/``multi``.

    The owners left after the ties take the bills of ranks 0, 1, ... in
    turn, so the players' takes sum to the largest bills, as many as there
    are such owners, less what the white dice take.
    """
    once, multi = _with_nb(once, multi, n_white)
    once, multi = _with_nb(once, multi, n_seat)
    unique = once & ~multi
    # Without a branch on how many: which owners are left is as good as random.
    left = min(popcount_nb(unique), n_bills)
    laid = 0
    for k in range(E.OWNERS):
        laid += pub[bills + k] * (k < left)
    return players * _take_nb(pub, bills, n_bills, unique, n_seat) - laid + _take_nb(
        pub, bills, n_bills, unique, n_white)


@njit(cache=True)
def placement_gain_nb(pub, seat, casino, n_own, n_white):
    """How much placing these dice on ``casino`` improves ``seat``'s take there
    against the other players, were the casino paid out now.

    The seat's change in dollars times ``players - 1``, minus the other
    players' changes: an integer, positive when the seat gains on the others.
    The payout is :func:`~sim.vegasdice.mechanics.casino_gains_nb`'s, summed
    on the fly: numbers of dice are bits of two masks, ``once`` (some owner
    has that many) and ``multi`` (two or more do); an owner keeps its place
    when its bit is unique, and its rank is the number of unique bits above.
    The other players' bits are gathered once for both standings.
    """
    players = pub[E.P_PLAYERS]
    base = E.P_CASINO_DICE + casino * E.OWNERS
    once = 0
    multi = 0
    for o in range(players):
        if o != seat:
            once, multi = _with_nb(once, multi, pub[base + o])
    n_bills = pub[E.P_CASINO_NBILLS + casino]
    bills = E.P_CASINO_BILLS + casino * E.MAX_CASINO_BILLS
    seat_here = pub[base + seat]
    white_here = pub[base + E.WHITE]
    after = _standing_nb(pub, bills, n_bills, players, once, multi, seat_here + n_own, white_here + n_white)
    before = _standing_nb(pub, bills, n_bills, players, once, multi, seat_here, white_here)
    return after - before


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
