"""Timing of the Las Vegas jitted core: compiled first, no file output."""

from __future__ import annotations

import time

import numba

from sim.vegasdice.nb import play_games
from sim.vegasdice.params import Rules
from sim.vegasdice.policies import parse_seats


def bench_core(players: int = 4, policy: str = "random", games: int = 1_000_000,
               threads: int | None = None, seed: int = 1) -> dict:
    """Play ``games`` games with ``policy`` at every seat and time them.

    A small warm-up batch runs first so compilation (or loading the cached
    kernels) is not counted.
    """
    rules = Rules(players=players)
    ids, params = parse_seats(policy, players, field="--policy")
    play_games(rules, seed, 0, min(64, games), ids, params, threads=threads)
    used = numba.get_num_threads() if threads is None else min(threads, numba.config.NUMBA_NUM_THREADS)
    start = time.perf_counter()
    play_games(rules, seed, 0, games, ids, params, threads=threads)
    seconds = time.perf_counter() - start
    return {
        "game": "vegas-dice",
        "players": players,
        "policy": policy,
        "games": games,
        "threads": used,
        "seconds": seconds,
        "games_per_second": games / seconds if seconds > 0 else float("inf"),
    }
