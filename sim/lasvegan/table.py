"""One round of Las Vegan laid out by hand and played move by move from Python.

:class:`Table` puts a policy in a chosen situation: the tests build
situations with it and the benchmarks sample decisions from it. It lays out
and plays the round with the game kernel's own jitted steps
(``mechanics``), so the observation a policy sees here is exactly the one it
sees in a game. Cards are ids (``suit * 10 + value``) or names such as
``"G5"`` or ``"P0"`` (suit letter G, B, R or P, then the value).
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from sim.errors import shown
from sim.lasvegan import enums as E
from sim.lasvegan.mechanics import (
    any_free_slot_nb,
    free_slot_nb,
    gather_trick_nb,
    led_suit_nb,
    legal_cards_nb,
    place_token_nb,
    play_card_nb,
    seat_to_move_nb,
    start_round_nb,
)
from sim.lasvegan.params import DEFAULT_GOLDEN, DEFAULT_MACHINES, DEFAULT_TOKENS, machine_code
from sim.lasvegan.policies import choose_card_nb, choose_placement_nb, parse_policy
from sim.rng import seed_stream_nb

Card = int | str


def card_id(card: Card) -> int:
    """``"R7"`` -> 27; an int is returned as it is."""
    if isinstance(card, str):
        suit, value = card[:1].upper(), card[1:]
        if suit not in E.SUIT_LETTERS or not value.isdigit() or not 0 <= int(value) <= 9:
            raise ValueError(f"not a card: {shown(card)} (expected a suit letter G, B, R or P and a value 0-9)")
        return E.SUIT_LETTERS.index(suit) * 10 + int(value)
    if not 0 <= card < E.N_CARDS:
        raise ValueError(f"not a card: {shown(card)}")
    return int(card)


def card_mask(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card_id(card)
    return mask


def mask_cards(mask: int) -> list[int]:
    return [c for c in range(E.N_CARDS) if mask >> c & 1]


def seat_stream(seed: int, game: int, seat: int) -> np.ndarray:
    """The random stream seat ``seat``'s policy draws from in game ``game``."""
    state = np.zeros(4, dtype=np.uint64)
    seed_stream_nb(state, np.uint64(seed), game, E.STREAM_POLICY + seat)
    return state


