"""What the shared conformance suite (``tests/conformance``) needs of $ Fever.

The suite reaches this module only through ``GAME.conformance``, and only in
tests: it imports hypothesis. See ``sim/vegasdice/conformance.py`` for the
same questions answered for Las Vegas.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from sim import conformance_kit as kit
from sim.fever import enums as E
from sim.fever.params import Rules
from sim.fever.rules import Observation
from sim.rng import Stream

SYMBOL_NAMES = ("cherry", "lemon", "bell", "bar", "seven", "plum")

# --- rule sets and seats -----------------------------------------------------------


@st.composite
def _entry(draw, names):
    kind = draw(st.sampled_from(["one", "one", "alternatives", "any"]))
    if kind == "any":
        return "*"
    if kind == "alternatives" and len(names) > 1:
        return "|".join(draw(st.lists(st.sampled_from(names), min_size=2, max_size=3, unique=True)))
    return draw(st.sampled_from(names))


@st.composite
def rule_sets(draw) -> Rules:
    """Any valid rule set: every knob drawn over the values it takes."""
    players = draw(st.integers(E.MIN_PLAYERS, E.MAX_PLAYERS))
    names = list(SYMBOL_NAMES[: draw(st.integers(1, len(SYMBOL_NAMES)))])
    counts = [draw(st.integers(1, 9)) for _ in names]
    needed = E.HAND * players + E.REELS
    counts[0] += max(0, needed - sum(counts))
    paytable = []
    for _ in range(draw(st.integers(1, 5))):
        if draw(st.booleans()):
            symbol = draw(st.sampled_from(names))
            entries = [symbol] * 3
        else:
            entries = [draw(_entry(names)) for _ in range(3)]
        paytable.append({"symbols": entries, "points": draw(st.integers(1, 6))})
    return Rules(
        players=players,
        target=draw(st.integers(1, 15)),
        deck=dict(zip(names, counts)),
        paytable=paytable,
        reels_ordered=draw(st.booleans()),
        double_up=draw(st.booleans()),
        double_extra_cards=draw(st.integers(0, 4)),
        double_max_cards=draw(st.integers(1, 3)),
        refill_after_scoring=draw(st.booleans()),
        reshuffle_discards=draw(st.booleans()),
        dealt_combination=draw(st.sampled_from(["waits", "redeal"])),
        turn_cap=draw(st.integers(1, 80)),
    )


# Every policy in forms cheap enough to play a few games by the reference engine.
POLICY_FORMS: dict[str, tuple[str, ...]] = {
    "random": ("random", "random:0.6"),
    "greedy": ("greedy", "greedy:4"),
    "montecarlo": ("montecarlo:2", "montecarlo:3"),
    "ismcts": ("ismcts:2",),  # OpenSpiel's search, played by the reference engine (the openspiel extra)
}


# --- what a policy is handed, in either engine ----------------------------------------



def _held(pub, hand) -> int:
    """The plays the hand allows, as the kernel's ``held`` word (``mechanics.held_nb``), worked out afresh."""
    max_play = min(int(pub[E.P_MAX_PLAY]), E.REELS)
    return sum(1 << (E.HELD_BITS * n + x) for x in range(int(pub[E.P_SYMBOLS])) for n in range(max_play) if hand[x] > n)


def _seen(decision, pub, hand):
    return {"decision": decision, "pub": pub.copy(), "hand": hand.copy(), "held": _held(pub, hand)}


