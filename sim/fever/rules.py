"""The reference engine of $ Fever: plain, readable Python, and its state (``sim.state``).

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

:class:`FeverState` (``STATE``) steps the same game one action at a time
for the shared replay and the OpenSpiel game (``sim.openspiel``). Its
chance nodes are the cards drawn, one at a time, in the order the engine
draws them: the deal (three cards to each seat, one at a time, seat 0
first), the machine's three reels (again while a machine dealt showing a
combination is dealt anew, under ``dealt_combination = "redeal"``), a
double's extra cards, a refill after scoring, the draws up to three at the
end of a turn. The deck is a shuffled pile nobody has seen, so
each draw is any card left in it, each equally likely (outcome: its symbol,
with its share of the deck); an empty deck is remade from the discards
first, as the rules say. A step of the engine that draws (the deal, a
double, a play that refills the machine, the end of a turn) takes its cards
as chance gives them, and is applied once it has them all.

A player's actions: a play, coded as the engine codes it (``symbol * 8 +
reel mask``); whether to double (``DOUBLE_NO``, ``DOUBLE_YES``, asked only of
a seat holding a combination); after a double, the cards kept, one at a
time in symbol order (``KEEP_BASE + symbol``), ending with ``KEEP_DONE``
(or by itself, once three are kept or none is left).

What a seat knows (the rules' "Information" section, the engine's
:class:`Observation`): its own hand and the cards it drew, in order (events
only it sees), and what all see — the machine, every play, the cards a
doubling player discards, scores and combinations, hand sizes; never another
hand or the deck's order. ``resample_from_infostate`` deals the other hands
and the deck again from the cards the seat has not seen, each hand keeping
its size.

Returns of the whole game are the win shares (1 for the winner; a game the
turn cap ends has none, so the game is general-sum); a rooted state (the
``ismcts`` search's) ends after one turn of every seat, its returns each
seat's points won (a win counting the target once more) against the others'
average, divided by a combination's average points.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field
from functools import cache, partial
from typing import NamedTuple, Protocol, Sequence

import numpy as np

from sim import reference
from sim.errors import counted
from sim.fever import enums as E
from sim.fever import policies as jitted
from sim.fever.params import MAX_REDEALS, Rules
from sim.fever.records import LAYOUT
from sim.reference import IllegalMove, PlayLoop
from sim.rng import Stream
from sim.state import CHANCE, TERMINAL, Seen, Sizes, State, fields_text


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


def plays_for(hand: Sequence[int], max_play: int) -> list[Play]:
    """Every play ``hand`` (cards per symbol) allows, at most ``max_play`` cards: symbols ascending, then reel
    masks 1..7 (the order the jitted policies number them)."""
    return list(_plays_of(tuple(min(n, max_play) for n in hand)))


@cache
def _plays_of(most: tuple[int, ...]) -> tuple[Play, ...]:
    """The plays of at most ``most[symbol]`` cards of each symbol (made once per such limit: asked at every turn)."""
    return tuple(play for play in every_play(len(most)) if len(play.reels) <= most[play.symbol])


@cache
def every_play(symbols: int) -> tuple[Play, ...]:
    """Every play of ``symbols`` symbols, in :func:`plays_for`'s order (made once: a game asks at every turn)."""
    return tuple(Play.of_code(x * 8 + mask) for x in range(symbols) for mask in range(1, 8))


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
        for at, values in ((E.P_REELS, self.reels), (E.P_SCORE, self.scores), (E.P_COMBOS, self.combos),
                           (E.P_CHEAPEST, self.cheapest), (E.P_HAND_SIZE, self.hand_sizes), (E.P_TOTAL, self.total),
                           (E.P_DISCARDS, self.discards), (E.P_SCORED, self.scored), (E.P_OUT, self.out),
                           (E.P_SYMBOL_BEST, self.symbol_best)):
            pub[at:at + len(values)] = values
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
        return plays_for(self.hands[seat], self.max_play)

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
            held = counted(self.hands[seat][play.symbol], f"{self.rules.symbols[play.symbol]} card")
            raise IllegalMove(seat, f"holds {held}, plays {len(play.reels)}")
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
        scored = Counter(x for held in self.held for c in held for x in c.cards)
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
            total=tuple(count for _, count in rules.deck),
            discards=tuple(self.discards),
            scored=tuple(scored[x] for x in range(k)),
            out=tuple(self.out),
            symbol_best=rules.symbol_best,
            hand=tuple(self.hands[seat]),
        )


