"""The reference engine of Las Vegas (the dice game): plain, readable Python, and its state (``sim.state``).

This is the source of truth for traces and the engine the jitted core is
checked against. It keeps four things apart:

* :class:`~sim.vegasdice.params.Rules` — the immutable rule knobs;
* :class:`GameState` — the mutable game: bill pile, casinos, dice, money;
* :class:`Observation` — what a seat may know (``state.observe(seat)``):
  everything on the table, nothing of the pile's order;
* policies — objects with ``choose_value(obs, roll, rng)``, which see an
  observation and their own roll, never the state.

Casinos and dice values are numbered 1..casinos here, as in the game. Every
move goes through :meth:`GameState.take_turn`; a move the rules forbid raises
:class:`IllegalMove` (a ``ValueError``) whose message names the rule.

The order of events and random draws is the one in ``docs/engine.md``
(section "Las Vegas"), so :func:`play_game` and the jitted core play the same
game for the same ``(seed, game)``.

:class:`VegasDiceState` (``STATE``) steps the same game one action at a time
for the shared replay and the OpenSpiel game (``sim.openspiel``). It is a
game of perfect information: the pile's order is nobody's knowledge, so it
is not hidden state but chance, a bill drawn when it is laid out; a seat's
information state is the whole state (OpenSpiel is told imperfect
information all the same, each information set one state: its ISMCTS takes
no other games).

Chance nodes, in the order the table stream draws them: at the start of
each round, the bills laid out on casinos 1 to C, one at a time, each from
what is left of the shuffled pile (outcome ``k`` is the ``k``-th largest
value of ``rules.bills``, with its share of the unseen bills left; a bill
that went under the pile, whose place everyone saw, is laid out without a
chance node once the shuffled part is used up); then the table's white dice
at 3 players; then, before each turn, the seat's dice one by one, its own
first, then its white ones (outcome ``face - 1``, each of the ``casinos``
faces alike). A player's action is the value it places (``value - 1``).
Every event is public.

Returns of the whole game are the win shares (a remaining tie shares); a
rooted state (the ``ismcts`` search's) ends when the round is paid out, its
returns each seat's money won against the others' average, divided by a
round's typical take.
"""

from __future__ import annotations

import copy
from collections import Counter, deque
from dataclasses import dataclass
from typing import NamedTuple, Protocol, Sequence

import numpy as np

from sim import reference
from sim.errors import counted, shown
from sim.reference import IllegalMove, PlayLoop
from sim.rng import Stream
from sim.state import CHANCE, TERMINAL, Sizes, State, fields_text
from sim.vegasdice import enums as E
from sim.vegasdice import policies as jitted_policies
from sim.vegasdice.params import Rules
from sim.vegasdice.records import LAYOUT

WHITE = "white"  # the fictitious owner of the white dice on a casino


# --- the rules as pure functions ------------------------------------------------


class CasinoPayout(NamedTuple):
    casino: int  # 1-based
    bills: tuple[int, ...]  # laid out, largest first
    dice: dict  # owner -> dice placed (seats, then WHITE), owners with none left out
    removed: tuple  # owners removed because another owner had as many dice
    paid: tuple  # (owner, bill) from most dice to fewest
    unclaimed: tuple[int, ...]  # bills nobody took, largest first


def pay_casino(casino: int, bills: Sequence[int], dice: dict) -> CasinoPayout:
    """Pay one casino: owners with equal numbers of dice are removed; the others,
    from most dice to fewest, each take the largest bill left; bills nobody takes stay.
    """
    bills = tuple(sorted(bills, reverse=True))
    present = {owner: n for owner, n in dice.items() if n > 0}
    how_many = Counter(present.values())
    removed = tuple(owner for owner, n in present.items() if how_many[n] > 1)
    ranking = sorted((o for o, n in present.items() if how_many[n] == 1), key=lambda o: -present[o])
    paid = tuple(zip(ranking, bills))
    return CasinoPayout(casino, bills, present, removed, paid, bills[len(paid):])


def tie_key(bills: Sequence[int], tie_break: str):
    """What breaks a money tie: the bill list largest first (Python compares lists
    element by element, then by length), the number of bills, or nothing."""
    if tie_break == "bills":
        return sorted(bills, reverse=True)
    if tie_break == "count":
        return len(bills)
    return 0


