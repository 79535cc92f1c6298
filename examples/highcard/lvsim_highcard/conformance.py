"""What the shared conformance suite (``tests/conformance``) asks of High Card beyond what it derives from the
package (``sim.conformance_kit.completed``): what a policy is handed, in either engine; a decision at a state;
the [rules] tables no single knob refuses. Imported by the tests only."""

from __future__ import annotations

import numpy as np

from sim import conformance_kit as kit


def _card(pub, hand):
    return {"decision": "card", "pub": pub.copy(), "hand": np.array(hand)}


KERNEL_POLICY_CALLS = {
    "choose_card_nb": lambda pid, params, pub, hand, states, row: (_card(pub, hand), (pid, params, pub, hand, states, row)),
}


class Recorded(kit.Recorded):
    def choose_card(self, obs, rng) -> int:
        self.note(_card(obs.to_pub(), obs.hand_array()))
        return self.policy.choose_card(obs, rng)


def decide_at(state, player, stream) -> int:
    """The card ``player`` plays for the seat to move of the game's state."""
    return player.choose_card(state.observe(state.to_move()), stream)


BAD_COMBINATIONS = [({"players": 5, "top": 4, "copies": 2, "hand": 2}, "hand"), ({"hand": 3, "rounds": 4}, "rounds")]
