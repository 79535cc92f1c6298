"""The reference engine of High Card in the shared state protocol (``sim.state``): plain Python, the source of
truth the jitted core is checked against, stepped one action at a time: chance deals the cards one at a time, seat
0's hand first; a seat's action is the value of the card it plays. From it the shared code derives the OpenSpiel
game, the replay of named steps, the duels and the conformance suite's walks."""

from __future__ import annotations

from collections import Counter

import numpy as np

from sim import reference
from sim.errors import shown
from sim.reference import IllegalMove, PlayLoop
from sim.state import CHANCE, TERMINAL, Seen, Sizes, State

from lvsim_highcard import enums as E
from lvsim_highcard import policies as jitted_policies
from lvsim_highcard.params import TIES
from lvsim_highcard.records import LAYOUT


class HighCardState(State):
    """A game from its first card dealt: ``dealt``, then the ``hands`` (counts by value), the round's ``plays``
    ((seat, card) in order), the ``points`` and each finished round in ``rounds_played``."""

    def __init__(self, rules):
        super().__init__(rules)
        self.dealt: list[int] = []  # the cards dealt so far, seat 0's hand first
        self.hands: list[Counter] = []
        self.points = [0] * rules.players
        self.seen = [0] * (rules.top + 1)
        self.round, self.plays, self.rounds_played = 0, [], []

    @classmethod
    def sizes(cls, rules) -> Sizes:
        return Sizes(rules.top + 1, rules.top + 1, rules.players * (rules.hand + rules.rounds))

    @property
    def leader(self) -> int:
        return self.round % self.rules.players

    @property
    def best(self) -> int:
        return max((card for _, card in self.plays), default=0)

    def to_move(self) -> int:
        if not self.hands:
            return CHANCE
        return TERMINAL if self.round == self.rules.rounds else (self.leader + len(self.plays)) % self.rules.players

    def decision_kind(self) -> str | None:
        return "play" if self.to_move() >= 0 else None

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = Counter(self.rules.deck) - Counter(self.dealt)
        total = sum(left.values())
        return [(card, n / total) for card, n in sorted(left.items())]

    def legal_actions(self) -> list[int]:
        return sorted(card for card, n in self.hands[self.to_move()].items() if n)

    def apply(self, action: int):
        rules = self.rules
        if not self.hands:
            if action not in dict(self.chance_outcomes()):
                raise ValueError(f"no card {action} is left to deal")
            self.dealt.append(action)
            if len(self.dealt) == rules.players * rules.hand:
                self.hands = [Counter(self.dealt[s * rules.hand:(s + 1) * rules.hand]) for s in range(rules.players)]
            return Seen((len(self.dealt) - 1) // rules.hand, f"dealt {action}")
        seat = self.to_move()
        if seat == TERMINAL:
            raise IllegalMove(seat, "the game is over")
        if self.hands[seat][action] <= 0:
            held = ", ".join(map(str, sorted(self.hands[seat].elements())))
            raise IllegalMove(seat, f"seat {seat} plays a card of its hand ({held}), not {shown(action)}")
        self.hands[seat][action] -= 1
        self.seen[action] += 1
        self.plays.append((seat, action))
        if len(self.plays) == rules.players:
            self.end_round()
        return f"{seat} plays {action}"

    def end_round(self) -> None:
        """The highest card scores; a tie scores nobody or every tied seat (``rules.ties``)."""
        high = self.best
        top = [s for s, card in self.plays if card == high]
        scorers = sorted(top) if len(top) == 1 or self.rules.ties == "shared" else []
        for s in scorers:
            self.points[s] += 1
        self.rounds_played.append({"round": self.round + 1, "leader": self.leader,
                                   "plays": [{"seat": s, "card": c} for s, c in self.plays],
                                   "high": high, "scorers": scorers, "points": list(self.points)})
        self.round, self.plays = self.round + 1, []

    def observe(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """What ``seat`` may know, as its jitted policy reads it: ``pub``, the table as every seat sees it
        (``enums.P_*``), and its own hand (counts by value, ``MAX_TOP + 1`` long); nothing of the other hands."""
        rules, pub, hand = self.rules, np.zeros(E.PUB_SIZE, dtype=np.int64), np.zeros(E.MAX_TOP + 1, dtype=np.int64)
        pub[E.P_PLAYERS], pub[E.P_ROUNDS], pub[E.P_TOP], pub[E.P_TIES] = rules.players, rules.rounds, rules.top, TIES[rules.ties]
        pub[E.P_ROUND], pub[E.P_LEADER], pub[E.P_SEAT] = self.round, self.leader, seat
        pub[E.P_TURN], pub[E.P_BEST] = len(self.plays), self.best
        pub[E.P_POINTS:E.P_POINTS + rules.players] = self.points
        for s, card in self.plays:
            pub[E.P_PLAYED + s] = card
        pub[E.P_SEEN:E.P_SEEN + rules.top + 1] = self.seen
        for value, n in self.hands[seat].items():
            hand[value] = n
        return pub, hand

    def rounds_scored(self) -> int:
        return self.round

    def scores(self) -> list[float]:  # the most points win, a tie shares the win
        return [float(p) for p in self.points]

    def trace(self) -> dict:
        """A played game as ``lvsim replay`` prints it."""
        h = self.rules.hand
        return {"hands": [sorted(self.dealt[s * h:(s + 1) * h]) for s in range(self.rules.players)],
                "rounds": self.rounds_played, "points": list(self.points), "winners": self.winners()}

    def action_name(self, seat: int, action: int) -> str:
        return f"deal {action}" if seat == CHANCE else f"seat {seat} plays {action}"

    def parse_action(self, name: str) -> int | None:
        word, _, card = name.partition(" ")
        return int(card) if self.hands and word == "plays" and card.isdigit() else None

    def public_view(self) -> str:
        if not self.hands:
            return f"dealing, {len(self.dealt)} cards dealt"
        return f"round {self.round + 1} plays {self.plays} points {self.points} seen {self.seen}"

    def private(self, seat: int) -> str:
        h = self.rules.hand
        return f"hand {sorted(self.hands[seat].elements() if self.hands else self.dealt[seat * h:(seat + 1) * h])}"

    def resample(self, seat: int, words: np.ndarray) -> "HighCardState":
        """The other hands dealt again from the cards ``seat`` has not seen, each keeping its size."""
        other = self.clone()
        if not other.hands:
            return other
        played = Counter(v for v, n in enumerate(self.seen) for _ in range(n))
        unseen = sorted((Counter(self.rules.deck) - played - self.hands[seat]).elements())
        order = np.random.default_rng([int(w) for w in words]).permutation(len(unseen))
        cards = [unseen[i] for i in order]
        for s in range(self.rules.players):
            if s != seat:
                size = sum(self.hands[s].values())
                other.hands[s], cards = Counter(cards[:size]), cards[size:]
        return other


STATE = HighCardState


# --- the players and one whole game --------------------------------------------------------------

# A seat's one decision: ``choose_card(obs, rng)`` of a player, ``choose_card_nb(policy_id, params, pub, hand,
# states, row)`` of a jitted policy (the game kernel calls it so too). Every seat plays its jitted policy.
DECISIONS = (reference.Decision("choose_card", jitted_policies.choose_card_nb, lambda obs: obs, ("pub", "hand"), "card"),)
PLAYERS = reference.Players.of(DECISIONS, jitted_policies.POLICIES, stream_rows=True)
seat_player, player_named = PLAYERS.seat_player, PLAYERS.player_named


def play_out(rules, table, streams, policies) -> HighCardState:
    """The deck shuffled once from the table stream and dealt off the top, then each seat's policy in turn."""
    state, deck = STATE.new(rules), list(rules.deck)
    table.shuffle(deck)
    for card in deck[:rules.players * rules.hand]:
        state.apply_action(card)
    while not state.is_terminal():
        seat = state.to_move()
        state.apply_action(policies[seat].choose_card(state.observe(seat), streams[seat]))
    return state


def game_records(state: HighCardState, game: int) -> dict[str, np.ndarray]:
    rec, points = LAYOUT.one_game(state.rules), state.points
    rec["game"][...] = game
    rec["points"][:] = points
    rec["win_share"][:] = state.win_shares()
    rec["margin"][...] = 0 if len(state.winners()) > 1 else max(points) - sorted(points)[-2]
    for r, played in enumerate(state.rounds_played):
        by_seat = {p["seat"]: p["card"] for p in played["plays"]}
        rec["leader"][r], rec["high"][r], rec["scored"][r] = played["leader"], played["high"], len(played["scorers"])
        rec["card"][r] = [by_seat[s] for s in range(len(points))]
    return rec


PLAY_LOOP = PlayLoop.of(E, PLAYERS.random, play_out, game_records, STATE.trace)
play_game = PLAY_LOOP.play_game  # (rules, seed, game, policies=None, trace=False) -> records [, trace]
