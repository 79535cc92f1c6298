"""Write tests/data/lookahead_decisions.json: what ``lookahead`` decides in fixed situations.

Run: ``.venv/bin/python tests/data/pin_lookahead.py``. The file pins the
lookahead policy's decisions (card choices and placements, both objectives,
2 to 5 players, voids shown or not) and the records of a few games with
lookahead seats, so a faster lookahead can be checked to decide exactly as
the one that wrote the file (``tests/lasvegan/test_lookahead_pins.py``).
Each situation is stored whole - the observation, the hand, the stream - so
the check does not depend on how the situations were found.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from sim.lasvegan import enums as E
from sim.lasvegan.nb import play_games
from sim.lasvegan.params import Rules
from sim.lasvegan.policies import parse_seats
from sim.lasvegan.records import RECORD_FIELDS
from sim.lasvegan.table import Table, seat_stream

OUT = Path(__file__).with_name("lookahead_decisions.json")
POLICIES = ("lookahead:8", "lookahead:5:win", "lookahead:24")
GAME_SEATS = {
    3: ["lookahead:4", "greedy", "lookahead:3:win"],
    4: ["lookahead:3", "epsilon:0.3:lookahead:2", "greedy", "lookahead:2:win"],
    5: ["lookahead:2", "cautious", "lookahead:2:win", "greedy", "random"],
}


def situations(per_players: int = 40):
    """Card choices (two legal cards or more) and owed placements from rounds
    dealt at random and played by ``greedy`` or ``random`` seats."""
    rng = np.random.default_rng(20261201)
    found = []
    for players in (2, 3, 4, 5):
        n = 0
        while n < per_players:
            face = "revealed" if rng.random() < 0.2 else "hidden"
            table = Table.dealt_at_random(players, int(rng.integers(2**32)), face)
            policy = "greedy" if rng.random() < 0.5 else "random"
            table.advance(policy, int(rng.integers(E.N_CARDS - E.N_CARDS % players)), seed=int(rng.integers(1000)))
            if table.round_over or (not table.owed and bin(table.legal()).count("1") < 2):
                continue
            found.append(table)
            n += 1
    return found


def main() -> None:
    rows = []
    for k, table in enumerate(situations()):
        row = {
            "pub": table.pub.tolist(),
            "hand": int(table.hand),
            "legal": 0 if table.owed else int(table.legal()),
            "placing": bool(table.owed),
            "stream": [k, table.seat],
            "decisions": {},
        }
        for policy in POLICIES:
            stream = seat_stream(7, k, table.seat)
            if table.owed:
                row["decisions"][policy] = list(table.choose_placement(policy, stream))
            else:
                row["decisions"][policy] = table.choose_card(policy, stream)
        rows.append(row)
    games = []
    for players, seats in GAME_SEATS.items():
        ids, params = parse_seats(seats, players)
        rec = play_games(Rules(players=players), 31, 0, 6, ids, params)
        games.append({"players": players, "seats": seats, "seed": 31, "games": 6,
                      "records": {f: rec[f].tolist() for f in RECORD_FIELDS}})
    OUT.write_text(json.dumps({"stream_seed": 7, "situations": rows, "games": games}) + "\n")
    print(f"{len(rows)} situations, {len(games)} game sets -> {OUT}")


if __name__ == "__main__":
    main()
