"""Timing of the jitted core and of single policy decisions: compiled first, no file output."""

from __future__ import annotations

import time

import numpy as np

from sim.lasvegan import enums as E
from sim.lasvegan.params import Rules
from sim.lasvegan.table import Table, seat_stream


def bench_core(players: int = 4, policy: str = "random", games: int = 1_000_000,
               threads: int | None = None, seed: int = 1) -> dict:
    """:func:`sim.bench.bench_core` of the rulebook game at ``players``."""
    from sim.bench import bench_core as shared
    from sim.lasvegan.game import GAME

    return shared(GAME, Rules(players=players), policy, games, threads, seed)


def bench_decisions(policy: str = "lookahead:64", players: int = 4, situations: int = 200, seed: int = 1) -> dict:
    """Time one policy's decisions in situations sampled from real rounds.

    Each situation is a round dealt at random and played by ``greedy`` up to
    a random point; only card choices with at least two legal cards are
    timed (with one there is nothing to decide), and placements separately.
    A first decision is made untimed so compilation is not counted.
    """
    rng = np.random.default_rng(seed)
    cards, placements = [], []
    while len(cards) < situations:
        table = Table.dealt_at_random(players, int(rng.integers(2**32)))
        table.advance("greedy", int(rng.integers(E.N_CARDS - E.N_CARDS % players)))
        if table.round_over:
            continue
        if table.owed:
            placements.append(table)
        elif bin(table.legal()).count("1") > 1:
            cards.append(table)
    cards[0].copy().choose_card(policy)
    start = time.perf_counter()
    for s, table in enumerate(cards):
        table.choose_card(policy, seat_stream(seed, s, table.seat))
    card_seconds = time.perf_counter() - start
    start = time.perf_counter()
    for s, table in enumerate(placements):
        table.choose_placement(policy, seat_stream(seed, s, table.seat))
    placement_seconds = time.perf_counter() - start
    return {
        "players": players,
        "policy": policy,
        "card_decisions": len(cards),
        "mean_legal_cards": float(np.mean([bin(t.legal()).count("1") for t in cards])),
        "card_seconds": card_seconds,
        "card_decisions_per_second": len(cards) / card_seconds if card_seconds > 0 else float("inf"),
        "placements": len(placements),
        "placements_per_second": len(placements) / placement_seconds if placement_seconds > 0 else float("nan"),
    }
