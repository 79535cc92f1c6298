"""High Card in the shared state protocol (``sim.state``): the reference game stepped one action at a time.

Chance deals the cards one at a time, seat 0's hand first, each value with
its share of the cards left; a seat's action is the value of the card it
plays. From this the OpenSpiel game (``lvsim_highcard``), the replay and
the duels are derived by the shared code.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from sim.state import CHANCE, TERMINAL, Seen, Sizes, State, fields_text

from lvsim_highcard.rules import GameState, game_trace


class HighCardState(State):
    stepped_lists = ("dealt",)

    def __init__(self, rules, state: GameState | None = None):
        super().__init__(rules)
        self.state = state
        self.dealt: list[int] = []  # the cards dealt so far, seat 0's hand first

    @classmethod
    def sizes(cls, rules) -> Sizes:
        return Sizes(rules.top + 1, rules.top + 1, rules.players * (rules.hand + rules.rounds))

    @staticmethod
    def copy_state(gs: GameState) -> GameState:
        other = GameState.__new__(GameState)
        other.__dict__.update(gs.__dict__)
        other.hands = [Counter(h) for h in gs.hands]
        other.points, other.seen, other.results = list(gs.points), list(gs.seen), list(gs.results)
        other.plays = list(getattr(gs, "plays", []))
        return other

    def to_move(self) -> int:
        if self.state is None:
            return CHANCE
        return TERMINAL if self.state.game_over else self.state.to_move

    def decision_kind(self) -> str | None:
        return "play" if self.to_move() >= 0 else None

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = Counter(self.rules.deck) - Counter(self.dealt)
        total = sum(left.values())
        return [(card, n / total) for card, n in sorted(left.items())]

    def legal_actions(self) -> list[int]:
        return sorted(card for card, n in self.state.hands[self.state.to_move].items() if n)

    def apply(self, action: int):
        if self.state is None:
            if action not in dict(self.chance_outcomes()):
                raise ValueError(f"no card {action} is left to deal")
            seat = len(self.dealt) // self.rules.hand
            self.dealt.append(action)
            if len(self.dealt) == self.rules.players * self.rules.hand:
                h = self.rules.hand
                self.state = GameState(self.rules, [self.dealt[s * h:(s + 1) * h] for s in range(self.rules.players)])
                self.state.start_round()
            return Seen(seat, f"dealt {action}")
        gs, seat = self.state, self.state.to_move
        gs.play(seat, action)
        event = f"{seat} plays {action}"
        if gs.round_over:
            gs.end_round()
            if not gs.game_over:
                gs.start_round()
        return event

    def rounds_scored(self) -> int:
        return 0 if self.state is None else len(self.state.results)

    def scores(self) -> list[float]:
        return [0.0] * self.rules.players if self.state is None else [float(p) for p in self.state.points]

    def win_shares(self) -> list[float]:
        winners = self.state.winners()
        return [1.0 / len(winners) if s in winners else 0.0 for s in range(self.rules.players)]

    def trace(self) -> dict:
        return game_trace(self.state)

    def action_name(self, seat: int, action: int) -> str:
        return f"deal {action}" if seat == CHANCE else f"seat {seat} plays {action}"

    def parse_action(self, name: str) -> int | None:
        word, _, card = name.partition(" ")
        return int(card) if self.state is not None and word == "plays" and card.isdigit() else None

    def observation(self, seat: int) -> str:
        return self.public_view() if self.state is None else fields_text(self.state.observe(seat))

    def public_view(self) -> str:
        if self.state is None:
            return f"dealing, {len(self.dealt)} cards dealt"
        return fields_text(self.state.observe(0), seat=None, hand=None)

    def private(self, seat: int) -> str:
        if self.state is None:
            h = self.rules.hand
            return f"hand {sorted(self.dealt[seat * h:(seat + 1) * h])}"
        return f"hand {sorted(self.state.hands[seat].elements())}"

    def resample(self, seat: int, words: np.ndarray) -> "HighCardState":
        """The other hands dealt again from the cards ``seat`` has not seen, each keeping its size."""
        other = self.clone()
        if other.state is None:
            return other
        gs = other.state
        unseen = sorted((Counter(self.rules.deck) - Counter(v for v, n in enumerate(gs.seen) for _ in range(n))
                         - gs.hands[seat]).elements())
        order = np.random.default_rng([int(w) for w in words]).permutation(len(unseen))
        cards = [unseen[i] for i in order]
        for s in range(self.rules.players):
            if s != seat:
                size = sum(gs.hands[s].values())
                gs.hands[s], cards = Counter(cards[:size]), cards[size:]
        return other


STATE = HighCardState
