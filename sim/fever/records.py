"""Per-game records of $ Fever: what one played game leaves behind.

``RECORD_FIELDS`` maps each field to ``(shape, dtype, meaning)``; the shape
uses ``P`` for players and ``T`` for the pay table's patterns. A batch is
a dict of arrays with one leading axis of games. A round is a full turn of
the table, seats 0 to players - 1.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from sim.records import RecordLayout, kernel_struct

RECORD_FIELDS: dict[str, tuple[tuple[str, ...], type, str]] = {
    "game": ((), np.int64, "game index (the seed's counter)"),
    "winner": ((), np.int8, "the seat that reached the target; -1 when the turn cap ended the game"),
    "win_share": (("P",), np.float64, "1 for the winner, 0 otherwise (all 0 in an unfinished game)"),
    "score": (("P",), np.int16, "points at the end"),
    "combos": (("P",), np.int16, "scored combinations held at the end"),
    "turns": ((), np.int16, "turns played"),
    "rounds": ((), np.int16, "rounds started: turns / players, rounded up"),
    "scoring_turns": (("P",), np.int16, "turns on which the seat scored a combination"),
    "doubles": (("P",), np.int16, "turns on which the seat doubled"),
    "double_scored": ((), np.int16, "doubling turns that scored a combination"),
    "double_points_won": ((), np.int16, "points scored on doubling turns"),
    "double_points_given": ((), np.int16, "points of the combinations doubles gave up"),
    "pattern_scored": (("T",), np.int16, "combinations scored of each pay-table pattern (given up later or not)"),
    "pattern_points": (("T",), np.int16, "points those combinations scored"),
    "could_score_turns": ((), np.int16, "turns on which some legal play scored"),
    "full_rounds": ((), np.int16, "rounds played to their last seat"),
    "drought_rounds": ((), np.int16, "full rounds in which no seat had a scoring play on its turn"),
    "reshuffles": ((), np.int32, "times the discards were shuffled into a new deck"),
    "passes": ((), np.int16, "turns a seat had no card to play"),
}

# Fields that are -1 when nothing happened.
MINUS_ONE_FIELDS = ("winner",)

Records = kernel_struct(__name__, "Records", RECORD_FIELDS)  # a batch as the jitted core's ``out``

LAYOUT = RecordLayout(
    fields=RECORD_FIELDS,
    struct=Records,
    minus_one=MINUS_ONE_FIELDS,
    letters={"P": "s", "T": "p"},
    sizes=lambda rules: {"P": rules.players, "T": rules.patterns},
)


def empty_records(n_games: int, players: int, patterns: int) -> dict[str, np.ndarray]:
    """Preallocated batch: zeros, and -1 where -1 means 'nobody'."""
    return LAYOUT.empty(n_games, SimpleNamespace(players=players, patterns=patterns))
