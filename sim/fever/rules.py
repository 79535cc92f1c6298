"""The reference engine of $ Fever: plain, readable Python.

This is the source of truth for traces and the engine the jitted core is
checked against. It keeps four things apart:

* :class:`~sim.fever.params.Rules` — the immutable rule knobs;
* :class:`GameState` — the mutable game: deck, hands, machine, discards,
  scored combinations;
* :class:`Observation` — what a seat may know (``state.observe(seat)``):
  its own hand, the machine, scores, combinations held, hand sizes and
  counts of the cards discarded, scored and out of the game; nothing of
  other hands or the deck's order;
* policies — objects with ``double``, ``play`` and ``keep``, which see an
  observation, never the state.

Symbols are numbered in the order of ``rules.deck``, reels 0..2 (1..3 in
traces). Every move goes through :meth:`GameState.double`,
:meth:`GameState.play` and :meth:`GameState.keep`; a move the rules forbid
raises :class:`IllegalMove` (a ``ValueError``) naming the rule. The order
of events and random draws is the one in ``docs/engine.md`` (section
"$ Fever"), so :func:`play_game` and the jitted core play the same game
for the same ``(seed, game)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Protocol, Sequence

import numpy as np

from sim import reference
from sim.fever import enums as E
from sim.fever import policies as jitted
from sim.fever.params import MAX_REDEALS, Rules
from sim.fever.records import LAYOUT
from sim.reference import IllegalMove, PlayLoop
from sim.rng import Stream


class Play(NamedTuple):
    """Cards of one symbol played on the given reels (0-based, ascending)."""

    symbol: int
    reels: tuple[int, ...]

    @property
    def code(self) -> int:
        return self.symbol * 8 + sum(1 << r for r in self.reels)

    @classmethod
    def of_code(cls, code: int) -> "Play":
        return cls(code >> 3, tuple(r for r in range(E.REELS) if code >> r & 1))


class Combination(NamedTuple):
    pattern: int
    points: int
    cards: tuple[int, int, int]  # the reels' symbols, reel 1 first


# --- what a seat may know ----------------------------------------------------------


@dataclass(frozen=True)
class Observation:
    """What the seat to move may know."""

    seat: int
    players: int
    symbols: int
    turn: int
    target: int
    deck: int  # cards left in the deck
    reshuffles: int
    double_on: bool
    doubling: bool
    max_play: int
    refill: bool
    reels: tuple[int, int, int]  # EMPTY for an empty reel
    scores: tuple[int, ...]
    combos: tuple[int, ...]
    cheapest: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    total: tuple[int, ...]  # per symbol
    discards: tuple[int, ...]
    scored: tuple[int, ...]
    out: tuple[int, ...]
    symbol_best: tuple[int, ...]
    hand: tuple[int, ...]  # the seat's own cards, per symbol

    def to_pub(self) -> np.ndarray:
        """The int64 array the jitted policies read, in the ``enums.P_*`` layout."""
        pub = np.zeros(E.PUB_SIZE, dtype=np.int64)
        pub[E.P_PLAYERS] = self.players
        pub[E.P_SYMBOLS] = self.symbols
        pub[E.P_SEAT] = self.seat
        pub[E.P_TURN] = self.turn
        pub[E.P_TARGET] = self.target
        pub[E.P_DECK] = self.deck
        pub[E.P_RESHUFFLES] = self.reshuffles
        pub[E.P_DOUBLE_ON] = self.double_on
        pub[E.P_DOUBLING] = self.doubling
        pub[E.P_MAX_PLAY] = self.max_play
        pub[E.P_REFILL] = self.refill
        pub[E.P_REELS:E.P_REELS + E.REELS] = self.reels
        for s in range(self.players):
            pub[E.P_SCORE + s] = self.scores[s]
            pub[E.P_COMBOS + s] = self.combos[s]
            pub[E.P_CHEAPEST + s] = self.cheapest[s]
            pub[E.P_HAND_SIZE + s] = self.hand_sizes[s]
        for x in range(self.symbols):
            pub[E.P_TOTAL + x] = self.total[x]
            pub[E.P_DISCARDS + x] = self.discards[x]
            pub[E.P_SCORED + x] = self.scored[x]
            pub[E.P_OUT + x] = self.out[x]
            pub[E.P_SYMBOL_BEST + x] = self.symbol_best[x]
        return pub

    def hand_array(self) -> np.ndarray:
        hand = np.zeros(E.MAX_SYMBOLS, dtype=np.int64)
        hand[: self.symbols] = self.hand
        return hand


# --- the game ----------------------------------------------------------------------


@dataclass
class TurnRecord:
    """One turn, for traces."""

    seat: int
    hand: list[int]  # cards per symbol at the start of the turn
    doubled: bool = False
    given_up: Combination | None = None
    double_draws: list[int] = field(default_factory=list)
    could_score: bool = False
    play: Play | None = None
    covered: list[int] = field(default_factory=list)  # symbols covered (EMPTY: an empty reel)
    machine: tuple[int, ...] = ()  # after the play
    scored: Combination | None = None
    refill: list[int] = field(default_factory=list)
    kept: list[int] | None = None
    discarded: list[int] = field(default_factory=list)
    draws: list[int] = field(default_factory=list)
    reshuffles: int = 0  # reshuffles during the turn
    scores: tuple[int, ...] = ()


class GameState:
    """A game in progress: the only mutable thing in the engine.

    ``deck`` lists the cards top first. A turn goes ``begin_turn`` ->
    ``double`` (optional) -> ``play`` (or ``pass_turn`` with no card) ->
    ``keep`` (after a double) -> ``end_turn``. ``table`` is the stream
    that shuffles the discards into a new deck.
    """

    def __init__(self, rules: Rules, deck: Sequence[int], table: Stream | None = None):
        deck = [int(c) for c in deck]
        if sorted(deck) != sorted(rules.cards):
            raise ValueError("the deck must hold exactly the cards of rules.deck, in any order")
        self.rules = rules
        self.table = table
        self.initial_deck = tuple(deck)
        self.deck = list(deck)
        k = len(rules.symbols)
        players = rules.players
        self.hands = [[0] * k for _ in range(players)]
        self.reels = [E.EMPTY] * E.REELS
        self.discards = [0] * k
        self.out = [0] * k
        self.held: list[list[Combination]] = [[] for _ in range(players)]
        self.reshuffles = 0
        self.turn = 0
        self.winner: int | None = None
        self.turns: list[TurnRecord] = []
        self.current: TurnRecord | None = None
        self.pattern_scored = [0] * rules.patterns
        self.doubling = False
        # set-up: three cards to each seat one at a time, then the reels
        for _ in range(E.HAND):
            for s in range(players):
                self.hands[s][self.draw()] += 1
        self.deal_reels()

    # --- the deck -------------------------------------------------------------------
    def draw(self) -> int:
        """The top card; an empty deck is remade from the discards first (symbol order, then
        shuffled by the table stream) when the rules reshuffle. EMPTY when there is no card."""
        if not self.deck:
            if not self.rules.reshuffle_discards or not any(self.discards):
                return E.EMPTY
            if self.table is None:
                raise ValueError("the deck ran out and this game has no table stream to reshuffle the discards")
            cards = [x for x, n in enumerate(self.discards) for _ in range(n)]
            self.discards = [0] * len(self.discards)
            self.table.shuffle(cards)
            self.deck = cards
            self.reshuffles += 1
            if self.current is not None:
                self.current.reshuffles += 1
        return self.deck.pop(0)

    def deal_reels(self) -> None:
        """Reels 1, 2, 3 from the top of the deck. With ``dealt_combination = "redeal"`` a machine
        showing a combination goes to the discards and is dealt again, at most MAX_REDEALS times."""
        self.reels = [self.draw() for _ in range(E.REELS)]
        if self.rules.dealt_combination != "redeal":
            return
        for _ in range(MAX_REDEALS):
            if self.pattern_of(self.reels) is None:
                return
            for x in self.reels:
                self.discards[x] += 1
            self.reels = [self.draw() for _ in range(E.REELS)]

    # --- whose turn -----------------------------------------------------------------
    @property
    def game_over(self) -> bool:
        return self.winner is not None or self.turn >= self.rules.turn_cap

    @property
    def to_move(self) -> int:
        return self.turn % self.rules.players

    def score(self, seat: int) -> int:
        return sum(c.points for c in self.held[seat])

    def cheapest(self, seat: int) -> Combination | None:
        """The combination a double gives up: the fewest points, the first scored among equals."""
        held = self.held[seat]
        return min(held, key=lambda c: c.points) if held else None

    @property
    def max_play(self) -> int:
        return self.rules.double_max_cards if self.doubling else E.NORMAL_MAX_PLAY

    def legal_plays(self, seat: int) -> list[Play]:
        """Every play the seat's hand allows now, symbols ascending then reel masks 1..7."""
        hand = self.hands[seat]
        plays = []
        for x, n in enumerate(hand):
            if n == 0:
                continue
            for mask in range(1, 8):
                play = Play.of_code(x * 8 + mask)
                if len(play.reels) <= min(n, self.max_play):
                    plays.append(play)
        return plays

    def machine_after(self, play: Play) -> list[int]:
        return [play.symbol if r in play.reels else self.reels[r] for r in range(E.REELS)]

    def pattern_of(self, reels: Sequence[int]) -> int | None:
        """The pattern the machine ``reels`` shows (``rules.matching_pattern``), None for none."""
        return self.rules.matching_pattern(tuple(reels))

    def pattern_after(self, play: Play) -> int | None:
        return self.pattern_of(self.machine_after(play))

    # --- a turn ---------------------------------------------------------------------
    def begin_turn(self) -> int:
        if self.game_over:
            raise ValueError("the game is over")
        seat = self.to_move
        self.doubling = False
        self.current = TurnRecord(seat=seat, hand=list(self.hands[seat]))
        return seat

    def may_double(self, seat: int) -> bool:
        return self.rules.double_up and bool(self.held[seat])

    def double(self, seat: int) -> None:
        """Give up the cheapest combination (out of the game) and draw the extra cards."""
        self._check_seat(seat)
        if not self.rules.double_up:
            raise IllegalMove(seat, "doubling is off under these rules (rules.double_up)")
        if self.doubling or self.current.play is not None:
            raise IllegalMove(seat, "a player doubles once, at the start of the turn")
        if not self.held[seat]:
            raise IllegalMove(seat, "only a player holding a scored combination may double")
        given = self.cheapest(seat)
        self.held[seat].remove(given)
        for x in given.cards:
            self.out[x] += 1
        self.doubling = True
        self.current.doubled = True
        self.current.given_up = given
        for _ in range(self.rules.double_extra_cards):
            c = self.draw()
            if c == E.EMPTY:
                break
            self.hands[seat][c] += 1
            self.current.double_draws.append(c)

    def could_score(self, seat: int) -> bool:
        return any(self.pattern_after(p) is not None for p in self.legal_plays(seat))

    def play(self, seat: int, play: Play) -> Combination | None:
        """Cover the reels of ``play`` with cards of its symbol; a combination showing then scores."""
        self._check_seat(seat)
        if self.current.play is not None:
            raise IllegalMove(seat, "a player plays once a turn")
        play = Play(int(play.symbol), tuple(sorted(play.reels)))
        if not play.reels or len(set(play.reels)) != len(play.reels) or any(not 0 <= r < E.REELS for r in play.reels):
            raise IllegalMove(seat, f"a play covers 1 to {E.REELS} different reels, numbered 1 to {E.REELS}")
        if not 0 <= play.symbol < len(self.rules.symbols):
            raise IllegalMove(seat, f"no symbol numbered {play.symbol}")
        if len(play.reels) > self.max_play:
            raise IllegalMove(seat, f"plays at most {self.max_play} cards this turn"
                              + (" (doubling)" if self.doubling else " (a second card only of the first's symbol)"))
        if self.hands[seat][play.symbol] < len(play.reels):
            raise IllegalMove(seat, f"holds {self.hands[seat][play.symbol]} {self.rules.symbols[play.symbol]}, "
                                    f"plays {len(play.reels)}")
        self.current.could_score = self.could_score(seat)
        self.current.play = play
        for r in play.reels:
            old = self.reels[r]
            self.current.covered.append(old)
            if old != E.EMPTY:
                self.discards[old] += 1
            self.reels[r] = play.symbol
            self.hands[seat][play.symbol] -= 1
        self.current.machine = tuple(self.reels)
        p = self.pattern_of(self.reels)
        if p is None:
            return None
        won = Combination(p, self.rules.paytable[p][1], tuple(self.reels))
        self.held[seat].append(won)
        self.pattern_scored[p] += 1
        self.current.scored = won
        self.reels = [E.EMPTY] * E.REELS
        if self.score(seat) >= self.rules.target:
            self.winner = seat
        elif self.rules.refill_after_scoring:
            self.deal_reels()
            self.current.refill = list(self.reels)
        return won

    def pass_turn(self, seat: int) -> None:
        """A seat without a card to play passes."""
        self._check_seat(seat)
        if sum(self.hands[seat]):
            raise IllegalMove(seat, "a player holding a card must play at least one")

    def keep(self, seat: int, kept: Sequence[int]) -> None:
        """After a double: keep ``kept[symbol]`` cards (at most 3 in all), discard the rest."""
        self._check_seat(seat)
        if not self.doubling:
            raise IllegalMove(seat, "only a player who doubled discards down to 3 cards")
        hand = self.hands[seat]
        kept = list(kept)
        if len(kept) != len(hand) or any(not 0 <= kept[x] <= hand[x] for x in range(len(hand))) or sum(kept) > E.HAND:
            raise IllegalMove(seat, f"keeps at most {E.HAND} of the cards it holds")
        self.current.kept = list(kept)
        for x in range(len(hand)):
            self.discards[x] += hand[x] - kept[x]
            self.current.discarded += [x] * (hand[x] - kept[x])
            hand[x] = kept[x]

    def end_turn(self) -> None:
        """The seat draws up to 3 cards (unless it has just won); the turn passes to the left."""
        seat = self.current.seat
        if self.doubling and self.current.kept is None and self.winner is None:
            raise IllegalMove(seat, f"a player who doubled keeps at most {E.HAND} cards before drawing")
        if self.winner is None:
            while sum(self.hands[seat]) < E.HAND:
                c = self.draw()
                if c == E.EMPTY:
                    break
                self.hands[seat][c] += 1
                self.current.draws.append(c)
        self.current.scores = tuple(self.score(s) for s in range(self.rules.players))
        self.turns.append(self.current)
        self.current = None
        self.doubling = False
        self.turn += 1

    def _check_seat(self, seat: int) -> None:
        if self.current is None:
            raise ValueError("no turn is in progress")
        if seat != self.current.seat:
            raise IllegalMove(seat, f"not this seat's turn (seat {self.current.seat} plays)")

    # --- what a seat sees -----------------------------------------------------------
    def observe(self, seat: int) -> Observation:
        rules = self.rules
        players = rules.players
        k = len(rules.symbols)
        scored = [0] * k
        for held in self.held:
            for c in held:
                for x in c.cards:
                    scored[x] += 1
        total = [0] * k
        for x in rules.cards:
            total[x] += 1
        return Observation(
            seat=seat,
            players=players,
            symbols=k,
            turn=self.turn,
            target=rules.target,
            deck=len(self.deck),
            reshuffles=self.reshuffles,
            double_on=rules.double_up,
            doubling=self.doubling,
            max_play=self.max_play,
            refill=rules.refill_after_scoring,
            reels=tuple(self.reels),
            scores=tuple(self.score(s) for s in range(players)),
            combos=tuple(len(h) for h in self.held),
            cheapest=tuple(self.cheapest(s).points if self.held[s] else 0 for s in range(players)),
            hand_sizes=tuple(sum(h) for h in self.hands),
            total=tuple(total),
            discards=tuple(self.discards),
            scored=tuple(scored),
            out=tuple(self.out),
            symbol_best=rules.symbol_best,
            hand=tuple(self.hands[seat]),
        )


