"""The reference engine of Las Vegan: plain, readable Python.

This is the source of truth for traces and the engine the jitted core is
checked against. It keeps four things apart:

* :class:`~sim.lasvegan.params.Rules` — the immutable rule knobs;
* :class:`GameState` — the mutable game: hands, tricks, tokens, cabbages;
* :class:`Observation` — what one seat may know (``state.observe(seat)``);
* policies — objects with ``choose_card(obs, legal, rng)`` and
  ``choose_placement(obs, rng)``, which see an observation, never the state.

Every move goes through :meth:`GameState.play_card` or
:meth:`GameState.place_token`; a move the rules forbid raises
:class:`IllegalMove` (a ``ValueError``) whose message names the rule.

The order of events and random draws is the one in ``docs/engine.md``, so
:func:`play_game` and the jitted core play the same game for the same
``(seed, game)``.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, NamedTuple, Protocol, Sequence

import numpy as np

from sim import reference
from sim.errors import shown
from sim.lasvegan import enums as E
from sim.lasvegan import policies as jitted_policies
from sim.lasvegan.lookahead import N_HOLDERS, deal_unseen_nb, placements_owed_nb
from sim.lasvegan.params import PAYOUT_ORDERS, Rules, machine_name
from sim.lasvegan.policies import POLICY_ISMCTS
from sim.lasvegan.records import LAYOUT
from sim.reference import IllegalMove, PlayLoop
from sim.rng import Stream
from sim.state import CHANCE, TERMINAL, Sizes, State, fields_text

# --- cards -------------------------------------------------------------------


def suit_of(card: int) -> int:
    return card // E.N_VALUES


def value_of(card: int) -> int:
    return card % E.N_VALUES


def card_name(card: int) -> str:
    """17 -> ``"B7"``: the suit letter, then the value."""
    return f"{E.SUIT_LETTERS[suit_of(card)]}{value_of(card)}"


def parse_card(text: str) -> int:
    """``"B7"`` -> 17; ValueError naming the expected form otherwise."""
    if isinstance(text, str) and len(text) == 2 and text[0] in E.SUIT_LETTERS and text[1] in "0123456789":
        return E.SUIT_LETTERS.index(text[0]) * E.N_VALUES + int(text[1])
    raise ValueError(f"{shown(text)} is not a card (a suit letter G, B, R or P and a value 0-9, e.g. R7)")


def card_mask(cards: Iterable[int]) -> int:
    """The 40-bit mask the jitted core uses for a set of cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def is_colour_machine(code: int) -> bool:
    return code < E.POINTS_BASE


# --- the rules as pure functions ---------------------------------------------


def trick_winner(cards: Sequence[int], leader: int, players: int) -> int:
    """The seat that takes a complete trick; ``cards`` are in play order from ``leader``.

    The last 0 of a suit other than the led suit wins; without one, the
    highest card of the led suit (a led-suit 0 is just its lowest card).
    """
    led = suit_of(cards[0])
    off_suit_zeros = [i for i, card in enumerate(cards) if value_of(card) == 0 and suit_of(card) != led]
    if off_suit_zeros:
        position = off_suit_zeros[-1]
    else:
        position = max(
            (i for i, card in enumerate(cards) if suit_of(card) == led),
            key=lambda i: value_of(cards[i]),
        )
    return (leader + position) % players


def free_slots(machine_token: Sequence[int], token_placed: Sequence[bool], golden_side: int) -> list[int]:
    """Where a 7 could place a token now, in the order machines 0, 1, 2, then golden.

    An ordinary machine is free only while some ordinary token is still unplaced.
    """
    slots = []
    if not all(token_placed):
        slots.extend(m for m, token in enumerate(machine_token) if token < 0)
    if golden_side == E.NO_SIDE:
        slots.append(E.GOLDEN_SLOT)
    return slots


