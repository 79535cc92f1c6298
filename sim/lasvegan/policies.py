"""Scripted policies: the choices players make, jitted.

A policy is named in a config by a compact string; from weakest to
strongest:

* ``random`` — any legal card, any free placement, uniformly;
* ``cautious`` — a beginner's rule of thumb (``heuristics``);
* ``greedy`` — weighs up the current trick (``heuristics``);
* ``expert`` — scores each card and each token placement by features that
  look past the trick, fitted to lookahead's value of every move
  (``expert``);
* ``lookahead:N`` — imagines ``N`` deals of the hidden cards per move and
  plays each out with ``greedy`` (``lookahead``); ``lookahead:N:win``
  judges the outcomes by the chance to win the game rather than by the
  round's cabbages;
* ``epsilon:E:BASE`` — plays like ``BASE`` but at random with probability
  ``E`` (``epsilon:0.2:greedy``), to fill the range between two strengths.

Each seat's policy becomes an id and a row of float parameters,
dispatched inside the kernels, so one compiled kernel serves every mix of
policies. A policy decides from the public observation ``pub`` (see
``enums``), its own hand and its own random stream: nothing else reaches it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.bits import nth_bit_nb, popcount_nb
from sim.lasvegan import enums as E
from sim.lasvegan.expert import expert_card_default_nb, expert_placement_default_nb
from sim.lasvegan.heuristics import (
    cautious_card_nb,
    cautious_placement_nb,
    greedy_card_nb,
    greedy_placement_nb,
)
from sim.lasvegan.lookahead import OBJECTIVES, lookahead_card_nb, lookahead_placement_nb
from sim.lasvegan.mechanics import free_slot_nb
from sim.policy_spec import (  # re-exported: the ismcts policy's simulations per decision, every game's
    DEFAULT_ISMCTS_SIMULATIONS as DEFAULT_ISMCTS_SIMULATIONS,
    MAX_ISMCTS_SIMULATIONS as MAX_ISMCTS_SIMULATIONS,
)
from sim.policy_spec import Policies, PolicySpec, base_policy, choice, fraction, openspiel_search, search
from sim.restricted import (
    agree_nb,
    at_random_nb,
    base_id_nb,
    base_params_nb,
    note_nb,
    slow_id_nb,
    slow_params_nb,
)
from sim.rng import below_at_nb, below_nb, coin_at_nb, coin_nb, next_nb

# Parameters per seat: lookahead uses (samples, objective); epsilon uses
# (probability, base id) followed by the base policy's own parameters.
N_POLICY_PARAMS = 4
EPSILON_BASE_PARAMS = 2

# The ismcts policy (sim.openspiel): Python, played by the reference engine, never by the kernels.
POLICY_ISMCTS = 6
# Restricted play (sim.restricted): a base policy with some kinds of decision made at random; no config names it.
POLICY_RESTRICTED = 7
KIND_LEAD, KIND_FOLLOW, KIND_TOKEN, KIND_GOLDEN = (E.DECISION_KINDS.index(k)
                                                   for k in ("lead", "follow", "token", "golden"))

DEFAULT_LOOKAHEAD_SAMPLES = 64
MAX_LOOKAHEAD_SAMPLES = 100_000

POLICIES = Policies(
    [
        PolicySpec(
            "random", E.POLICY_RANDOM,
            "Plays a legal card and places tokens uniformly at random: the floor of skill.",
        ),
        PolicySpec(
            "greedy", E.POLICY_GREEDY,
            "Weighs what the current trick is worth to it on this round's machines and golden side, wins the "
            "tricks it wants with its cheapest card likely to hold, ducks the others with its highest losing "
            "card, and places tokens to help itself and hurt the leaders.",
        ),
        PolicySpec(
            "cautious", E.POLICY_CAUTIOUS,
            "A beginner's rule of thumb: never takes a trick holding a 7 or a card that matches a machine "
            "with a negative token, otherwise plays its lowest card.",
        ),
        search(
            "lookahead", E.POLICY_LOOKAHEAD,
            "For every move imagines N deals of the cards it cannot see, plays each out to the end of the "
            "round with everyone playing greedy, and keeps the move with the best average result.",
            "samples per move", MAX_LOOKAHEAD_SAMPLES, DEFAULT_LOOKAHEAD_SAMPLES,
            choice("the objective", OBJECTIVES, "cabbages"),
        ),
        PolicySpec(
            "epsilon", E.POLICY_EPSILON,
            "Plays like its base policy, but makes a uniformly random move with probability E.",
            params=(
                fraction("E", "the random-move probability"),
                base_policy("BASE", "epsilon", E.POLICY_EPSILON, EPSILON_BASE_PARAMS),
            ),
            example="epsilon:0.2:greedy",
        ),
        PolicySpec(
            "expert", E.POLICY_EXPERT,
            "Scores each card and each token placement by features that look past the trick (what a card gives "
            "away, unseen cards that beat it, what the hand keeps, what a machine will count by the end of the "
            "round), fitted to lookahead's value of every move.",
        ),
        openspiel_search("ismcts", POLICY_ISMCTS),
    ],
    N_POLICY_PARAMS,
    E.DECISION_KINDS,
    POLICY_RESTRICTED,
)

# What configs, the reference engine and tests read, derived from the declarations above.
POLICY_IDS, POLICY_SYNTAX, POLICY_DESCRIPTIONS, parse_policy, parse_seats = POLICIES.exports()


# --- random ----------------------------------------------------------------


@njit(cache=True)
def ordinary_options_nb(pub):
    """(free ordinary machines, unplaced ordinary tokens)."""
    free = 0
    for slot in range(E.MACHINES_PER_ROUND):
        if free_slot_nb(pub, slot):
            free += 1
    unplaced = 0
    for t in range(pub[E.P_N_TOKENS]):
        if pub[E.P_TOKEN_PLACED + t] == 0:
            unplaced += 1
    return free, unplaced


@njit(cache=True)
def random_card_nb(legal, rng):
    """random — plays any legal card, each equally likely."""
    return nth_bit_nb(legal, below_nb(rng, popcount_nb(legal)))


@njit(cache=True, inline="always")
def random_card_at_nb(legal, states, row):
    """:func:`random_card_nb` drawing from ``states[row]`` (the game kernel's streams)."""
    return nth_bit_nb(legal, below_at_nb(states, row, popcount_nb(legal)))


@njit(cache=True, inline="always")
def nth_free_slot_nb(pub, k, slots):
    """The ``k``-th free slot among the first ``slots`` (ordinary machines 0, 1, 2, then golden); -1 if none."""
    for slot in range(slots):
        if free_slot_nb(pub, slot):
            if k == 0:
                return slot
            k -= 1
    return -1


@njit(cache=True, inline="always")
def nth_unplaced_token_nb(pub, k):
    for t in range(pub[E.P_N_TOKENS]):
        if pub[E.P_TOKEN_PLACED + t] == 0:
            if k == 0:
                return t
            k -= 1
    return -1


@njit(cache=True)
def random_placement_at_nb(pub, states, row, out):
    """random places a token anywhere it may go, each choice equally likely:
    first a free slot, then a token for an ordinary machine or a side for
    the golden one. Writes (slot, token, side) to out; draws from
    ``states[row]``.
    """
    free, unplaced = ordinary_options_nb(pub)
    n_free = free + (pub[E.P_GOLDEN_SIDE] == E.NO_SIDE)
    out[0] = -1
    out[1] = -1
    out[2] = E.NO_SIDE
    if n_free == 0:
        return
    out[0] = nth_free_slot_nb(pub, below_at_nb(states, row, n_free), E.N_SLOTS)
    if out[0] == E.GOLDEN_SLOT:
        out[2] = coin_at_nb(states, row)
    else:
        out[1] = nth_unplaced_token_nb(pub, below_at_nb(states, row, unplaced))


@njit(cache=True)
def random_placement_nb(pub, rng, out):
    """:func:`random_placement_at_nb` drawing from the one stream ``rng``."""
    random_placement_at_nb(pub, rng.reshape((1, rng.shape[0])), np.int64(0), out)


# --- epsilon ---------------------------------------------------------------


@njit(cache=True, inline="always")
def plays_at_random_nb(probability, rng):
    """epsilon — whether this move is a random one.

    Nothing is drawn when the probability is 0 or 1, so ``epsilon:0:BASE``
    plays exactly like ``BASE`` and ``epsilon:1:BASE`` exactly like
    ``random``, draw for draw.
    """
    if probability <= 0.0:
        return False
    if probability >= 1.0:
        return True
    return (next_nb(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0) < probability


# --- dispatch --------------------------------------------------------------
# The thin layers under choose_card_nb and choose_placement_nb compile inside their callers (docs/developing.md,
# "Compile time").


@njit(cache=True, inline="always")
def base_card_nb(policy_id, params, pub, hand, legal, rng):
    if policy_id == E.POLICY_GREEDY:
        return greedy_card_nb(pub, hand, legal)
    if policy_id == E.POLICY_CAUTIOUS:
        return cautious_card_nb(pub, hand, legal)
    if policy_id == E.POLICY_LOOKAHEAD:
        return lookahead_card_nb(params, pub, hand, legal, rng)
    if policy_id == E.POLICY_EXPERT:
        return expert_card_default_nb(pub, hand, legal)
    return random_card_nb(legal, rng)


@njit(cache=True, inline="always")
def base_placement_nb(policy_id, params, pub, hand, rng, out):
    if policy_id == E.POLICY_GREEDY:
        greedy_placement_nb(pub, hand, out)
    elif policy_id == E.POLICY_CAUTIOUS:
        cautious_placement_nb(pub, hand, out)
    elif policy_id == E.POLICY_LOOKAHEAD:
        lookahead_placement_nb(params, pub, hand, rng, out)
    elif policy_id == E.POLICY_EXPERT:
        expert_placement_default_nb(pub, hand, rng, out)
    else:
        random_placement_nb(pub, rng, out)


@njit(cache=True)
def unrestricted_card_nb(policy_id, params, pub, hand, legal, rng):
    if policy_id == E.POLICY_EPSILON:
        if plays_at_random_nb(params[0], rng):
            return random_card_nb(legal, rng)
        return base_card_nb(np.int64(params[1]), params[2:], pub, hand, legal, rng)
    return base_card_nb(policy_id, params, pub, hand, legal, rng)


@njit(cache=True)
def unrestricted_placement_nb(policy_id, params, pub, hand, rng, out):
    if policy_id == E.POLICY_EPSILON:
        if plays_at_random_nb(params[0], rng):
            random_placement_nb(pub, rng, out)
        else:
            base_placement_nb(np.int64(params[1]), params[2:], pub, hand, rng, out)
        return
    base_placement_nb(policy_id, params, pub, hand, rng, out)


# --- restricted play (sim.restricted) ----------------------------------------------


@njit(cache=True, inline="always")
def restricted_card_nb(params, pub, hand, legal, rng):
    """A card: ``lead`` when it opens the trick, else ``follow``; at random if that kind is restricted."""
    kind = KIND_LEAD if pub[E.P_TRICK_LEN] == 0 else KIND_FOLLOW
    ask = note_nb(params, kind, popcount_nb(legal))
    if at_random_nb(params, kind):
        return random_card_nb(legal, rng)
    card = unrestricted_card_nb(base_id_nb(params), base_params_nb(params), pub, hand, legal, rng)
    if ask:
        agree_nb(params, kind, unrestricted_card_nb(slow_id_nb(params), slow_params_nb(params), pub, hand, legal,
                                                    rng.copy()) == card)
    return card


@njit(cache=True, inline="always")
def restricted_placement_nb(params, pub, hand, rng, out):
    """A placement as the base policy makes it; then, if it puts an ordinary token on a machine, which token goes
    on which machine is the ``token`` decision, and if it places the golden token, its side is the ``golden`` one:
    each made at random (machine and token, or side, uniformly) when restricted."""
    unrestricted_placement_nb(base_id_nb(params), base_params_nb(params), pub, hand, rng, out)
    if out[0] < 0:
        return
    golden = out[0] == E.GOLDEN_SLOT
    kind = KIND_GOLDEN if golden else KIND_TOKEN
    free, unplaced = ordinary_options_nb(pub)
    ask = note_nb(params, kind, 2 if golden else free * unplaced)
    if ask:
        slow = np.full(3, -1, dtype=np.int64)
        unrestricted_placement_nb(slow_id_nb(params), slow_params_nb(params), pub, hand, rng.copy(), slow)
        agree_nb(params, kind, slow[0] == out[0] and slow[1] == out[1] and slow[2] == out[2])
    if not at_random_nb(params, kind):
        return
    if golden:
        out[2] = coin_nb(rng)
        return
    out[0] = nth_free_slot_nb(pub, below_nb(rng, free), E.MACHINES_PER_ROUND)
    out[1] = nth_unplaced_token_nb(pub, below_nb(rng, unplaced))


# --- dispatch ------------------------------------------------------------------------


@njit(cache=True)
def choose_card_nb(policy_id, params, pub, hand, legal, rng):
    """The card seat's policy plays; ``legal`` is a non-empty mask."""
    if policy_id == POLICY_RESTRICTED:
        return restricted_card_nb(params, pub, hand, legal, rng)
    return unrestricted_card_nb(policy_id, params, pub, hand, legal, rng)


@njit(cache=True)
def choose_placement_nb(policy_id, params, pub, hand, rng, out):
    """Fill ``out`` = (slot, token, side) for one 7 won; slot -1 if none is free."""
    if policy_id == POLICY_RESTRICTED:
        restricted_placement_nb(params, pub, hand, rng, out)
        return
    unrestricted_placement_nb(policy_id, params, pub, hand, rng, out)
