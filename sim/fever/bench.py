"""Timing of the $ Fever jitted core: compiled first, no file output."""

from __future__ import annotations

from sim.fever.params import Rules


def bench_core(players: int = 4, policy: str = "random", games: int = 1_000_000,
               threads: int | None = None, seed: int = 1) -> dict:
    """:func:`sim.bench.bench_core` of the rules document's game at ``players``."""
    from sim.bench import bench_core as shared
    from sim.fever.game import GAME

    return shared(GAME, Rules(players=players), policy, games, threads, seed)