# --- policies ------------------------------------------------------------------------


class Policy(Protocol):
    def double(self, obs: Observation, rng: Stream) -> bool: ...

    def play(self, obs: Observation, rng: Stream) -> Play: ...

    def keep(self, obs: Observation, rng: Stream) -> list[int]: ...


def plays_of(obs: Observation) -> list[Play]:
    """The plays an observation's hand allows, in play order."""
    plays = []
    for x, n in enumerate(obs.hand):
        for mask in range(1, 8):
            play = Play.of_code(x * 8 + mask)
            if n and len(play.reels) <= min(n, obs.max_play):
                plays.append(play)
    return plays


class RandomPolicy(reference.RandomPolicy):
    """Uniform over the legal plays; doubles with a fixed probability. Draws exactly as the
    jitted ``random`` does: ``below(1000) < 1000 P`` to double, ``below(n)`` over the plays in
    play order, one ``below`` per card kept."""

    def __init__(self, probability: float = jitted.DEFAULT_DOUBLE_PROBABILITY):
        self.permille = round(probability * jitted.PERMILLE)

    @classmethod
    def from_params(cls, params: np.ndarray) -> "RandomPolicy":
        return cls(params[0] / jitted.PERMILLE)

    def double(self, obs: Observation, rng: Stream) -> bool:
        return rng.below(jitted.PERMILLE) < self.permille

    def play(self, obs: Observation, rng: Stream) -> Play:
        plays = plays_of(obs)
        return plays[rng.below(len(plays))]

    def keep(self, obs: Observation, rng: Stream) -> list[int]:
        kept = [0] * obs.symbols
        left = sum(obs.hand)
        for _ in range(min(E.HAND, left)):
            i = rng.below(left)
            for x in range(obs.symbols):
                free = obs.hand[x] - kept[x]
                if i < free:
                    kept[x] += 1
                    break
                i -= free
            left -= 1
        return kept


