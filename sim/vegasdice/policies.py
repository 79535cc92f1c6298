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

from typing import Sequence

import numpy as np
from numba import njit

from sim.bits import nth_bit_nb, popcount_nb
from sim.errors import ConfigError, shown
from sim.seats import parse_seats as shared_parse_seats
from sim.seats import whole_number
from sim.rng import below_at_nb, below_nb
from sim.vegasdice import enums as E
from sim.vegasdice.heuristics import greedy_value_nb
from sim.vegasdice.montecarlo import montecarlo_value_nb

N_POLICY_PARAMS = 2
DEFAULT_MONTECARLO_SAMPLES = 32
MAX_MONTECARLO_SAMPLES = 100_000

POLICY_IDS = {
    "random": E.POLICY_RANDOM,
    "greedy": E.POLICY_GREEDY,
    "montecarlo": E.POLICY_MONTECARLO,
}

# How each policy reads in a config: the forms parse_policy accepts.
POLICY_SYNTAX = {
    "random": "random",
    "greedy": "greedy",
    "montecarlo": "montecarlo[:N]",
}

POLICY_DESCRIPTIONS = {
    "random": "Places the dice of any value shown, each value equally likely: the floor of skill.",
    "greedy": (
        "Places the value whose dice would most improve its take from that casino against the other "
        "players if the casinos paid out now, counting ties that cancel; on equal terms it spends fewest dice."
    ),
    "montecarlo": (
        "Tries every value shown on N imagined rolls of the rest of the round, every player then playing "
        "greedy, and keeps the value with the best average money against the other players."
    ),
}


def parse_policy(text: str, field: str = "policies.seats") -> tuple[int, np.ndarray]:
    """``"montecarlo:64"`` -> (id, params). Raises ConfigError naming ``field``."""
    if not isinstance(text, str):
        raise ConfigError(field, f"must be a policy name, got {shown(text)}")
    name, *args = text.strip().split(":")
    params = np.zeros(N_POLICY_PARAMS, dtype=np.float64)
    if name not in POLICY_IDS:
        known = ", ".join(POLICY_SYNTAX[n] for n in sorted(POLICY_SYNTAX))
        raise ConfigError(field, f"unknown policy {shown(text)} (known: {known})")
    if name == "montecarlo":
        if len(args) > 1:
            raise ConfigError(field, f"{shown(text)}: expected {POLICY_SYNTAX[name]}")
        samples = args[0] if args else str(DEFAULT_MONTECARLO_SAMPLES)
        if not whole_number(samples) or not 1 <= int(samples) <= MAX_MONTECARLO_SAMPLES:
            raise ConfigError(
                field, f"{shown(text)}: samples per decision must be a whole number from 1 to {MAX_MONTECARLO_SAMPLES:,}"
            )
        params[0] = int(samples)
    elif args:
        raise ConfigError(field, f"{shown(text)}: {name} takes no parameters")
    return POLICY_IDS[name], params


def parse_seats(seats: str | Sequence[str], players: int, field: str = "policies.seats"):
    """One name for every seat, or a list with one per seat -> (ids, params)."""
    return shared_parse_seats(seats, players, parse_policy, N_POLICY_PARAMS, field)


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
def choose_value_nb(policy_id, params, pub, own, white, rng):
    """The casino (0-based) the seat to move places on; some die of its roll shows it."""
    if policy_id == E.POLICY_GREEDY:
        return greedy_value_nb(pub, own, white)
    if policy_id == E.POLICY_MONTECARLO:
        return montecarlo_value_nb(params, pub, own, white, rng)
    return random_value_nb(pub, own, white, rng)
