"""Games per second of the jitted core, 1 thread and all threads, per policy.

Run: ``.venv/bin/python bench/bench_core.py [--games N] [--policies random,greedy,cautious,lookahead:64]``.
Prints one JSON line per measurement and a table; ratios (threads speed-up,
policy cost relative to ``random``) come from measurements of the same run.
A policy that looks ahead plays ``--lookahead-games`` games instead (every
seat thinks for milliseconds per move); its per-decision cost is measured
by ``bench_lookahead.py``.
"""

from __future__ import annotations

import argparse
import json

import numba

from sim.lasvegan.bench import bench_core


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--players", default="2,3,4,5")
    ap.add_argument("--policies", default="random")
    ap.add_argument("--lookahead-games", type=int, default=20)
    args = ap.parse_args()
    rows = []
    all_threads = numba.config.NUMBA_NUM_THREADS
    for policy in args.policies.split(","):
        for players in (int(p) for p in args.players.split(",")):
            for threads in sorted({1, all_threads}):
                games = args.lookahead_games if "lookahead" in policy else args.games
                r = bench_core(players=players, policy=policy, games=games, threads=threads)
                print(json.dumps(r), flush=True)
                rows.append(r)
    base = {(r["players"], r["threads"]): r["games_per_second"] for r in rows if r["policy"] == "random"}
    print(f"\n{'policy':<14}{'players':>8}{'threads':>8}{'games/s':>12}{'vs random':>11}")
    for r in rows:
        ref = base.get((r["players"], r["threads"]))
        ratio = f"{ref / r['games_per_second']:.2f}x" if ref else "-"
        print(f"{r['policy']:<14}{r['players']:>8}{r['threads']:>8}{r['games_per_second']:>12,.0f}{ratio:>11}")


if __name__ == "__main__":
    main()