class JitPolicy(reference.JitPolicy):
    """A jitted policy of ``policies.py`` playing a seat of the reference engine, under ``rules``' pay table."""

    parse_policy = staticmethod(jitted.parse_policy)
    n_params = jitted.N_POLICY_PARAMS
    stream_rows = True

    def __init__(self, policy_id: int, params: Sequence[float], rules: Rules):
        super().__init__(policy_id, params)
        self.table = rules.combination_table
        self.points = np.array(rules.points, dtype=np.int64)

    def _call(self, fn, obs: Observation, rng: Stream, *extra):
        return self.decide(fn, rng, obs.to_pub(), obs.hand_array(), self.table, self.points, after=extra)

    def double(self, obs: Observation, rng: Stream) -> bool:
        return bool(self._call(jitted.decide_double_nb, obs, rng))

    def play(self, obs: Observation, rng: Stream) -> Play:
        return Play.of_code(int(self._call(jitted.decide_play_nb, obs, rng)))

    def keep(self, obs: Observation, rng: Stream) -> list[int]:
        keep = np.zeros(E.MAX_SYMBOLS, dtype=np.int64)
        self._call(jitted.decide_keep_nb, obs, rng, keep)
        return [int(v) for v in keep[: obs.symbols]]


def policy_named(text: str, rules: Rules) -> Policy:
    """The reference engine's player for a policy name: the Python twin of ``random``, the jitted
    policy otherwise."""
    return reference.policy_named(text, RandomPolicy, JitPolicy, rules)