def ranking(money: Sequence[int], bills: Sequence[Sequence[int]], tie_break: str) -> list[int]:
    """Seats from richest to poorest, a money tie broken by ``tie_break``; stable by seat."""
    return sorted(range(len(money)), key=lambda s: (money[s], tie_key(bills[s], tie_break)), reverse=True)


def winners(money: Sequence[int], bills: Sequence[Sequence[int]], tie_break: str) -> list[int]:
    """The richest seats; among several, those the tie-break favours. Tied seats share the win."""
    richest = max(money)
    tied = [s for s in range(len(money)) if money[s] == richest]
    best = max(tie_key(bills[s], tie_break) for s in tied)
    return [s for s in tied if tie_key(bills[s], tie_break) == best]


def win_shares(money: Sequence[int], bills: Sequence[Sequence[int]], tie_break: str) -> list[float]:
    best = winners(money, bills, tie_break)
    return [1.0 / len(best) if s in best else 0.0 for s in range(len(money))]


# --- moves and what a round leaves behind -----------------------------------------


class Roll(NamedTuple):
    """The faces a seat rolled (1..casinos): its own dice, then its white dice."""

    own: tuple[int, ...]
    white: tuple[int, ...] = ()

    def shown(self) -> list[int]:
        return sorted(set(self.own) | set(self.white))


class Turn(NamedTuple):
    seat: int
    roll: Roll
    value: int  # the casino the dice went to
    dice: int  # own dice placed
    white_dice: int  # white dice placed


@dataclass(frozen=True)
class RoundResult:
    """Everything a finished round leaves behind, for records and traces."""

    round: int  # 0-based
    first_player: int
    casino_bills: tuple[tuple[int, ...], ...]  # laid out, largest first
    short_casinos: int
    extra_white: tuple[int, ...]  # faces of the table's white dice
    turns: tuple[Turn, ...]
    payouts: tuple[CasinoPayout, ...]
    won: tuple[int, ...]  # dollars per seat
    bills_won: tuple[int, ...]
    white_won: int
    unclaimed: int
    money: tuple[int, ...]  # after the round
    bills: tuple[int, ...]  # banknotes held after the round
    pile: int  # bills left in the pile after the round


# --- what a seat may know -----------------------------------------------------------


@dataclass(frozen=True)
class Observation:
    """What the seat to move may know: the whole table, not the pile's order."""

    seat: int
    players: int
    rounds: int
    round: int  # 0-based
    casinos: int
    first_player: int
    turn: int  # turns taken this round before this one
    pile: int  # bills left in the pile
    dice_per_player: int
    white_per_player: int
    dice_left: tuple[int, ...]
    white_left: tuple[int, ...]
    money: tuple[int, ...]
    bills: tuple[int, ...]  # banknotes held
    casino_dice: tuple[tuple[int, ...], ...]  # [casino][seat..., then white]
    casino_bills: tuple[tuple[int, ...], ...]  # largest first

    def to_pub(self) -> np.ndarray:
        """The int64 array the jitted policies read, in the ``enums.P_*`` layout."""
        pub = np.zeros(E.PUB_SIZE, dtype=np.int64)
        pub[E.P_PLAYERS] = self.players
        pub[E.P_ROUNDS] = self.rounds
        pub[E.P_ROUND] = self.round
        pub[E.P_CASINOS] = self.casinos
        pub[E.P_FIRST_PLAYER] = self.first_player
        pub[E.P_SEAT] = self.seat
        pub[E.P_TURN] = self.turn
        pub[E.P_PILE] = self.pile
        pub[E.P_DICE] = self.dice_per_player
        pub[E.P_WHITE_DICE] = self.white_per_player
        for at, values in ((E.P_DICE_LEFT, self.dice_left), (E.P_WHITE_LEFT, self.white_left), (E.P_MONEY, self.money),
                           (E.P_BILLS, self.bills)):
            pub[at:at + len(values)] = values
        for c in range(self.casinos):
            for s in range(self.players):
                pub[E.P_CASINO_DICE + c * E.OWNERS + s] = self.casino_dice[c][s]
            pub[E.P_CASINO_DICE + c * E.OWNERS + E.WHITE] = self.casino_dice[c][self.players]
            pub[E.P_CASINO_NBILLS + c] = len(self.casino_bills[c])
            for k, bill in enumerate(self.casino_bills[c]):
                pub[E.P_CASINO_BILLS + c * E.MAX_CASINO_BILLS + k] = bill
        return pub


