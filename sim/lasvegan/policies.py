"""Scripted policies: the choices players make, jitted.

A policy is named in a config by a compact string (``random``). Each seat's
policy becomes an id and a row of float parameters, dispatched inside the
kernels, so one compiled kernel serves every mix of policies.

A policy decides from the public observation ``pub`` (see ``enums``), its
own hand and its own random stream: nothing else reaches it.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numba import njit

from sim.errors import ConfigError
from sim.lasvegan import enums as E
from sim.rng import below_nb, coin_nb

N_POLICY_PARAMS = 4

POLICY_IDS = {"random": E.POLICY_RANDOM}


def parse_policy(text: str, field: str = "policies.seats") -> tuple[int, np.ndarray]:
    """``"random"`` -> (id, params). Raises ConfigError naming ``field``."""
    if not isinstance(text, str):
        raise ConfigError(field, f"must be a policy name, got {text!r}")
    name = text.strip()
    if name not in POLICY_IDS:
        raise ConfigError(field, f"unknown policy {text!r} (known: {', '.join(sorted(POLICY_IDS))})")
    return POLICY_IDS[name], np.zeros(N_POLICY_PARAMS, dtype=np.float64)


def parse_seats(seats: str | Sequence[str], players: int, field: str = "policies.seats"):
    """One name for every seat, or a list with one per seat -> (ids, params)."""
    if isinstance(seats, str):
        seats = [seats] * players
    if not isinstance(seats, (list, tuple)):
        raise ConfigError(field, f"must be a policy name or a list of names, got {seats!r}")
    if len(seats) != players:
        raise ConfigError(field, f"lists {len(seats)} policies for {players} players")
    ids = np.zeros(players, dtype=np.int64)
    params = np.zeros((players, N_POLICY_PARAMS), dtype=np.float64)
    for s, text in enumerate(seats):
        ids[s], params[s] = parse_policy(text, f"{field}[{s}]" if len(set(seats)) > 1 else field)
    return ids, params


# --- shared jitted helpers -------------------------------------------------


@njit(cache=True, inline="always")
def popcount_nb(x):
    n = 0
    while x:
        x &= x - np.uint64(1)
        n += 1
    return n


@njit(cache=True, inline="always")
def nth_card_nb(mask, n):
    """The n-th (0-based) card of ``mask`` in ascending card order."""
    for c in range(E.N_CARDS):
        if (mask >> np.uint64(c)) & np.uint64(1):
            if n == 0:
                return c
            n -= 1
    return -1


# --- random ----------------------------------------------------------------


@njit(cache=True)
def random_card_nb(legal, rng):
    return nth_card_nb(legal, below_nb(rng, popcount_nb(legal)))


@njit(cache=True)
def random_placement_nb(pub, rng, out):
    """Choose a free slot, then a token or a side; write (slot, token, side) to out.

    Free slots in the order ordinary machines 0, 1, 2, then golden.
    """
    n_tokens = pub[E.P_N_TOKENS]
    unplaced = 0
    for t in range(n_tokens):
        if pub[E.P_TOKEN_PLACED + t] == 0:
            unplaced += 1
    slots = np.empty(E.N_SLOTS, dtype=np.int64)
    n_free = 0
    if unplaced > 0:
        for m in range(E.MACHINES_PER_ROUND):
            if pub[E.P_MACHINE_TOKEN + m] < 0:
                slots[n_free] = m
                n_free += 1
    if pub[E.P_GOLDEN_SIDE] == E.NO_SIDE:
        slots[n_free] = E.GOLDEN_SLOT
        n_free += 1
    if n_free == 0:
        out[0] = -1
        return
    slot = slots[below_nb(rng, n_free)]
    out[0] = slot
    if slot == E.GOLDEN_SLOT:
        out[1] = -1
        out[2] = coin_nb(rng)
        return
    k = below_nb(rng, unplaced)
    for t in range(n_tokens):
        if pub[E.P_TOKEN_PLACED + t] == 0:
            if k == 0:
                out[1] = t
                break
            k -= 1
    out[2] = E.NO_SIDE


# --- dispatch --------------------------------------------------------------


@njit(cache=True)
def choose_card_nb(policy_id, params, pub, hand, legal, rng):
    """The card seat's policy plays; ``legal`` is a non-empty mask."""
    return random_card_nb(legal, rng)


@njit(cache=True)
def choose_placement_nb(policy_id, params, pub, hand, rng, out):
    """Fill ``out`` = (slot, token, side) for one 7 won; slot -1 if none is free."""
    random_placement_nb(pub, rng, out)
