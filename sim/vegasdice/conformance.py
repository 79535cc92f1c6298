"""What the shared conformance suite (``tests/conformance``) needs of Las Vegas.

The suite reaches this module only through ``GAME.conformance``, and only in
tests: it imports hypothesis. See ``sim/lasvegan/conformance.py`` for the
same questions answered for Las Vegan.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, NamedTuple

import numpy as np
from hypothesis import strategies as st

from sim import conformance_kit as kit
from sim.rng import Stream
from sim.vegasdice import enums as E
from sim.vegasdice.params import Rules
from sim.vegasdice.rules import (
    GameState,
    Observation,
    RandomPolicy,
    Roll,
    player_named,
    roll_counts,
    roll_for,
    shuffled_pile,
)

# --- rule sets and seats -----------------------------------------------------------


@st.composite
def rule_sets(draw) -> Rules:
    """Any valid rule set: every knob drawn over the values it takes."""
    players = draw(st.integers(E.MIN_PLAYERS, E.MAX_PLAYERS))
    casinos = draw(st.integers(2, 8))
    values = draw(st.lists(st.integers(1, 9).map(lambda v: v * 10000), min_size=1, max_size=5, unique=True))
    bills = [[v, draw(st.integers(1, 8))] for v in values]
    total = sum(v * n for v, n in bills)
    minimum = draw(st.integers(1, max(1, min(total // casinos, 9 * min(values)))))
    return Rules(
        players=players,
        rounds=draw(st.integers(1, 6)),
        dice_per_player=draw(st.integers(1, 9)),
        casinos=casinos,
        bills=bills,
        casino_minimum=minimum,
        white_dice=draw(st.sampled_from(["auto", 0, 1, 3])),
        white_dice_extra_at_3=draw(st.sampled_from(["auto", False] + ([True] if players == 3 else []))),
        tie_break=draw(st.sampled_from(["bills", "count", "none"])),
        empty_pile=draw(st.sampled_from(["short", "end"])),
    )


# Every policy in forms cheap enough to play a few games by the reference engine.
POLICY_FORMS: dict[str, tuple[str, ...]] = {
    "random": ("random",),
    "greedy": ("greedy",),
    "montecarlo": ("montecarlo:2", "montecarlo:3"),
    "ismcts": ("ismcts:2",),  # OpenSpiel's search, played by the reference engine (the openspiel extra)
}


# --- what a policy is handed, in either engine ----------------------------------------



def _value(pub, own, white):
    return {"decision": "value", "pub": pub.copy(), "own": own.copy(), "white": white.copy()}


# The game kernel calls these with what a policy decides from: each entry
# gives what the policy is handed, and the arguments to pass on.
KERNEL_POLICY_CALLS = {
    "random_value_at_nb": lambda pub, own, white, states, row: (
        _value(pub, own, white), (pub, own, white, states, row)),
    "greedy_value_nb": lambda pub, own, white: (_value(pub, own, white), (pub, own, white)),
    "choose_value_nb": lambda pid, params, pub, own, white, rng: (
        _value(pub, own, white), (pid, params, pub, own, white, rng)),
}


class Recorded(kit.Recorded):
    """A reference-engine player that notes what it is handed before deciding."""

    def choose_value(self, obs: Observation, roll: Roll, rng: Stream) -> int:
        own, white = roll_counts(roll, obs.casinos)
        self.note(_value(obs.to_pub(), own, white))
        return self.policy.choose_value(obs, roll, rng)




# --- situations that differ only in what the seat to move cannot see ----------------------


class Situation(NamedTuple):
    """The rules, the seat to move's view and roll, and what it cannot see: the pile, top first."""

    rules: Rules
    obs: Observation
    roll: Roll
    pile: tuple[int, ...]


