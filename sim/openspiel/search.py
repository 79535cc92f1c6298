"""OpenSpiel's information-set Monte Carlo tree search deciding for one seat of the reference engine.

A decision starts from the seat's observation alone: the table is rebuilt
from it with the cards (or tiles, dice) the seat cannot see drawn at random
(:meth:`~sim.state.State.from_observation`), as a rooted state
that ends with the current round. OpenSpiel's Python ``ISMCTSBot``
(``open_spiel.python.algorithms.ismcts``; its C++ twin does not take Python
games) then runs ``N`` simulations, each on a deal of the unseen cards drawn
afresh consistent with what the seat has seen (the table's ``resample``),
growing one tree keyed by information-state strings, and leaves of the tree
valued by one random play-out to the end of the round (OpenSpiel's
``RandomRolloutEvaluator``). The move is the most visited.

Every draw of a decision — the rebuilt deal, the redraws, the play-outs, the
tree's tie breaks — comes from one generator seeded by one number drawn from
the seat's own stream, so a game stays a pure function of ``(seed, game)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from open_spiel.python.algorithms import ismcts as information_set_search
from open_spiel.python.algorithms import mcts

from sim.openspiel.adapter import LvsimState
from sim.state import State
from sim.rng import Stream

# The exploration constant of UCT over returns near 1 (a round's gain divided by the table's value_scale).
UCT_C = 2.0


def fresh_words(generator: np.random.RandomState) -> np.ndarray:
    """Four nonzero words of a stream state, for a table's draw of the unseen cards."""
    return np.array(generator.randint(1, 2**62, size=4, dtype=np.int64), dtype=np.uint64)


class Search:
    """``ismcts:N`` for one game under one set of rules: ``action(obs, rng, **context)`` -> the OpenSpiel action."""

    def __init__(self, game, table: type[State], rules, simulations: int):
        self.game = game  # the OpenSpiel game (sim.openspiel.load)
        self.table = table
        self.rules = rules
        self.simulations = int(simulations)

    def action(self, obs, rng: Stream, **context: Any) -> int:
        generator = np.random.RandomState(rng.next() >> 32)
        table = self.table.from_observation(self.rules, obs, fresh_words(generator), **context)
        state = LvsimState.rooted(self.game, table)
        legal = state.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        bot = information_set_search.ISMCTSBot(
            self.game, mcts.RandomRolloutEvaluator(1, generator), UCT_C, self.simulations, random_state=generator,
            final_policy_type=information_set_search.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)
        bot.set_resampler(lambda sampled, seat: sampled.resampled(seat, fresh_words(generator)))
        return int(bot.step(state))
