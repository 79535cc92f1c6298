"""How OpenSpiel's ISMCTS compares with ``lookahead`` and ``expert`` on the rulebook Las Vegan game.

Run: ``.venv/bin/python bench/bench_ismcts.py [--games 40] [--duel-games 12] [--players 3,4,5] [--n 4,16]
[--parts cost,profile,duels]`` (needs the ``openspiel`` extra).

1. Cost: seconds per decision of ``ismcts:N`` and of ``lookahead:64``, both
   deciding for one seat of the reference engine over the same games, in one
   process (a ratio; the machine's load changes both alike).
2. Profile: every seat ``expert``, every seat ``lookahead:64``, every seat
   ``ismcts:N`` for each N, on the same deals: elimination rate, mean rounds
   played, share of the placed golden tokens on MAX, each with its 95%
   interval (``bench_expert``'s measures).
3. Duels, seats rotated on the same deals (``sim.duel``): one ``ismcts`` seat
   among ``lookahead:32`` seats, one ``lookahead:32`` seat among ``ismcts``,
   one ``expert`` seat among ``ismcts`` (the largest N given).

Each measurement is kept in ``--cache`` as one JSON file and read back by a
later run (games are a pure function of the seed), so parts can run in
separate processes and an interrupted run resumes. Prints one JSON line per
measurement, then the tables.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from bench_expert import fmt, mean_ci, profile, share_ci
from sim.duel import duel
from sim.games import get_game

GAME = get_game("lasvegan")


def cached(cache: Path, name: str, compute):
    path = cache / f"{name.replace(':', '_')}.json"
    if path.exists():
        return json.loads(path.read_text())
    out = compute()
    cache.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out))
    return out


def table_profile(policy: str, players: int, games: int, seed: int) -> dict:
    ids, params = GAME.parse_seats(policy, players)
    start = time.perf_counter()
    rec = GAME.play_games(GAME.Rules(players=players), seed, 0, games, ids, params, threads=1)
    per = profile(rec)
    rng = np.random.default_rng(seed)
    return {"policy": policy, "players": players, "games": games, "seconds": time.perf_counter() - start,
            "elimination": mean_ci(per["elimination"]), "rounds": mean_ci(per["rounds"]),
            "golden_on_max": share_ci(per["golden_max"], per["golden_placed"], rng)}


class Timed:
    """A seat's player whose decisions are timed and counted."""

    def __init__(self, player):
        self.player, self.seconds, self.decisions = player, 0.0, 0

    def _timed(self, name, *args):
        start = time.perf_counter()
        out = getattr(self.player, name)(*args)
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return out

    def choose_card(self, *args):
        return self._timed("choose_card", *args)

    def choose_placement(self, *args):
        return self._timed("choose_placement", *args)


def decision_cost(policies: list[str], players: int, games: int, seed: int) -> dict:
    """Seconds per decision of each policy at seat 0 among greedy seats, the same games for each."""
    from sim.lasvegan.openspiel import player_named
    from sim.lasvegan.rules import play_game

    rules = GAME.Rules(players=players)
    play_game(rules, seed, games, [player_named(rules, "ismcts:2")] * players)  # compiles what the first call would
    out = {}
    for policy in policies:
        timed = Timed(player_named(rules, policy))
        others = [player_named(rules, "greedy") for _ in range(players - 1)]
        for g in range(games):
            play_game(rules, seed, g, [timed, *others])
        out[policy] = {"seconds_per_decision": timed.seconds / timed.decisions, "decisions": timed.decisions}
    return out


def rotated_duel(one: str, others: str, players: int, games: int, seed: int) -> dict:
    r = duel(GAME, GAME.Rules(players=players), [one] + [others] * (players - 1), games, seed, threads=1,
             progress=sys.stderr.isatty())
    mine = r["policies"][one]
    return {"one": one, "among": others, "players": players, "games": games,
            "win_share": mine["win_share"], "win_share_ci": mine["win_share_ci"], "fair_share": mine["fair_share"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=40, help="deals per table for the profile")
    ap.add_argument("--duel-games", type=int, default=12, help="deals per duel (each played once per rotation)")
    ap.add_argument("--cost-games", type=int, default=2, help="games per policy for the cost per decision")
    ap.add_argument("--players", default="3,4,5", help="player counts of the profile")
    ap.add_argument("--duel-players", default="4", help="player counts of the duels")
    ap.add_argument("--n", default="4,16", help="simulations per decision of the ismcts tables")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--parts", default="cost,profile,duels", help="comma list of parts to run: cost,profile,duels")
    ap.add_argument("--cache", type=Path, default=Path(__file__).resolve().parent / ".cache" / "ismcts",
                    help="where each measurement is kept between runs")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    ns = [int(n) for n in args.n.split(",")]
    searches = [f"ismcts:{n}" for n in ns]
    strongest = searches[-1]
    tables = ["expert", "lookahead:64", *searches]

    if "cost" in parts:
        name = f"cost-{'-'.join(searches)}-{args.cost_games}-{args.seed}"
        cost = cached(args.cache, name, lambda: decision_cost([*searches, "lookahead:64"], 4, args.cost_games,
                                                               args.seed))
        print(json.dumps(cost), flush=True)
        base = cost["lookahead:64"]["seconds_per_decision"]
        print(f"\ncost per decision at 4 players (seat 0 among greedy, {args.cost_games} games, one process)")
        for policy, row in cost.items():
            print(f"  {policy:<14}{1000 * row['seconds_per_decision']:9.2f} ms  "
                  f"{row['seconds_per_decision'] / base:8.1f}x lookahead:64  ({row['decisions']} decisions)")
    if "profile" in parts:
        rows = []
        for players in [int(p) for p in args.players.split(",")]:
            for policy in tables:
                rows.append(cached(args.cache, f"profile-{policy}-{players}p-{args.games}-{args.seed}",
                                   lambda policy=policy, players=players: table_profile(policy, players, args.games, args.seed)))
                print(json.dumps(rows[-1]), flush=True)
        print(f"\nprofile, every seat one policy, {args.games} deals each (the same deals), 95% intervals")
        print(f"{'players':>7}  {'policy':<14}{'elimination':>24}{'mean rounds':>24}{'golden on MAX':>24}")
        for r in rows:
            print(f"{r['players']:>7}  {r['policy']:<14}{fmt(r['elimination']):>24}{fmt(r['rounds'], False):>24}"
                  f"{fmt(r['golden_on_max']):>24}")
    if "duels" in parts:
        rows = []
        for players in [int(p) for p in args.duel_players.split(",")]:
            for one, others in ((strongest, "lookahead:32"), ("lookahead:32", strongest), ("expert", strongest)):
                rows.append(cached(args.cache, f"duel-{one}-among-{others}-{players}p-{args.duel_games}-{args.seed}",
                                   lambda one=one, others=others, players=players: rotated_duel(one, others, players,
                                                                                       args.duel_games, args.seed)))
                print(json.dumps(rows[-1]), flush=True)
        print("\nduels: one seat among the other policy, seats rotated (each deal once per rotation), 95% intervals")
        print(f"{'players':>7}  {'one':<14}{'among':<14}{'deals':>6}{'fair':>7}{'win share':>11}   95% CI")
        for r in rows:
            lo, hi = r["win_share_ci"]
            ci = "too few deals" if lo is None else f"[{lo:.3f}, {hi:.3f}]"
            print(f"{r['players']:>7}  {r['one']:<14}{r['among']:<14}{r['games']:>6}{r['fair_share']:>7.3f}"
                  f"{r['win_share']:>11.3f}   {ci}")


if __name__ == "__main__":
    main()
