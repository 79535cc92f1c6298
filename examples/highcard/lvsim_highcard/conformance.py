"""What the shared conformance suite (``tests/conformance``) asks of High Card. Imported by the tests only."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from hypothesis import strategies as st

from sim import conformance_kit as kit
from sim.rng import Stream

from lvsim_highcard import enums as E
from lvsim_highcard.params import Rules
from lvsim_highcard.rules import PLAY_LOOP as PLAY_LOOP  # declared to the suite
from lvsim_highcard.rules import GameState, Observation, RandomPolicy, deal, policy_named

# --- rule sets and seats -------------------------------------------------------------------


@st.composite
def rule_sets(draw) -> Rules:
    """Any valid rule set."""
    players = draw(st.integers(E.MIN_PLAYERS, E.MAX_PLAYERS))
    top = draw(st.integers(2, E.MAX_TOP))
    copies = draw(st.integers(-(-players // top), E.MAX_COPIES))  # a card for every player at least
    hand = draw(st.integers(1, min(E.MAX_HAND, top * copies // players)))
    return Rules(players=players, top=top, copies=copies, hand=hand,
                 rounds=draw(st.integers(1, min(hand, E.MAX_ROUNDS))), ties=draw(st.sampled_from(["nobody", "shared"])))


POLICY_FORMS: dict[str, tuple[str, ...]] = {"random": ("random",), "greedy": ("greedy",)}


def reference_player(rules, name: str):
    """The reference engine's player for a policy name."""
    return policy_named(name)


# --- what a policy is handed, in either engine ------------------------------------------------



def _card(pub, hand):
    return {"decision": "card", "pub": pub.copy(), "hand": np.array(hand)}


KERNEL_POLICY_CALLS = {
    "choose_card_nb": lambda pid, params, pub, hand, states, row: (
        _card(pub, hand), (pid, params, pub, hand, states, row)),
}


class Recorded(kit.Recorded):
    def choose_card(self, obs: Observation, rng: Stream) -> int:
        self.note(_card(obs.to_pub(), obs.hand_array()))
        return self.policy.choose_card(obs, rng)




# --- situations differing only in what the seat to move cannot see -----------------------------


class Situation(NamedTuple):
    obs: Observation
    others: tuple  # the other seats' hands, as counts by value


def _midgame(rules: Rules, seed: int, turns: int) -> GameState:
    """A game of random seats stopped ``turns`` cards into its second round."""
    table = Stream(seed, 0, E.STREAM_TABLE)
    streams = [Stream(seed, 0, E.STREAM_POLICY + s) for s in range(rules.players)]
    state = GameState(rules, deal(rules, table))
    for r in range(2):
        state.start_round()
        while not state.round_over and (r == 0 or len(state.plays) < turns):
            seat = state.to_move
            state.play(seat, RandomPolicy().choose_card(state.observe(seat), streams[seat]))
        if r == 0:
            state.end_round()
    return state


def _situation(state: GameState) -> Situation:
    seat = state.to_move
    others = tuple(tuple(state.hands[s][v] for v in range(state.rules.top + 1))
                   for s in range(state.rules.players) if s != seat)
    return Situation(state.observe(seat), others)


def hidden_pairs() -> list[tuple[Situation, Situation]]:
    """The same table and hand with another seat holding an undealt card in place of one of its own."""
    pairs = []
    for players in range(E.MIN_PLAYERS, E.MAX_PLAYERS + 1):
        rules = Rules(players=players, top=12, copies=3, hand=6, rounds=4)
        for seed in range(3):
            state = _midgame(rules, seed, turns=seed % players)
            other = (state.to_move + 1 + seed) % players
            if other == state.to_move:
                other = (other + 1) % players
            held = min(v for v, n in state.hands[other].items() if n > 0)
            undealt = [v for v in range(1, rules.top + 1) if v != held
                       and state.seen[v] + sum(h[v] for h in state.hands) < rules.copies]
            changed = _copy(state)
            changed.hands[other][held] -= 1
            changed.hands[other][max(undealt)] += 1
            pairs.append((_situation(state), _situation(changed)))
    return pairs


def _copy(state: GameState) -> GameState:
    other = GameState.__new__(GameState)
    other.__dict__.update(state.__dict__)
    other.hands = [h.copy() for h in state.hands]
    return other


def seen_by_seat(sit: Situation) -> dict[str, Any]:
    return {"pub": sit.obs.to_pub(), "hand": sit.obs.hand_array()}


def unseen_by_seat(sit: Situation) -> tuple:
    return sit.others


def decide(sit: Situation, policy: str, stream: Stream) -> int:
    return policy_named(policy).choose_card(sit.obs, stream)


def seen_otherwise(sit: Situation) -> list[Situation]:
    """The situation with the seat's own hand changed, or a higher card shown this round."""
    hand = list(sit.obs.hand)
    low = min(v for v, n in enumerate(hand) if n > 0)
    high = max(v for v in range(1, sit.obs.top + 1) if v != low)
    hand[low] -= 1
    hand[high] += 1
    shown_high = sit.obs.top
    return [sit._replace(obs=replace(sit.obs, hand=tuple(hand))),
            sit._replace(obs=replace(sit.obs, best=shown_high))]


# --- bad [rules] tables, each with the key its error must name ---------------------------------

BAD_RULES: list[tuple[dict[str, Any], str]] = [
    *kit.bad_player_counts(E.MIN_PLAYERS, E.MAX_PLAYERS),
    ({"top": 1}, "top"),
    ({"copies": 0}, "copies"),
    ({"hand": 13}, "hand"),
    ({"rounds": 9}, "rounds"),
    ({"ties": "split"}, "ties"),
    ({"players": 5, "top": 4, "copies": 2, "hand": 2}, "hand"),
    ({"hand": 3, "rounds": 4}, "rounds"),
    ({"suits": 4}, "suits"),
]


# --- what the bad-input and fuzz suites garble (tests/test_badinput*.py) -------------------

# A small game, a value of every kind a [rules] table holds: the suites add the game and a [run].
SMALL_CONFIG = """
[rules]
players = 3
top = 6
copies = 2
hand = 3
rounds = 2
ties = "shared"

[policies]
seats = ["greedy", "random", "random"]
"""
# A rule knob and two of its whole values: a sweep steps them, a tune searches the range between.
SWEEP_AXIS = ("rules.rounds", (1, 2))
# A hand-given game that `lvsim replay --game highcard` plays (highcard-replay.json).
REPLAY_SCRIPT = (Path(__file__).parents[1] / "highcard-replay.json").read_text(encoding="utf-8")
