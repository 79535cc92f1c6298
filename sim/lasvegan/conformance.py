"""What the shared conformance suite (``tests/conformance``) needs of Las Vegan.

The suite reaches this module only through ``GAME.conformance``, and only in
tests: it imports hypothesis. Every game answers the same questions — which
rule sets and seats to draw, how the reference engine plays a game, what a
policy is handed at each decision in either engine, which situations differ
only in what the seat to move cannot see, which ``[rules]`` tables are bad —
so that one suite checks every game alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from sim import conformance_kit as kit
from sim.lasvegan import enums as E
from sim.lasvegan.params import Rules
from sim.lasvegan.rules import card_mask
from sim.rng import Stream

# --- rule sets and seats -----------------------------------------------------------

STICKERS = [f"suit:{s}" for s in E.SUIT_NAMES] + [f"value:{v}" for v in range(10)]
faces = st.integers(-5, 5)


@st.composite
def rule_sets(draw) -> Rules:
    """Any valid rule set: every knob drawn over the values it takes."""
    players = draw(st.integers(E.MIN_PLAYERS, E.MAX_PLAYERS))
    rounds = draw(st.integers(1, E.MAX_ROUNDS))
    fewest = E.N_CARDS % players
    # any count that leaves every seat at least one card, the rest dividing evenly
    extra_per_seat = draw(st.integers(0, (E.N_CARDS - players - fewest) // players))
    set_aside = draw(st.sampled_from(["auto", fewest + players * extra_per_seat]))
    starting = draw(st.integers(1, 20))
    # as many seats as the list gives, the seats beyond the table's size included (they change nothing)
    seat_cabbages = draw(st.lists(st.integers(0, 3), max_size=E.MAX_PLAYERS))
    return Rules(
        players=players,
        rounds=rounds,
        starting_cabbages=starting,
        seat_cabbages=seat_cabbages,
        total_cabbages=starting * players + sum(seat_cabbages[:players]) + draw(st.integers(0, 40)),
        reserve=draw(st.sampled_from(["finite", "unlimited"])),
        end_on_elimination=draw(st.booleans()),
        set_aside=set_aside,
        set_aside_face=draw(st.sampled_from(["hidden", "revealed"])),
        machines=draw(st.lists(st.sampled_from(STICKERS), min_size=3 * rounds, max_size=16)),
        tokens=draw(st.lists(st.tuples(faces, faces), min_size=1, max_size=8)),
        golden_token=draw(st.tuples(faces, faces)),
        payout_order=draw(st.sampled_from(["next_leader", "seat_zero"])),
    )


# Every policy in forms cheap enough to play a few games by the reference engine.
POLICY_FORMS: dict[str, tuple[str, ...]] = {
    "random": ("random",),
    "greedy": ("greedy",),
    "cautious": ("cautious",),
    "expert": ("expert",),
    "lookahead": ("lookahead:2", "lookahead:2:win"),
    "epsilon": ("epsilon:0.3:greedy", "epsilon:0.5:lookahead:2", "epsilon:0.2:expert", "epsilon:0.4:cautious"),
    "ismcts": ("ismcts:2",),  # OpenSpiel's search, played by the reference engine (the openspiel extra)
}


# --- what a policy is handed, in either engine ----------------------------------------



def _card(pub, hand, legal):
    return {"decision": "card", "pub": pub.copy(), "hand": int(hand), "legal": int(legal)}


def _placement(pub, hand):
    return {"decision": "placement", "pub": pub.copy(), "hand": int(hand)}


# The game kernel calls these with what a policy decides from. Each entry
# gives what the policy is handed, and the arguments as the compiled kernel
# passes them (a mask comes back from a jitted call as a Python int: it goes
# on as the uint64 the kernel holds, so no new variant is compiled).
KERNEL_POLICY_CALLS = {
    "random_card_at_nb": lambda legal, states, row: (
        {"decision": "card", "legal": int(legal)}, (np.uint64(legal), states, row)),
    "greedy_card_nb": lambda pub, hand, legal: (_card(pub, hand, legal), (pub, hand, np.uint64(legal))),
    "cautious_card_nb": lambda pub, hand, legal: (_card(pub, hand, legal), (pub, hand, np.uint64(legal))),
    "expert_card_default_nb": lambda pub, hand, legal: (_card(pub, hand, legal), (pub, hand, np.uint64(legal))),
    "choose_card_nb": lambda pid, params, pub, hand, legal, rng: (
        _card(pub, hand, legal), (pid, params, pub, hand, np.uint64(legal), rng)),
    "random_placement_at_nb": lambda pub, states, row, out: (
        {"decision": "placement", "pub": pub.copy()}, (pub, states, row, out)),
    "greedy_placement_nb": lambda pub, hand, out: (_placement(pub, hand), (pub, hand, out)),
    "cautious_placement_nb": lambda pub, hand, out: (_placement(pub, hand), (pub, hand, out)),
    "expert_placement_at_nb": lambda pub, hand, states, row, out: (
        _placement(pub, hand), (pub, hand, states, row, out)),
    "choose_placement_nb": lambda pid, params, pub, hand, rng, out: (
        _placement(pub, hand), (pid, params, pub, hand, rng, out)),
}


class Recorded(kit.Recorded):
    """A reference-engine player that notes what it is handed before deciding."""

    def choose_card(self, obs, legal, rng):
        self.note(_card(obs.to_pub(), card_mask(obs.hand), card_mask(legal)))
        return self.policy.choose_card(obs, legal, rng)

    def choose_placement(self, obs, rng):
        self.note(_placement(obs.to_pub(), card_mask(obs.hand)))
        return self.policy.choose_placement(obs, rng)




# --- situations that differ only in what the seat to move cannot see (sim.conformance_kit.information_hooks:
# random games stopped at each kind of decision, the others' hands and the cards set aside dealt again) -----

# Beyond the rulebook at each player count: the cards set aside shown, so that the seat does see them.
INFORMATION_RULES = ({"players": 3, "set_aside_face": "revealed"},)


def decide_at(state, player, stream: Stream):
    """The card the seat to move plays, or the placement it owes for a 7, as ``player`` chooses it."""
    gs = state.state
    obs = gs.observe(gs.to_move)
    if gs.placement_owed:
        return player.choose_placement(obs, stream)
    return player.choose_card(obs, gs.legal_cards(gs.to_move), stream)


# --- bad [rules] tables beyond those the knobs' domains give (sim.conformance_kit.bad_rules_of): entries of
# a list or table, and good values refused together, each with the key its error must name --------------

BAD_COMBINATIONS: list[tuple[dict[str, Any], str]] = [
    ({"starting_cabbages": 20, "total_cabbages": 40}, "total_cabbages"),
    ({"seat_cabbages": [0, -1]}, "seat_cabbages[1]"),
    ({"seat_cabbages": [0, 0, 10_001]}, "seat_cabbages[2]"),
    ({"seat_cabbages": [0, 0, 0, 0, 0, 0]}, "seat_cabbages"),
    ({"players": 5, "seat_cabbages": [1]}, "total_cabbages"),
    ({"players": 3, "set_aside": 2}, "set_aside"),
    ({"machines": ["suit:green", "value:5", "suit:orange"] * 4}, "machines[2]"),
    ({"machines": ["value:1"] * 5}, "machines"),
    ({"tokens": []}, "tokens"),
    ({"tokens": [[1, 99]]}, "tokens[0][1]"),
    ({"tokens": [[1]]}, "tokens[0]"),
    ({"golden_token": [3, 4, 5]}, "golden_token"),
]


# --- what the bad-input and fuzz suites garble (tests/test_badinput*.py) -------------------

# A small game, a value of every kind a [rules] table holds: the suites add the game and a [run].
SMALL_CONFIG = """
[rules]
players = 3
rounds = 2
tokens = [[1, -1], [1, -2], [0, -3]]
golden_token = [3, 4]
machines = ["suit:green", "suit:red", "value:1", "value:5", "value:8", "value:9"]

[policies]
seats = ["greedy", "random", "epsilon:0.2:greedy"]
"""


def _replay_example() -> str:
    from pathlib import Path

    return (Path(__file__).resolve().parents[2] / "tests" / "data" / "replay_example.json").read_text(encoding="utf-8")


# A hand-given game that `lvsim replay` plays (docs/replay.md).
REPLAY_SCRIPT = _replay_example()
