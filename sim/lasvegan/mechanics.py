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


@njit(cache=True, error_model="numpy")
def trick_winner_nb(cards, n):
    """Position (0-based, in play order) of the card that wins the trick.

    The last 0 of a suit other than the led suit wins; otherwise the highest
    card of the led suit.
    """
    led = cards[0] // 10
    best = 0
    best_value = cards[0] % 10
    zero = -1
    for i in range(1, n):
        suit = cards[i] // 10
        value = cards[i] % 10
        if suit != led:
            if value == 0:
                zero = i
        elif value > best_value:
            best = i
            best_value = value
    return zero if zero >= 0 else best


@njit(cache=True, inline="always")
def sevens_in_nb(cards, n):
    k = 0
    for i in range(n):
        if cards[i] % 10 == E.SEVEN:
            k += 1
    return k


@njit(cache=True, inline="always")
def machine_amount_nb(sticker, value, won):
    """What one seat's won cards make on one machine holding a token of ``value``."""
    if sticker < E.POINTS_BASE:
        return value * (popcount_nb(won & SUIT_MASK[sticker]) // 3)
    return value * popcount_nb(won & VALUE_MASK[sticker - E.POINTS_BASE])


@njit(cache=True)
def golden_hits_nb(tricks, players, side, hit):
    """Fill ``hit[s]`` with 1 for each seat tied for the fewest (MIN) or most (MAX) tricks."""
    target = tricks[0]
    for s in range(1, players):
        if side == E.MIN_SIDE:
            target = min(target, tricks[s])
        else:
            target = max(target, tricks[s])
    for s in range(players):
        hit[s] = 1 if tricks[s] == target else 0
