"""Decisions per second of the cheap Las Vegan policies, in a jitted loop over fixed situations.

Run: ``.venv/bin/python bench/bench_policy_decisions.py [--players 3,4,5] [--situations 4000] [--repeats 5]``.

``bench_lookahead.py`` times one decision per Python call, which is right
for a search that takes a millisecond; a decision of ``greedy`` or
``expert`` takes well under a microsecond, so here the situations (card
choices with two legal cards or more, and placements owed for a 7, from
rounds dealt at random and played by ``expert`` up to a random point) are
stored in arrays and every policy decides all of them in one jitted loop,
``--repeats`` times (best time kept). One thread. Prints one JSON line per
measurement and a table with each policy's time per decision against
greedy's, measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from numba import njit

from sim.lasvegan import enums as E
from sim.lasvegan.expert import expert_card_default_nb, expert_placement_default_nb
from sim.lasvegan.heuristics import greedy_card_nb, greedy_placement_nb
from sim.lasvegan.table import Table

CARD_KERNELS = {"greedy": greedy_card_nb, "expert": expert_card_default_nb}


def situations(players: int, n: int, seed: int):
    """``(pubs, hands, legals)`` of ``n`` card choices and ``(pubs, hands)`` of the placements met on the way."""
    rng = np.random.default_rng(seed)
    pubs, hands, legals, ppubs, phands = [], [], [], [], []
    while len(pubs) < n:
        table = Table.dealt_at_random(players, int(rng.integers(2**32)))
        table.advance("expert", int(rng.integers(E.N_CARDS)), seed=int(rng.integers(1000)))
        if table.round_over:
            continue
        if table.owed:
            ppubs.append(table.pub.copy())
            phands.append(table.hand)
        elif bin(table.legal()).count("1") >= 2:
            pubs.append(table.pub.copy())
            hands.append(table.hand)
            legals.append(table.legal())
    return ((np.array(pubs), np.array(hands, dtype=np.uint64), np.array(legals, dtype=np.uint64)),
            (np.array(ppubs), np.array(phands, dtype=np.uint64)))


def card_loop(kernel):
    @njit
    def loop(pubs, hands, legals):
        total = 0
        for i in range(pubs.shape[0]):
            total += kernel(pubs[i], hands[i], legals[i])
        return total

    return loop


@njit
def greedy_placements(pubs, hands, out):
    for i in range(pubs.shape[0]):
        greedy_placement_nb(pubs[i], hands[i], out)


@njit
def expert_placements(pubs, hands, out):
    rng = np.zeros(4, dtype=np.uint64)
    for i in range(pubs.shape[0]):
        expert_placement_default_nb(pubs[i], hands[i], rng, out)


def best_time(fn, args, repeats: int) -> float:
    fn(*args)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", default="3,4,5")
    ap.add_argument("--situations", type=int, default=4000, help="card choices per player count")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--loops", type=int, default=20, help="passes over the situations per timing")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rows = []
    for players in map(int, args.players.split(",")):
        (pubs, hands, legals), (ppubs, phands) = situations(players, args.situations, args.seed)
        pubs, hands, legals = (np.tile(a, (args.loops,) + (1,) * (a.ndim - 1)) for a in (pubs, hands, legals))
        ppubs, phands = (np.tile(a, (args.loops,) + (1,) * (a.ndim - 1)) for a in (ppubs, phands))
        out = np.zeros(3, dtype=np.int64)
        for name, kernel in CARD_KERNELS.items():
            seconds = best_time(card_loop(kernel), (pubs, hands, legals), args.repeats)
            rows.append({"players": players, "policy": name, "decision": "card", "decisions": len(pubs),
                         "ns_per_decision": 1e9 * seconds / len(pubs)})
            print(json.dumps(rows[-1]), flush=True)
        for name, loop in (("greedy", greedy_placements), ("expert", expert_placements)):
            seconds = best_time(loop, (ppubs, phands, out), args.repeats)
            rows.append({"players": players, "policy": name, "decision": "placement", "decisions": len(ppubs),
                         "ns_per_decision": 1e9 * seconds / len(ppubs)})
            print(json.dumps(rows[-1]), flush=True)
    greedy = {(r["players"], r["decision"]): r["ns_per_decision"] for r in rows if r["policy"] == "greedy"}
    print(f"\n{'players':>7}  {'decision':<10}{'policy':<8}{'ns/decision':>12}{'x greedy':>10}")
    for r in rows:
        ratio = r["ns_per_decision"] / greedy[(r["players"], r["decision"])]
        print(f"{r['players']:>7}  {r['decision']:<10}{r['policy']:<8}{r['ns_per_decision']:>12.1f}{ratio:>10.2f}")


if __name__ == "__main__":
    main()
