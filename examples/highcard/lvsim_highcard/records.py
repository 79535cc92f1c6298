"""Per-game records of High Card: one row per game (``R`` rounds, ``P`` players)."""

from __future__ import annotations

import numpy as np

from sim.records import RecordLayout, kernel_struct

RECORD_FIELDS = {
    "game": ((), np.int64, "game index (the seed's counter)"),
    "points": (("P",), np.int8, "points at the end"),
    "win_share": (("P",), np.float64, "1/k for each of the k seats with the most points"),
    "margin": ((), np.int8, "points between the winner and the next seat (0 on a shared win)"),
    "leader": (("R",), np.int8, "seat leading the round"),
    "card": (("R", "P"), np.int8, "card the seat played in the round"),
    "high": (("R",), np.int8, "highest card of the round"),
    "scored": (("R",), np.int8, "points scored in the round (0: a tie nobody scores)"),
}

Records = kernel_struct(__name__, "Records", RECORD_FIELDS)  # a batch as the jitted core's ``out``

LAYOUT = RecordLayout(
    fields=RECORD_FIELDS,
    struct=Records,
    minus_one=(),
    letters={"P": "s", "R": "r"},
    sizes=lambda rules: {"P": rules.players, "R": rules.rounds},
)
