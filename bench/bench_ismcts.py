"""How OpenSpiel's ISMCTS compares with ``lookahead`` and ``expert`` on the rulebook Las Vegan game, and with each
other game's own players on its rulebook game.

Run: ``.venv/bin/python bench/bench_ismcts.py [--game lasvegan] [--games 40] [--duel-games 12] [--players 3,4,5]
[--n 4,16] [--parts cost,profile,duels]`` (needs the ``openspiel`` extra).

Las Vegan:

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

Another game (``--game vegas-dice``, ``--game fever``):

1. Cost: seconds per decision of ``ismcts:N`` and of the game's default
   player, each deciding for seat 0 among default-player seats of the
   reference engine over the same games, in one process.
2. Profile: every seat the default player, ``greedy``, the game's stronger
   scripted player (its strength profile's slow one), ``ismcts:N`` for each
   N, on the same deals: the game's headline metrics as its summary reports
   them, each with its 95% interval (the summary's own; a bootstrap over games
   where the summary gives none).
3. Duels as for Las Vegan, ``--duel-against`` in place of ``lookahead:32``.

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
from sim.metrics import ADVANTAGE, RATE

GAME = get_game("lasvegan")
BOOTSTRAP = 200  # resamples of the games for a metric the summary gives without an interval


def cached(cache: Path, name: str, compute):
    path = cache / f"{name.replace(':', '_')}.json"
    if path.exists():
        return json.loads(path.read_text())
    out = compute()
    cache.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out))
    return out


def cached_rows(cache: Path, measures) -> list[dict]:
    """Each ``(name, measure)``'s measurement, kept under ``name``, printed as JSON as it comes."""
    rows = []
    for name, measure in measures:
        rows.append(cached(cache, name, measure))
        print(json.dumps(rows[-1]), flush=True)
    return rows


def print_cost(cache: Path, name: str, game, searches: list[str], base: str, among: str, players: int,
               games: int, seed: int) -> None:
    """The cost per decision of each search and of ``base``, seat 0 among ``among``, as multiples of ``base``'s."""
    cost = cached(cache, name, lambda: decision_cost(game, [*searches, base], among, players, games, seed))
    print(json.dumps(cost), flush=True)
    unit = cost[base]["seconds_per_decision"]
    print(f"\ncost per decision at {players} players (seat 0 among {among}, {games} games, one process)")
    for policy, row in cost.items():
        print(f"  {policy:<14}{1000 * row['seconds_per_decision']:9.2f} ms  "
              f"{row['seconds_per_decision'] / unit:8.1f}x {base}  ({row['decisions']} decisions)")


def ci_text(row: dict) -> str:
    lo, hi = row["win_share_ci"]
    return "too few deals" if lo is None else f"[{lo:.3f}, {hi:.3f}]"


def table_profile(policy: str, players: int, games: int, seed: int) -> dict:
    ids, params = GAME.parse_seats(policy, players)
    start = time.perf_counter()
    rec = GAME.play_games(GAME.Rules(players=players), seed, 0, games, ids, params, threads=1)
    per = profile(rec)
    rng = np.random.default_rng(seed)
    return {"policy": policy, "players": players, "games": games, "seconds": time.perf_counter() - start,
            "elimination": mean_ci(per["elimination"]), "rounds": mean_ci(per["rounds"]),
            "golden_on_max": share_ci(per["golden_max"], per["golden_placed"], rng)}


