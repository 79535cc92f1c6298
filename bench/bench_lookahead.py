"""Decisions per second of the lookahead policy (and any other), per player count.

Run: ``.venv/bin/python bench/bench_lookahead.py [--policies lookahead:64] [--situations 300]``.
Times single decisions in situations sampled from rounds played by
``greedy`` (``sim.lasvegan.bench.bench_decisions``): card choices with at
least two legal cards, and token placements. One thread; prints one JSON
line per measurement and a table.
"""

from __future__ import annotations

import argparse
import json

from sim.lasvegan.bench import bench_decisions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--policies", default="lookahead:16,lookahead:64,lookahead:64:win")
    ap.add_argument("--players", default="2,3,4,5")
    ap.add_argument("--situations", type=int, default=300)
    args = ap.parse_args()
    rows = []
    for policy in args.policies.split(","):
        for players in (int(p) for p in args.players.split(",")):
            r = bench_decisions(policy=policy, players=players, situations=args.situations)
            print(json.dumps(r), flush=True)
            rows.append(r)
    print(f"\n{'policy':<20}{'players':>8}{'legal cards':>13}{'cards/s':>10}{'ms/card':>9}{'placements/s':>14}")
    for r in rows:
        per_card = 1000 / r["card_decisions_per_second"]
        print(
            f"{r['policy']:<20}{r['players']:>8}{r['mean_legal_cards']:>13.1f}"
            f"{r['card_decisions_per_second']:>10,.0f}{per_card:>9.2f}{r['placements_per_second']:>14,.0f}"
        )


if __name__ == "__main__":
    main()
