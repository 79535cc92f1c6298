"""Policies of High Card, declared once (``sim.policy_spec``), and their jitted decisions: each sees ``pub``,
``hand`` (the seat's own cards) and the seat's own stream, and returns the card value to play."""

from __future__ import annotations

from numba import njit

from sim.policy_spec import Policies, PolicySpec
from sim.restricted import agree_nb, at_random_nb, base_id_nb, base_params_nb, note_nb, slow_id_nb, slow_params_nb
from sim.rng import below_at_nb

from lvsim_highcard import enums as E

N_POLICY_PARAMS = 1
# Restricted play (sim.restricted): a base policy with its card played at random; no config names it.
POLICY_RESTRICTED = 2
KIND_PLAY = E.DECISION_KINDS.index("play")

POLICIES = Policies(
    [
        PolicySpec("random", E.POLICY_RANDOM, "Plays any card of its hand, each card equally likely."),
        PolicySpec("greedy", E.POLICY_GREEDY,
                   "Plays its lowest card that beats the highest card shown this round, else its lowest card."),
    ],
    N_POLICY_PARAMS,
    E.DECISION_KINDS,
    POLICY_RESTRICTED,
)


@njit(cache=True)
def random_card_at_nb(pub, hand, states, row):
    """random: card ``below(hand size)`` of the hand, lowest first (copies counted), drawn from ``states[row]``."""
    k = below_at_nb(states, row, hand[1:pub[E.P_TOP] + 1].sum())
    for v in range(1, pub[E.P_TOP] + 1):
        k -= hand[v]
        if k < 0:
            return v
    return -1


@njit(cache=True)
def greedy_card_nb(pub, hand):
    """greedy: the lowest card above the best shown this round, else the lowest card."""
    lowest = -1
    for v in range(1, pub[E.P_TOP] + 1):
        if hand[v] > 0:
            if lowest < 0:
                lowest = v
            if v > pub[E.P_BEST]:
                return v
    return lowest


@njit(cache=True)
def unrestricted_card_nb(policy_id, params, pub, hand, states, row):
    if policy_id == E.POLICY_GREEDY:
        return greedy_card_nb(pub, hand)
    return random_card_at_nb(pub, hand, states, row)


@njit(cache=True, inline="always")
def restricted_card_nb(params, pub, hand, states, row):
    """``play``: a choice when the hand holds two values or more; at random, a card as random draws it."""
    ask = note_nb(params, KIND_PLAY, (hand[1:pub[E.P_TOP] + 1] > 0).sum())
    if at_random_nb(params, KIND_PLAY):
        return random_card_at_nb(pub, hand, states, row)
    card = unrestricted_card_nb(base_id_nb(params), base_params_nb(params), pub, hand, states, row)
    if ask:
        copy = states[row:row + 1].copy()
        agree_nb(params, KIND_PLAY, unrestricted_card_nb(slow_id_nb(params), slow_params_nb(params), pub, hand,
                                                         copy, 0) == card)
    return card


@njit(cache=True)
def choose_card_nb(policy_id, params, pub, hand, states, row):
    """The card the seat to move plays; ``states[row]`` is its stream, read in place."""
    if policy_id == POLICY_RESTRICTED:
        return restricted_card_nb(params, pub, hand, states, row)
    return unrestricted_card_nb(policy_id, params, pub, hand, states, row)
