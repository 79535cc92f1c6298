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

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, NamedTuple, Protocol, Sequence

import numpy as np

from sim import reference
from sim.errors import shown
from sim.lasvegan import enums as E
from sim.lasvegan import policies as jitted_policies
from sim.lasvegan.params import PAYOUT_ORDERS, Rules, machine_name
from sim.lasvegan.records import LAYOUT
from sim.reference import IllegalMove, PlayLoop
from sim.rng import Stream

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
        pub[E.P_PLAYERS] = self.players
        pub[E.P_ROUND] = self.round
        pub[E.P_ROUNDS] = self.rounds
        pub[E.P_ROUND_LEADER] = self.round_leader
        pub[E.P_TRICK_LEADER] = self.trick_leader
        pub[E.P_TRICK_LEN] = len(self.trick)
        pub[E.P_TRICK_NUMBER] = self.trick_number
        pub[E.P_PLAYED] = card_mask(self.played)
        pub[E.P_N_TOKENS] = len(self.token_values)
        pub[E.P_GOLDEN_VALUE] = self.golden_value
        pub[E.P_GOLDEN_SIDE] = self.golden_side
        pub[E.P_GOLDEN_PLACER] = self.golden_placer
        pub[E.P_SET_ASIDE] = card_mask(self.set_aside)
        pub[E.P_N_SET_ASIDE] = self.n_set_aside
        pub[E.P_RESERVE] = -1 if self.reserve is None else self.reserve
        pub[E.P_STARTING] = self.starting_cabbages
        pub[E.P_END_ON_ELIMINATION] = int(self.end_on_elimination)
        pub[E.P_PAYOUT_ORDER] = self.payout_order
        pub[E.P_TRICK_CARDS:E.P_TRICK_CARDS + E.MAX_PLAYERS] = -1
        pub[E.P_TRICK_CARDS:E.P_TRICK_CARDS + len(self.trick)] = self.trick
        for seat in range(self.players):
            pub[E.P_WON + seat] = card_mask(self.won[seat])
            pub[E.P_TRICKS + seat] = self.tricks[seat]
            pub[E.P_VOIDS + seat] = sum(1 << suit for suit in self.voids[seat])
            pub[E.P_CABBAGES + seat] = self.cabbages[seat]
            pub[E.P_HAND_SIZE + seat] = self.hand_sizes[seat]
        for m in range(E.MACHINES_PER_ROUND):
            pub[E.P_MACHINES + m] = self.machines[m]
            pub[E.P_MACHINE_TOKEN + m] = self.machine_token[m]
            pub[E.P_MACHINE_PLACER + m] = self.machine_placer[m]
        for t, (value, placed) in enumerate(zip(self.token_values, self.token_placed)):
            pub[E.P_TOKEN_VALUE + t] = value
            pub[E.P_TOKEN_PLACED + t] = int(placed)
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
        for face in list(token_faces) + [golden_face]:
            if isinstance(face, bool) or not isinstance(face, (int, np.integer)) or face not in (0, 1):
                raise ValueError(f"a token face is 0 (first listed) or 1 (second), got {shown(face)}")
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


def policy_named(text: str) -> Policy:
    """The reference engine's player for a policy name: the Python twin of
    ``random``, the jitted policy otherwise."""
    return reference.policy_named(text, RandomPolicy, JitPolicy)


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