# --- policies ------------------------------------------------------------------------


class Policy(Protocol):
    def double(self, obs: Observation, rng: Stream) -> bool: ...

    def play(self, obs: Observation, rng: Stream) -> Play: ...

    def keep(self, obs: Observation, rng: Stream) -> list[int]: ...


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
        plays = plays_for(obs.hand, obs.max_play)
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


# --- the game stepped one action at a time (sim.state) ---------------------------------

# Actions, for K symbols: plays 0 .. 8K - 1, then these.


def double_no(symbols: int) -> int:
    return 8 * symbols


def keep_base(symbols: int) -> int:
    return 8 * symbols + 2


def keep_done(symbols: int) -> int:
    return 9 * symbols + 2


class NeedCard(Exception):
    """A step of the engine asks for a card chance has not given yet; ``deck`` is what it would draw from."""

    def __init__(self, deck: Counter):
        self.deck = deck


def copy_game_state(gs: GameState) -> GameState:
    """A copy of everything a turn changes (finished turns and combinations are not changed again)."""
    other = copy.copy(gs)
    other.__dict__.pop("draw", None)
    other.deck = list(gs.deck)
    other.hands = [list(h) for h in gs.hands]
    other.reels = list(gs.reels)
    other.discards = list(gs.discards)
    other.out = list(gs.out)
    other.held = [list(h) for h in gs.held]
    other.turns = list(gs.turns)
    other.pattern_scored = list(gs.pattern_scored)
    if gs.current is not None:
        other.current = copy.copy(gs.current)
        for name in ("hand", "double_draws", "covered", "refill", "discarded", "draws"):
            setattr(other.current, name, list(getattr(gs.current, name)))
    return other


def drawing(gs: GameState, cards: list[int]) -> None:
    """Make ``gs`` draw ``cards`` in order (the engine's own draw, the deck's order decided by chance), then
    raise :class:`NeedCard` at the first card not given."""
    given = iter(cards)

    def draw() -> int:
        if not gs.deck:
            if not gs.rules.reshuffle_discards or not any(gs.discards):
                return E.EMPTY
            gs.deck = [x for x, n in enumerate(gs.discards) for _ in range(n)]
            gs.discards = [0] * len(gs.discards)
            gs.reshuffles += 1
            if gs.current is not None:
                gs.current.reshuffles += 1
        card = next(given, None)
        if card is None:
            raise NeedCard(Counter(gs.deck))
        gs.deck.remove(card)
        return card

    gs.draw = draw


def deal(gs: GameState) -> None:
    """The set-up: the hands, then the machine (a bare state, its rules set, becomes the game's first)."""
    GameState.__init__(gs, gs.rules, gs.rules.cards)


def double(gs: GameState) -> None:
    gs.double(gs.current.seat)


def keep_finished(hand, kept) -> bool:
    """Whether a keep is complete by itself: three kept, or no card left to keep."""
    return sum(kept) >= E.HAND or all(k >= n for n, k in zip(hand, kept))


def keep_actions(hand, kept) -> list[int]:
    """The actions that keep ``kept[symbol]`` cards of ``hand``: one a card in symbol order, then KEEP_DONE
    unless the keep ends by itself."""
    symbols = len(hand)
    actions, so_far = [], [0] * symbols
    for x in range(symbols):
        for _ in range(kept[x]):
            if keep_finished(hand, so_far):
                return actions
            actions.append(keep_base(symbols) + x)
            so_far[x] += 1
    if not keep_finished(hand, so_far):
        actions.append(keep_done(symbols))
    return actions