# The game kernel calls these with what a policy decides from: each entry
# gives what the policy is handed, and the arguments to pass on. The random
# policy is handed its legal plays alone (``held``) and, to double, nothing.
KERNEL_POLICY_CALLS = {
    "random_double_at_nb": lambda permille, states, row: ({"decision": "double"}, (permille, states, row)),
    "random_play_at_nb": lambda held, states, row: ({"decision": "play", "held": int(held)}, (held, states, row)),
    "decide_double_nb": lambda pid, params, pub, hand, table, points, states, row: (
        _seen("double", pub, hand), (pid, params, pub, hand, table, points, states, row)),
    "greedy_play_nb": lambda pub, hand, table, points: (_seen("play", pub, hand), (pub, hand, table, points)),
    "decide_play_nb": lambda pid, params, pub, hand, table, points, states, row: (
        _seen("play", pub, hand), (pid, params, pub, hand, table, points, states, row)),
    "decide_keep_nb": lambda pid, params, pub, hand, table, points, states, row, keep: (
        _seen("keep", pub, hand), (pid, params, pub, hand, table, points, states, row, keep)),
}


class Recorded(kit.Recorded):
    """A reference-engine player that notes what it is handed before deciding."""

    def _note(self, decision: str, obs: Observation) -> None:
        self.note(_seen(decision, obs.to_pub(), obs.hand_array()))

    def double(self, obs, rng):
        self._note("double", obs)
        return self.policy.double(obs, rng)

    def play(self, obs, rng):
        self._note("play", obs)
        return self.policy.play(obs, rng)

    def keep(self, obs, rng):
        self._note("keep", obs)
        return self.policy.keep(obs, rng)




# --- situations that differ only in what the seat to move cannot see (sim.conformance_kit.information_hooks:
# random games stopped at each kind of decision, the other hands and the deck dealt again) ------------------


def decide_at(state, player, stream: Stream):
    """The seat to move's decision as ``player`` makes it: whether to double, its play (coded ``symbol * 8 +
    reel mask``) or, after a double, the next card kept."""
    obs = state.state.observe(state.to_move())
    kind = state.decision_kind()
    if kind == "double":
        return bool(player.double(obs, stream))
    if kind == "play":
        return player.play(obs, stream).code
    return player.keep(obs, stream)


# --- bad [rules] tables beyond those the knobs' domains give (sim.conformance_kit.bad_rules_of): entries of
# a list or table, and good values refused together, each with the key its error must name --------------

BAD_COMBINATIONS: list[tuple[dict[str, Any], str]] = [
    ({"deck": {"cherry": 5}}, "deck"),
    ({"deck": {"cherry": 0, "lemon": 20}}, "deck.cherry"),
    ({"deck": [1, 2]}, "deck"),
    ({"paytable": [{"symbols": ["apple", "apple", "apple"], "points": 2}]}, "paytable[0].symbols"),
    ({"paytable": [{"symbols": ["seven", "seven", "seven"], "points": -1}]}, "paytable[0].points"),
    ({"paytable": [{"symbols": ["seven", "seven"], "points": 1}]}, "paytable[0].symbols"),
    ({"paytable": [{"symbols": ["seven"] * 3, "points": 1, "bonus": 2}]}, "paytable[0].bonus"),
    ({"paytable": []}, "paytable"),
]


# --- what the bad-input and fuzz suites garble (tests/test_badinput*.py) -------------------

# A small game, a value of every kind a [rules] table holds: the suites add the game and a [run].
SMALL_CONFIG = """
[rules]
players = 3
target = 4
deck = { cherry = 8, bar = 5, double_bar = 3, seven = 4 }
paytable = [
  { symbols = ["seven", "seven", "seven"], points = 3 },
  { symbols = ["bar|double_bar", "*", "bar"], points = 2 },
]
turn_cap = 60

[policies]
seats = ["greedy", "random:0.3", "montecarlo:2"]
"""
# A rule knob and two of its whole values: a sweep steps them, a tune searches the range between. $ Fever has no
# rounds: the target it is.
SWEEP_AXIS = ("rules.target", (2, 4))
# A hand-given game that `lvsim replay` plays (docs/replay.md).
REPLAY_SCRIPT = """{
 "players": 2,
 "rules": {"target": 1},
 "deck": ["cherry", "lemon", "cherry", "lemon", "bell", "seven", "cherry", "bell", "lemon"],
 "turns": [{"seat": 0, "play": {"symbol": "cherry", "reels": [2, 3]}}]
}"""
