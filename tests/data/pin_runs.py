"""Write tests/data/pinned_runs.json: summaries and record digests of fixed Las Vegan runs.

The file pins what these runs give today, bit for bit; ``tests/test_pinned_runs.py``
checks every later version against it. Run again (``python tests/data/pin_runs.py``)
only when a change of results is intended, and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

PIN_FILE = Path(__file__).with_name("pinned_runs.json")

# (name, config mapping): every player count, the set-aside card, mixed
# policies, a variant of every kind of knob, the skill gap on a few deals.
RUNS = [
    ("rulebook-4p-random", {"run": {"games": 3000, "seed": 11}, "rules": {"players": 4},
                            "policies": {"seats": "random"}}),
    ("rulebook-3p-greedy", {"run": {"games": 1500, "seed": 12, "skill_gap_games": 40},
                            "rules": {"players": 3}, "policies": {"seats": "greedy"}}),
    ("variant-5p-mixed", {
        "run": {"games": 1200, "seed": 13},
        "rules": {"players": 5, "rounds": 3, "reserve": "unlimited", "end_on_elimination": False,
                  "tokens": [[2, -1], [1, -2], [0, -3], [-1, -2]], "golden_token": [2, 5]},
        "policies": {"seats": ["expert", "cautious", "random", "greedy", "epsilon:0.3:greedy"]},
    }),
    ("variant-2p-revealed", {"run": {"games": 2000, "seed": 2**40 + 7},
                             "rules": {"players": 2, "set_aside_face": "revealed"}, "policies": {"seats": "random"}}),
]

VOLATILE = ("seconds", "games_per_second")


def config_of(mapping: dict):
    from sim.config import config_from_mapping

    # The pins are the games and their summary: the skill gap, strength profile and sensitivity study,
    # played from the same kernels, have tests of their own.
    run = {"skill_gap_games": 0, "strength_games": 0, "strength_lookahead_games": 0, "sensitivity_games": 0,
           **mapping.get("run", {})}
    return config_from_mapping({"game": "lasvegan", **mapping, "run": run})


def digest(array: np.ndarray) -> str:
    array = np.ascontiguousarray(array)
    h = hashlib.sha256(f"{array.dtype.str}{array.shape}".encode())
    h.update(array.tobytes())
    return h.hexdigest()


def pin(mapping: dict) -> dict:
    from sim.runner import run

    results = run(config_of(mapping), out=None, keep_records=True, progress=False, report=False)
    summary = {k: v for k, v in results.summary.items() if k not in VOLATILE}
    records = {name: digest(values) for name, values in sorted(results.records.items())}
    return {"summary": summary, "records": records}


def main() -> None:
    pins = {name: {"config": mapping, **pin(mapping)} for name, mapping in RUNS}
    PIN_FILE.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {PIN_FILE}")


if __name__ == "__main__":
    main()
