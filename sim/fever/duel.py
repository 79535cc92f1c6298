"""$ Fever duels: the shared duels of ``sim.duel``, bound to this game.

The deck's order is the same in every rotation because the table's stream
depends only on ``(seed, game)``; reshuffles follow the same stream, so
they match for as long as the discards do.
"""

from __future__ import annotations

from functools import partial

from sim import duel as shared
from sim.fever.game import GAME
from sim.fever.params import Rules

duel_table = shared.duel_table
# :func:`sim.duel.duel` of $ Fever: (rules, seats, games, seed, threads=None, field="--seats", progress=False)
duel = partial(shared.duel, GAME)


def skill_gap(rules: Rules, games: int = GAME.skill_gap_games, seed: int = 1, threads: int | None = None) -> dict:
    """:func:`sim.duel.skill_gap` of $ Fever."""
    return shared.skill_gap(GAME, rules, games, seed, threads)
