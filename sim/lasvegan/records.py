"""Per-game records: what one played game leaves behind.

``RECORD_FIELDS`` maps each field to ``(shape, dtype, meaning)``; the shape
uses ``R`` for the rules' rounds, ``P`` for players, ``K`` for the three
amount kinds (colour, points, golden) and ``M`` for the three machines of a
round. A batch is a dict of arrays with one leading axis of games.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from sim.lasvegan import enums as E
from sim.records import RecordLayout, kernel_struct
from sim.records import slice_records as slice_records  # re-exported for this game's callers

RECORD_FIELDS: dict[str, tuple[tuple[str, ...], type, str]] = {
    "game": ((), np.int64, "game index (the seed's counter)"),
    "final_cabbages": (("P",), np.int16, "cabbages at the end"),
    "win_share": (("P",), np.float64, "1/k for each of the k seats tied for most cabbages"),
    "rounds_played": ((), np.int8, "rounds played"),
    "elim_round": ((), np.int8, "first round (1-based) after which a seat had 0 cabbages; 0 if none"),
    "reserve_end": ((), np.int32, "reserve at the end; -1 when unlimited"),
    "seven_no_slot": ((), np.int8, "sevens won with no free slot for a token"),
    "zero_playing_on": ((), np.int8, "seat-rounds started at 0 cabbages (end_on_elimination off)"),
    "round_leader": (("R",), np.int8, "seat leading the round's first trick; -1 if not played"),
    "delta": (("R", "P"), np.int16, "cabbage change in the round, after settlement"),
    "tricks": (("R", "P"), np.int8, "tricks won in the round"),
    "amount": (("R", "K", "P"), np.int16, "scored amount before settlement, by machine kind"),
    "shortfall": (("R",), np.int16, "gains the finite reserve could not pay"),
    "machine": (("R", "M"), np.int8, "sticker code of each of the round's machines; -1 if not played"),
    "machine_token": (("R", "M"), np.int8, "ordinary token placed on the machine, or -1"),
    "machine_value": (("R", "M"), np.int8, "face value of that token (0 if none)"),
    "machine_placer": (("R", "M"), np.int8, "seat that placed it, or -1"),
    "golden_side": (("R",), np.int8, "-1 not placed, 0 MIN, 1 MAX"),
    "golden_value": (("R",), np.int8, "face value of the golden token in the round"),
    "golden_placer": (("R",), np.int8, "seat that placed the golden token, or -1"),
}

# Fields that are -1 when a round is not played or nothing was placed.
MINUS_ONE_FIELDS = ("round_leader", "machine", "machine_token", "machine_placer", "golden_side", "golden_placer")


Records = kernel_struct(__name__, "Records", RECORD_FIELDS)  # a batch as the jitted core's ``out``

LAYOUT = RecordLayout(
    fields=RECORD_FIELDS,
    struct=Records,
    minus_one=MINUS_ONE_FIELDS,
    letters={"P": "s", "R": "r", "K": "k", "M": "m"},
    sizes=lambda rules: {"P": rules.players, "R": rules.rounds, "K": E.N_KINDS, "M": E.MACHINES_PER_ROUND},
)


concat_records = LAYOUT.concat
records_to_frame = LAYOUT.to_frame  # one row per game, one flat column per record cell (``delta_r0_s2``)


def field_shape(name: str, players: int, rounds: int) -> tuple[int, ...]:
    return LAYOUT.field_shape(name, SimpleNamespace(players=players, rounds=rounds))


def empty_records(n_games: int, players: int, rounds: int) -> dict[str, np.ndarray]:
    """Preallocated batch: zeros, and -1 where -1 means 'nothing'."""
    return LAYOUT.empty(n_games, SimpleNamespace(players=players, rounds=rounds))


def field_columns(name: str, players: int, rounds: int) -> list[str]:
    """The flat columns of one field in :func:`records_to_frame`, in C order of its cells.

    ``df[field_columns("delta", P, R)].to_numpy().reshape(-1, R, P)`` is the
    field's array: reading a few fields of a large Parquet file this way
    skips every other column.
    """
    return LAYOUT.field_columns(name, SimpleNamespace(players=players, rounds=rounds))