# --- the game -----------------------------------------------------------------------


class GameState:
    """A game in progress: the only mutable thing in the engine.

    A round goes ``start_round`` -> ``place_extra_white`` (3 players with the
    variant) -> ``take_turn``* -> ``end_round``. ``to_move`` says which
    seat rolls next. ``pile`` lists the bills top first.
    """

    def __init__(self, rules: Rules, pile: Sequence[int]):
        pile = [int(b) for b in pile]
        if Counter(pile) != Counter(rules.pile):
            raise ValueError("the pile must hold exactly the bills of rules.bills, in any order")
        self.rules = rules
        self.initial_pile = tuple(pile)
        self.pile = deque(pile)
        players = rules.players
        self.money = [0] * players
        self.bills_held: list[list[int]] = [[] for _ in range(players)]
        self.results: list[RoundResult] = []
        self.round = 0
        self.game_over = False
        self.in_round = False
        self.extra_placed = True

    # --- the round's set-up ---------------------------------------------------
    def start_round(self) -> bool:
        """Fill the casinos from the pile and hand out the dice.

        Returns False, and ends the game, when the pile cannot bring every
        casino to the minimum and ``rules.empty_pile`` is ``"end"``.
        """
        rules = self.rules
        if self.game_over:
            raise ValueError("the game is over")
        if self.in_round:
            raise ValueError(f"round {self.round + 1} is still in play")
        casino_bills = []
        short = 0
        for _ in range(rules.casinos):
            bills = []
            while sum(bills) < rules.casino_minimum and self.pile:
                bills.append(self.pile.popleft())
            short += sum(bills) < rules.casino_minimum
            casino_bills.append(sorted(bills, reverse=True))
        if short and rules.empty_pile == "end":
            self.game_over = True
            return False
        self.casino_bills = casino_bills
        self.short_casinos = short
        self.first_player = self.round % rules.players
        self.dice_left = [rules.dice_per_player] * rules.players
        self.white_left = [rules.n_white] * rules.players
        self.casino_dice = [[0] * (rules.players + 1) for _ in range(rules.casinos)]
        self.turns: list[Turn] = []
        self.extra_white: tuple[int, ...] = ()
        self.extra_placed = rules.n_extra_white == 0
        self.next_seat = self.first_player
        self.in_round = True
        return True

    def place_extra_white(self, faces: Sequence[int]) -> None:
        """The table's white dice of the round (3 players), on the casinos they show."""
        if not self.in_round or self.extra_placed:
            raise ValueError("the table's white dice are placed once, at the start of a round that has them")
        faces = tuple(faces)
        if len(faces) != self.rules.n_extra_white:
            raise ValueError(f"the table rolls {self.rules.n_extra_white} white dice, got {counted(len(faces), 'face')}")
        for face in faces:
            self._check_face(face, "a white die of the table")
            self.casino_dice[face - 1][self.rules.players] += 1
        self.extra_white = faces
        self.extra_placed = True

    def _check_face(self, face, what: str, seat: int | None = None) -> None:
        ok = isinstance(face, (int, np.integer)) and not isinstance(face, bool) and 1 <= face <= self.rules.casinos
        if not ok:
            rule = f"{what} shows 1 to {self.rules.casinos}, got {shown(face)}"
            raise ValueError(rule) if seat is None else IllegalMove(seat, rule)

    # --- whose turn ---------------------------------------------------------------
    def holds_dice(self, seat: int) -> bool:
        return self.dice_left[seat] + self.white_left[seat] > 0

    @property
    def round_over(self) -> bool:
        """Every die placed: the round can be paid out."""
        return self.in_round and not any(self.holds_dice(s) for s in range(self.rules.players))

    @property
    def to_move(self) -> int | None:
        """The seat that rolls next, or None between rounds and once every die is placed."""
        if not self.in_round or self.round_over:
            return None
        players = self.rules.players
        for k in range(players):
            seat = (self.next_seat + k) % players
            if self.holds_dice(seat):
                return seat
        return None

    # --- a turn ------------------------------------------------------------------
    def take_turn(self, seat: int, roll: Roll, value: int) -> Turn:
        """``seat`` rolled ``roll`` and places every die showing ``value`` (its own
        and its white ones) on casino ``value``."""
        if not self.in_round:
            raise IllegalMove(seat, "no round is in play")
        if not self.extra_placed:
            raise IllegalMove(seat, "the table's white dice are placed before the first turn")
        if self.round_over:
            raise IllegalMove(seat, "every die of the round is placed")
        if seat != self.to_move:
            raise IllegalMove(seat, f"not this seat's turn (seat {self.to_move} rolls next)")
        roll = Roll(tuple(roll.own), tuple(roll.white))
        if len(roll.own) != self.dice_left[seat]:
            raise IllegalMove(seat, f"rolls all its dice: {self.dice_left[seat]} of its own, got {len(roll.own)}")
        if len(roll.white) != self.white_left[seat]:
            raise IllegalMove(seat, f"rolls all its dice: {self.white_left[seat]} white, got {len(roll.white)}")
        for face in roll.own + roll.white:
            self._check_face(face, "a die", seat)
        if value not in roll.shown():
            raise IllegalMove(seat, f"places a value its dice show ({', '.join(map(str, roll.shown()))}), not {shown(value)}")
        own = roll.own.count(value)
        white = roll.white.count(value)
        self.casino_dice[value - 1][seat] += own
        self.casino_dice[value - 1][self.rules.players] += white
        self.dice_left[seat] -= own
        self.white_left[seat] -= white
        turn = Turn(seat, roll, value, own, white)
        self.turns.append(turn)
        self.next_seat = (seat + 1) % self.rules.players
        return turn

    # --- what a seat sees ----------------------------------------------------------
    def observe(self, seat: int) -> Observation:
        rules = self.rules
        return Observation(
            seat=seat,
            players=rules.players,
            rounds=rules.rounds,
            round=self.round,
            casinos=rules.casinos,
            first_player=self.first_player,
            turn=len(self.turns),
            pile=len(self.pile),
            dice_per_player=rules.dice_per_player,
            white_per_player=rules.n_white,
            dice_left=tuple(self.dice_left),
            white_left=tuple(self.white_left),
            money=tuple(self.money),
            bills=tuple(len(b) for b in self.bills_held),
            casino_dice=tuple(tuple(d) for d in self.casino_dice),
            casino_bills=tuple(tuple(b) for b in self.casino_bills),
        )

    # --- payout ----------------------------------------------------------------------
    def end_round(self) -> RoundResult:
        """Pay casinos 1 to C in order. A bill the white dice win, then the bills
        nobody won (largest first), go under the pile."""
        rules = self.rules
        players = rules.players
        if not self.round_over:
            raise ValueError("the round is paid out once every die is placed")
        won = [0] * players
        bills_won = [0] * players
        white_won = unclaimed = 0
        payouts = []
        for c in range(rules.casinos):
            dice = {s: self.casino_dice[c][s] for s in range(players)}
            dice[WHITE] = self.casino_dice[c][players]
            payout = pay_casino(c + 1, self.casino_bills[c], dice)
            for owner, bill in payout.paid:
                if owner == WHITE:
                    white_won += bill
                    self.pile.append(bill)
                else:
                    won[owner] += bill
                    bills_won[owner] += 1
                    self.money[owner] += bill
                    self.bills_held[owner].append(bill)
            unclaimed += sum(payout.unclaimed)
            self.pile.extend(payout.unclaimed)
            payouts.append(payout)
        result = RoundResult(
            round=self.round,
            first_player=self.first_player,
            casino_bills=tuple(tuple(b) for b in self.casino_bills),
            short_casinos=self.short_casinos,
            extra_white=self.extra_white,
            turns=tuple(self.turns),
            payouts=tuple(payouts),
            won=tuple(won),
            bills_won=tuple(bills_won),
            white_won=white_won,
            unclaimed=unclaimed,
            money=tuple(self.money),
            bills=tuple(len(b) for b in self.bills_held),
            pile=len(self.pile),
        )
        self.results.append(result)
        self.round += 1
        self.in_round = False
        self.game_over = self.round == rules.rounds
        return result


