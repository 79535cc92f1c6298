"""Write tests/data/expert_decisions.json: what ``expert`` decides in fixed situations.

Run: ``.venv/bin/python tests/data/pin_expert.py``. The file pins the
expert policy's card choices and token placements in situations at 2 to 5
players under the rulebook and rule variants (other token faces and
counts, golden faces, cards set aside and shown, low cabbages), and a
digest of every record field of fixed-seed games with expert seats, so a
faster expert can be checked to decide exactly as the one that wrote the
file (``tests/lasvegan/test_expert_pins.py``). Each situation is stored
whole - the observation, the hand, the legal cards - so the check does not
depend on how the situations were found. Run it again only when a change
of expert's decisions is intended, and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from sim.lasvegan import enums as E
from sim.lasvegan.nb import play_games
from sim.lasvegan.params import DEFAULT_GOLDEN, DEFAULT_MACHINES, DEFAULT_TOKENS, Rules
from sim.lasvegan.policies import parse_seats
from sim.lasvegan.records import RECORD_FIELDS
from sim.lasvegan.table import Table, seat_stream

OUT = Path(__file__).with_name("expert_decisions.json")
STREAM_SEED = 5
# Token sets of the situations: the rulebook's, bench_variants.py's, fewer and more tokens.
TOKEN_SETS = (
    DEFAULT_TOKENS,
    ((1, 1), (1, -2), (-1, -3), (-1, -2)),
    ((1, -2), (0, -3), (-1, -3), (-2, -3)),
    ((2, -1), (1, -2)),
    ((1, -1), (1, -2), (0, -3), (-1, -2), (2, -4), (0, 1)),
)
GOLDEN_SETS = (DEFAULT_GOLDEN, (5, 6), (2, 5))
CARD_SITUATIONS = {2: 60, 3: 500, 4: 500, 5: 500}
PLACEMENTS = {2: 20, 3: 150, 4: 150, 5: 150}
# Fixed-seed games with expert seats: (players, rule knobs, seats, games).
GAMES = [
    (3, {}, "expert", 1500),
    (4, {}, "expert", 1500),
    (5, {}, "expert", 1500),
    (3, {"set_aside_face": "revealed", "tokens": [[1, 1], [1, -2], [-1, -3], [-1, -2]]}, "expert", 800),
    (4, {"tokens": [[1, -2], [0, -3], [-1, -3], [-2, -3]]}, "expert", 800),
    (5, {"golden_token": [5, 6], "starting_cabbages": 10}, "expert", 800),
    (4, {"reserve": "unlimited", "end_on_elimination": False, "set_aside": 4}, "expert", 800),
    (5, {"rounds": 3, "tokens": [[2, -1], [1, -2], [0, -3]]}, ["expert", "greedy", "expert", "random", "expert"], 800),
    (3, {"rounds": 2, "machines": ["suit:red", "value:7", "value:0", "suit:blue", "value:9", "value:5"]},
     ["expert", "lookahead:2", "cautious"], 100),
]


def random_table(players: int, rng: np.random.Generator) -> Table:
    """A round dealt at random under a rule variant drawn from the sets above."""
    set_aside = E.N_CARDS % players
    if players == 4 and rng.random() < 0.2:
        set_aside = 4
    size = (E.N_CARDS - set_aside) // players
    deck = rng.permutation(E.N_CARDS).tolist()
    tokens = TOKEN_SETS[int(rng.integers(len(TOKEN_SETS)))]
    golden = GOLDEN_SETS[int(rng.integers(len(GOLDEN_SETS)))]
    starting = int(rng.choice((10, 15)))
    return Table(
        [deck[s * size:(s + 1) * size] for s in range(players)],
        set_aside=deck[players * size:],
        set_aside_face="revealed" if rng.random() < 0.3 else "hidden",
        machines=[DEFAULT_MACHINES[i] for i in rng.choice(len(DEFAULT_MACHINES), 3, replace=False)],
        token_values=[int(rng.choice(faces)) for faces in tokens],
        golden_value=int(rng.choice(golden)),
        leader=int(rng.integers(players)),
        round=int(rng.integers(E.MAX_ROUNDS)),
        starting=starting,
        cabbages=rng.integers(0, 2 * starting, players).tolist(),
    )


def situations():
    """Card choices with two legal cards or more, and owed placements, from
    rounds played by expert, greedy or random seats up to a random point."""
    rng = np.random.default_rng(20261202)
    found = []
    for players in (2, 3, 4, 5):
        cards = placements = 0
        while cards < CARD_SITUATIONS[players] or placements < PLACEMENTS[players]:
            table = random_table(players, rng)
            policy = str(rng.choice(["expert", "expert", "greedy", "random"]))
            table.advance(policy, int(rng.integers(E.N_CARDS)), seed=int(rng.integers(1000)))
            if table.round_over:
                continue
            if table.owed:
                if placements < PLACEMENTS[players]:
                    found.append(table)
                    placements += 1
            elif bin(table.legal()).count("1") >= 2 and cards < CARD_SITUATIONS[players]:
                found.append(table)
                cards += 1
    return found


def decide(table: Table, stream: np.ndarray):
    if table.owed:
        return list(table.choose_placement("expert", stream))
    return table.choose_card("expert", stream)


def digest(array: np.ndarray) -> str:
    array = np.ascontiguousarray(array)
    h = hashlib.sha256(f"{array.dtype.str}{array.shape}".encode())
    h.update(array.tobytes())
    return h.hexdigest()


def game_digests(players: int, knobs: dict, seats, games: int, seed: int) -> dict:
    ids, params = parse_seats(seats, players)
    rec = play_games(Rules.from_mapping({"players": players, **knobs}), seed, 0, games, ids, params)
    return {field: digest(rec[field]) for field in RECORD_FIELDS}


def main() -> None:
    rows = []
    for k, table in enumerate(situations()):
        rows.append({
            "pub": table.pub.tolist(),
            "hand": int(table.hand),
            "legal": 0 if table.owed else int(table.legal()),
            "placing": bool(table.owed),
            "stream": [k, table.seat],
            "decision": decide(table, seat_stream(STREAM_SEED, k, table.seat)),
        })
    games = []
    for g, (players, knobs, seats, n) in enumerate(GAMES):
        seed = 4100 + g
        games.append({"players": players, "rules": knobs, "seats": seats, "seed": seed, "games": n,
                      "records": game_digests(players, knobs, seats, n, seed)})
    OUT.write_text(json.dumps({"stream_seed": STREAM_SEED, "situations": rows, "games": games},
                              separators=(",", ":")) + "\n")
    print(f"{len(rows)} situations, {len(games)} game sets -> {OUT}")


if __name__ == "__main__":
    main()
