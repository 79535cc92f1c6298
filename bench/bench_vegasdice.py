"""Games per second of the Las Vegas jitted core, 1 thread and all threads, per policy.

Run: ``.venv/bin/python bench/bench_vegasdice.py [--games N] [--players 4] [--policies random,greedy]``.
Prints one JSON line per measurement and a table. Each figure is the best
of ``--repeats`` timings (other work on the machine only ever slows a run
down); ratios (policy cost relative to ``random``) come from measurements
of the same run. ``montecarlo`` policies play ``--montecarlo-games`` games.
"""

from __future__ import annotations

import argparse
import json

import numba

from sim.vegasdice.bench import bench_core


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--players", default="4")
    ap.add_argument("--policies", default="random,greedy")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--montecarlo-games", type=int, default=2_000)
    args = ap.parse_args()
    rows = []
    all_threads = numba.config.NUMBA_NUM_THREADS
    for policy in args.policies.split(","):
        for players in (int(p) for p in args.players.split(",")):
            for threads in sorted({1, all_threads}):
                games = args.montecarlo_games if "montecarlo" in policy else args.games
                runs = [bench_core(players=players, policy=policy, games=games, threads=threads)
                        for _ in range(args.repeats)]
                r = max(runs, key=lambda run: run["games_per_second"])
                print(json.dumps(r), flush=True)
                rows.append(r)
    base = {(r["players"], r["threads"]): r["games_per_second"] for r in rows if r["policy"] == "random"}
    print(f"\n{'policy':<16}{'players':>8}{'threads':>8}{'games/s':>12}{'vs random':>11}")
    for r in rows:
        ref = base.get((r["players"], r["threads"]))
        ratio = f"{ref / r['games_per_second']:.2f}x" if ref else "-"
        print(f"{r['policy']:<16}{r['players']:>8}{r['threads']:>8}{r['games_per_second']:>12,.0f}{ratio:>11}")


if __name__ == "__main__":
    main()