def headline_profile(game, policy: str, players: int, games: int, seed: int) -> dict:
    """The game's headline metrics of a table every seat ``policy``, each ``(value, low, high)``: the summary's
    95% interval, or a bootstrap over games where the summary gives none."""
    ids, params = game.parse_seats(policy, players)
    start = time.perf_counter()
    rec = game.play_games(game.Rules(players=players), seed, 0, games, ids, params, threads=1)
    seconds = time.perf_counter() - start

    def summary_of(records):
        return game.summarize(game.tally(records), game=game.id, seed=seed, policies=[policy] * players)

    summary = summary_of(rec)
    headline = [m for m in game.metrics if m.headline]
    unbounded = [m.name for m in headline if summary.get(f"{m.name}_ci") is None]
    rng = np.random.default_rng(seed)
    resampled = {name: [] for name in unbounded}
    for _ in range(BOOTSTRAP if unbounded else 0):
        picked = rng.integers(0, games, size=games)
        again = summary_of({k: v[picked] for k, v in rec.items()})
        for name in unbounded:
            resampled[name].append(again[name])
    metrics = {}
    for m in headline:
        ci = summary.get(f"{m.name}_ci") or np.quantile(resampled[m.name], [0.025, 0.975]).tolist()
        metrics[m.name] = [summary[m.name], *ci]
    return {"policy": policy, "players": players, "games": games, "seconds": seconds, "metrics": metrics,
            "bootstrapped": unbounded}


class Timed:
    """A seat's player whose decisions (any of its methods) are timed and counted."""

    def __init__(self, player):
        self.player, self.seconds, self.decisions = player, 0.0, 0

    def __getattr__(self, name):
        decide = getattr(self.player, name)
        if not callable(decide):
            return decide

        def timed(*args):
            start = time.perf_counter()
            out = decide(*args)
            self.seconds += time.perf_counter() - start
            self.decisions += 1
            return out

        return timed


def decision_cost(game, policies: list[str], others: str, players: int, games: int, seed: int) -> dict:
    """Seconds per decision of each policy at seat 0 among ``others`` seats, the same games for each."""
    import importlib

    from sim.openspiel import table_module_name

    table = importlib.import_module(table_module_name(game.id))
    rules = game.Rules(players=players)
    # Compiles and loads what the first call would.
    table.PLAY_LOOP.play_game(rules, seed, games, [table.player_named(rules, p)
                                                   for p in ([*policies, others] * players)[:players]])
    out = {}
    for policy in policies:
        timed = Timed(table.player_named(rules, policy))
        seats = [table.player_named(rules, others) for _ in range(players - 1)]
        for g in range(games):
            table.PLAY_LOOP.play_game(rules, seed, g, [timed, *seats])
        out[policy] = {"seconds_per_decision": timed.seconds / timed.decisions, "decisions": timed.decisions}
    return out


def metric_text(metric, value) -> str:
    m, lo, hi = value
    if m is None:
        return "none"
    sign = "+" if metric.kind == ADVANTAGE else ""
    scale, unit = (100, "%") if metric.kind in (RATE, ADVANTAGE) else (1, "")
    interval = "no interval" if lo is None else f"[{scale * lo:{sign}.1f}, {scale * hi:{sign}.1f}]"
    return f"{scale * m:{sign}.1f}{unit} {interval}"


