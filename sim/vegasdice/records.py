"""Per-game records of Las Vegas: what one played game leaves behind.

``RECORD_FIELDS`` maps each field to ``(shape, dtype, meaning)``; the shape
uses ``R`` for the rules' rounds, ``P`` for players and ``C`` for casinos.
A batch is a dict of arrays with one leading axis of games. Money is in
dollars. In every played round the money laid out is accounted for:
``laid_out == won.sum() + white_won + unclaimed``.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from sim.records import RecordLayout, kernel_struct
from sim.records import slice_records as slice_records  # re-exported for this game's callers

RECORD_FIELDS: dict[str, tuple[tuple[str, ...], type, str]] = {
    "game": ((), np.int64, "game index (the seed's counter)"),
    "money": (("P",), np.int32, "dollars at the end"),
    "bills": (("P",), np.int16, "banknotes held at the end"),
    "win_share": (("P",), np.float64, "1/k for each of the k winners after the tie-break"),
    "money_tied": ((), np.int8, "seats with the most dollars, before the tie-break"),
    "margin": ((), np.int32, "dollars between the richest seat and the next richest (0 on a money tie)"),
    "rounds_played": ((), np.int8, "rounds played (fewer than the rules' only with empty_pile = 'end')"),
    "first_player": (("R",), np.int8, "seat holding the first-player card in the round; -1 if not played"),
    "won": (("R", "P"), np.int32, "dollars won in the round"),
    "bills_won": (("R", "P"), np.int8, "banknotes won in the round"),
    "laid_out": (("R",), np.int32, "dollars laid out on the casinos at the start of the round"),
    "casino_laid_out": (("R", "C"), np.int32, "dollars laid out on each casino"),
    "white_won": (("R",), np.int32, "dollars won by the white dice (back under the pile)"),
    "unclaimed": (("R",), np.int32, "dollars nobody won (back under the pile)"),
    "payouts": (("R",), np.int8, "casinos paid out with at least one die on them"),
    "tie_cancels": (("R",), np.int8, "casinos where tied numbers of dice removed at least one owner"),
    "short_casinos": (("R",), np.int8, "casinos left below the minimum because the pile ran out"),
    "turns": (("R",), np.int16, "turns taken (rolls) in the round"),
}

# Fields that are -1 when a round is not played.
MINUS_ONE_FIELDS = ("first_player",)


Records = kernel_struct(__name__, "Records", RECORD_FIELDS)  # a batch as the jitted core's ``out``

LAYOUT = RecordLayout(
    fields=RECORD_FIELDS,
    struct=Records,
    minus_one=MINUS_ONE_FIELDS,
    letters={"P": "s", "R": "r", "C": "c"},
    sizes=lambda rules: {"P": rules.players, "R": rules.rounds, "C": rules.casinos},
)


concat_records = LAYOUT.concat
records_to_frame = LAYOUT.to_frame  # one row per game, one flat column per record cell (``won_r0_s2``)


def empty_records(n_games: int, players: int, rounds: int, casinos: int) -> dict[str, np.ndarray]:
    """Preallocated batch: zeros, and -1 where -1 means 'not played'."""
    return LAYOUT.empty(n_games, SimpleNamespace(players=players, rounds=rounds, casinos=casinos))


def field_columns(name: str, players: int, rounds: int, casinos: int) -> list[str]:
    """The flat columns of one field in :func:`records_to_frame`, in C order of its cells."""
    return LAYOUT.field_columns(name, SimpleNamespace(players=players, rounds=rounds, casinos=casinos))