# --- draws from the table stream -------------------------------------------------------


def shuffled_pile(rules: Rules, table: Stream) -> list[int]:
    """The bills in the order of ``rules.bills``, shuffled once per game; index 0 is drawn first."""
    pile = list(rules.pile)
    table.shuffle(pile)
    return pile


def roll_dice(table: Stream, n: int, casinos: int) -> tuple[int, ...]:
    """``n`` dice, one ``below(casinos)`` draw each, as faces 1..casinos."""
    return tuple(table.below(casinos) + 1 for _ in range(n))


def roll_for(state: GameState, seat: int, table: Stream) -> Roll:
    """The seat's roll: its own dice first, then its white dice."""
    casinos = state.rules.casinos
    own = roll_dice(table, state.dice_left[seat], casinos)
    return Roll(own, roll_dice(table, state.white_left[seat], casinos))


# --- policies -------------------------------------------------------------------------


class Policy(Protocol):
    def choose_value(self, obs: Observation, roll: Roll, rng: Stream) -> int: ...


class RandomPolicy(reference.RandomPolicy):
    """Uniform over the values shown. Draws exactly as the jitted ``random``
    policy does: the values in ascending order, index ``below(n)``."""

    def choose_value(self, obs: Observation, roll: Roll, rng: Stream) -> int:
        shown = roll.shown()
        return shown[rng.below(len(shown))]