# --- one game, start to end -----------------------------------------------------------


def shuffled_deck(rules: Rules, table: Stream) -> list[int]:
    """The cards in the order of ``rules.deck``, shuffled once per game; index 0 is drawn first."""
    deck = list(rules.cards)
    table.shuffle(deck)
    return deck


def play_turn(state: GameState, policy: Policy, rng: Stream) -> TurnRecord:
    """One turn of the seat to move, its policy deciding."""
    seat = state.begin_turn()
    if state.may_double(seat) and policy.double(state.observe(seat), rng):
        state.double(seat)
    if sum(state.hands[seat]):
        state.play(seat, policy.play(state.observe(seat), rng))
    else:
        state.pass_turn(seat)
    if state.doubling and state.winner is None:
        state.keep(seat, policy.keep(state.observe(seat), rng))
    record = state.current
    state.end_turn()
    return record


def play_out(rules: Rules, table: Stream, streams: Sequence[Stream], policies: Sequence[Policy]) -> GameState:
    """A whole game from the table stream's deck, each seat's policy deciding its turns."""
    state = GameState(rules, shuffled_deck(rules, table), table)
    while not state.game_over:
        play_turn(state, policies[state.to_move], streams[state.to_move])
    return state


def game_records(state: GameState, game: int) -> dict[str, np.ndarray]:
    """The per-game record of a finished game, shaped as ``records.RECORD_FIELDS`` without the games axis."""
    rules = state.rules
    players = rules.players
    rec = LAYOUT.one_game(rules)
    turns = state.turns
    rec["game"][...] = game
    rec["winner"][...] = -1 if state.winner is None else state.winner
    rec["win_share"][:] = [1.0 if s == state.winner else 0.0 for s in range(players)]
    rec["score"][:] = [state.score(s) for s in range(players)]
    rec["combos"][:] = [len(h) for h in state.held]
    rec["turns"][...] = len(turns)
    rec["rounds"][...] = -(-len(turns) // players)
    rec["scoring_turns"][:] = [sum(1 for t in turns if t.seat == s and t.scored) for s in range(players)]
    rec["doubles"][:] = [sum(1 for t in turns if t.seat == s and t.doubled) for s in range(players)]
    rec["double_scored"][...] = sum(1 for t in turns if t.doubled and t.scored)
    rec["double_points_won"][...] = sum(t.scored.points for t in turns if t.doubled and t.scored)
    rec["double_points_given"][...] = sum(t.given_up.points for t in turns if t.doubled)
    rec["pattern_scored"][:] = state.pattern_scored
    rec["pattern_points"][:] = [n * points for n, points in zip(state.pattern_scored, rules.points)]
    rec["could_score_turns"][...] = sum(1 for t in turns if t.could_score)
    full = len(turns) // players
    rec["full_rounds"][...] = full
    rec["drought_rounds"][...] = sum(
        1 for r in range(full) if not any(t.could_score for t in turns[r * players:(r + 1) * players])
    )
    rec["reshuffles"][...] = state.reshuffles
    rec["passes"][...] = sum(1 for t in turns if t.play is None)
    return rec


# --- traces --------------------------------------------------------------------------


def _cards(rules: Rules, symbols: Sequence[int]) -> list[str | None]:
    return [None if x == E.EMPTY else rules.symbols[x] for x in symbols]


def _hand(rules: Rules, counts: Sequence[int]) -> list[str]:
    return [rules.symbols[x] for x, n in enumerate(counts) for _ in range(n)]


def _combination(rules: Rules, c: Combination) -> dict:
    return {"pattern": c.pattern, "label": rules.pattern_label(c.pattern), "points": c.points,
            "cards": _cards(rules, c.cards)}


def turn_trace(rules: Rules, t: TurnRecord) -> dict:
    out: dict = {"seat": t.seat, "hand": _hand(rules, t.hand), "double": t.doubled}
    if t.doubled:
        out["given_up"] = _combination(rules, t.given_up)
        out["double_draws"] = _cards(rules, t.double_draws)
    if t.play is None:
        out["play"] = None
    else:
        out["play"] = {"symbol": rules.symbols[t.play.symbol], "reels": [r + 1 for r in t.play.reels]}
        out["covered"] = _cards(rules, t.covered)
        out["machine"] = _cards(rules, t.machine)
        out["could_score"] = t.could_score
    out["scored"] = _combination(rules, t.scored) if t.scored else None
    if t.refill:
        out["refill"] = _cards(rules, t.refill)
    if t.kept is not None:
        out["keep"] = _hand(rules, t.kept)
        out["discarded"] = _cards(rules, t.discarded)
    out["draws"] = _cards(rules, t.draws)
    if t.reshuffles:
        out["reshuffles"] = t.reshuffles
    out["scores"] = list(t.scores)
    return out


def game_trace(state: GameState) -> dict:
    """A played game as the JSON-ready trace ``replay`` returns."""
    rules = state.rules
    return {
        "deck": _cards(rules, state.initial_deck),
        "turns": [turn_trace(rules, t) for t in state.turns],
        "scores": [state.score(s) for s in range(rules.players)],
        "combinations": [[_combination(rules, c) for c in held] for held in state.held],
        "winner": state.winner,
        "finished": state.winner is not None,
        "reshuffles": state.reshuffles,
    }


PLAY_LOOP = PlayLoop.of(E, RandomPolicy, play_out, game_records, game_trace)
play_game = PLAY_LOOP.play_game  # (rules, seed, game, policies=None, trace=False) -> records [, trace]