def machine_amounts(
    machines: Sequence[int],
    machine_values: Sequence[int | None],
    golden_side: int,
    golden_value: int,
    won: Sequence[Iterable[int]],
    tricks: Sequence[int],
) -> list[list[int]]:
    """What each machine gives each seat: rows for machines 0, 1, 2, then golden.

    ``machine_values[m]`` is the face value of the token on machine ``m``, or
    None when no token was placed there (the machine then scores nothing).
    """
    players = len(tricks)
    won = [list(cards) for cards in won]
    rows = []
    for code, value in zip(machines, machine_values):
        row = [0] * players
        if value is not None:
            for seat in range(players):
                if is_colour_machine(code):
                    # only complete groups of three cards of the suit count
                    row[seat] = value * (sum(suit_of(c) == code for c in won[seat]) // 3)
                else:
                    row[seat] = value * sum(value_of(c) == code - E.POINTS_BASE for c in won[seat])
        rows.append(row)
    golden = [0] * players
    if golden_side != E.NO_SIDE:
        target = min(tricks) if golden_side == E.MIN_SIDE else max(tricks)
        # every seat tied for the fewest (MIN) or the most (MAX) tricks pays
        golden = [-golden_value if t == target else 0 for t in tricks]
    rows.append(golden)
    return rows


def amounts_by_kind(machines: Sequence[int], rows: Sequence[Sequence[int]]) -> list[list[int]]:
    """Fold the four machine rows into colour, points and golden totals per seat."""
    players = len(rows[0])
    kinds = [[0] * players for _ in range(E.N_KINDS)]
    for code, row in zip(machines, rows):
        kind = E.KIND_COLOUR if is_colour_machine(code) else E.KIND_POINTS
        kinds[kind] = [a + b for a, b in zip(kinds[kind], row)]
    kinds[E.KIND_GOLDEN] = list(rows[E.GOLDEN_SLOT])
    return kinds


class Settlement(NamedTuple):
    cabbages: list[int]
    reserve: int | None  # None: unlimited
    shortfall: int


def settle(cabbages: Sequence[int], reserve: int | None, net: Sequence[int], first_payee: int) -> Settlement:
    """Pay the round's nets: losses into the reserve first, then gains out of it.

    Nobody loses more than they hold. Gains are paid clockwise from
    ``first_payee`` while a finite reserve lasts; what it cannot pay is the
    shortfall. ``reserve`` is None when unlimited.
    """
    players = len(cabbages)
    cabbages = list(cabbages)
    for seat in range(players):
        if net[seat] < 0:
            paid = min(-net[seat], cabbages[seat])
            cabbages[seat] -= paid
            if reserve is not None:
                reserve += paid
    shortfall = 0
    for i in range(players):
        seat = (first_payee + i) % players
        if net[seat] > 0:
            gain = net[seat] if reserve is None else min(net[seat], reserve)
            cabbages[seat] += gain
            if reserve is not None:
                reserve -= gain
            shortfall += net[seat] - gain
    return Settlement(cabbages, reserve, shortfall)


def winners(cabbages: Sequence[int]) -> list[int]:
    """Every seat with the most cabbages: tied seats share the win."""
    most = max(cabbages)
    return [seat for seat, c in enumerate(cabbages) if c == most]


def win_shares(cabbages: Sequence[int]) -> list[float]:
    best = winners(cabbages)
    return [1.0 / len(best) if seat in best else 0.0 for seat in range(len(cabbages))]


# --- moves and what the round leaves behind -----------------------------------


class Placement(NamedTuple):
    """One token placed for a 7: an ordinary token on a machine, or the golden token on a side."""

    slot: int  # ordinary machine 0, 1, 2 of the round, or E.GOLDEN_SLOT
    token: int = -1  # ordinary token index (as listed in the rules); -1 for the golden token
    side: int = E.NO_SIDE  # E.MIN_SIDE or E.MAX_SIDE for the golden token

    @classmethod
    def on_machine(cls, machine: int, token: int) -> "Placement":
        return cls(machine, token, E.NO_SIDE)

    @classmethod
    def golden(cls, side: int) -> "Placement":
        return cls(E.GOLDEN_SLOT, -1, side)


class Trick(NamedTuple):
    leader: int
    cards: tuple[int, ...]  # in play order, from the leader
    winner: int


class PlacedToken(NamedTuple):
    seat: int
    slot: int
    token: int
    side: int
    value: int  # face value of the token placed


@dataclass(frozen=True)
class RoundResult:
    """Everything a finished round leaves behind, for records and traces."""

    round: int  # 0-based
    leader: int
    machines: tuple[int, ...]
    tricks: tuple[Trick, ...]
    placements: tuple[PlacedToken, ...]
    tricks_won: tuple[int, ...]
    machine_amounts: tuple[tuple[int, ...], ...]  # 3 ordinary machines, then golden
    kind_amounts: tuple[tuple[int, ...], ...]  # colour, points, golden
    net: tuple[int, ...]
    delta: tuple[int, ...]  # actual change after settlement
    cabbages: tuple[int, ...]  # after settlement
    reserve: int | None
    shortfall: int
    machine_token: tuple[int, ...]
    machine_value: tuple[int, ...]  # 0 where no token
    machine_placer: tuple[int, ...]
    golden_side: int
    golden_value: int
    golden_placer: int
    next_leader: int
    game_over: bool


# --- what a seat may know -----------------------------------------------------

# Observation fields ``pub`` holds as they are: in one entry, one per seat, one per machine of the round.
PUB_ONE = {
    "players": E.P_PLAYERS, "round": E.P_ROUND, "rounds": E.P_ROUNDS, "round_leader": E.P_ROUND_LEADER,
    "trick_leader": E.P_TRICK_LEADER, "trick_number": E.P_TRICK_NUMBER, "golden_value": E.P_GOLDEN_VALUE,
    "golden_side": E.P_GOLDEN_SIDE, "golden_placer": E.P_GOLDEN_PLACER, "n_set_aside": E.P_N_SET_ASIDE,
    "starting_cabbages": E.P_STARTING, "payout_order": E.P_PAYOUT_ORDER,
}
PUB_PER_SEAT = {"tricks": E.P_TRICKS, "cabbages": E.P_CABBAGES, "hand_sizes": E.P_HAND_SIZE}
PUB_PER_MACHINE = {"machines": E.P_MACHINES, "machine_token": E.P_MACHINE_TOKEN, "machine_placer": E.P_MACHINE_PLACER}


@dataclass(frozen=True)
class Observation:
    """What one seat may know (see "Information" in the rules), and nothing more.

    Other hands are absent, and so are set-aside cards unless the rules
    reveal them. Cards won are public: everybody saw the tricks being played.
    During a placement the trick just won has already been gathered: the
    current trick is empty and its winner is the trick leader.
    """

    seat: int
    hand: tuple[int, ...]  # ascending card ids
    players: int
    rounds: int
    round: int  # 0-based
    round_leader: int
    trick_number: int  # 0-based
    trick_leader: int
    trick: tuple[int, ...]  # cards of the current trick, in play order
    played: frozenset[int]  # this round, the current trick included
    won: tuple[frozenset[int], ...]  # per seat
    tricks: tuple[int, ...]  # per seat, this round
    voids: tuple[frozenset[int], ...]  # per seat, suits it has shown it lacks
    hand_sizes: tuple[int, ...]
    cabbages: tuple[int, ...]
    reserve: int | None  # None: unlimited
    starting_cabbages: int
    end_on_elimination: bool
    machines: tuple[int, ...]
    machine_token: tuple[int, ...]  # -1: no token
    machine_placer: tuple[int, ...]
    token_values: tuple[int, ...]  # face value showing on each ordinary token
    token_placed: tuple[bool, ...]
    golden_value: int
    golden_side: int
    golden_placer: int
    n_set_aside: int
    set_aside: frozenset[int]  # empty unless the rules reveal it
    payout_order: int = E.PAYOUT_NEXT_LEADER  # who a short reserve pays first

    def free_slots(self) -> list[int]:
        return free_slots(self.machine_token, self.token_placed, self.golden_side)

    def unplaced_tokens(self) -> list[int]:
        return [t for t, placed in enumerate(self.token_placed) if not placed]

    def to_pub(self) -> np.ndarray:
        """The int64 array the jitted policies read, in the ``enums.P_*`` layout.

        Seats beyond the player count and tokens beyond the token count hold
        0; empty places of the current trick hold -1.
        """
        pub = np.zeros(E.PUB_SIZE, dtype=np.int64)
        for name, at in PUB_ONE.items():
            pub[at] = getattr(self, name)
        for name, at in PUB_PER_SEAT.items():
            pub[at:at + self.players] = getattr(self, name)
        for name, at in PUB_PER_MACHINE.items():
            pub[at:at + E.MACHINES_PER_ROUND] = getattr(self, name)
        pub[E.P_END_ON_ELIMINATION] = int(self.end_on_elimination)
        pub[E.P_RESERVE] = -1 if self.reserve is None else self.reserve
        pub[E.P_PLAYED] = card_mask(self.played)
        pub[E.P_SET_ASIDE] = card_mask(self.set_aside)
        pub[E.P_TRICK_LEN] = len(self.trick)
        pub[E.P_TRICK_CARDS:E.P_TRICK_CARDS + E.MAX_PLAYERS] = -1
        pub[E.P_TRICK_CARDS:E.P_TRICK_CARDS + len(self.trick)] = self.trick
        for seat in range(self.players):
            pub[E.P_WON + seat] = card_mask(self.won[seat])
            pub[E.P_VOIDS + seat] = sum(1 << suit for suit in self.voids[seat])
        n_tokens = pub[E.P_N_TOKENS] = len(self.token_values)
        pub[E.P_TOKEN_VALUE:E.P_TOKEN_VALUE + n_tokens] = self.token_values
        pub[E.P_TOKEN_PLACED:E.P_TOKEN_PLACED + n_tokens] = self.token_placed
        return pub


# --- the game -----------------------------------------------------------------


class GameState:
    """A game in progress: the only mutable thing in the engine.

    A round goes ``start_round`` -> (``play_card`` | ``place_token``)* ->
    ``end_round``. ``to_move`` says which seat acts next and
    ``placement_owed`` whether that seat owes a token for a 7 it won.
    """

    def __init__(self, rules: Rules):
        self.rules = rules
        self.cabbages = list(rules.seat_starting)
        self.reserve: int | None = rules.starting_reserve if rules.finite_reserve else None
        self.machines_left = Counter(rules.machine_codes)
        self.results: list[RoundResult] = []
        self.next_leader = 0  # seat 0 leads the first round
        self.game_over = False
        self.elim_round = 0
        self.seven_no_slot = 0
        self.zero_playing_on = 0
        self.in_round = False
        self._clear_round()

    def _clear_round(self) -> None:
        players = self.rules.players
        self.round = len(self.results)
        self.round_leader = self.next_leader
        self.machines: tuple[int, ...] = ()
        self.token_values: tuple[int, ...] = ()
        self.golden_value = 0
        self.hands: list[set[int]] = [set() for _ in range(players)]
        self.set_aside: frozenset[int] = frozenset()
        self.played: set[int] = set()
        self.won: list[set[int]] = [set() for _ in range(players)]
        self.tricks = [0] * players
        self.voids: list[set[int]] = [set() for _ in range(players)]
        self.trick: list[int] = []
        self.trick_leader = self.next_leader
        self.trick_number = 0
        self.trick_log: list[Trick] = []
        self.machine_token = [-1] * E.MACHINES_PER_ROUND
        self.machine_placer = [-1] * E.MACHINES_PER_ROUND
        self.token_placed = [False] * len(self.rules.tokens)
        self.golden_side = E.NO_SIDE
        self.golden_placer = -1
        self.placements: list[PlacedToken] = []
        self.sevens_to_place = 0
        self.placer = -1

    def copy(self) -> "GameState":
        """A copy of everything a move or a round's scoring changes (results are immutable and shared)."""
        other = copy.copy(self)
        other.cabbages = list(self.cabbages)
        other.machines_left = Counter(self.machines_left)
        other.results = list(self.results)
        other.hands = [set(h) for h in self.hands]
        other.played = set(self.played)
        other.won = [set(w) for w in self.won]
        other.tricks = list(self.tricks)
        other.voids = [set(v) for v in self.voids]
        other.trick = list(self.trick)
        other.trick_log = list(self.trick_log)
        other.machine_token = list(self.machine_token)
        other.machine_placer = list(self.machine_placer)
        other.token_placed = list(self.token_placed)
        other.placements = list(self.placements)
        return other

    # --- whose move ----------------------------------------------------------
    @property
    def placement_owed(self) -> bool:
        return self.in_round and self.sevens_to_place > 0

    @property
    def round_over(self) -> bool:
        """Every card played and every placement made: the round can be scored."""
        return self.in_round and self.trick_number == self.rules.hand_size and self.sevens_to_place == 0

    @property
    def to_move(self) -> int | None:
        """The seat that acts next, or None between rounds and once all is played."""
        if not self.in_round or self.round_over:
            return None
        if self.sevens_to_place:
            return self.placer
        return (self.trick_leader + len(self.trick)) % self.rules.players

    # --- the deal ------------------------------------------------------------
    def start_round(
        self,
        machines: Sequence[int],
        token_faces: Sequence[int],
        golden_face: int,
        hands: Sequence[Iterable[int]],
        set_aside: Iterable[int] = (),
    ) -> None:
        """Lay out a round: its three machines (sticker codes), the face
        index (0 or 1) each token shows, and the cards dealt.

        ValueError if the game is over, a round is still in play, or the
        layout contradicts the rules (wrong counts, a card dealt twice or
        missing, a machine not left in the pile).
        """
        rules = self.rules
        if self.game_over:
            raise ValueError("the game is over")
        if self.in_round:
            raise ValueError(f"round {self.round + 1} is still in play")
        machines = tuple(int(m) for m in machines)
        if len(machines) != E.MACHINES_PER_ROUND:
            raise ValueError(f"a round has {E.MACHINES_PER_ROUND} machines, got {len(machines)}")
        unknown = Counter(machines) - self.machines_left
        if unknown:
            sticker = machine_name(next(iter(unknown)))
            raise ValueError(
                f"machine {sticker} is not left in the pile (each machine of rules.machines is drawn once per game)"
            )
        if len(token_faces) != len(rules.tokens):
            raise ValueError(
                f"token_faces needs one face per ordinary token ({len(rules.tokens)}), got {len(token_faces)}"
            )
        named = [(f"token_faces[{i}]", face) for i, face in enumerate(token_faces)] + [("golden_face", golden_face)]
        for name, face in named:
            if isinstance(face, bool) or not isinstance(face, (int, np.integer)) or face not in (0, 1):
                raise ValueError(f"{name}: a token face is 0 (first listed) or 1 (second), got {shown(face)}")
        hands = [list(hand) for hand in hands]
        set_aside = list(set_aside)
        if len(hands) != rules.players:
            raise ValueError(f"{len(hands)} hands dealt for {rules.players} players")
        dealt = Counter(c for hand in hands for c in hand) + Counter(set_aside)
        for seat, hand in enumerate(hands):
            if len(hand) != rules.hand_size:
                raise ValueError(f"seat {seat} is dealt {len(hand)} cards, each seat gets {rules.hand_size}")
        twice = sorted(c for c, n in dealt.items() if n > 1)
        if twice:
            raise ValueError(f"card {card_name(twice[0])} is dealt twice")
        if len(set_aside) != rules.n_set_aside:
            raise ValueError(f"{len(set_aside)} cards set aside, the rules set aside {rules.n_set_aside}")
        missing = [c for c in range(E.N_CARDS) if c not in dealt]
        if missing:
            raise ValueError(f"card {card_name(missing[0])} is neither dealt nor set aside")

        self._clear_round()
        self.machines_left -= Counter(machines)
        self.machines = machines
        self.token_values = tuple(pair[face] for pair, face in zip(rules.tokens, token_faces))
        self.golden_value = rules.golden_token[golden_face]
        self.hands = [set(hand) for hand in hands]
        self.set_aside = frozenset(set_aside)
        self.zero_playing_on += sum(c == 0 for c in self.cabbages)
        self.in_round = True

    # --- card play -------------------------------------------------------------
    def legal_cards(self, seat: int) -> list[int]:
        """Cards of the led suit if the seat holds any, otherwise the whole hand; ascending."""
        hand = self.hands[seat]
        if self.trick:
            led = suit_of(self.trick[0])
            following = [c for c in hand if suit_of(c) == led]
            if following:
                return sorted(following)
        return sorted(hand)

    def _check_turn(self, seat: int, placing: bool) -> None:
        if not self.in_round:
            raise IllegalMove(seat, "no round is in play")
        if self.round_over:
            raise IllegalMove(seat, "every card of the round has been played")
        if self.sevens_to_place and not placing:
            if seat == self.placer:
                raise IllegalMove(seat, "a placement is owed for each 7 won (place a token before playing)")
            raise IllegalMove(seat, f"not this seat's turn (seat {self.placer} owes a placement for a 7 won)")
        if placing and not self.sevens_to_place:
            raise IllegalMove(seat, "no placement is owed (the winner of a trick places one token per 7 in it)")
        if seat != self.to_move:
            acts = "places a token" if placing else "plays"
            raise IllegalMove(seat, f"not this seat's turn (seat {self.to_move} {acts} next)")

    def play_card(self, seat: int, card: int) -> None:
        """Seat plays a card to the current trick; the trick is gathered when complete."""
        self._check_turn(seat, placing=False)
        if card not in self.hands[seat]:
            raise IllegalMove(seat, f"card {card_name(card)} is not in the hand")
        if card not in self.legal_cards(seat):
            led = suit_of(self.trick[0])
            raise IllegalMove(seat, f"must follow suit (holds {E.SUIT_NAMES[led]}, played {card_name(card)})")
        if self.trick and suit_of(card) != suit_of(self.trick[0]):
            self.voids[seat].add(suit_of(self.trick[0]))
        self.hands[seat].remove(card)
        self.played.add(card)
        self.trick.append(card)
        if len(self.trick) == self.rules.players:
            self._gather_trick()

    def _gather_trick(self) -> None:
        winner = trick_winner(self.trick, self.trick_leader, self.rules.players)
        self.won[winner].update(self.trick)
        self.tricks[winner] += 1
        self.trick_log.append(Trick(self.trick_leader, tuple(self.trick), winner))
        self.sevens_to_place = sum(value_of(c) == E.SEVEN for c in self.trick)
        self.placer = winner
        self.trick = []
        self.trick_leader = winner
        self.trick_number += 1
        self._drop_sevens_without_slot()

    def _drop_sevens_without_slot(self) -> None:
        # slots only fill up, so once none is free the remaining 7s do nothing
        if self.sevens_to_place and not self.free_slots():
            self.seven_no_slot += self.sevens_to_place
            self.sevens_to_place = 0

    # --- token placement ------------------------------------------------------
    def free_slots(self) -> list[int]:
        return free_slots(self.machine_token, self.token_placed, self.golden_side)

    def place_token(self, seat: int, placement: Placement) -> None:
        """The winner of a trick places one token for one 7 in it."""
        self._check_turn(seat, placing=True)
        slot, token, side = placement
        if slot == E.GOLDEN_SLOT:
            if token != -1:
                raise IllegalMove(seat, "the golden machine takes only the golden token")
            if self.golden_side != E.NO_SIDE:
                raise IllegalMove(seat, "the golden token is already placed")
            if side not in (E.MIN_SIDE, E.MAX_SIDE):
                raise IllegalMove(seat, "the golden token goes on the MIN or the MAX side")
            self.golden_side = side
            self.golden_placer = seat
            value = self.golden_value
        elif 0 <= slot < E.MACHINES_PER_ROUND:
            if not 0 <= token < len(self.token_placed):
                raise IllegalMove(seat, f"token {token} does not exist (tokens are 0-{len(self.token_placed) - 1})")
            if self.token_placed[token]:
                raise IllegalMove(seat, f"token {token} is already placed (a placed token never moves)")
            if self.machine_token[slot] >= 0:
                raise IllegalMove(seat, f"machine {slot} already holds a token")
            side = E.NO_SIDE  # an ordinary machine has no sides
            self.token_placed[token] = True
            self.machine_token[slot] = token
            self.machine_placer[slot] = seat
            value = self.token_values[token]
        else:
            raise IllegalMove(
                seat, f"machine {slot} does not exist (the round's machines are 0-2, the golden one {E.GOLDEN_SLOT})"
            )
        self.placements.append(PlacedToken(seat, slot, token, side, value))
        self.sevens_to_place -= 1
        self._drop_sevens_without_slot()

    # --- what a seat sees -------------------------------------------------------
    def observe(self, seat: int) -> Observation:
        rules = self.rules
        revealed = rules.set_aside_face == "revealed"
        return Observation(
            seat=seat,
            hand=tuple(sorted(self.hands[seat])),
            players=rules.players,
            rounds=rules.rounds,
            round=self.round,
            round_leader=self.round_leader,
            trick_number=self.trick_number,
            trick_leader=self.trick_leader,
            trick=tuple(self.trick),
            played=frozenset(self.played),
            won=tuple(frozenset(w) for w in self.won),
            tricks=tuple(self.tricks),
            voids=tuple(frozenset(v) for v in self.voids),
            hand_sizes=tuple(len(h) for h in self.hands),
            cabbages=tuple(self.cabbages),
            reserve=self.reserve,
            starting_cabbages=rules.starting_cabbages,
            end_on_elimination=rules.end_on_elimination,
            payout_order=PAYOUT_ORDERS[rules.payout_order],
            machines=self.machines,
            machine_token=tuple(self.machine_token),
            machine_placer=tuple(self.machine_placer),
            token_values=self.token_values,
            token_placed=tuple(self.token_placed),
            golden_value=self.golden_value,
            golden_side=self.golden_side,
            golden_placer=self.golden_placer,
            n_set_aside=rules.n_set_aside,
            set_aside=self.set_aside if revealed else frozenset(),
        )

    # --- scoring and settlement --------------------------------------------------
    def end_round(self) -> RoundResult:
        """Score the machines, settle cabbages with the reserve, decide whether the game ends."""
        rules = self.rules
        if not self.round_over:
            if self.placement_owed:
                raise ValueError("a placement is owed for each 7 won before the round can be scored")
            raise ValueError("the round cannot be scored before every card is played")
        values = [self.token_values[t] if t >= 0 else None for t in self.machine_token]
        rows = machine_amounts(self.machines, values, self.golden_side, self.golden_value, self.won, self.tricks)
        net = [sum(column) for column in zip(*rows)]
        next_leader = self.trick_log[-1].winner
        first_payee = next_leader if PAYOUT_ORDERS[rules.payout_order] == E.PAYOUT_NEXT_LEADER else 0
        before = self.cabbages
        settled = settle(before, self.reserve, net, first_payee)
        self.cabbages = settled.cabbages
        self.reserve = settled.reserve
        someone_at_zero = 0 in self.cabbages
        if someone_at_zero and not self.elim_round:
            self.elim_round = self.round + 1
        self.game_over = self.round + 1 == rules.rounds or (rules.end_on_elimination and someone_at_zero)
        result = RoundResult(
            round=self.round,
            leader=self.round_leader,
            machines=self.machines,
            tricks=tuple(self.trick_log),
            placements=tuple(self.placements),
            tricks_won=tuple(self.tricks),
            machine_amounts=tuple(tuple(row) for row in rows),
            kind_amounts=tuple(tuple(row) for row in amounts_by_kind(self.machines, rows)),
            net=tuple(net),
            delta=tuple(after - b for after, b in zip(self.cabbages, before)),
            cabbages=tuple(self.cabbages),
            reserve=self.reserve,
            shortfall=settled.shortfall,
            machine_token=tuple(self.machine_token),
            machine_value=tuple(0 if v is None else v for v in values),
            machine_placer=tuple(self.machine_placer),
            golden_side=self.golden_side,
            golden_value=self.golden_value,
            golden_placer=self.golden_placer,
            next_leader=next_leader,
            game_over=self.game_over,
        )
        self.results.append(result)
        self.round += 1  # between rounds, ``round`` names the next one
        self.next_leader = next_leader
        self.in_round = False
        return result

    def winners(self) -> list[int]:
        return winners(self.cabbages)


# --- the deal from the table stream ---------------------------------------------


class Deal(NamedTuple):
    machines: tuple[int, ...]
    token_faces: tuple[int, ...]
    golden_face: int
    hands: tuple[tuple[int, ...], ...]
    set_aside: tuple[int, ...]


def shuffled_pile(rules: Rules, table: Stream) -> list[int]:
    """The machine pile, shuffled once per game; round r draws entries 3r, 3r+1, 3r+2."""
    pile = list(rules.machine_codes)
    table.shuffle(pile)
    return pile


def deal_round(rules: Rules, table: Stream, pile: Sequence[int], round: int) -> Deal:
    """Flip the tokens (ordinary in rules order, then golden) and deal, from the table stream."""
    token_faces = tuple(table.coin() for _ in rules.tokens)
    golden_face = table.coin()
    deck = list(range(E.N_CARDS))
    table.shuffle(deck)
    h = rules.hand_size
    hands = tuple(tuple(deck[s * h:(s + 1) * h]) for s in range(rules.players))
    first = E.MACHINES_PER_ROUND * round
    return Deal(
        machines=tuple(pile[first:first + E.MACHINES_PER_ROUND]),
        token_faces=token_faces,
        golden_face=golden_face,
        hands=hands,
        set_aside=tuple(deck[rules.players * h:]),
    )


# --- policies -------------------------------------------------------------------


class Policy(Protocol):
    def choose_card(self, obs: Observation, legal: Sequence[int], rng: Stream) -> int: ...

    def choose_placement(self, obs: Observation, rng: Stream) -> Placement: ...


class RandomPolicy(reference.RandomPolicy):
    """Uniform over the legal cards; uniform over free slots, then tokens or sides.

    Draws exactly as the jitted ``random`` policy does (docs/engine.md).
    """

    def choose_card(self, obs: Observation, legal: Sequence[int], rng: Stream) -> int:
        legal = sorted(legal)
        return legal[rng.below(len(legal))]

    def choose_placement(self, obs: Observation, rng: Stream) -> Placement:
        slots = obs.free_slots()
        slot = slots[rng.below(len(slots))]
        if slot == E.GOLDEN_SLOT:
            return Placement.golden(E.MAX_SIDE if rng.coin() else E.MIN_SIDE)
        unplaced = obs.unplaced_tokens()
        return Placement.on_machine(slot, unplaced[rng.below(len(unplaced))])


class JitPolicy(reference.JitPolicy):
    """A jitted policy of ``policies.py`` playing a seat of the reference engine (``JitPolicy.named("expert")``)."""

    parse_policy = staticmethod(jitted_policies.parse_policy)
    n_params = jitted_policies.N_POLICY_PARAMS

    def choose_card(self, obs: Observation, legal: Sequence[int], rng: Stream) -> int:
        hand, legal = np.uint64(card_mask(obs.hand)), np.uint64(card_mask(legal))
        return int(self.decide(jitted_policies.choose_card_nb, rng, obs.to_pub(), hand, legal))

    def choose_placement(self, obs: Observation, rng: Stream) -> Placement:
        out = np.full(3, -1, dtype=np.int64)
        hand = np.uint64(card_mask(obs.hand))
        self.decide(jitted_policies.choose_placement_nb, rng, obs.to_pub(), hand, after=(out,))
        return Placement(int(out[0]), int(out[1]), int(out[2]))


# --- one game, start to end --------------------------------------------------------


def play_round(state: GameState, policies: Sequence[Policy], streams: Sequence[Stream]) -> RoundResult:
    """Ask each seat's policy for its moves until the round is scored."""
    while not state.round_over:
        seat = state.to_move
        obs = state.observe(seat)
        if state.placement_owed:
            state.place_token(seat, policies[seat].choose_placement(obs, streams[seat]))
        else:
            legal = state.legal_cards(seat)
            state.play_card(seat, policies[seat].choose_card(obs, legal, streams[seat]))
    return state.end_round()


def play_out(rules: Rules, table: Stream, streams: Sequence[Stream], policies: Sequence[Policy]) -> GameState:
    """A whole game from the table stream's machine pile and deals, each seat's policy deciding."""
    pile = shuffled_pile(rules, table)
    state = GameState(rules)
    while not state.game_over:
        state.start_round(*deal_round(rules, table, pile, state.round))
        play_round(state, policies, streams)
    return state


# The per-round record fields (``records.RECORD_FIELDS``) and the RoundResult attribute each one holds.
ROUND_RECORD_FIELDS = {
    "round_leader": "leader", "delta": "delta", "tricks": "tricks_won", "amount": "kind_amounts",
    "shortfall": "shortfall", "machine": "machines", "machine_token": "machine_token",
    "machine_value": "machine_value", "machine_placer": "machine_placer", "golden_side": "golden_side",
    "golden_value": "golden_value", "golden_placer": "golden_placer",
}


def game_records(state: GameState, game: int) -> dict[str, np.ndarray]:
    """The per-game record of a finished game, shaped as ``records.RECORD_FIELDS`` without the games axis."""
    rules = state.rules
    rec = LAYOUT.one_game(rules)
    rec["game"][...] = game
    rec["final_cabbages"][:] = state.cabbages
    rec["win_share"][:] = win_shares(state.cabbages)
    rec["rounds_played"][...] = len(state.results)
    rec["elim_round"][...] = state.elim_round
    rec["reserve_end"][...] = -1 if state.reserve is None else state.reserve
    rec["seven_no_slot"][...] = state.seven_no_slot
    rec["zero_playing_on"][...] = state.zero_playing_on
    for r, res in enumerate(state.results):
        for field, name in ROUND_RECORD_FIELDS.items():
            rec[field][r] = getattr(res, name)
    return rec


# --- traces -------------------------------------------------------------------------


def placement_trace(p: PlacedToken) -> dict:
    if p.slot == E.GOLDEN_SLOT:
        return {"seat": p.seat, "golden": "min" if p.side == E.MIN_SIDE else "max", "value": p.value}
    return {"seat": p.seat, "token": p.token, "machine": p.slot, "value": p.value}


def round_trace(res: RoundResult) -> dict:
    return {
        "leader": res.leader,
        "tricks": [
            {"leader": t.leader, "cards": [card_name(c) for c in t.cards], "winner": t.winner} for t in res.tricks
        ],
        "placements": [placement_trace(p) for p in res.placements],
        "tricks_won": list(res.tricks_won),
        "machine_amounts": [list(row) for row in res.machine_amounts],
        "net": list(res.net),
        "cabbages": list(res.cabbages),
        "reserve": res.reserve,
        "shortfall": res.shortfall,
        "game_over": res.game_over,
    }


def game_trace(results: Sequence[RoundResult], winning_seats: Sequence[int]) -> dict:
    """A played game as the JSON-ready trace ``lvsim replay`` prints."""
    return {"rounds": [round_trace(res) for res in results], "winners": list(winning_seats)}


PLAY_LOOP = PlayLoop.of(E, RandomPolicy, play_out, game_records, lambda state: game_trace(state.results, state.winners()))
play_game = PLAY_LOOP.play_game  # (rules, seed, game, policies=None, trace=False) -> records [, trace]


# --- the game stepped one action at a time (the state protocol, sim.state) -----------------------
#
# Chance nodes come in the order the table stream draws them (docs/engine.md): each round's three machines,
# turned up one by one from what is left of the pile (a machine's chance is its share of the pile left, as a
# shuffled pile gives); then each ordinary token's face and the golden token's (1/2 each); then the cards, dealt
# one at a time, seat 0's hand first (each card left equally likely); what remains is set aside. The public
# events are the machines and faces turned up, the cards played, the tokens placed and the set-aside cards if
# the rules reveal them; a seat's private holding is its hand.

# Player actions: a card (0-39), an ordinary token on a machine or the golden token on a side.
PLACE_BASE = E.N_CARDS  # 40 + machine * MAX_TOKENS + token
GOLDEN_BASE = PLACE_BASE + E.MACHINES_PER_ROUND * E.MAX_TOKENS  # 64 + side
N_ACTIONS = GOLDEN_BASE + 2


def placement_action(p: Placement) -> int:
    if p.slot == E.GOLDEN_SLOT:
        return GOLDEN_BASE + p.side
    return PLACE_BASE + p.slot * E.MAX_TOKENS + p.token


def action_placement(action: int) -> Placement:
    if action >= GOLDEN_BASE:
        return Placement.golden(action - GOLDEN_BASE)
    machine, token = divmod(action - PLACE_BASE, E.MAX_TOKENS)
    return Placement.on_machine(machine, token)


def placement_text(p: Placement) -> str:
    if p.slot == E.GOLDEN_SLOT:
        return "golden " + ("min" if p.side == E.MIN_SIDE else "max")
    return f"token {p.token} on machine {p.slot}"


def cards_text(cards) -> str:
    return " ".join(card_name(c) for c in sorted(cards))


def redeal_unseen(gs: GameState, seat: int, words: np.ndarray, pub: np.ndarray | None = None) -> None:
    """Draw again, in place, every card ``seat`` has not seen: the other hands and the face-down set-aside cards,
    each seat keeping its hand size and never getting a suit it has shown it lacks (lookahead's own draw).
    ``pub`` is the seat's observation as the jitted policies read it (default: the state's)."""
    pub = gs.observe(seat).to_pub() if pub is None else pub
    hand = np.uint64(card_mask(gs.hands[seat]))
    hands = np.zeros(E.MAX_PLAYERS, dtype=np.uint64)
    rng = np.array(words, dtype=np.uint64)
    if rng.shape != (4,):  # the jitted draw reads and writes a stream's four words
        raise ValueError(f"a redeal draws from a stream's 4 words, got {rng.shape}")
    deal_unseen_nb(pub, hand, seat, rng, hands, np.zeros(E.N_CARDS, dtype=np.int64),
                   np.zeros(N_HOLDERS, dtype=np.int64), np.zeros(N_HOLDERS, dtype=np.int64),
                   np.zeros(E.N_SUITS, dtype=np.int64))
    unseen = {c for c in range(E.N_CARDS) if c not in gs.played and c not in gs.hands[seat]}
    if gs.rules.set_aside_face == "revealed":
        unseen -= gs.set_aside
    for s in range(gs.rules.players):
        if s != seat:
            gs.hands[s] = {c for c in range(E.N_CARDS) if int(hands[s]) >> c & 1}
            unseen -= gs.hands[s]
    if gs.rules.set_aside_face != "revealed":
        gs.set_aside = frozenset(unseen)


class LasveganState(State):
    """The :class:`GameState` with the round's machines, faces and cards being turned up and dealt."""

    value_scale = 4.0  # a round moves a seat's cabbages by a few
    copy_state = staticmethod(GameState.copy)
    stepped_lists = ("drawn", "faces", "dealt")

    def __init__(self, rules, state: GameState | None = None):
        super().__init__(rules)
        self.state = state if state is not None else GameState(rules)
        self.drawn: list[int] = []  # machines turned up for the next round
        self.faces: list[int] = []
        self.dealt: list[int] = []

    @classmethod
    def sizes(cls, rules) -> Sizes:
        per_round = E.MACHINES_PER_ROUND + len(rules.tokens) + 1 + 2 * E.N_CARDS + 4
        return Sizes(N_ACTIONS, E.N_CARDS, rules.rounds * per_round)

    @classmethod
    def from_observation(cls, rules, obs, words: np.ndarray, placing: bool = False) -> "LasveganState":
        """``placing``: the seat is asked to place a token (for a 7 of the trick it has just won)."""
        gs = GameState(rules)
        for name in ("reserve", "round", "round_leader", "machines", "token_values", "golden_value",
                     "trick_leader", "trick_number", "golden_side", "golden_placer"):
            setattr(gs, name, getattr(obs, name))
        for name in ("cabbages", "tricks", "trick", "machine_token", "machine_placer", "token_placed"):
            setattr(gs, name, list(getattr(obs, name)))
        gs.played = set(obs.played)
        gs.won = [set(w) for w in obs.won]
        gs.voids = [set(v) for v in obs.voids]
        if obs.trick_number > 0:
            # Only the last trick's winner (the leader now) is needed of the tricks before: it leads the next round.
            gs.trick_log = [Trick(-1, (), obs.trick_leader)]
        gs.set_aside = frozenset(obs.set_aside)
        gs.hands[obs.seat] = set(obs.hand)
        gs.in_round = True
        pub = obs.to_pub()
        if placing:
            # The winner of the last trick leads the next one; it owes a token for each 7 won not yet placed.
            gs.sevens_to_place = int(placements_owed_nb(pub))
            gs.placer = obs.trick_leader
        redeal_unseen(gs, obs.seat, words, pub)
        return cls(rules, gs)

    # --- stepping -----------------------------------------------------------------
    def to_move(self) -> int:
        gs = self.state
        if gs.game_over:
            return TERMINAL
        return gs.to_move if gs.in_round else CHANCE

    def decision_kind(self) -> str | None:
        """``lead`` or ``follow`` a trick; for a 7 won, ``token`` (an ordinary token on a machine, or the golden
        token while its machine is free too) or ``golden`` (only the golden token's side is left to choose)."""
        gs = self.state
        if gs.game_over or not gs.in_round:
            return None
        if gs.placement_owed:
            return "golden" if gs.free_slots() == [E.GOLDEN_SLOT] else "token"
        return "follow" if gs.trick else "lead"

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if len(self.drawn) < E.MACHINES_PER_ROUND:
            left = self.state.machines_left - Counter(self.drawn)
            total = sum(left.values())
            return [(code, n / total) for code, n in sorted(left.items()) if n]
        if len(self.faces) < len(self.rules.tokens) + 1:
            return [(0, 0.5), (1, 0.5)]
        deck = sorted(set(range(E.N_CARDS)) - set(self.dealt))
        return [(card, 1.0 / len(deck)) for card in deck]

    def legal_actions(self) -> list[int]:
        gs = self.state
        if not gs.placement_owed:
            return gs.legal_cards(gs.to_move)
        actions = []
        unplaced = [t for t, placed in enumerate(gs.token_placed) if not placed]
        for slot in gs.free_slots():
            if slot == E.GOLDEN_SLOT:
                actions += [GOLDEN_BASE + E.MIN_SIDE, GOLDEN_BASE + E.MAX_SIDE]
            else:
                actions += [PLACE_BASE + slot * E.MAX_TOKENS + t for t in unplaced]
        return sorted(actions)

    def apply(self, action: int) -> str | None:
        gs = self.state
        if not gs.in_round:
            return self._turn_up(action)
        seat = gs.to_move
        if gs.placement_owed:
            placement = action_placement(action)
            gs.place_token(seat, placement)
            event = f"{seat}>{placement_text(placement)}"
        else:
            gs.play_card(seat, action)
            event = f"{seat}:{card_name(action)}"
        if gs.round_over:
            gs.end_round()
        return event

    def _turn_up(self, outcome: int) -> str | None:
        rules = self.rules
        if len(self.drawn) < E.MACHINES_PER_ROUND:
            if outcome not in (self.state.machines_left - Counter(self.drawn)):
                raise ValueError(f"machine {outcome} is not left in the pile")
            self.drawn.append(outcome)
            return f"machine {machine_name(outcome)}"
        if len(self.faces) < len(rules.tokens) + 1:
            if outcome not in (0, 1):
                raise ValueError(f"a token face is 0 or 1, got {outcome}")
            self.faces.append(outcome)
            t = len(self.faces) - 1
            value = rules.tokens[t][outcome] if t < len(rules.tokens) else rules.golden_token[outcome]
            return f"face {value}"
        if outcome in self.dealt or not 0 <= outcome < E.N_CARDS:
            raise ValueError(f"card {outcome} is already dealt")
        self.dealt.append(outcome)
        if len(self.dealt) < rules.players * rules.hand_size:
            return None
        set_aside = sorted(set(range(E.N_CARDS)) - set(self.dealt))
        hands = [self._dealt_to(s) for s in range(rules.players)]
        self.state.start_round(self.drawn, self.faces[:-1], self.faces[-1], hands, set_aside)
        self.drawn, self.faces, self.dealt = [], [], []
        if rules.set_aside_face == "revealed" and set_aside:
            return f"set aside {cards_text(set_aside)}"
        return None

    def _dealt_to(self, seat: int) -> list[int]:
        h = self.rules.hand_size
        return self.dealt[seat * h:(seat + 1) * h]

    def rounds_scored(self) -> int:
        return len(self.state.results)

    def scores(self) -> list[float]:
        return [float(c) for c in self.state.cabbages]

    def win_shares(self) -> list[float]:
        return win_shares(self.state.cabbages)

    def trace(self) -> dict:
        return game_trace(self.state.results, self.state.winners())

    # --- what a seat knows -------------------------------------------------------
    def observation(self, seat: int) -> str:
        gs = self.state
        if gs.in_round:
            return fields_text(gs.observe(seat))
        return (f"seat {seat} round {gs.round} cabbages {gs.cabbages} reserve {gs.reserve} "
                f"machines {[machine_name(m) for m in self.drawn]} faces {self.faces} | {self.private(seat)}")

    def public_view(self) -> str:
        gs = self.state
        if not gs.in_round:
            return f"round {gs.round} cabbages {gs.cabbages} reserve {gs.reserve}"
        return fields_text(gs.observe(0), seat=None, hand=None)

    def private(self, seat: int) -> str:
        gs = self.state
        return f"hand {cards_text(gs.hands[seat] if gs.in_round else self._dealt_to(seat))}"

    def resample(self, seat: int, words: np.ndarray) -> "LasveganState":
        other = self.clone()
        if other.state.in_round:
            redeal_unseen(other.state, seat, words)
        elif other.dealt:
            # Mid-deal: the cards dealt to other seats are any the seat has not been dealt.
            h = self.rules.hand_size
            mine = set(self._dealt_to(seat))
            rest = [c for c in range(E.N_CARDS) if c not in mine]
            order = np.random.default_rng([int(w) for w in words]).permutation(len(rest))
            draw = iter(rest[i] for i in order)
            other.dealt = [c if seat * h <= i < (seat + 1) * h else next(draw) for i, c in enumerate(self.dealt)]
        return other

    def action_name(self, seat: int, action: int) -> str:
        if seat == CHANCE:
            return f"chance {action}"
        if action < PLACE_BASE:
            return f"seat {seat} plays {card_name(action)}"
        return f"seat {seat} places {placement_text(action_placement(action))}"

    def parse_action(self, name: str) -> int | None:
        """``plays R9``, ``places token 2 on machine 0`` or ``places golden min`` even when not legal now, so the
        engine names the rule it breaks."""
        gs = self.state
        if not gs.in_round:
            return None
        verb, _, rest = name.partition(" ")
        if verb == "plays" and not gs.placement_owed:
            return parse_card(rest)
        words = rest.split()
        if verb != "places" or not gs.placement_owed:
            return None
        if len(words) == 2 and words[0] == "golden" and words[1] in ("min", "max"):
            return GOLDEN_BASE + (E.MIN_SIDE if words[1] == "min" else E.MAX_SIDE)
        if len(words) == 5 and words[0] == "token" and words[2:4] == ["on", "machine"]:
            try:
                token, machine = int(words[1]), int(words[4])
            except ValueError:
                return None
            if not 0 <= machine < E.MACHINES_PER_ROUND:
                return None
            if not 0 <= token < E.MAX_TOKENS:  # no action codes it: the engine names the rule on a copy
                gs.copy().place_token(gs.to_move, Placement.on_machine(machine, token))
                return None
            return PLACE_BASE + machine * E.MAX_TOKENS + token
        return None


STATE = LasveganState


# --- the ismcts policy at a seat of the reference engine -------------------------------


class IsmctsPlayer:
    """``ismcts:N`` deciding a card or a placement from the seat's observation (sim.openspiel.search)."""

    def __init__(self, rules, params):
        from sim.openspiel import load
        from sim.openspiel.search import Search

        self.search = Search(load("lasvegan", rules), LasveganState, rules, int(params[0]))

    def choose_card(self, obs: Observation, legal, rng: Stream) -> int:
        return self.search.action(obs, rng)

    def choose_placement(self, obs: Observation, rng: Stream) -> Placement:
        return action_placement(self.search.action(obs, rng, placing=True))


# The reference engine's player for a seat: ismcts, the Python ``random``, or a jitted policy.
PLAYERS = reference.Players(JitPolicy, RandomPolicy, {POLICY_ISMCTS: IsmctsPlayer})
seat_player, player_named = PLAYERS.seat_player, PLAYERS.player_named
