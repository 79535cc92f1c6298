"""Jitted pieces of the rules shared by the game kernel and the policies:
card masks, trick winner, machine scoring.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.bits import popcount_nb
from sim.lasvegan import enums as E

# SUIT_MASK[s]: the ten cards of suit s; VALUE_MASK[k]: the four cards of value k.
SUIT_MASK = np.array([((1 << 10) - 1) << (10 * s) for s in range(E.N_SUITS)], dtype=np.uint64)
VALUE_MASK = np.array(
    [sum(1 << (s * 10 + k) for s in range(E.N_SUITS)) for k in range(E.N_VALUES)], dtype=np.uint64
)
SEVENS = VALUE_MASK[E.SEVEN]


@njit(cache=True, inline="always")
def legal_cards_nb(hand, led_suit):
    """Cards of the led suit if the hand holds any, else the whole hand.

    ``led_suit`` is -1 when the seat leads the trick.
    """
    if led_suit < 0:
        return hand
    follow = hand & SUIT_MASK[led_suit]
    return follow if follow else hand




@njit(cache=True, inline="always")
def machine_amount_nb(sticker, value, won):
    """What one seat's won cards make on one machine holding a token of ``value``."""
    if sticker < E.POINTS_BASE:
        return value * (popcount_nb(won & SUIT_MASK[sticker]) // 3)
    return value * popcount_nb(won & VALUE_MASK[sticker - E.POINTS_BASE])


@njit(cache=True, inline="always")
def free_slot_nb(pub, slot):
    """Whether a token can go to ``slot`` (0..2 ordinary machines, 3 golden)."""
    if slot == E.GOLDEN_SLOT:
        return pub[E.P_GOLDEN_SIDE] == E.NO_SIDE
    if pub[E.P_MACHINE_TOKEN + slot] >= 0:
        return False
    for t in range(pub[E.P_N_TOKENS]):
        if pub[E.P_TOKEN_PLACED + t] == 0:
            return True
    return False


@njit(cache=True, inline="always")
def unplaced_tokens_nb(pub):
    """``(sum of faces, count)`` of the ordinary tokens not yet placed, in one
    pass with no branch on which are placed."""
    total = 0
    n = 0
    for t in range(pub[E.P_N_TOKENS]):
        # The flag is 0 or 1. A product with a comparison's truth value compiled to a branch over the face's
        # load, and which tokens are placed changes from one decision to the next.
        unplaced = 1 - pub[E.P_TOKEN_PLACED + t]
        total += pub[E.P_TOKEN_VALUE + t] * unplaced
        n += unplaced
    return total, n


@njit(cache=True, inline="always")
def token_left_nb(pub):
    """1 if an ordinary token is not yet placed, else 0 (stopping at the first)."""
    for t in range(pub[E.P_N_TOKENS]):
        if pub[E.P_TOKEN_PLACED + t] == 0:
            return 1
    return 0


@njit(cache=True, inline="always")
def free_slot_left_nb(pub, unplaced):
    """Whether a 7 won now would place a token, when ``unplaced`` ordinary
    tokens are not yet placed (:func:`unplaced_tokens_nb`): the golden slot
    is open, or a machine without a token is and a token is left for it."""
    return pub[E.P_GOLDEN_SIDE] == E.NO_SIDE or (unplaced > 0 and (
        pub[E.P_MACHINE_TOKEN + 0] < 0 or pub[E.P_MACHINE_TOKEN + 1] < 0 or pub[E.P_MACHINE_TOKEN + 2] < 0))


@njit(cache=True, inline="always")
def any_free_slot_nb(pub):
    """Whether a 7 won now would place a token."""
    return free_slot_left_nb(pub, token_left_nb(pub))


# --- steps of a round on the public observation ------------------------------
#
# The game kernel and the lookahead policy's rollouts both play rounds by
# these steps, so a rollout follows exactly the rules the game does. ``pub``
# is the observation array of ``enums``; ``hands`` holds every seat's hand.


@njit(cache=True)
def start_round_nb(pub, round_, leader, golden_value, set_aside_shown, reserve, cabbages, hand_size):
    """Lay out the public side of a new round: nothing played, no token placed.

    The round's machines and token faces are already in ``pub``;
    ``set_aside_shown`` is the mask of set-aside cards when they are
    revealed, else 0.
    """
    pub[E.P_ROUND] = round_
    pub[E.P_ROUND_LEADER] = leader
    pub[E.P_TRICK_LEADER] = leader
    pub[E.P_TRICK_NUMBER] = 0
    pub[E.P_TRICK_LEN] = 0
    for i in range(E.MAX_PLAYERS):
        pub[E.P_TRICK_CARDS + i] = -1  # empty places of the trick, as the reference shows them
    pub[E.P_PLAYED] = 0
    pub[E.P_GOLDEN_VALUE] = golden_value
    pub[E.P_GOLDEN_SIDE] = E.NO_SIDE
    pub[E.P_GOLDEN_PLACER] = -1
    pub[E.P_SET_ASIDE] = np.int64(set_aside_shown)
    pub[E.P_RESERVE] = reserve
    for m in range(E.MACHINES_PER_ROUND):
        pub[E.P_MACHINE_TOKEN + m] = -1
        pub[E.P_MACHINE_PLACER + m] = -1
    for t in range(pub[E.P_N_TOKENS]):
        pub[E.P_TOKEN_PLACED + t] = 0
    for s in range(pub[E.P_PLAYERS]):
        pub[E.P_WON + s] = 0
        pub[E.P_TRICKS + s] = 0
        pub[E.P_VOIDS + s] = 0
        pub[E.P_CABBAGES + s] = cabbages[s]
        pub[E.P_HAND_SIZE + s] = hand_size


@njit(cache=True, inline="always")
def seat_to_move_nb(pub):
    """The seat that plays next, or that places a token for a 7 it just won.

    After a trick is gathered its winner leads the next one, with an empty
    trick: the placing seat is then the trick leader.
    """
    # Leader and cards played are each at most the table size: one
    # subtraction instead of a division, on every card of every game.
    s = pub[E.P_TRICK_LEADER] + pub[E.P_TRICK_LEN]
    players = pub[E.P_PLAYERS]
    return s - players if s >= players else s


@njit(cache=True, inline="always")
def led_suit_nb(pub):
    """Suit of the current trick's first card; -1 while the trick is empty."""
    if pub[E.P_TRICK_LEN] == 0:
        return -1
    return pub[E.P_TRICK_CARDS] // 10


@njit(cache=True)
def play_card_nb(pub, hands, seat, card):
    """``seat`` plays ``card`` to the current trick (legality is the caller's)."""
    led = led_suit_nb(pub)
    if led >= 0 and card // 10 != led:
        pub[E.P_VOIDS + seat] |= 1 << led
    b = np.uint64(1) << np.uint64(card)
    hands[seat] &= ~b
    k = pub[E.P_TRICK_LEN]
    pub[E.P_TRICK_CARDS + k] = card
    pub[E.P_TRICK_LEN] = k + 1
    pub[E.P_PLAYED] |= np.int64(b)
    pub[E.P_HAND_SIZE + seat] -= 1


@njit(cache=True)
def gather_trick_nb(pub):
    """The complete trick goes to its winner, who leads the next one.

    Returns ``(winner, sevens)``; the trick's places are emptied (-1), as
    the reference engine's observation shows an empty trick.
    """
    # The winner and the sevens, read in place: a slice of pub per
    # trick is an array of its own to build and reference-count.
    players = pub[E.P_PLAYERS]
    leader = pub[E.P_TRICK_LEADER]
    first = pub[E.P_TRICK_CARDS]
    led = first // 10
    best = 0
    best_value = first % 10
    zero = -1
    mask = np.int64(1) << first
    sevens = 1 if best_value == E.SEVEN else 0
    for i in range(1, players):
        card = pub[E.P_TRICK_CARDS + i]
        suit = card // 10
        value = card % 10
        mask |= np.int64(1) << card
        if value == E.SEVEN:
            sevens += 1
        if suit != led:
            if value == 0:
                zero = i
        elif value > best_value:
            best = i
            best_value = value
    winner = leader + (zero if zero >= 0 else best)
    if winner >= players:
        winner -= players
    pub[E.P_WON + winner] |= mask
    pub[E.P_TRICKS + winner] += 1
    pub[E.P_TRICK_LEADER] = winner
    pub[E.P_TRICK_LEN] = 0
    for i in range(players):
        pub[E.P_TRICK_CARDS + i] = -1
    pub[E.P_TRICK_NUMBER] += 1
    return winner, sevens


@njit(cache=True)
def place_token_nb(pub, seat, placement):
    """Apply ``placement`` = (slot, token, side) chosen by ``seat``; False if slot is -1."""
    slot = placement[0]
    if slot < 0:
        return False
    if slot == E.GOLDEN_SLOT:
        pub[E.P_GOLDEN_SIDE] = placement[2]
        pub[E.P_GOLDEN_PLACER] = seat
    else:
        t = placement[1]
        pub[E.P_MACHINE_TOKEN + slot] = t
        pub[E.P_MACHINE_PLACER + slot] = seat
        pub[E.P_TOKEN_PLACED + t] = 1
    return True


@njit(cache=True)
def round_amounts_nb(pub, amount, hit):
    """Fill ``amount[slot, seat]``: what each machine (3 ordinary, then golden) gives each seat."""
    players = pub[E.P_PLAYERS]
    for slot in range(E.N_SLOTS):
        for s in range(players):
            amount[slot, s] = 0
    for m in range(E.MACHINES_PER_ROUND):
        t = pub[E.P_MACHINE_TOKEN + m]
        if t < 0:
            continue
        value = pub[E.P_TOKEN_VALUE + t]
        sticker = pub[E.P_MACHINES + m]
        for s in range(players):
            amount[m, s] = machine_amount_nb(sticker, value, np.uint64(pub[E.P_WON + s]))
    side = pub[E.P_GOLDEN_SIDE]
    if side != E.NO_SIDE:
        # The seats the golden machine hits (fewest or most tricks), read in place.
        target = pub[E.P_TRICKS]
        for s in range(1, players):
            if side == E.MIN_SIDE:
                target = min(target, pub[E.P_TRICKS + s])
            else:
                target = max(target, pub[E.P_TRICKS + s])
        for s in range(players):
            if pub[E.P_TRICKS + s] == target:
                amount[E.GOLDEN_SLOT, s] = -pub[E.P_GOLDEN_VALUE]


@njit(cache=True)
def settle_nb(cabbages, net, players, reserve, finite, first_payee):
    """Pay the round's nets: losses first, capped at what each seat holds; then
    gains clockwise from ``first_payee``, capped at what a finite reserve holds.

    Updates ``cabbages`` in place; returns ``(reserve, shortfall)``.
    """
    for s in range(players):
        if net[s] < 0:
            pay = min(-net[s], cabbages[s])
            cabbages[s] -= pay
            if finite:
                reserve += pay
    shortfall = 0
    for k in range(players):
        s = (first_payee + k) % players
        if net[s] > 0:
            gain = net[s]
            if finite:
                gain = min(gain, reserve)
                reserve -= gain
            cabbages[s] += gain
            shortfall += net[s] - gain
    return reserve, shortfall
