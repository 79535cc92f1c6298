"""Scripted policies of Las Vegas: which value to place after a roll, jitted.

A policy is named in a config by a compact string; from weakest to
strongest:

* ``random`` — any value shown, each equally likely;
* ``greedy`` — the value whose dice improve its standing most on the
  casino as it stands now (``heuristics``);
* ``montecarlo:N`` — tries every value shown on ``N`` imagined
  continuations of the round, every seat playing ``greedy``, and keeps the
  best on average (``montecarlo``).

Each seat's policy becomes an id and a row of float parameters, dispatched
inside the kernels, so one compiled kernel serves every mix of policies. A
policy decides from the public observation ``pub`` (see ``enums``), its own
roll and its own random stream: nothing else reaches it. The roll is two
count arrays: ``own[c]`` and ``white[c]`` are how many of the seat's
coloured and white dice show casino ``c`` (0-based).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.bits import nth_bit_nb, popcount_nb
from sim.policy_spec import (  # re-exported: the ismcts policy's simulations per decision, every game's
    DEFAULT_ISMCTS_SIMULATIONS as DEFAULT_ISMCTS_SIMULATIONS,
    MAX_ISMCTS_SIMULATIONS as MAX_ISMCTS_SIMULATIONS,
)
from sim.policy_spec import Policies, PolicySpec, openspiel_search, search
from sim.restricted import agree_nb, at_random_nb, base_id_nb, base_params_nb, note_nb, slow_id_nb, slow_params_nb
from sim.rng import below_at_nb, below_nb
from sim.vegasdice import enums as E
from sim.vegasdice.heuristics import greedy_value_nb
from sim.vegasdice.montecarlo import montecarlo_value_nb

N_POLICY_PARAMS = 2
DEFAULT_MONTECARLO_SAMPLES = 32
MAX_MONTECARLO_SAMPLES = 100_000

# The ismcts policy (sim.openspiel): Python, played by the reference engine, never by the kernels.
POLICY_ISMCTS = 3
# Restricted play (sim.restricted): a base policy with its choice of value made at random; no config names it.
POLICY_RESTRICTED = 4
KIND_VALUE = E.DECISION_KINDS.index("value")

POLICIES = Policies(
    [
        PolicySpec(
            "random", E.POLICY_RANDOM,
            "Places the dice of any value shown, each value equally likely: the floor of skill.",
        ),
        PolicySpec(
            "greedy", E.POLICY_GREEDY,
            "Places the value whose dice would most improve its take from that casino against the other "
            "players if the casinos paid out now, counting ties that cancel; on equal terms it spends fewest dice.",
        ),
        search(
            "montecarlo", E.POLICY_MONTECARLO,
            "Tries every value shown on N imagined rolls of the rest of the round, every player then playing "
            "greedy, and keeps the value with the best average money against the other players.",
            "samples per decision", MAX_MONTECARLO_SAMPLES, DEFAULT_MONTECARLO_SAMPLES,
        ),
        openspiel_search("ismcts", POLICY_ISMCTS, sampled="the table as it is (nothing is hidden)",
                         until="the round's payout"),
    ],
    N_POLICY_PARAMS,
    E.DECISION_KINDS,
    POLICY_RESTRICTED,
)

# What configs, the reference engine and tests read, derived from the declarations above.
POLICY_IDS, POLICY_SYNTAX, POLICY_DESCRIPTIONS, parse_policy, parse_seats = POLICIES.exports()


# --- random ----------------------------------------------------------------


@njit(cache=True)
def random_value_nb(pub, own, white, rng):
    """random — one of the values shown, each equally likely (ascending casinos, ``below(n)``)."""
    casinos = pub[E.P_CASINOS]
    shown = 0
    for c in range(casinos):
        if own[c] + white[c] > 0:
            shown += 1
    k = below_nb(rng, shown)
    for c in range(casinos):
        if own[c] + white[c] > 0:
            if k == 0:
                return c
            k -= 1
    return -1


@njit(cache=True, inline="always")
def random_value_at_nb(pub, own, white, states, row):
    """:func:`random_value_nb` drawing from ``states[row]`` (the game kernel's streams, read in place).

    The values shown are the bits of one mask, built without a branch per
    casino (whether a value shows is a coin toss the processor cannot guess).
    """
    casinos = pub[E.P_CASINOS]
    showing = np.uint64(0)
    for c in range(casinos):
        showing |= np.uint64(own[c] + white[c] > 0) << np.uint64(c)
    return nth_bit_nb(showing, below_at_nb(states, row, popcount_nb(showing)))


# --- dispatch --------------------------------------------------------------


@njit(cache=True)
def unrestricted_value_nb(policy_id, params, pub, own, white, rng):
    if policy_id == E.POLICY_GREEDY:
        return greedy_value_nb(pub, own, white)
    if policy_id == E.POLICY_MONTECARLO:
        return montecarlo_value_nb(params, pub, own, white, rng)
    return random_value_nb(pub, own, white, rng)


@njit(cache=True, inline="always")
def restricted_value_nb(params, pub, own, white, rng):
    """The base policy's value, or with ``value`` restricted one of the values shown at random, as random draws it."""
    shown = 0
    for c in range(pub[E.P_CASINOS]):
        if own[c] + white[c] > 0:
            shown += 1
    ask = note_nb(params, KIND_VALUE, shown)
    if at_random_nb(params, KIND_VALUE):
        return random_value_nb(pub, own, white, rng)
    value = unrestricted_value_nb(base_id_nb(params), base_params_nb(params), pub, own, white, rng)
    if ask:
        agree_nb(params, KIND_VALUE, unrestricted_value_nb(slow_id_nb(params), slow_params_nb(params), pub, own,
                                                           white, rng.copy()) == value)
    return value


@njit(cache=True)
def choose_value_nb(policy_id, params, pub, own, white, rng):
    """The casino (0-based) the seat to move places on; some die of its roll shows it."""
    if policy_id == POLICY_RESTRICTED:
        return restricted_value_nb(params, pub, own, white, rng)
    return unrestricted_value_nb(policy_id, params, pub, own, white, rng)
