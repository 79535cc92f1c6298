"""Which policy should sit at every seat by default? Cost and game profile of each candidate.

Run: ``.venv/bin/python bench/bench_defaults.py [--game lasvegan] [--games 2000] [--seed 2026]``.

A game's default player is its strongest policy costing at most about ten
times its ``greedy``, and "strongest" is judged by what a designer reads: the
game it makes. For each game, each candidate is timed on one thread beside
``greedy`` in the same run (cost as a ratio of time per game), then plays
``--games`` games with every seat that candidate, on the same deals as the
game's strongest search (the reference). Each headline metric of the game's
strength profile is printed with its difference to the reference, paired
game by game on those deals, and its 95% interval; a difference *moves* the
verdict when that interval lies wholly beyond the metric's threshold
(``Game.strength_metrics``; ``analysis.strength.judge``). The candidate
chosen is, among those within the cost limit, the one whose profile moves on
fewest metrics, the stronger (costlier) on a tie.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

from analysis.strength import MOVES, Profile, compare
from sim.bench import bench_core
from sim.config import Config
from sim.games import get_game
from sim.runner import run

COST_LIMIT = 10.0
# game -> (candidates, cheapest first; the reference: the strongest search played)
CANDIDATES = {
    "lasvegan": (("greedy", "expert"), "lookahead:64"),
    "vegas-dice": (("greedy", "montecarlo:1", "montecarlo:2"), "montecarlo:16"),
    "fever": (("greedy", "montecarlo:2", "montecarlo:4", "montecarlo:8"), "montecarlo:64"),
}


def seconds_per_game(game, rules, policy: str, games: int, seed: int) -> float:
    result = bench_core(game, rules, policy=policy, games=games, threads=1, seed=seed)
    return result["seconds"] / result["games"]


def profile(config: Config, policy: str, games: int) -> Profile:
    one = replace(config, seats=policy, games=games, skill_gap_games=0, strength_games=0, strength_slow_games=0,
                  sensitivity_games=0)
    played = run(one, out=None, keep_records=True, progress=False, report=False)
    return Profile.of(config.game_spec, policy, played.records, played.summary, config.players)


def show(kind: str, x: float) -> str:
    if kind == "num":
        return f"{x:.2f}"
    return f"{100 * x:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default=None, help="one game id (default: every game)")
    ap.add_argument("--games", type=int, default=2000, help="games per profile, the same deals for every policy")
    ap.add_argument("--timing-games", type=int, default=2000, help="games timed per candidate (fewer for slow ones)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    for game_id in [args.game] if args.game else list(CANDIDATES):
        game = get_game(game_id)
        candidates, reference = CANDIDATES[game_id]
        config = Config(game=game_id, seed=args.seed, rules=game.Rules(players=args.players), seats="random")
        base = seconds_per_game(game, config.rules, "greedy", args.timing_games, args.seed)
        ref = profile(config, reference, args.games)
        metrics = game.strength_metrics
        print(f"\n{game.title}, {args.players} players, {args.games:,} games a profile (seed {args.seed}); "
              f"reference {reference}")
        print(f"  {'policy':16s} {'cost':>6s}  " + "  ".join(f"{m[:26]:>26s}" for m in metrics) + "  moves")
        print(f"  {reference:16s} {'':>6s}  " + "  ".join(
            f"{show(metrics[m].style, ref.summary[m]):>26s}" for m in metrics))
        best = None
        for policy in candidates:
            timing = max(200, args.timing_games // 10) if policy != "greedy" and game.is_slow([policy]) else args.timing_games
            cost = 1.0 if policy == "greedy" else seconds_per_game(game, config.rules, policy, timing, args.seed) / base
            mine = profile(config, policy, args.games)
            cells, moved = [], 0
            compared = compare(game, metrics, ref, mine)["metrics"]
            for m, spec in metrics.items():
                e = compared[m]
                if e["low"] is None or e["high"] is None:
                    cells.append(f"{'n/a':>26s}")
                    continue
                moved += e["verdict"] == MOVES
                scale = spec.scale
                cells.append(f"{show(spec.style, e['to'])} ({scale * e['difference']:+.2f} [{scale * e['low']:+.2f},"
                             f" {scale * e['high']:+.2f}])".rjust(26))
            print(f"  {policy:16s} {cost:5.1f}x  " + "  ".join(cells) + f"  {moved}", flush=True)
            if cost <= COST_LIMIT and (best is None or moved <= best[1]):
                best = (policy, moved, cost)
        print(f"  default: {best[0]} (cost {best[2]:.1f}x greedy; profile moves on {best[1]} of {len(metrics)} "
              f"metrics against {reference})")
    print("cells: value (difference to the reference, paired on the same deals [95% interval]); percentages and "
          "points in percent, "
          "'num' metrics in their units; cost: time per game relative to greedy, one thread")


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"({time.perf_counter() - started:.0f} s)")
