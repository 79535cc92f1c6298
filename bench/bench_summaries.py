"""What a run's "What moves the verdict" costs beyond its games: tallying, merging and summarising them.

Run: ``.venv/bin/python bench/bench_summaries.py [--games 2000] [--repeat 5]``.

The section plays each rule set's games in blocks (``sim.sensitivity.playing.block_tallies``) and reads
every headline metric of all the blocks together and of each block left out (``metric_values``: the
tallies' merges and eleven summaries). For each game's shipped config, in one process, the best of
``--repeat`` timings of each, for one rule set of ``--games`` games, and the second over the first: the
share of the section's time that is Python rather than play. A summary alone and a merge of two blocks'
tallies are timed too.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

from sim.config import load_config
from sim.sensitivity.playing import block_tallies, metric_values

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
GAMES = {"lasvegan": "default.toml", "vegas-dice": "vegas-dice.toml", "fever": "fever.toml"}


def best_of(repeat: int, fn) -> float:
    """The least seconds ``fn()`` took in ``repeat`` calls (after one call that loads what it needs)."""
    fn()
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        fn()
        times.append(time.perf_counter() - began)
    return min(times)


def measured(game_id: str, games: int, repeat: int) -> dict:
    """One game's timings (seconds, a summary's and a merge's milliseconds) and values over play."""
    config = replace(load_config(CONFIGS / GAMES[game_id]), games=games, threads=1)
    game = config.game_spec
    tallies = block_tallies(config, games)
    row = {
        "game": game_id, "games": games,
        "play_seconds": best_of(repeat, lambda: block_tallies(config, games)),
        "values_seconds": best_of(repeat, lambda: metric_values(config, tallies)),
        "summary_ms": 1000 * best_of(repeat, lambda: game.summarize(tallies[0], game=config.game)),
        "merge_ms": 1000 * best_of(repeat, lambda: tallies[0].merge(tallies[1])),
    }
    row["values_over_play"] = row["values_seconds"] / row["play_seconds"]
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2000, help="games of the rule set (default 2000)")
    ap.add_argument("--repeat", type=int, default=5, help="timings of each, the least kept (default 5)")
    args = ap.parse_args()
    rows = []
    for game_id in GAMES:
        rows.append(measured(game_id, args.games, args.repeat))
        print(json.dumps(rows[-1]))
    print(f"{'game':<11}{'play (s)':>10}{'values (s)':>12}{'values/play':>13}{'summary (ms)':>14}{'merge (ms)':>12}")
    for r in rows:
        print(f"{r['game']:<11}{r['play_seconds']:>10.3f}{r['values_seconds']:>12.4f}{r['values_over_play']:>13.3f}"
              f"{r['summary_ms']:>14.3f}{r['merge_ms']:>12.3f}")


if __name__ == "__main__":
    main()