def midround(rules, seed, turns):
    """A game of random seats stopped ``turns`` turns into its second round,
    with the roll of the seat to move; also the same table with the bills
    still in the pile in another order."""
    table = Stream(seed, 0, E.STREAM_TABLE)
    streams = [Stream(seed, 0, E.STREAM_POLICY + s) for s in range(rules.players)]
    pile = shuffled_pile(rules, table)
    state = GameState(rules, pile)
    for r in range(2):
        state.start_round()
        if rules.n_extra_white:
            state.place_extra_white([1 + table.below(rules.casinos) for _ in range(rules.n_extra_white)])
        n = 0
        while not state.round_over and (r == 0 or n < turns):
            seat = state.to_move
            roll = roll_for(state, seat, table)
            state.take_turn(seat, roll, RandomPolicy().choose_value(state.observe(seat), roll, streams[seat]))
            n += 1
        if r == 0:
            state.end_round()
    seat = state.to_move
    other = GameState(rules, pile)
    other.__dict__.update({k: v for k, v in state.__dict__.items() if k != "pile"})
    hidden = list(state.pile)
    np.random.default_rng(seed).shuffle(hidden)
    other.pile = type(state.pile)(hidden)
    return state, other, seat, roll_for(state, seat, table)


def hidden_pairs() -> list[tuple[Situation, Situation]]:
    """The same table and roll with the bills still in the pile in another order, at 2 to 5 players."""
    pairs = []
    for players in range(E.MIN_PLAYERS, E.MAX_PLAYERS + 1):
        for seed in range(4):
            rules = Rules(players=players)
            state, other, seat, roll = midround(rules, seed, turns=1 + 2 * seed)
            pairs.append((Situation(rules, state.observe(seat), roll, tuple(state.pile)),
                          Situation(rules, other.observe(seat), roll, tuple(other.pile))))
    return pairs


def seen_by_seat(sit: Situation) -> dict[str, Any]:
    """Everything the seat to move decides from: the table as it sees it and its own roll."""
    own, white = roll_counts(sit.roll, sit.obs.casinos)
    return {"pub": sit.obs.to_pub(), "own": own, "white": white}


def unseen_by_seat(sit: Situation) -> tuple:
    """What the seat to move cannot see: the order of the pile (the dice not yet rolled
    come from the table stream, which no policy reads)."""
    return sit.pile


def decide(sit: Situation, policy: str, stream: Stream) -> int:
    return player_named(sit.rules, policy).choose_value(sit.obs, sit.roll, stream)


def seen_otherwise(sit: Situation) -> list[Situation]:
    """The situation with something the seat does see changed: its roll, or the bills on casino 6."""
    casinos = sit.obs.casinos
    other_roll = Roll(tuple(1 + (f % casinos) for f in sit.roll.own), sit.roll.white)
    bills = tuple((90000,) * 3 if c == 5 else b for c, b in enumerate(sit.obs.casino_bills))
    richer = replace(sit.obs, casino_bills=bills)
    return [sit._replace(roll=other_roll), sit._replace(obs=richer)]


# --- bad [rules] tables beyond those the knobs' domains give (sim.conformance_kit.bad_rules_of): entries of
# a list or table, and good values refused together, each with the key its error must name --------------

BAD_COMBINATIONS: list[tuple[dict[str, Any], str]] = [
    ({"white_dice": 9}, "white_dice"),
    ({"white_dice_extra_at_3": True, "players": 4}, "white_dice_extra_at_3"),
    ({"bills": [[10000]]}, "bills[0]"),
    ({"bills": [[0, 5]]}, "bills[0][0]"),
    ({"bills": [[10000, 5], [20000, -1]]}, "bills[1][1]"),
    ({"bills": [[50000, 10], [50000, 2]]}, "bills[1]"),
    ({"casino_minimum": 200_000}, "casino_minimum"),
]


# --- what the bad-input and fuzz suites garble (tests/test_badinput*.py) -------------------

# A small game, a value of every kind a [rules] table holds: the suites add the game and a [run].
SMALL_CONFIG = """
[rules]
players = 3
rounds = 2
casinos = 6
white_dice = 2
bills = [[10000, 6], [50000, 6], [90000, 5]]

[policies]
seats = ["greedy", "random", "montecarlo:2"]
"""
# A hand-given game that `lvsim replay` plays (docs/replay.md).
REPLAY_SCRIPT = """{
 "players": 2,
 "rules": {"casinos": 2, "dice_per_player": 2, "white_dice": 0, "bills": [[50000, 2], [90000, 2]]},
 "pile": [90000, 50000, 50000, 90000],
 "rounds": [{"turns": [{"seat": 0, "roll": [1, 1], "place": 1}, {"seat": 1, "roll": [2, 1], "place": 2},
                       {"seat": 1, "roll": [1], "place": 1}]}]
}"""
