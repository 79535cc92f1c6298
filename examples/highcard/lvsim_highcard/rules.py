"""The reference engine of High Card: plain Python, the source of truth the jitted core is checked against.

* :class:`~lvsim_highcard.params.Rules` — the immutable knobs;
* :class:`GameState` — the game in progress: hands, the round's cards, points;
* :class:`Observation` — what a seat may know (``state.observe(seat)``):
  its own hand, every card played so far, the points;
* policies — objects with ``choose_card(obs, rng)``.

A move the rules forbid raises :class:`~sim.reference.IllegalMove` naming
the rule. The shuffle and the deal are those of the jitted core: the deck
in ``rules.deck`` order, shuffled once from the table stream, seat ``s``
dealt cards ``s * hand`` to ``(s + 1) * hand - 1``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from sim import reference
from sim.errors import shown
from sim.reference import IllegalMove, PlayLoop
from sim.rng import Stream

from lvsim_highcard import enums as E
from lvsim_highcard import policies as jitted_policies
from lvsim_highcard.params import Rules
from lvsim_highcard.records import LAYOUT


@dataclass(frozen=True)
class RoundResult:
    round: int  # 0-based
    leader: int
    plays: tuple[tuple[int, int], ...]  # (seat, card) in the order played
    high: int
    scorers: tuple[int, ...]  # seats that scored the round's point
    points: tuple[int, ...]  # after the round

    def card_of(self, seat: int) -> int:
        return dict(self.plays)[seat]


@dataclass(frozen=True)
class Observation:
    """What the seat to move may know."""

    seat: int
    players: int
    rounds: int
    top: int
    ties: str
    round: int
    leader: int
    turn: int  # cards played this round before this one
    best: int  # highest card played this round, 0 if none
    points: tuple[int, ...]
    played: tuple[int, ...]  # per seat, its card this round (0: not yet)
    seen: tuple[int, ...]  # [value]: cards of that value played in the game so far
    hand: tuple[int, ...]  # [value]: the seat's cards of that value

    def to_pub(self) -> np.ndarray:
        """The table as the jitted policies read it (``enums.P_*``)."""
        pub = np.zeros(E.PUB_SIZE, dtype=np.int64)
        pub[E.P_PLAYERS], pub[E.P_ROUNDS], pub[E.P_TOP] = self.players, self.rounds, self.top
        pub[E.P_TIES] = E.TIES_SHARED if self.ties == "shared" else E.TIES_NOBODY
        pub[E.P_ROUND], pub[E.P_LEADER], pub[E.P_SEAT] = self.round, self.leader, self.seat
        pub[E.P_TURN], pub[E.P_BEST] = self.turn, self.best
        pub[E.P_POINTS:E.P_POINTS + self.players] = self.points
        pub[E.P_PLAYED:E.P_PLAYED + self.players] = self.played
        pub[E.P_SEEN:E.P_SEEN + self.top + 1] = self.seen
        return pub

    def hand_array(self) -> np.ndarray:
        """The seat's own cards as the jitted policies read them: counts by value, ``MAX_TOP + 1`` long."""
        hand = np.zeros(E.MAX_TOP + 1, dtype=np.int64)
        hand[:self.top + 1] = self.hand
        return hand


class GameState:
    """A game in progress. A round goes ``start_round`` -> ``play``* -> ``end_round``."""

    def __init__(self, rules: Rules, hands: Sequence[Sequence[int]]):
        check_hands(rules, hands)
        self.rules = rules
        self.dealt = tuple(tuple(sorted(h)) for h in hands)
        self.hands = [Counter(h) for h in hands]
        self.points = [0] * rules.players
        self.seen = [0] * (rules.top + 1)
        self.results: list[RoundResult] = []
        self.round = 0
        self.in_round = False

    @property
    def game_over(self) -> bool:
        return self.round == self.rules.rounds

    def start_round(self) -> None:
        if self.game_over:
            raise ValueError("the game is over")
        if self.in_round:
            raise ValueError(f"round {self.round + 1} is still in play")
        self.leader = self.round % self.rules.players
        self.plays: list[tuple[int, int]] = []
        self.in_round = True

    @property
    def round_over(self) -> bool:
        return self.in_round and len(self.plays) == self.rules.players

    @property
    def to_move(self) -> int | None:
        if not self.in_round or self.round_over:
            return None
        return (self.leader + len(self.plays)) % self.rules.players

    @property
    def best(self) -> int:
        return max((card for _, card in self.plays), default=0)

    def play(self, seat: int, card) -> None:
        """``seat`` plays ``card`` from its hand."""
        if not self.in_round or self.round_over:
            raise IllegalMove(seat, "no card is to be played now")
        if seat != self.to_move:
            raise IllegalMove(seat, f"not this seat's turn (seat {self.to_move} plays next)")
        if not isinstance(card, (int, np.integer)) or isinstance(card, bool) or self.hands[seat][card] <= 0:
            held = ", ".join(map(str, sorted(self.hands[seat].elements())))
            raise IllegalMove(seat, f"seat {seat} plays a card of its hand ({held}), not {shown(card)}")
        self.hands[seat][card] -= 1
        self.seen[card] += 1
        self.plays.append((seat, int(card)))

    def observe(self, seat: int) -> Observation:
        rules = self.rules
        played = [0] * rules.players
        for s, card in self.plays:
            played[s] = card
        return Observation(
            seat=seat, players=rules.players, rounds=rules.rounds, top=rules.top, ties=rules.ties,
            round=self.round, leader=self.leader, turn=len(self.plays), best=self.best,
            points=tuple(self.points), played=tuple(played), seen=tuple(self.seen),
            hand=tuple(self.hands[seat][v] for v in range(rules.top + 1)),
        )

    def end_round(self) -> RoundResult:
        """The highest card scores; a tie scores nobody or every tied seat (``rules.ties``)."""
        if not self.round_over:
            raise ValueError("a round ends once every seat has played")
        high = self.best
        top = tuple(s for s, card in self.plays if card == high)
        scorers = top if len(top) == 1 or self.rules.ties == "shared" else ()
        for s in scorers:
            self.points[s] += 1
        result = RoundResult(self.round, self.leader, tuple(self.plays), high, tuple(sorted(scorers)),
                             tuple(self.points))
        self.results.append(result)
        self.round += 1
        self.in_round = False
        return result

    def winners(self) -> list[int]:
        most = max(self.points)
        return [s for s, p in enumerate(self.points) if p == most]