def cards_text(rules: Rules, cards) -> str:
    return " ".join("-" if x == E.EMPTY else rules.symbols[x] for x in cards)


def hand_text(rules: Rules, hand) -> str:
    return " ".join(f"{n} {rules.symbols[x]}" for x, n in enumerate(hand) if n)


def play_step(seat: int, play: "Play", gs: "GameState") -> None:
    """A seat's play as a step of the state: a module function, so that a state waiting on it pickles."""
    gs.play(seat, play)


class FeverState(State):
    """The reference :class:`GameState` with the cards being drawn and the turn being decided.

    ``phase`` is the part of the seat's turn next: ``double``, ``play``,
    ``keep`` (the cards kept so far in ``kept``) or ``end``; ``step`` is an
    engine step waiting for the cards in ``given``, ``then`` the phase after it.
    """

    constant_sum = False
    copy_state = staticmethod(copy_game_state)
    stepped_lists = ("kept", "given")

    def __init__(self, rules, state: GameState | None = None, phase: str = "turn"):
        super().__init__(rules)
        self.state = state  # None until the deal is done
        self.phase = phase
        self.kept = [0] * len(rules.symbols)
        self.step = None
        self.given: list[int] = []
        self.then = phase
        self.deck = Counter()  # what the waiting step draws from
        self.lap_start = 0  # the turn a lap (every seat's turn once) is counted from
        self.value_scale = sum(rules.points) / len(rules.points)

    @classmethod
    def new(cls, rules) -> "FeverState":
        table = cls(rules)
        table._run(deal, "turn")
        return table

    @classmethod
    def sizes(cls, rules) -> Sizes:
        players = rules.players
        cards = len(rules.cards)
        redeal = E.REELS * (MAX_REDEALS + 1)  # a machine dealt anew at most MAX_REDEALS times
        # whether to double, the play, each card kept and the last; a double's cards, a refill, the draws
        per_turn = 2 + E.HAND + 1 + rules.double_extra_cards + redeal + E.HAND
        return Sizes(keep_done(len(rules.symbols)) + 1, len(rules.symbols),
                     E.HAND * players + redeal + rules.turn_cap * per_turn + cards)

    @classmethod
    def from_observation(cls, rules, obs: Observation, words: np.ndarray, phase: str = "play", kept=()
                         ) -> "FeverState":
        """The table ``obs`` shows at ``phase`` of the seat's turn (``kept``: the cards it keeps so far), the
        other hands and the deck dealt from the cards it has not seen. Each seat's combinations stand as its
        cheapest one (what a double gives up) and others making up its points, their cards those the
        observation counts as scored."""
        k = obs.symbols
        gs = GameState.__new__(GameState)
        gs.rules, gs.table, gs.initial_deck = rules, None, ()
        gs.reels, gs.discards, gs.out = list(obs.reels), list(obs.discards), list(obs.out)
        gs.hands = [[0] * k for _ in range(obs.players)]
        gs.hands[obs.seat] = list(obs.hand)
        scored = [x for x in range(k) for _ in range(obs.scored[x])]
        gs.held = []
        for s in range(obs.players):
            n = obs.combos[s]
            points = [obs.cheapest[s]] * (n - 1) + [obs.scores[s] - obs.cheapest[s] * (n - 1)] if n else []
            gs.held.append([Combination(-1, p, tuple(scored[3 * i:3 * i + 3])) for i, p in enumerate(points)])
            scored = scored[3 * n:]
        gs.reshuffles, gs.turn, gs.winner, gs.turns = obs.reshuffles, obs.turn, None, []
        gs.pattern_scored = [0] * rules.patterns
        gs.doubling = obs.doubling
        gs.current = TurnRecord(seat=obs.seat, hand=list(obs.hand), doubled=obs.doubling)
        if phase == "keep":
            gs.current.play = Play(0, ())  # played already: only the keep and the draws are left
        gs.deck = []
        table = cls(rules, gs, phase)
        table.lap_start = obs.turn
        table.kept = list(kept) if kept else [0] * k
        table._redeal(obs.seat, words, hand_sizes=obs.hand_sizes, deck=obs.deck, unseen=unseen_of(obs))
        return table

    def clone(self) -> "FeverState":
        other = super().clone()
        other.deck = Counter(self.deck)
        return other

    # --- engine steps that draw -------------------------------------------------------
    def _run(self, step, then: str) -> list:
        """Apply ``step`` to the state if chance has given every card it draws (``given``), and go on to
        ``then``; otherwise wait for the next card. The events of the step once applied."""
        if step is deal:
            trial = GameState.__new__(GameState)
            trial.rules = self.rules
        else:
            trial = copy_game_state(self.state)
        drawing(trial, self.given)
        try:
            step(trial)
        except NeedCard as need:
            self.step, self.then, self.deck = step, then, need.deck
            return []
        trial.__dict__.pop("draw", None)
        before, self.state = self.state, trial
        events = self._events_of(step, before)
        self.step, self.given, self.phase = None, [], then
        return events + self._settle()

    def _events_of(self, step, before: GameState) -> list:
        """What a finished step showed: the cards drawn to a seat (only to it), the machine (to all)."""
        gs, rules = self.state, self.rules
        if step is deal:
            return [Seen(s, f"dealt {hand_text(rules, h)}") for s, h in enumerate(gs.hands)] + [
                f"machine {cards_text(rules, gs.reels)}"]
        record = gs.current if gs.current is not None else gs.turns[-1]
        seat = record.seat
        events: list = ["reshuffled"] * (gs.reshuffles - before.reshuffles)
        if step is double:
            events += [f"{seat} doubles, draws {len(record.double_draws)}",
                       Seen(seat, f"drew {cards_text(rules, record.double_draws)}")]
        elif step is GameState.end_turn:
            events += [f"{seat} draws {len(record.draws)}", Seen(seat, f"drew {cards_text(rules, record.draws)}")]
        else:  # a play
            if record.scored:
                events.append(f"{seat} scores {record.scored.points}")
            if record.refill:
                events.append(f"machine {cards_text(rules, record.refill)}")
        return events

    def _settle(self) -> list:
        """Go through the parts of a turn no seat decides: begin it, pass, end it."""
        gs = self.state
        events: list = []
        # A turn under way is finished (a winning play's turn too), then no other begins once the game is over.
        while self.step is None and (gs.current is not None or not gs.game_over):
            seat = gs.current.seat if gs.current is not None else gs.to_move
            if self.phase == "turn":
                gs.begin_turn()
                self.phase, self.kept = "double", [0] * len(self.rules.symbols)
            elif self.phase == "double":
                if gs.may_double(seat):
                    return events
                self.phase = "play"
            elif self.phase == "play":
                if sum(gs.hands[seat]):
                    return events
                gs.pass_turn(seat)
                events.append(f"{seat} passes")
                self.phase = "keep"
            elif self.phase == "keep":
                if gs.doubling and gs.winner is None:
                    if not keep_finished(gs.hands[seat], self.kept):
                        return events
                    events.append(self._keep(seat))
                self.phase = "end"
            else:
                events += self._run(GameState.end_turn, "turn")
                gs = self.state
        return events

    def _keep(self, seat: int) -> str:
        gs = self.state
        gs.keep(seat, self.kept)
        return f"{seat} keeps {sum(self.kept)}, discards {cards_text(self.rules, gs.current.discarded)}"

    # --- stepping -----------------------------------------------------------------------
    def to_move(self) -> int:
        gs = self.state
        if self.step is not None:
            return CHANCE
        if gs.game_over:
            return TERMINAL
        return gs.current.seat

    def decision_kind(self) -> str | None:
        """``double`` (whether to), ``play`` (which cards on which reels) or ``keep`` (after a double, the next
        card kept, or no more)."""
        return self.phase if self.to_move() >= 0 else None

    def chance_outcomes(self) -> list[tuple[int, float]]:
        total = sum(self.deck.values())
        return [(x, n / total) for x, n in sorted(self.deck.items()) if n]

    def legal_actions(self) -> list[int]:
        gs = self.state
        seat = gs.current.seat
        k = len(self.rules.symbols)
        if self.phase == "double":
            return [double_no(k), double_no(k) + 1]
        if self.phase == "play":
            return sorted(play.code for play in gs.legal_plays(seat))
        hand = gs.hands[seat]
        floor = max((x for x in range(k) if self.kept[x]), default=0)
        return [keep_base(k) + x for x in range(floor, k) if hand[x] > self.kept[x]] + [keep_done(k)]

    def apply(self, action: int) -> list:
        if self.step is not None:
            if not self.deck[action]:
                raise ValueError(f"no {self.rules.symbols[action] if 0 <= action < len(self.rules.symbols) else action}"
                                 " is left in the deck")
            self.given.append(action)
            return self._run(self.step, self.then)
        gs, k = self.state, len(self.rules.symbols)
        seat = gs.current.seat
        if action not in self.legal_actions():
            raise ValueError(f"action {action} is not legal for seat {seat} now ({self.phase})")
        if self.phase == "double":
            if action == double_no(k):
                self.phase = "play"
                return [f"{seat} does not double"] + self._settle()
            return self._run(double, "play")
        if self.phase == "play":
            play = Play.of_code(action)
            events = [f"{seat} plays {self.rules.symbols[play.symbol]} on {'+'.join(str(r + 1) for r in play.reels)}"]
            return events + self._run(partial(play_step, seat, play), "keep")
        if action == keep_done(k):
            events = [self._keep(seat)]
            self.phase = "end"
            return events + self._settle()
        self.kept[action - keep_base(k)] += 1
        return self._settle()

    def rounds_scored(self) -> int:
        """Laps finished: turns since ``lap_start`` over the players (a rooted state ends after one)."""
        return (self.state.turn - self.lap_start) // self.rules.players

    def scores(self) -> list[float]:
        """Each seat's points (the winner's counting the target once more) against the others' average."""
        gs = self.state
        points = [gs.score(s) + (self.rules.target if gs.winner == s else 0) for s in range(self.rules.players)]
        others = len(points) - 1
        if others == 0:
            return [float(p) for p in points]
        return [p - (sum(points) - p) / others for p in points]

    def win_shares(self) -> list[float]:
        return [1.0 if s == self.state.winner else 0.0 for s in range(self.rules.players)]

    def trace(self) -> dict:
        return game_trace(self.state)

    # --- what a seat knows -------------------------------------------------------------
    def observation(self, seat: int) -> str:
        if self.state is None:
            return f"seat {seat} dealing"
        return f"{fields_text(self.state.observe(seat))} phase {self.phase} {self.private(seat)}"

    def public_view(self) -> str:
        if self.state is None:
            return "dealing"
        return f"{fields_text(self.state.observe(0), seat=None, hand=None)} phase {self.phase}"

    def private(self, seat: int) -> str:
        """The seat's hand, and while it keeps cards after a double, those kept so far."""
        gs = self.state
        if gs is None:
            return "hand"
        keeping = self.phase == "keep" and gs.current is not None and gs.current.seat == seat
        return f"hand {hand_text(self.rules, gs.hands[seat])}" + (f" kept {self.kept}" if keeping else "")

    def resample(self, seat: int, words: np.ndarray) -> "FeverState":
        other = self.clone()
        if other.state is not None:
            other._redeal(seat, words)
            if other.step is not None:
                other._run(other.step, other.then)  # what the waiting step draws from, after the redeal
        return other

    def _redeal(self, seat: int, words: np.ndarray, hand_sizes=None, deck: int | None = None, unseen=None) -> None:
        """Deal again, in place, every card ``seat`` has not seen — the other hands and the deck — from those
        cards (or ``unseen`` counts), each hand keeping its size. The cards a waiting step has been given stay
        in the deck for it (none of them is in a seat's information yet); if the deck is remade during the
        step, the deck is left as it is and only the other hands are dealt again."""
        gs = self.state
        players = self.rules.players
        if hand_sizes is None:
            hand_sizes = [sum(h) for h in gs.hands]
        kept_for_step = Counter(self.given)
        in_deck = Counter(gs.deck)
        if unseen is not None:
            cards = [x for x, n in enumerate(unseen) for _ in range(n)]
        else:
            deck_too = not kept_for_step - in_deck
            pool = in_deck - kept_for_step if deck_too else Counter()
            for s in range(players):
                if s != seat:
                    pool += Counter({x: n for x, n in enumerate(gs.hands[s]) if n})
            cards = sorted(pool.elements())
            if not deck_too:
                deck = 0
        order = np.random.default_rng([int(w) for w in words]).permutation(len(cards))
        cards = [cards[i] for i in order]
        for s in range(players):
            if s != seat:
                hand = [0] * len(self.rules.symbols)
                for x in cards[:hand_sizes[s]]:
                    hand[x] += 1
                gs.hands[s] = hand
                cards = cards[hand_sizes[s]:]
        if deck == 0:
            return
        gs.deck = list(kept_for_step.elements()) + (cards if deck is None else cards[:deck])

    def action_name(self, seat: int, action: int) -> str:
        k = len(self.rules.symbols)
        if seat == CHANCE:
            return f"draw {self.rules.symbols[action]}"
        if action < double_no(k):
            play = Play.of_code(action)
            return f"seat {seat} plays {self.rules.symbols[play.symbol]} on {[r + 1 for r in play.reels]}"
        if action < keep_base(k):
            return f"seat {seat} {'doubles' if action > double_no(k) else 'does not double'}"
        if action == keep_done(k):
            return f"seat {seat} keeps no more"
        return f"seat {seat} keeps {self.rules.symbols[action - keep_base(k)]}"


