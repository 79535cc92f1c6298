"""Games per second of a game's jitted core, 1 thread and all threads, per policy.

Run: ``.venv/bin/python bench/bench_core.py [--game lasvegan] [--games N] [--players 2,3,4,5]
[--policies random,greedy] [--repeats 1]``.
Prints one JSON line per measurement and a table; ratios (threads speed-up,
policy cost relative to ``random``) come from measurements of the same run.
With ``--repeats`` above 1 each figure is the best of that many timings
(other work on the machine only ever slows a run down). A policy that
searches (``lookahead``, ``montecarlo``: the game's slow policies) plays
``--slow-games`` games instead; the per-decision cost of ``lookahead`` is
measured by ``bench_lookahead.py``.
"""

from __future__ import annotations

import argparse
import json

import numba

from sim.bench import bench_core
from sim.games import get_game


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--game", default="lasvegan")
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--players", default="2,3,4,5")
    ap.add_argument("--policies", default="random")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--slow-games", type=int, default=20)
    args = ap.parse_args()
    game = get_game(args.game)
    rows = []
    all_threads = numba.config.NUMBA_NUM_THREADS
    for policy in args.policies.split(","):
        for players in (int(p) for p in args.players.split(",")):
            rules = game.Rules.from_mapping({"players": players})
            for threads in sorted({1, all_threads}):
                games = args.slow_games if game.is_slow([policy]) else args.games
                runs = [bench_core(game, rules, policy, games, threads) for _ in range(args.repeats)]
                r = max(runs, key=lambda run: run["games_per_second"])
                print(json.dumps(r), flush=True)
                rows.append(r)
    base = {(r["players"], r["threads"]): r["games_per_second"] for r in rows if r["policy"] == "random"}
    one = {(r["policy"], r["players"]): r["games_per_second"] for r in rows if r["threads"] == 1}
    print(f"\n{game.title}")
    print(f"{'policy':<16}{'players':>8}{'threads':>8}{'games/s':>12}{'vs random':>11}{'vs 1 thread':>13}")
    for r in rows:
        ref = base.get((r["players"], r["threads"]))
        ratio = f"{ref / r['games_per_second']:.2f}x" if ref else "-"
        single = one.get((r["policy"], r["players"]))
        speedup = f"{r['games_per_second'] / single:.2f}x" if single else "-"
        print(f"{r['policy']:<16}{r['players']:>8}{r['threads']:>8}{r['games_per_second']:>12,.0f}{ratio:>11}"
              f"{speedup:>13}")


if __name__ == "__main__":
    main()