def roll_counts(roll: Roll, casinos: int) -> tuple[np.ndarray, np.ndarray]:
    """The roll as the jitted policies read it: dice per casino (0-based), own and white."""
    own = np.zeros(E.MAX_CASINOS, dtype=np.int64)
    white = np.zeros(E.MAX_CASINOS, dtype=np.int64)
    for face in roll.own:
        own[face - 1] += 1
    for face in roll.white:
        white[face - 1] += 1
    return own, white


class JitPolicy(reference.JitPolicy):
    """A jitted policy of ``policies.py`` playing a seat of the reference engine (``JitPolicy.named("greedy")``)."""

    parse_policy = staticmethod(jitted_policies.parse_policy)
    n_params = jitted_policies.N_POLICY_PARAMS

    def choose_value(self, obs: Observation, roll: Roll, rng: Stream) -> int:
        own, white = roll_counts(roll, obs.casinos)
        return int(self.decide(jitted_policies.choose_value_nb, rng, obs.to_pub(), own, white)) + 1


# --- one game, start to end --------------------------------------------------------------


def play_round(state: GameState, policies: Sequence[Policy], table: Stream, streams: Sequence[Stream]) -> RoundResult:
    """Roll for each seat in turn, ask its policy for a value, then pay out."""
    if state.rules.n_extra_white:
        state.place_extra_white(roll_dice(table, state.rules.n_extra_white, state.rules.casinos))
    while not state.round_over:
        seat = state.to_move
        roll = roll_for(state, seat, table)
        state.take_turn(seat, roll, policies[seat].choose_value(state.observe(seat), roll, streams[seat]))
    return state.end_round()


def play_out(rules: Rules, table: Stream, streams: Sequence[Stream], policies: Sequence[Policy]) -> GameState:
    """A whole game from the table stream's pile and rolls, each seat's policy deciding."""
    state = GameState(rules, shuffled_pile(rules, table))
    while not state.game_over and state.start_round():
        play_round(state, policies, table, streams)
    return state


def game_records(state: GameState, game: int) -> dict[str, np.ndarray]:
    """The per-game record of a finished game, shaped as ``records.RECORD_FIELDS`` without the games axis."""
    rules = state.rules
    rec = LAYOUT.one_game(rules)
    money = state.money
    richest = max(money)
    others = sorted(money, reverse=True)[1]
    rec["game"][...] = game
    rec["money"][:] = money
    rec["bills"][:] = [len(b) for b in state.bills_held]
    rec["win_share"][:] = win_shares(money, state.bills_held, rules.tie_break)
    rec["money_tied"][...] = money.count(richest)
    rec["margin"][...] = richest - others
    rec["rounds_played"][...] = len(state.results)
    for r, res in enumerate(state.results):
        rec["first_player"][r] = res.first_player
        rec["won"][r] = res.won
        rec["bills_won"][r] = res.bills_won
        rec["casino_laid_out"][r] = [sum(b) for b in res.casino_bills]
        rec["laid_out"][r] = rec["casino_laid_out"][r].sum()
        rec["white_won"][r] = res.white_won
        rec["unclaimed"][r] = res.unclaimed
        rec["payouts"][r] = sum(1 for p in res.payouts if p.dice)
        rec["tie_cancels"][r] = sum(1 for p in res.payouts if p.removed)
        rec["short_casinos"][r] = res.short_casinos
        rec["turns"][r] = len(res.turns)
    return rec


