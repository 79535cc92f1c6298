"""Decisions per second of the lookahead policy (and any other), per player count.

Run: ``.venv/bin/python bench/bench_lookahead.py [--policies lookahead:64] [--situations 300]``.
Times single decisions in situations sampled from rounds played by
``greedy`` (:func:`bench_decisions`): card choices with at
least two legal cards, and token placements. One thread; prints one JSON
line per measurement and a table.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from sim.lasvegan import enums as E
from sim.lasvegan.table import Table, seat_stream


def bench_decisions(policy: str = "lookahead:64", players: int = 4, situations: int = 200, seed: int = 1) -> dict:
    """Time one policy's decisions in situations sampled from real rounds.

    Each situation is a round dealt at random and played by ``greedy`` up to
    a random point; only card choices with at least two legal cards are
    timed (with one there is nothing to decide), and placements separately.
    A first decision is made untimed so compilation is not counted.
    """
    rng = np.random.default_rng(seed)
    cards, placements = [], []
    while len(cards) < situations:
        table = Table.dealt_at_random(players, int(rng.integers(2**32)))
        table.advance("greedy", int(rng.integers(E.N_CARDS - E.N_CARDS % players)))
        if table.round_over:
            continue
        if table.owed:
            placements.append(table)
        elif bin(table.legal()).count("1") > 1:
            cards.append(table)
    cards[0].copy().choose_card(policy)
    start = time.perf_counter()
    for s, table in enumerate(cards):
        table.choose_card(policy, seat_stream(seed, s, table.seat))
    card_seconds = time.perf_counter() - start
    start = time.perf_counter()
    for s, table in enumerate(placements):
        table.choose_placement(policy, seat_stream(seed, s, table.seat))
    placement_seconds = time.perf_counter() - start
    return {
        "players": players,
        "policy": policy,
        "card_decisions": len(cards),
        "mean_legal_cards": float(np.mean([bin(t.legal()).count("1") for t in cards])),
        "card_seconds": card_seconds,
        "card_decisions_per_second": len(cards) / card_seconds if card_seconds > 0 else float("inf"),
        "placements": len(placements),
        "placements_per_second": len(placements) / placement_seconds if placement_seconds > 0 else float("nan"),
    }


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