def check_hands(rules: Rules, hands: Sequence[Sequence[int]]) -> None:
    """Hands of ``rules.hand`` cards from 1 to ``rules.top``, no value more than ``rules.copies`` times in all."""
    if len(hands) != rules.players:
        raise ValueError(f"{rules.players} players are dealt a hand each, got {len(hands)} hands")
    for s, hand in enumerate(hands):
        if len(hand) != rules.hand:
            raise ValueError(f"seat {s} is dealt {rules.hand} cards (rules.hand), got {len(hand)}")
        for card in hand:
            if not isinstance(card, (int, np.integer)) or isinstance(card, bool) or not 1 <= card <= rules.top:
                raise ValueError(f"seat {s}: a card is 1 to {rules.top} (rules.top), got {shown(card)}")
    counts = Counter(c for hand in hands for c in hand)
    for card, n in sorted(counts.items()):
        if n > rules.copies:
            raise ValueError(f"the deck holds {rules.copies} cards of {card} (rules.copies), the hands {n}")


def deal(rules: Rules, table: Stream) -> list[list[int]]:
    """The deck shuffled once from the table stream, each seat dealt its ``hand`` cards off the top in turn."""
    deck = list(rules.deck)
    table.shuffle(deck)
    return [deck[s * rules.hand:(s + 1) * rules.hand] for s in range(rules.players)]


# --- policies -----------------------------------------------------------------------------


def nth_card(hand: Sequence[int], k: int) -> int:
    """The ``k``-th card of a hand given as counts by value, lowest first."""
    for value, n in enumerate(hand):
        if k < n:
            return value
        k -= n
    raise ValueError("the hand holds fewer cards")


class RandomPolicy(reference.RandomPolicy):
    """Any card of the hand, each equally likely: ``below(hand size)``, lowest first, as the jitted one."""

    def choose_card(self, obs: Observation, rng: Stream) -> int:
        return nth_card(obs.hand, rng.below(sum(obs.hand)))


class JitPolicy(reference.JitPolicy):
    """A jitted policy of ``policies.py`` playing a seat of the reference engine."""

    parse_policy = staticmethod(jitted_policies.parse_policy)
    n_params = jitted_policies.N_POLICY_PARAMS
    stream_rows = True

    def choose_card(self, obs: Observation, rng: Stream) -> int:
        return int(self.decide(jitted_policies.choose_card_nb, rng, obs.to_pub(), obs.hand_array()))


def policy_named(text: str):
    return reference.policy_named(text, RandomPolicy, JitPolicy)


# --- one game ------------------------------------------------------------------------------


def play_round(state: GameState, policies: Sequence, streams: Sequence[Stream]) -> RoundResult:
    state.start_round()
    while not state.round_over:
        seat = state.to_move
        state.play(seat, policies[seat].choose_card(state.observe(seat), streams[seat]))
    return state.end_round()


def play_out(rules: Rules, table: Stream, streams: Sequence[Stream], policies: Sequence) -> GameState:
    state = GameState(rules, deal(rules, table))
    while not state.game_over:
        play_round(state, policies, streams)
    return state


def game_records(state: GameState, game: int) -> dict[str, np.ndarray]:
    rec = LAYOUT.one_game(state.rules)
    points = state.points
    winners = state.winners()
    rec["game"][...] = game
    rec["points"][:] = points
    rec["win_share"][:] = [1.0 / len(winners) if s in winners else 0.0 for s in range(len(points))]
    rec["margin"][...] = 0 if len(winners) > 1 else max(points) - sorted(points)[-2]
    for r, res in enumerate(state.results):
        rec["leader"][r] = res.leader
        rec["card"][r] = [res.card_of(s) for s in range(len(points))]
        rec["high"][r] = res.high
        rec["scored"][r] = len(res.scorers)
    return rec


def game_trace(state: GameState) -> dict:
    """A played game as ``lvsim replay`` prints it."""
    return {
        "hands": [list(h) for h in state.dealt],
        "rounds": [{"round": res.round + 1, "leader": res.leader,
                    "plays": [{"seat": s, "card": c} for s, c in res.plays],
                    "high": res.high, "scorers": list(res.scorers), "points": list(res.points)}
                   for res in state.results],
        "points": list(state.points),
        "winners": state.winners(),
    }


PLAY_LOOP = PlayLoop.of(E, RandomPolicy, play_out, game_records, game_trace)
play_game = PLAY_LOOP.play_game  # (rules, seed, game, policies=None, trace=False) -> records [, trace]