class Table:
    """A round in play: every hand, the set-aside cards and the public ``pub``.

    ``machines`` are the round's three stickers (``"value:5"``,
    ``"suit:red"``), ``token_values`` the face each ordinary token shows and
    ``golden_value`` the golden token's face. ``cabbages`` are the seats'
    cabbages before the round (default: ``starting`` each).

    A situation later in the round starts from ``won`` (the cards in each
    seat's won tricks, played already), ``tricks`` (default: a seat's won
    cards / players), ``tokens_on`` (machine -> token placed on it) and
    ``golden_side``. Cards in no hand, no won pile and not set aside count
    as played before the situation starts.
    """

    def __init__(
        self,
        hands: Sequence[Iterable[Card]],
        *,
        machines: Sequence[str] = ("value:5", "suit:red", "value:1"),
        token_values: Sequence[int] = (1, -2, -3, -1),
        golden_value: int = 3,
        set_aside: Iterable[Card] = (),
        set_aside_face: str = "hidden",
        leader: int = 0,
        round: int = 0,
        rounds: int = 4,
        cabbages: Sequence[int] | None = None,
        starting: int = 15,
        reserve: int = 15,
        end_on_elimination: bool = True,
        won: Sequence[Iterable[Card]] | None = None,
        tricks: Sequence[int] | None = None,
        tokens_on: dict[int, int] | None = None,
        golden_side: int = E.NO_SIDE,
    ):
        players = len(hands)
        if not E.MIN_PLAYERS <= players <= E.MAX_PLAYERS:
            raise ValueError(f"a table seats {E.MIN_PLAYERS} to {E.MAX_PLAYERS} players, got {players}")
        masks = [card_mask(h) for h in hands]
        won_masks = [card_mask(w) for w in won] if won is not None else [0] * players
        self.set_aside = card_mask(set_aside)
        sizes = {bin(m).count("1") for m in masks}
        if len(sizes) != 1:
            raise ValueError("every hand must hold the same number of cards")
        seen = 0
        for m in masks + won_masks + [self.set_aside]:
            if seen & m:
                raise ValueError("a card is dealt twice")
            seen |= m
        self.players = players
        self.hands = np.zeros(E.MAX_PLAYERS, dtype=np.uint64)
        self.hands[:players] = masks
        self.owed = 0

        pub = np.zeros(E.PUB_SIZE, dtype=np.int64)
        pub[E.P_PLAYERS] = players
        pub[E.P_ROUNDS] = rounds
        pub[E.P_N_TOKENS] = len(token_values)
        pub[E.P_N_SET_ASIDE] = bin(self.set_aside).count("1")
        pub[E.P_STARTING] = starting
        pub[E.P_END_ON_ELIMINATION] = int(end_on_elimination)
        for m, sticker in enumerate(machines):
            pub[E.P_MACHINES + m] = machine_code(sticker)
        for t, value in enumerate(token_values):
            pub[E.P_TOKEN_VALUE + t] = value
        cabbages = np.array([starting] * players if cabbages is None else cabbages, dtype=np.int64)
        shown = np.uint64(self.set_aside if set_aside_face == "revealed" else 0)
        start_round_nb(pub, round, leader, golden_value, shown, reserve, cabbages, sizes.pop())
        for seat, mask in enumerate(won_masks):
            pub[E.P_WON + seat] = mask
            pub[E.P_PLAYED] |= mask
            pub[E.P_TRICKS + seat] = bin(mask).count("1") // players if tricks is None else tricks[seat]
        pub[E.P_TRICK_NUMBER] = sum(pub[E.P_TRICKS:E.P_TRICKS + players])
        # A card in no hand, no won pile and not set aside left the round
        # before the situation starts: it counts as played, so nobody
        # imagines it in a hand.
        pub[E.P_PLAYED] |= ((1 << E.N_CARDS) - 1) & ~seen
        # Tokens placed before the situation starts have no placer on record.
        for machine, token in (tokens_on or {}).items():
            pub[E.P_MACHINE_TOKEN + machine] = token
            pub[E.P_TOKEN_PLACED + token] = 1
        pub[E.P_GOLDEN_SIDE] = golden_side
        self.pub = pub

    @classmethod
    def dealt_at_random(cls, players: int, seed: int, set_aside_face: str = "hidden") -> "Table":
        """A round of the rulebook game dealt at random: hands, set-aside cards,
        three of the default machines, token faces, leader, round and cabbages."""
        rng = np.random.default_rng(seed)
        deck = rng.permutation(E.N_CARDS).tolist()
        size = E.N_CARDS // players
        return cls(
            [deck[s * size:(s + 1) * size] for s in range(players)],
            set_aside=deck[players * size:],
            set_aside_face=set_aside_face,
            machines=[DEFAULT_MACHINES[i] for i in rng.choice(len(DEFAULT_MACHINES), 3, replace=False)],
            token_values=[int(rng.choice(faces)) for faces in DEFAULT_TOKENS],
            golden_value=int(rng.choice(DEFAULT_GOLDEN)),
            leader=int(rng.integers(players)),
            round=int(rng.integers(E.MAX_ROUNDS)),
            cabbages=rng.integers(3, 25, players).tolist(),
        )

    # --- what is on the table ----------------------------------------------
    @property
    def seat(self) -> int:
        """The seat that acts next: plays a card, or places a token it owes."""
        return int(seat_to_move_nb(self.pub))

    @property
    def hand(self) -> int:
        return int(self.hands[self.seat])

    def legal(self) -> int:
        """Mask of the cards the seat to move may play."""
        return int(legal_cards_nb(self.hands[self.seat], led_suit_nb(self.pub)))

    @property
    def round_over(self) -> bool:
        return self.pub[E.P_TRICK_LEN] == 0 and self.pub[E.P_HAND_SIZE + self.seat] == 0 and not self.owed

    def copy(self) -> "Table":
        other = object.__new__(Table)
        other.__dict__.update(self.__dict__)
        other.pub = self.pub.copy()
        other.hands = self.hands.copy()
        return other

    # --- moves ----------------------------------------------------------------
    def play(self, card: Card) -> int | None:
        """The seat to move plays ``card``; returns the winner when it completes the trick."""
        card = card_id(card)
        if self.owed:
            raise ValueError(f"seat {self.seat} owes a placement for a 7 it won")
        if not self.legal() >> card & 1:
            raise ValueError(f"seat {self.seat} cannot play {card} (not in its hand, or must follow suit)")
        play_card_nb(self.pub, self.hands, self.seat, card)
        if self.pub[E.P_TRICK_LEN] < self.players:
            return None
        winner, sevens = gather_trick_nb(self.pub)
        self.owed = sevens if any_free_slot_nb(self.pub) else 0
        return int(winner)

    def place(self, slot: int, token: int = -1, side: int = E.NO_SIDE) -> None:
        """The trick's winner places a token it owes for a 7."""
        if not self.owed:
            raise ValueError("no placement is owed")
        if slot == E.GOLDEN_SLOT:
            ok = free_slot_nb(self.pub, slot) and side in (E.MIN_SIDE, E.MAX_SIDE)
        else:
            ok = (
                0 <= slot < E.MACHINES_PER_ROUND
                and free_slot_nb(self.pub, slot)
                and 0 <= token < self.pub[E.P_N_TOKENS]
                and not self.pub[E.P_TOKEN_PLACED + token]
            )
        if not ok:
            raise ValueError(f"cannot place token {token} (side {side}) on slot {slot}")
        place_token_nb(self.pub, self.seat, np.array([slot, token, side], dtype=np.int64))
        self.owed = self.owed - 1 if any_free_slot_nb(self.pub) else 0

    # --- policies ---------------------------------------------------------------
    def choose_card(self, policy: str, rng: np.ndarray | None = None) -> int:
        """The card ``policy`` would play for the seat to move (``rng``: its stream, advanced)."""
        policy_id, params = parse_policy(policy)
        rng = seat_stream(0, 0, self.seat) if rng is None else rng
        hand = self.hands[self.seat]
        return int(choose_card_nb(policy_id, params, self.pub, hand, np.uint64(self.legal()), rng))

    def choose_placement(self, policy: str, rng: np.ndarray | None = None) -> tuple[int, int, int]:
        """The ``(slot, token, side)`` ``policy`` would choose for the placement owed."""
        policy_id, params = parse_policy(policy)
        rng = seat_stream(0, 0, self.seat) if rng is None else rng
        out = np.full(3, -1, dtype=np.int64)
        choose_placement_nb(policy_id, params, self.pub, self.hands[self.seat], rng, out)
        return int(out[0]), int(out[1]), int(out[2])

    def advance(self, policies: str | Sequence[str], moves: int, seed: int = 0) -> None:
        """Let the seats' policies make ``moves`` moves (cards or placements).

        Each seat draws from its own stream of game ``seed``.
        """
        if isinstance(policies, str):
            policies = [policies] * self.players
        streams = [seat_stream(seed, 0, s) for s in range(self.players)]
        for _ in range(moves):
            if self.round_over:
                return
            seat = self.seat
            if self.owed:
                self.place(*self.choose_placement(policies[seat], streams[seat]))
            else:
                self.play(self.choose_card(policies[seat], streams[seat]))