def unseen_of(obs: Observation) -> list[int]:
    """Per symbol, the cards the seat cannot see: in other hands or in the deck."""
    return [obs.total[x] - obs.hand[x] - sum(1 for r in obs.reels if r == x) - obs.discards[x] - obs.scored[x]
            - obs.out[x] for x in range(obs.symbols)]


STATE = FeverState


# --- the ismcts policy at a seat of the reference engine -------------------------------


class IsmctsPlayer:
    """``ismcts:N`` deciding whether to double, what to play and what to keep (sim.openspiel.search)."""

    def __init__(self, rules, params):
        from sim.openspiel import load
        from sim.openspiel.search import Search

        self.search = Search(load("fever", rules), FeverState, rules, int(params[0]))

    def double(self, obs: Observation, rng: Stream) -> bool:
        return self.search.action(obs, rng, phase="double") != double_no(obs.symbols)

    def play(self, obs: Observation, rng: Stream) -> Play:
        return Play.of_code(self.search.action(obs, rng, phase="play"))

    def keep(self, obs: Observation, rng: Stream) -> list[int]:
        kept = [0] * obs.symbols
        while not keep_finished(obs.hand, kept):
            action = self.search.action(obs, rng, phase="keep", kept=tuple(kept))
            if action == keep_done(obs.symbols):
                break
            kept[action - keep_base(obs.symbols)] += 1
        return kept


# The reference engine's player for a seat: ismcts, the Python ``random``, or a jitted policy under the rules.
PLAYERS = reference.Players(JitPolicy, RandomPolicy, {jitted.POLICY_ISMCTS: IsmctsPlayer}, rules_too=True)
seat_player, player_named = PLAYERS.seat_player, PLAYERS.player_named
