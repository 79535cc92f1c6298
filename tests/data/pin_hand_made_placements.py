"""Write tests/data/hand_made_placements.json: where the hand-made ``expert`` placement score puts tokens.

Run: ``.venv/bin/python tests/data/pin_hand_made_placements.py``. The
fitted placement score of ``expert`` starts from the hand-made one (its
feature ``PF_EARLIER``, weighted by ``expert_weights.py``), which
``tools/train_expert.py`` still tunes. The file pins that score's choices
in every placement of rounds played at random at 3, 4 and 5 players, so
the score can be checked to place exactly as the one that wrote the file
(``tests/lasvegan/test_expert.py``). Each situation is stored whole: the
observation and the hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from sim.lasvegan.conformance import owed_placement
from sim.lasvegan.expert import expert_placement_nb
from sim.lasvegan.expert_weights import EXPERT_WEIGHTS
from sim.lasvegan.table import seat_stream

OUT = Path(__file__).with_name("hand_made_placements.json")
ROUNDS = 20  # per player count


def situations():
    """Every placement of ``ROUNDS`` rounds per player count: random cards, hand-made placements."""
    found = []
    out = np.zeros(3, dtype=np.int64)
    for players in (3, 4, 5):
        for seed in range(ROUNDS):
            table = owed_placement(players, seed)
            stream = seat_stream(seed, 1, 0)
            while not table.round_over:
                if table.owed:
                    expert_placement_nb(table.pub, np.uint64(table.hand), EXPERT_WEIGHTS, out)
                    found.append({"pub": table.pub.tolist(), "hand": table.hand, "placement": out.tolist()})
                    table.place(*out.tolist())
                else:
                    table.play(table.choose_card("random", stream))
    return found


def main() -> None:
    pins = situations()
    OUT.write_text(json.dumps(pins, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {len(pins)} placements")


if __name__ == "__main__":
    main()
