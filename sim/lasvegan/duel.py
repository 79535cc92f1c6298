"""Las Vegan duels: the shared duels and skill gap of ``sim.duel``, bound to this game.

See ``sim.duel`` for how a duel rotates the seats over the same deals.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from sim import duel as shared
from sim.game import SkillDuel
from sim.lasvegan.game import GAME
from sim.lasvegan.params import Rules

# The skill-gap duels shown with every run: a few seconds together. The
# greedy-vs-random duel costs about a hundredth of the lookahead one per
# deal, so it plays many more deals for a tighter interval.
SKILL_GAP_GAMES = GAME.skill_gap_games
SKILL_GAP_LOOKAHEAD = GAME.skill_gap_duels[0].policy
SKILL_GAP_DUELS = tuple(d.name for d in GAME.skill_gap_duels)
duel_table = shared.duel_table
# :func:`sim.duel.duel` of Las Vegan: (rules, seats, games, seed, threads=None, field="--seats", progress=False)
duel = partial(shared.duel, GAME)
# :func:`sim.duel.tournament` of Las Vegan: (rules, policies, games, seed, threads=None)
tournament = partial(shared.tournament, GAME)


def skill_gap(rules: Rules, games: int = SKILL_GAP_GAMES, seed: int = 1, lookahead: str = SKILL_GAP_LOOKAHEAD,
              threads: int | None = None) -> dict:
    """:func:`sim.duel.skill_gap` of Las Vegan, with ``lookahead`` as its strong player."""
    first, *rest = GAME.skill_gap_duels
    game = replace(GAME, skill_gap_duels=(SkillDuel(first.name, lookahead, first.against, first.factor), *rest))
    return shared.skill_gap(game, rules, games, seed, threads)
