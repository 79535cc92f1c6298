"""Does ``expert`` follow ``lookahead`` when the rules change? Profiles under rule variants.

Run: ``.venv/bin/python bench/bench_variants.py [--games 1000] [--players 3,4,5] [--seed 99]``.

A designer tunes rules with the fast players, so they must move the way
strong players move when a rule changes, not only agree on the rulebook.
For each variant below and each player count: elimination rate, mean rounds
and the share of golden tokens on MAX with every seat ``greedy``, every
seat ``expert`` and every seat ``lookahead:64`` on the same deals, and the
paired difference expert - lookahead:64 in elimination (95% interval) and
rounds.
"""

from __future__ import annotations

import argparse
import math
import time

from sim.lasvegan import enums as E
from sim.lasvegan.nb import play_games
from sim.lasvegan.params import Rules
from sim.lasvegan.policies import parse_seats

Z95 = 1.959963984540054
POLICIES = ("greedy", "expert", "lookahead:64")
VARIANTS = {
    "rulebook": {},
    "tokens tuned for expert (docs/tune.md)": {"tokens": ((1, 1), (1, -2), (-1, -3), (-1, -2))},
    "harsher tokens": {"tokens": ((1, -2), (0, -3), (-1, -3), (-2, -3))},
    "golden token 5/6, 10 cabbages": {"golden_token": (5, 6), "starting_cabbages": 10},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1000, help="deals per variant and player count")
    ap.add_argument("--players", default="3,4,5")
    ap.add_argument("--seed", type=int, default=99)
    args = ap.parse_args()
    print(f"{'variant':40s} {'players':>7s}  " + "  ".join(f"{p:>22s}" for p in POLICIES)
          + "  expert - lookahead:64")
    for name, knobs in VARIANTS.items():
        for players in map(int, args.players.split(",")):
            rules = Rules(players=players, **knobs)
            elim, rounds, cells = {}, {}, []
            for policy in POLICIES:
                ids, params = parse_seats(policy, players)
                rec = play_games(rules, args.seed, 0, args.games, ids, params)
                elim[policy] = (rec["elim_round"] > 0).astype(float)
                rounds[policy] = rec["rounds_played"].astype(float)
                side = rec["golden_side"]
                on_max = (side == E.MAX_SIDE).sum() / max((side >= 0).sum(), 1)
                cells.append(f"{100 * elim[policy].mean():5.1f}% {rounds[policy].mean():.2f} {100 * on_max:4.1f}%")
            d = elim["expert"] - elim["lookahead:64"]
            half = Z95 * d.std(ddof=1) / math.sqrt(len(d))
            r = (rounds["expert"] - rounds["lookahead:64"]).mean()
            print(f"{name:40s} {players:7d}  " + "  ".join(f"{c:>22s}" for c in cells)
                  + f"  {100 * d.mean():+5.1f} pp [{100 * (d.mean() - half):+5.1f}, {100 * (d.mean() + half):+5.1f}]"
                  f" {r:+.2f} rounds", flush=True)
    print("cells: elimination rate, mean rounds, share of golden tokens on MAX")


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"({time.perf_counter() - started:.0f} s)")
