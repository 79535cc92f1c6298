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
from sim.bits import nth_bit_nb, popcount_nb
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


# --- random ----------------------------------------------------------------


@njit(cache=True)
def random_card_nb(legal, rng):
    return nth_bit_nb(legal, below_nb(rng, popcount_nb(legal)))


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


@njit(cache=True)
def random_placement_nb(pub, rng, out):
    """Choose a free slot, then a token or a side; write (slot, token, side) to out.

    Free slots in the order ordinary machines 0, 1, 2, then golden.
    """
    n_free = 0
    for slot in range(E.N_SLOTS):
        if free_slot_nb(pub, slot):
            n_free += 1
    out[0] = -1
    out[1] = -1
    out[2] = E.NO_SIDE
    if n_free == 0:
        return
    k = below_nb(rng, n_free)
    for slot in range(E.N_SLOTS):
        if free_slot_nb(pub, slot):
            if k == 0:
                out[0] = slot
                break
            k -= 1
    if out[0] == E.GOLDEN_SLOT:
        out[2] = coin_nb(rng)
        return
    n_tokens = pub[E.P_N_TOKENS]
    unplaced = 0
    for t in range(n_tokens):
        if pub[E.P_TOKEN_PLACED + t] == 0:
            unplaced += 1
    k = below_nb(rng, unplaced)
    for t in range(n_tokens):
        if pub[E.P_TOKEN_PLACED + t] == 0:
            if k == 0:
                out[1] = t
                break
            k -= 1


# --- dispatch --------------------------------------------------------------


@njit(cache=True)
def choose_card_nb(policy_id, params, pub, hand, legal, rng):
    """The card seat's policy plays; ``legal`` is a non-empty mask."""
    return random_card_nb(legal, rng)


@njit(cache=True)
def choose_placement_nb(policy_id, params, pub, hand, rng, out):
    """Fill ``out`` = (slot, token, side) for one 7 won; slot -1 if none is free."""
    random_placement_nb(pub, rng, out)
