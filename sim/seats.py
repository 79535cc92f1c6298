"""Seats and their policies, whatever the game: ``"greedy"`` or one name per seat.

Each game parses one policy name (``parse_policy(text, field) -> (id,
params)``); :func:`parse_seats` turns a config's ``seats`` into the arrays
its kernel takes, naming the seat of a bad entry.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from sim.errors import ConfigError, counted, shown


def parse_seats(
    seats: str | Sequence[str],
    players: int,
    parse_policy: Callable[[str, str], tuple[int, np.ndarray]],
    n_params: int,
    field: str = "policies.seats",
) -> tuple[np.ndarray, np.ndarray]:
    """One name for every seat, or a list with one per seat -> (ids[seat], params[seat, n_params])."""
    if isinstance(seats, str):
        seats = [seats] * players
    if not isinstance(seats, (list, tuple)):
        raise ConfigError(field, f"must be a policy name or a list of names, got {shown(seats)}")
    if len(seats) != players:
        raise ConfigError(field, f"lists {counted(len(seats), 'policy', 'policies')} for {counted(players, 'player')}")
    ids = np.zeros(players, dtype=np.int64)
    params = np.zeros((players, n_params), dtype=np.float64)
    for s, text in enumerate(seats):
        ids[s], params[s] = parse_policy(text, f"{field}[{s}]" if len(set(seats)) > 1 else field)
    return ids, params


def whole_number(text: str) -> bool:
    """ASCII digits only, and few enough for ``int``.

    ``str.isdigit`` alone accepts other scripts' digits (``²``), which
    ``int`` then refuses, and ``int`` refuses more than 4,300 digits; no
    policy parameter needs more than 18.
    """
    return text.isascii() and text.isdigit() and len(text) <= 18
