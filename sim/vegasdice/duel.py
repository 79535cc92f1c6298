"""Las Vegas duels: the shared duels of ``sim.duel``, bound to this game.

The bill pile is the same in every rotation because the table's stream
depends only on ``(seed, game)``; the rolls follow the same stream, so they
match for as long as the players hold the same numbers of dice.
"""

from __future__ import annotations

from functools import partial

from sim import duel as shared
from sim.vegasdice.game import GAME
from sim.vegasdice.params import Rules

duel_table = shared.duel_table
# :func:`sim.duel.duel` of Las Vegas: (rules, seats, games, seed, threads=None, field="--seats", progress=False)
duel = partial(shared.duel, GAME)


def skill_gap(rules: Rules, games: int = GAME.skill_gap_games, seed: int = 1, threads: int | None = None) -> dict:
    """:func:`sim.duel.skill_gap` of Las Vegas."""
    return shared.skill_gap(GAME, rules, games, seed, threads)
