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
from sim.lasvegan.policies import POLICIES, parse_policy
from sim.lasvegan.rules import card_mask
from sim.lasvegan.table import Table, mask_cards, seat_stream

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




# --- situations that differ only in what the seat to move cannot see ----------------------


def random_table(players, seed, moves, set_aside_face="hidden"):
    """A round dealt at random and played ``moves`` moves by random seats."""
    table = Table.dealt_at_random(players, seed, set_aside_face)
    table.advance("random", moves, seed=seed)
    return table


def hidden_dealt_otherwise(table, seed):
    """The same situation with the cards the seat to move cannot see dealt
    differently: shuffled among their holders within each suit, so every
    hand keeps its size and every void its truth."""
    other = table.copy()
    seat = table.seat
    revealed = other.pub[E.P_SET_ASIDE] != 0
    holders = [s for s in range(table.players) if s != seat] + ([] if revealed else ["aside"])
    rng = np.random.default_rng(seed)
    for suit in range(E.N_SUITS):
        slots = []
        for h in holders:
            held = other.set_aside if h == "aside" else int(other.hands[h])
            slots += [(h, c) for c in mask_cards(held) if c // 10 == suit]
        shuffled = rng.permutation([c for _, c in slots]).tolist()
        for (h, old), new in zip(slots, shuffled):
            if h == "aside":
                other.set_aside = other.set_aside & ~(1 << old) | (1 << new)
            else:
                other.hands[h] = np.uint64(int(other.hands[h]) & ~(1 << old) | (1 << new))
    return other


def situations(players, set_aside_face="hidden"):
    """Pairs of situations that differ only in what the seat to move cannot see."""
    pairs = []
    for seed in range(8):
        table = random_table(players, seed, moves=3 + 4 * seed, set_aside_face=set_aside_face)
        other = hidden_dealt_otherwise(table, seed)
        if other.hands.tolist() != table.hands.tolist():
            pairs.append((table, other))
    assert len(pairs) >= 6
    return pairs


def owed_placement(players, seed):
    """A random round played until a seat owes a placement for a 7."""
    table = random_table(players, seed, moves=0)
    stream = seat_stream(seed, 0, 0)
    while not table.owed:
        table.play(table.choose_card("random", stream))
    return table


def hidden_pairs() -> list[tuple[Table, Table]]:
    """Card choices at 3 and 4 players, with the set-aside cards hidden or shown, and placements."""
    pairs = situations(3) + situations(4) + situations(3, "revealed")
    for seed in range(6):
        table = owed_placement(3, seed)
        pairs.append((table, hidden_dealt_otherwise(table, seed)))
    return pairs


def seen_by_seat(table: Table) -> dict[str, Any]:
    """Everything the seat to move decides from: who it is, its hand, the public observation."""
    return {"seat": table.seat, "owed": table.owed, "hand": table.hand, "pub": table.pub.copy()}


def unseen_by_seat(table: Table) -> tuple:
    """What the seat to move cannot see: the others' hands and the cards set aside."""
    hands = [int(h) for s, h in enumerate(table.hands[:table.players]) if s != table.seat]
    return (*hands, table.set_aside)


def decide(table: Table, policy: str, stream: np.ndarray):
    """The seat to move's choice under ``policy``, drawing from ``stream``: a card, or a placement owed."""
    if POLICIES.needs_reference([parse_policy(policy)[0]]):  # OpenSpiel's search: the reference engine alone
        from sim.lasvegan.state import decide_from_pub

        return decide_from_pub(policy, table.pub, int(table.hand), bool(table.owed), stream)
    if table.owed:
        return table.choose_placement(policy, stream)
    return table.choose_card(policy, stream)


def decision_stream(table: Table) -> np.ndarray:
    return seat_stream(5, 9, table.seat)


def seen_otherwise(table: Table) -> list[Table]:
    """The situation with something the seat does see changed: the token faces, or its own hand."""
    faces = table.copy()
    faces.pub[E.P_TOKEN_VALUE:E.P_TOKEN_VALUE + 4] *= -1
    variants = [faces]
    if not table.owed:
        # Swap the seat's lowest legal card for an unseen card of the same suit.
        hand = table.copy()
        low = mask_cards(hand.legal())[0]
        for s in range(hand.players):
            same = [c for c in mask_cards(int(hand.hands[s])) if c // 10 == low // 10]
            if s != hand.seat and same:
                hand.hands[hand.seat] ^= np.uint64((1 << low) | (1 << same[0]))
                hand.hands[s] ^= np.uint64((1 << low) | (1 << same[0]))
                variants.append(hand)
                break
    return variants


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
    ({"tokens": [[1]]}, "tokens"),
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
