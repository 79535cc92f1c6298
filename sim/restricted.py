"""Restricted play: a seat that plays its policy except one kind of decision, made at random.

Every game declares the kinds of decision a seat faces (its
``enums.DECISION_KINDS``: Las Vegan's ``lead``, ``follow``, ``token``,
``golden``) and, in its ``policies.POLICIES``, the id of its *restricted*
policy. That policy is never named in a config: ``sim.decisions`` seats it
with a row of parameters laid out here, and the game's dispatch
(``choose_card_nb``, ``choose_value_nb``, ...) reads the row:

* ``MASK`` — bit ``k`` set: decisions of kind ``DECISION_KINDS[k]`` are made
  uniformly at random among the legal options, from the seat's own stream,
  as the game's ``random`` policy draws them;
* ``WATCH`` — 1: the seat also tallies what it decides (a census): per kind
  the decisions, those offering more than one option, and, at up to
  ``BUDGET`` of those, whether the ``SLOW`` policy would decide alike (asked
  on a copy of the seat's stream, so the seat's own play is unchanged);
* ``BASE`` — the base policy's id, then its parameters; then the slow
  policy's parameters.

The census adds to the row it is given: a batch that watches is played on
one thread (``sim.decisions`` does), so that no two chunks add at once.
Nothing here changes how any other policy plays: the unrestricted table's
draws stay what they were.

A game's restricted player is compiled into its dispatch
(``inline="always"``; docs/developing.md, "Compile time").
"""

from __future__ import annotations

import numpy as np
from numba import njit

MASK = 0
WATCH = 1
BUDGET = 2
SLOW = 3
COUNTS = 4
MAX_KINDS = 4
# Per kind, at COUNTS + COUNTED * kind: decisions, decisions with a choice, slow policy asked, slow policy agreed.
COUNTED = 4
DECISIONS, CHOICES, ASKED, AGREED = range(COUNTED)
BASE = COUNTS + COUNTED * MAX_KINDS


def width(n_params: int) -> int:
    """Columns of a restricted row for a game whose policies take ``n_params`` parameters."""
    return BASE + 1 + 2 * n_params


def row(n_params: int, mask: int, base_id: int, base_params, *, watch: bool = False, budget: int = 0,
        slow_id: int = -1, slow_params=None) -> np.ndarray:
    """One seat's restricted row (see the module's docstring)."""
    out = np.zeros(width(n_params), dtype=np.float64)
    out[MASK] = mask
    out[WATCH] = 1.0 if watch else 0.0
    out[BUDGET] = budget
    out[SLOW] = slow_id
    out[BASE] = base_id
    out[BASE + 1:BASE + 1 + n_params] = np.asarray(base_params, dtype=np.float64)[:n_params]
    if slow_params is not None:
        out[BASE + 1 + n_params:] = np.asarray(slow_params, dtype=np.float64)[:n_params]
    return out


def counts(params: np.ndarray, kinds: int) -> np.ndarray:
    """The census of a watched row: ``(kinds, 4)`` of decisions, choices, asked, agreed."""
    return params[COUNTS:COUNTS + COUNTED * kinds].reshape(kinds, COUNTED).copy()


@njit(cache=True, inline="always")
def at_random_nb(params, kind):
    """Whether this seat makes decisions of ``kind`` at random."""
    return (np.int64(params[MASK]) >> kind) & 1 == 1


@njit(cache=True, inline="always")
def base_id_nb(params):
    return np.int64(params[BASE])


@njit(cache=True, inline="always")
def n_params_nb(params):
    return (params.shape[0] - BASE - 1) // 2


@njit(cache=True, inline="always")
def base_params_nb(params):
    return params[BASE + 1:BASE + 1 + n_params_nb(params)]


@njit(cache=True, inline="always")
def slow_id_nb(params):
    return np.int64(params[SLOW])


@njit(cache=True, inline="always")
def slow_params_nb(params):
    return params[BASE + 1 + n_params_nb(params):]


@njit(cache=True)
def note_nb(params, kind, options):
    """Tally one decision of ``kind`` offering ``options`` legal options; whether to ask the slow policy now."""
    if params[WATCH] == 0.0:
        return False
    at = COUNTS + COUNTED * kind
    params[at + DECISIONS] += 1.0
    if options <= 1:
        return False
    params[at + CHOICES] += 1.0
    if params[SLOW] < 0.0 or params[at + ASKED] >= params[BUDGET]:
        return False
    params[at + ASKED] += 1.0
    return True


@njit(cache=True)
def agree_nb(params, kind, agreed):
    """The slow policy asked by :func:`note_nb` decided alike (or not)."""
    if agreed:
        params[COUNTS + COUNTED * kind + AGREED] += 1.0
