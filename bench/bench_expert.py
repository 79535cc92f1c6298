"""How ``expert`` compares with ``lookahead``: game profile, duels and cost.

Run: ``.venv/bin/python bench/bench_expert.py [--games 2000] [--duel-games 400] [--players 3,4,5]``.

1. Profile: the rulebook game with every seat ``expert`` and with every seat
   ``lookahead:64`` (``--reference``), on the same deals: elimination rate,
   mean rounds played, share of the placed golden tokens put on MAX. Each
   with its 95% interval, and the paired difference (same deals) with its
   interval (a bootstrap over games for the share).
2. Duels: one ``expert`` seat against ``lookahead:32``, ``greedy`` and
   ``cautious`` at every other seat, seats rotated (``sim.duel``).
3. Cost: games per second at 4 players, all seats ``expert`` and all
   ``greedy``, every thread (``sim.bench.bench_core``).

Prints one JSON line per measurement and the tables.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from sim.bench import bench_core
from sim.duel import duel
from sim.games import get_game
from sim.lasvegan import enums as E
from sim.lasvegan.game import GAME
from sim.lasvegan.nb import play_games
from sim.lasvegan.params import Rules
from sim.lasvegan.policies import parse_seats

Z95 = 1.959963984540054


def profile(rec: dict) -> dict:
    """Per-game values of the three measures; the golden share as (on MAX, placed) counts."""
    side = rec["golden_side"]
    return {
        "elimination": (rec["elim_round"] > 0).astype(float),
        "rounds": rec["rounds_played"].astype(float),
        "golden_max": (side == E.MAX_SIDE).sum(axis=1).astype(float),
        "golden_placed": (side >= 0).sum(axis=1).astype(float),
    }


def mean_ci(x: np.ndarray) -> tuple[float, float, float]:
    m = float(x.mean())
    half = Z95 * float(x.std(ddof=1)) / math.sqrt(len(x))
    return m, m - half, m + half


def share_ci(on: np.ndarray, of: np.ndarray, rng, boot: int = 2000) -> tuple[float, float, float]:
    idx = rng.integers(0, len(on), size=(boot, len(on)))
    shares = on[idx].sum(axis=1) / np.maximum(of[idx].sum(axis=1), 1)
    return float(on.sum() / max(of.sum(), 1)), *np.quantile(shares, [0.025, 0.975]).tolist()


def share_diff_ci(a: dict, b: dict, rng, boot: int = 2000) -> tuple[float, float, float]:
    n = len(a["golden_max"])
    idx = rng.integers(0, n, size=(boot, n))

    def share(p, i):
        return p["golden_max"][i].sum(axis=-1) / np.maximum(p["golden_placed"][i].sum(axis=-1), 1)

    d = share(a, idx) - share(b, idx)
    whole = share(a, np.arange(n)) - share(b, np.arange(n))
    return float(whole), *np.quantile(d, [0.025, 0.975]).tolist()


def played_profile(name: str, players: int, games: int, seed: int, cache: Path | None, threads=None):
    """``profile`` of ``games`` games with ``name`` at every seat, and the seconds they took.

    Games are a pure function of the seed, so a reference policy's profile
    is kept in ``cache`` (when given) and read back by later runs.
    """
    path = cache / f"{name.replace(':', '_')}-{players}p-{games}-{seed}.npz" if cache else None
    if path is not None and path.exists():
        with np.load(path) as f:
            return {k: f[k] for k in f.files if k != "seconds"}, float(f["seconds"])
    ids, params = parse_seats(name, players)
    start = time.perf_counter()
    rec = play_games(Rules(players=players), seed, 0, games, ids, params, threads=threads)
    seconds = time.perf_counter() - start
    per = profile(rec)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, seconds=seconds, **per)
    return per, seconds


def compare_profiles(players: int, games: int, seed: int, reference: str, cache: Path | None = None) -> dict:
    out = {"players": players, "games": games, "seed": seed}
    per = {}
    for name, kept in (("expert", None), (reference, cache)):
        per[name], out[f"{name}_seconds"] = played_profile(name, players, games, seed, kept)
    rng = np.random.default_rng(seed)
    a, b = per["expert"], per[reference]
    for key in ("elimination", "rounds"):
        out[key] = {
            "expert": mean_ci(a[key]),
            reference: mean_ci(b[key]),
            "difference": mean_ci(a[key] - b[key]),
        }
    out["golden_on_max"] = {
        "expert": share_ci(a["golden_max"], a["golden_placed"], rng),
        reference: share_ci(b["golden_max"], b["golden_placed"], rng),
        "difference": share_diff_ci(a, b, rng),
    }
    return out


def fmt(t, pct=True):
    m, lo, hi = t
    if pct:
        return f"{100 * m:6.1f}% [{100 * lo:5.1f}, {100 * hi:5.1f}]"
    return f"{m:6.2f} [{lo:5.2f}, {hi:5.2f}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2000, help="deals per player count for the profile")
    ap.add_argument("--duel-games", type=int, default=400, help="deals per duel (each played once per rotation)")
    ap.add_argument("--players", default="3,4,5")
    ap.add_argument("--reference", default="lookahead:64")
    ap.add_argument("--opponents", default="lookahead:32,greedy,cautious")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--skip", default="", help="comma list of parts to skip: profile,duels,cost")
    ap.add_argument("--cache", type=Path, default=Path(__file__).resolve().parent / ".cache",
                    help="where the reference policy's profiles are kept between runs")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    player_counts = [int(p) for p in args.players.split(",")]

    profiles, duels, costs = [], [], []
    if "cost" not in skip:
        for policy in ("greedy", "expert"):
            r = bench_core(GAME, Rules(players=4), policy, 200_000)
            print(json.dumps(r), flush=True)
            costs.append(r)
    if "profile" not in skip:
        for players in player_counts:
            r = compare_profiles(players, args.games, args.seed, args.reference, args.cache)
            print(json.dumps(r), flush=True)
            profiles.append(r)
    if "duels" not in skip:
        for players in player_counts:
            for against in args.opponents.split(","):
                seats = ["expert"] + [against] * (players - 1)
                r = duel(get_game("lasvegan"), Rules(players=players), seats, args.duel_games, args.seed,
                         progress=sys.stderr.isatty())
                row = {"players": players, "against": against, "games": args.duel_games,
                       **{k: r["policies"]["expert"][k] for k in ("win_share", "win_share_ci", "fair_share")}}
                print(json.dumps(row), flush=True)
                duels.append(row)

    if costs:
        g, e = (c["games_per_second"] for c in costs)
        print(f"\ncost at 4 players, {costs[0]['threads']} threads: greedy {g:,.0f} games/s, "
              f"expert {e:,.0f} games/s ({g / e:.1f}x greedy's time per game)")
    if profiles:
        ref = args.reference
        print(f"\nprofile, all seats expert vs all seats {ref}, same deals (95% intervals)")
        print(f"{'players':>7}  {'measure':<14}{'expert':>26}{ref:>26}{'difference':>28}")
        for r in profiles:
            for key, pct in (("elimination", True), ("rounds", False), ("golden_on_max", True)):
                row = r[key]
                print(f"{r['players']:>7}  {key:<14}{fmt(row['expert'], pct):>26}{fmt(row[ref], pct):>26}"
                      f"{fmt(row['difference'], pct):>28}")
    if duels:
        print("\nduels: one expert seat, the others all the same policy, seats rotated")
        print(f"{'players':>7}  {'against':<14}{'deals':>6}{'fair':>7}{'expert win share':>18}   95% CI")
        for r in duels:
            lo, hi = r["win_share_ci"]
            print(f"{r['players']:>7}  {r['against']:<14}{r['games']:>6}{r['fair_share']:>7.3f}"
                  f"{r['win_share']:>18.3f}   [{lo:.3f}, {hi:.3f}]")


if __name__ == "__main__":
    main()
