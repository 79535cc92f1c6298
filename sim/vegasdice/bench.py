"""Timing of the Las Vegas jitted core: compiled first, no file output."""

from __future__ import annotations

from sim.vegasdice.params import Rules


def bench_core(players: int = 4, policy: str = "random", games: int = 1_000_000,
               threads: int | None = None, seed: int = 1) -> dict:
    """:func:`sim.bench.bench_core` of the rulebook game at ``players``."""
    from sim.bench import bench_core as shared
    from sim.vegasdice.game import GAME

    return shared(GAME, Rules(players=players), policy, games, threads, seed)
