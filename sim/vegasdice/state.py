"""Las Vegas (the dice game) as an OpenSpiel game: the reference engine stepped one action at a time
(sim.openspiel).

A game of perfect information: every die rolled and every bill laid out is
on the table for all to see (the reference engine's :class:`Observation`:
everything but the pile's order), and the pile's order is nobody's
knowledge, so it is not hidden state here but chance: a bill is drawn when
it is laid out. A seat's information state is the whole state, and
``resample_from_infostate`` gives the state itself. (OpenSpiel is told
imperfect information all the same, each information set one state: its
ISMCTS takes no other games.)

Chance nodes, in the order the table stream draws them (docs/engine.md):
at the start of each round, the bills laid out on casinos 1 to C, one at a
time, each from what is left of the shuffled pile (outcome ``k`` is the
``k``-th largest value of ``rules.bills``, with its share of the unseen
bills left; a bill that went under the pile, whose place everyone saw, is
laid out without a chance node once the shuffled part is used up); then the
table's white dice at 3 players; then, before each turn, the seat's dice one
by one, its own first, then its white ones (outcome ``face - 1``, each of
the ``casinos`` faces alike). A player's action is the value it places
(``value - 1``). Every event is public.

Returns of the whole game are the win shares (a remaining tie shares);
a rooted state (the ``ismcts`` search's) ends when the round is paid out,
its returns each seat's money won against the others' average, divided by a
round's typical take.
"""

from __future__ import annotations

import copy
from collections import Counter, deque

import numpy as np

from sim import reference
from sim.state import CHANCE, TERMINAL, Sizes, State, fields_text
from sim.rng import Stream
from sim.vegasdice.params import Rules
from sim.vegasdice.policies import POLICY_ISMCTS
from sim.vegasdice.records import LAYOUT  # noqa: F401  (sim.openspiel.reference plays a batch with these two)
from sim.vegasdice.rules import PLAY_LOOP  # noqa: F401
from sim.vegasdice.rules import GameState, JitPolicy, Observation, RandomPolicy, Roll, game_trace, win_shares


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
    def _laying_out(self) -> bool:
        gs = self.state
        return not gs.in_round and not gs.game_over

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
        while self._laying_out():
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


def seat_player(rules, policy_id: int, params: np.ndarray):
    """The reference engine's player for a parsed seat: ismcts, the Python ``random``, or a jitted policy."""
    if policy_id == POLICY_ISMCTS:
        return IsmctsPlayer(rules, params)
    return reference.player_of(policy_id, params, RandomPolicy, JitPolicy)


def player_named(rules: Rules, text: str):
    """The reference engine's player for a policy as a config names it, ismcts included."""
    policy_id, params = JitPolicy.parse_policy(text)
    return seat_player(rules, policy_id, params)