# --- traces ------------------------------------------------------------------------------


def _owner(owner) -> int | str:
    return owner if owner == WHITE else int(owner)


def payout_trace(p: CasinoPayout, players: int) -> dict:
    return {
        "casino": p.casino,
        "bills": list(p.bills),
        "dice": [p.dice.get(s, 0) for s in range(players)],
        "white": p.dice.get(WHITE, 0),
        "removed": [_owner(o) for o in p.removed],
        "paid": [{"owner": _owner(o), "bill": bill} for o, bill in p.paid],
        "unclaimed": list(p.unclaimed),
    }


def turn_trace(t: Turn) -> dict:
    out = {"seat": t.seat, "roll": list(t.roll.own)}
    if t.roll.white:
        out["white"] = list(t.roll.white)
    out.update({"place": t.value, "dice": t.dice, "white_dice": t.white_dice})
    return out


def round_trace(res: RoundResult, players: int) -> dict:
    out = {
        "round": res.round + 1,
        "first_player": res.first_player,
        "casinos": [list(b) for b in res.casino_bills],
        "short_casinos": res.short_casinos,
    }
    if res.extra_white:
        out["extra_white"] = list(res.extra_white)
    out.update(
        {
            "turns": [turn_trace(t) for t in res.turns],
            "payouts": [payout_trace(p, players) for p in res.payouts],
            "won": list(res.won),
            "white_won": res.white_won,
            "unclaimed": res.unclaimed,
            "money": list(res.money),
            "bills": list(res.bills),
            "pile": res.pile,
        }
    )
    return out


def game_trace(state: GameState) -> dict:
    """A played game as the JSON-ready trace ``replay`` returns."""
    rules = state.rules
    return {
        "pile": list(state.initial_pile),
        "rounds": [round_trace(res, rules.players) for res in state.results],
        "money": list(state.money),
        "bills": [sorted(b, reverse=True) for b in state.bills_held],
        "ranking": ranking(state.money, state.bills_held, rules.tie_break),
        "winners": winners(state.money, state.bills_held, rules.tie_break),
    }


PLAY_LOOP = PlayLoop.of(E, RandomPolicy, play_out, game_records, game_trace)
play_game = PLAY_LOOP.play_game  # (rules, seed, game, policies=None, trace=False) -> records [, trace]


# --- the game stepped one action at a time (sim.state) -------------------------------------


def copy_game_state(gs: GameState) -> GameState:
    """A copy of everything a turn or a round's payout changes (results and turns are immutable and shared)."""
    other = copy.copy(gs)
    other.pile = deque(gs.pile)
    other.money = list(gs.money)
    other.bills_held = [list(b) for b in gs.bills_held]
    other.results = list(gs.results)
    if gs.in_round:
        other.casino_bills = [list(b) for b in gs.casino_bills]
        other.dice_left = list(gs.dice_left)
        other.white_left = list(gs.white_left)
        other.casino_dice = [list(d) for d in gs.casino_dice]
        other.turns = list(gs.turns)
    return other


