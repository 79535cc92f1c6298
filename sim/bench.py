"""Timing of a game's jitted core: compiled first, no file output, any registered game."""

from __future__ import annotations

import time

from sim.errors import ConfigError
from sim.batches import threads_used
from sim.game import Game
from sim.memory import check_fits

# Enough games to time, few enough to allocate their records: about 300 bytes a game.
MAX_BENCH_GAMES = 20_000_000


def bench_core(game: Game, rules, policy: str = "random", games: int = 1_000_000, threads: int | None = None,
               seed: int = 1) -> dict:
    """Play ``games`` games of ``rules`` with ``policy`` at every seat and time them.

    A small warm-up batch runs first so compilation (or loading the cached
    kernels) is not counted.
    """
    ids, params = game.parse_seats(policy, rules.players, field="--policy")
    if game.policies.needs_reference(ids):
        raise ConfigError("--policy", f"{policy} is played by the reference engine, not by the jitted core this "
                                      "command times (bench/bench_ismcts.py times it against the game's players)")
    if not 1 <= games <= MAX_BENCH_GAMES:
        raise ConfigError("--games", f"must be between 1 and {MAX_BENCH_GAMES:,} (their records are held in memory), "
                                     f"got {games:,}")
    record = sum(a.nbytes for a in game.records.empty(1, rules).values())
    check_fits("--games", games, record, "games' records")
    game.play_games(rules, seed, 0, min(64, games), ids, params, threads=threads)
    used = threads_used(threads)
    start = time.perf_counter()
    game.play_games(rules, seed, 0, games, ids, params, threads=threads)
    seconds = time.perf_counter() - start
    return {
        "game": game.id,
        "players": rules.players,
        "policy": policy,
        "games": games,
        "threads": used,
        "seconds": seconds,
        "games_per_second": games / seconds if seconds > 0 else float("inf"),
    }