def rotated_duel(one: str, others: str, players: int, games: int, seed: int, game=GAME) -> dict:
    r = duel(game, game.Rules(players=players), [one] + [others] * (players - 1), games, seed, threads=1,
             progress=sys.stderr.isatty())
    mine = r["policies"][one]
    return {"one": one, "among": others, "players": players, "games": games,
            "win_share": mine["win_share"], "win_share_ci": mine["win_share_ci"], "fair_share": mine["fair_share"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="lasvegan", help="the game (any with an OpenSpiel table)")
    ap.add_argument("--duel-against", default=None, help="the policy of the duels' other seats (another game than "
                                                         "Las Vegan: default its stronger scripted player)")
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
    if args.game != GAME.id:
        other_game(get_game(args.game), args, parts, searches)
        return
    strongest = searches[-1]
    tables = ["expert", "lookahead:64", *searches]

    if "cost" in parts:
        print_cost(args.cache, f"cost-{'-'.join(searches)}-{args.cost_games}-{args.seed}", GAME, searches,
                   "lookahead:64", "greedy", 4, args.cost_games, args.seed)
    if "profile" in parts:
        rows = cached_rows(args.cache, (
            (f"profile-{policy}-{players}p-{args.games}-{args.seed}",
             lambda policy=policy, players=players: table_profile(policy, players, args.games, args.seed))
            for players in [int(p) for p in args.players.split(",")] for policy in tables))
        print(f"\nprofile, every seat one policy, {args.games} deals each (the same deals), 95% intervals")
        print(f"{'players':>7}  {'policy':<14}{'elimination':>24}{'mean rounds':>24}{'golden on MAX':>24}")
        for r in rows:
            print(f"{r['players']:>7}  {r['policy']:<14}{fmt(r['elimination']):>24}{fmt(r['rounds'], False):>24}"
                  f"{fmt(r['golden_on_max']):>24}")
    if "duels" in parts:
        rows = cached_rows(args.cache, (
            (f"duel-{one}-among-{others}-{players}p-{args.duel_games}-{args.seed}",
             lambda one=one, others=others, players=players: rotated_duel(one, others, players, args.duel_games,
                                                                          args.seed))
            for players in [int(p) for p in args.duel_players.split(",")]
            for one, others in ((strongest, "lookahead:32"), ("lookahead:32", strongest), ("expert", strongest))))
        print("\nduels: one seat among the other policy, seats rotated (each deal once per rotation), 95% intervals")
        print(f"{'players':>7}  {'one':<14}{'among':<14}{'deals':>6}{'fair':>7}{'win share':>11}   95% CI")
        for r in rows:
            print(f"{r['players']:>7}  {r['one']:<14}{r['among']:<14}{r['games']:>6}{r['fair_share']:>7.3f}"
                  f"{r['win_share']:>11.3f}   {ci_text(r)}")


def other_game(game, args, parts: set[str], searches: list[str]) -> None:
    """The cost, profile and duels of ``game``: ismcts against the game's own players."""
    default = game.default_policy
    stronger = game.strength_slow_policy or default
    tables = list(dict.fromkeys([default, "greedy", stronger, *searches]))
    tag = game.id
    if "cost" in parts:
        print_cost(args.cache, f"{tag}-cost-{'-'.join(searches)}-{args.cost_games}-{args.seed}", game, searches,
                   default, default, min(3, game.max_players), args.cost_games, args.seed)
    if "profile" in parts:
        rows = cached_rows(args.cache, (
            (f"{tag}-profile-{policy}-{players}p-{args.games}-{args.seed}",
             lambda policy=policy, players=players: headline_profile(game, policy, players, args.games, args.seed))
            for players in [int(p) for p in args.players.split(",")] for policy in tables))
        headline = [m for m in game.metrics if m.headline]
        print(f"\nprofile, every seat one policy, {args.games} deals each (the same deals), 95% intervals"
              f" (bootstrap over games: {', '.join(rows[0]['bootstrapped']) or 'none'})")
        print("| players | policy | s a game | " + " | ".join(m.short or m.label for m in headline) + " |")
        print("| --- | --- | ---: |" + " --- |" * len(headline))
        for r in rows:
            cells = " | ".join(metric_text(m, r["metrics"][m.name]) for m in headline)
            print(f"| {r['players']} | `{r['policy']}` | {r['seconds'] / r['games']:.2f} | {cells} |")
    if "duels" in parts:
        against = args.duel_against or stronger
        strongest = searches[-1]
        for players in [int(p) for p in args.duel_players.split(",")]:
            for one, others in ((strongest, against), (against, strongest)):
                row = cached(args.cache, f"{tag}-duel-{one}-among-{others}-{players}p-{args.duel_games}-{args.seed}",
                             lambda one=one, others=others, players=players: rotated_duel(
                                 one, others, players, args.duel_games, args.seed, game))
                print(f"{players:>7}  {one:<14}{others:<14}{row['games']:>6}{row['fair_share']:>7.3f}"
                      f"{row['win_share']:>11.3f}   {ci_text(row)}")


if __name__ == "__main__":
    main()