class VegasDiceState(State):
    """The reference :class:`GameState` with the casinos being laid out and the dice being rolled.

    ``unseen`` of the pile's leading bills are the shuffled ones no one has
    seen (their order is drawn as they are laid out); the rest went under
    the pile in an order everyone saw.
    """

    copy_state = staticmethod(copy_game_state)
    stepped_lists = ("extra", "own", "white")

    def __init__(self, rules, state: GameState | None = None, unseen: int | None = None):
        super().__init__(rules)
        self.state = state if state is not None else GameState(rules, rules.pile)
        self.unseen = len(self.state.pile) if unseen is None else unseen
        self.drawn = 0  # bills drawn for the casinos being laid out
        self.extra: list[int] = []  # faces of the table's white dice rolled so far
        self.own: list[int] = []  # the seat to move's roll so far
        self.white: list[int] = []
        # A round's take against the others' average is a fraction of what the casinos hold.
        self.value_scale = rules.casinos * rules.casino_minimum / rules.players

    @classmethod
    def new(cls, rules) -> "VegasDiceState":
        table = cls(rules)
        table._settle()
        return table

    @classmethod
    def sizes(cls, rules) -> Sizes:
        dice = rules.players * (rules.dice_per_player + rules.n_white)
        # A turn places at least one die; each die is rolled at most once per turn it waits.
        per_round = len(rules.pile) + rules.n_extra_white + dice * (dice + 1) // 2 + dice
        return Sizes(rules.casinos, max(rules.casinos, len(rules.bill_values)), rules.rounds * per_round)

    @classmethod
    def from_observation(cls, rules, obs: Observation, words: np.ndarray, roll: Roll | None = None
                         ) -> "VegasDiceState":
        """The table ``obs`` shows, the seat to move holding ``roll``. Nothing is hidden, so ``words`` draw
        nothing; what the observation leaves out — the pile's bills and each seat's bill values — is not
        reached before the round is paid out, where a rooted state ends: the pile holds the bills no casino
        holds, as many as ``obs`` counts, the seats' bills stand as zeros."""
        gs = GameState(rules, rules.pile)
        gs.round, gs.first_player = obs.round, obs.first_player
        gs.money = list(obs.money)
        gs.bills_held = [[0] * n for n in obs.bills]
        on_casinos = Counter(b for bills in obs.casino_bills for b in bills)
        gs.pile = deque(list((Counter(rules.pile) - on_casinos).elements())[:obs.pile])
        gs.casino_bills = [list(b) for b in obs.casino_bills]
        gs.short_casinos = 0
        gs.dice_left, gs.white_left = list(obs.dice_left), list(obs.white_left)
        gs.casino_dice = [list(d) for d in obs.casino_dice]
        gs.turns = [None] * obs.turn  # only counted: the observation's turn
        gs.extra_white, gs.extra_placed = (), True
        gs.next_seat = obs.seat
        gs.in_round = True
        table = cls(rules, gs, unseen=obs.pile)
        if roll is not None:
            table.own, table.white = list(roll.own), list(roll.white)
        return table

    # --- stepping -----------------------------------------------------------------
    def _bill_needed(self) -> bool:
        """Whether laying out the casinos takes another bill, the ``drawn`` ones laid out first."""
        rules, pile = self.rules, self.state.pile
        k = 0
        for _ in range(rules.casinos):
            total = 0
            while total < rules.casino_minimum and k < len(pile):
                if k == self.drawn:
                    return True
                total += pile[k]
                k += 1
        return False

    def _rolling(self, seat: int) -> bool:
        """Whether ``seat``, to move, has dice not yet rolled."""
        gs = self.state
        return len(self.own) < gs.dice_left[seat] or len(self.white) < gs.white_left[seat]

    def _settle(self) -> None:
        """Take every step no chance and no seat decides: a bill whose place is known, the casinos once laid out."""
        gs = self.state
        while not gs.in_round and not gs.game_over:  # laying out the casinos
            if self._bill_needed():
                if self.drawn < self.unseen:
                    return
                self.drawn += 1
                continue
            gs.start_round()  # takes the bills drawn; with empty_pile = "end" it may end the game
            self.unseen = max(0, self.unseen - self.drawn)
            self.drawn = 0

    def to_move(self) -> int:
        gs = self.state
        if gs.game_over:
            return TERMINAL
        if not gs.in_round or not gs.extra_placed:
            return CHANCE
        seat = gs.to_move
        return CHANCE if self._rolling(seat) else seat

    def decision_kind(self) -> str | None:
        """Every decision of the game is ``value``: which value of the roll to place."""
        return "value" if self.to_move() >= 0 else None

    def chance_outcomes(self) -> list[tuple[int, float]]:
        gs = self.state
        if not gs.in_round:
            left = Counter(list(gs.pile)[self.drawn:self.unseen])
            total = self.unseen - self.drawn
            return [(k, left[v] / total) for k, v in enumerate(self.rules.bill_values) if left[v]]
        casinos = self.rules.casinos
        return [(face, 1.0 / casinos) for face in range(casinos)]

    def legal_actions(self) -> list[int]:
        return [value - 1 for value in Roll(tuple(self.own), tuple(self.white)).shown()]

    def apply(self, action: int) -> str:
        gs = self.state
        if not gs.in_round:
            return self._lay_out(action)
        if not 0 <= action < self.rules.casinos:
            raise ValueError(f"a die shows 1 to {self.rules.casinos}, got action {action}")
        face = action + 1
        if not gs.extra_placed:
            self.extra.append(face)
            if len(self.extra) == self.rules.n_extra_white:
                gs.place_extra_white(self.extra)
                self.extra = []
            return f"table white {face}"
        seat = gs.to_move
        if self._rolling(seat):
            if len(self.own) < gs.dice_left[seat]:
                self.own.append(face)
                return f"{seat} rolls {face}"
            self.white.append(face)
            return f"{seat} rolls white {face}"
        gs.take_turn(seat, Roll(tuple(self.own), tuple(self.white)), face)
        self.own, self.white = [], []
        if gs.round_over:
            gs.end_round()
            self._settle()
        return f"{seat} places {face}"

    def _lay_out(self, outcome: int) -> str:
        pile = self.state.pile
        values = self.rules.bill_values
        if not 0 <= outcome < len(values) or values[outcome] not in list(pile)[self.drawn:self.unseen]:
            raise ValueError(f"bill {outcome} is not among the bills left in the pile")
        bill = values[outcome]
        j = next(i for i in range(self.drawn, self.unseen) if pile[i] == bill)
        pile[self.drawn], pile[j] = pile[j], pile[self.drawn]
        self.drawn += 1
        self._settle()
        return f"bill {bill}"

    def rounds_scored(self) -> int:
        return len(self.state.results)

    def scores(self) -> list[float]:
        """Each seat's money against the others' average: what a round's take is measured in."""
        money = self.state.money
        others = len(money) - 1
        return [m - (sum(money) - m) / others for m in money]

    def win_shares(self) -> list[float]:
        gs = self.state
        return win_shares(gs.money, gs.bills_held, self.rules.tie_break)

    def trace(self) -> dict:
        return game_trace(self.state)

    # --- what a seat knows: everything -------------------------------------------------
    def observation(self, seat: int) -> str:
        return f"seat {seat} {self.public_view()}"

    def public_view(self) -> str:
        gs = self.state
        if gs.in_round:
            view = fields_text(gs.observe(0), seat=None)
            return f"{view} extra {self.extra} roll {self.own} white {self.white}"
        return f"round {gs.round} money {gs.money} bills {[sorted(b) for b in gs.bills_held]} pile {len(gs.pile)}"

    def private(self, seat: int) -> str:
        return ""

    def resample(self, seat: int, words: np.ndarray) -> "VegasDiceState":
        """The state itself: a seat knows it all (the pile's order is chance, not hidden state)."""
        return self.clone()

    def action_name(self, seat: int, action: int) -> str:
        if seat == CHANCE:
            if not self.state.in_round:
                return f"bill {self.rules.bill_values[action]}"
            return f"die shows {action + 1}"
        return f"seat {seat} places {action + 1}"


STATE = VegasDiceState


# --- the ismcts policy at a seat of the reference engine -------------------------------


class IsmctsPlayer:
    """``ismcts:N`` deciding the value to place from the seat's observation and roll (sim.openspiel.search)."""

    def __init__(self, rules, params):
        from sim.openspiel import load
        from sim.openspiel.search import Search

        self.search = Search(load("vegas-dice", rules), VegasDiceState, rules, int(params[0]))

    def choose_value(self, obs: Observation, roll: Roll, rng: Stream) -> int:
        return self.search.action(obs, rng, roll=roll) + 1


# The reference engine's player for a seat: ismcts, the Python ``random``, or a jitted policy.
PLAYERS = reference.Players(JitPolicy, RandomPolicy, {jitted_policies.POLICY_ISMCTS: IsmctsPlayer})
seat_player, player_named = PLAYERS.seat_player, PLAYERS.player_named
