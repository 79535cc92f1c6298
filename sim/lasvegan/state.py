"""Las Vegan as an OpenSpiel game: the reference engine stepped one action at a time (sim.openspiel).

Chance nodes, in the order the table stream draws them (docs/engine.md):
each round's three machines, turned up one by one from what is left of the
pile (a machine's chance is its share of the pile left, as a shuffled pile
gives); then each ordinary token's face and the golden token's (1/2 each);
then the cards, dealt one at a time, seat 0's hand first (each card left
equally likely); what remains is set aside. Player actions are a card
(0-39, ``suit * 10 + value``), an ordinary token on a machine
(``40 + machine * 8 + token``) or the golden token on a side (``64 + side``).
The public events are the machines and faces turned up, the cards
played and the tokens placed, and the set-aside cards if the rules reveal
them; a seat's private holding is its hand.
"""

from __future__ import annotations

import copy
from collections import Counter

import numpy as np

from sim import reference
from sim.lasvegan import enums as E
from sim.lasvegan.lookahead import N_HOLDERS, deal_unseen_nb, placements_owed_nb
from sim.lasvegan.params import machine_name
from sim.lasvegan.params import Rules
from sim.lasvegan.policies import POLICY_ISMCTS
from sim.lasvegan.records import LAYOUT  # noqa: F401  (sim.openspiel.reference plays a batch with these two)
from sim.lasvegan.rules import (
    PLAY_LOOP,  # noqa: F401
    GameState, JitPolicy, Observation, Placement, RandomPolicy, Trick, card_mask, card_name, game_trace,
    parse_card, win_shares,
)
from sim.state import CHANCE, TERMINAL, Sizes, State, fields_text
from sim.rng import Stream

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


def cards_text(cards) -> str:
    return " ".join(card_name(c) for c in sorted(cards))


def copy_game_state(gs: GameState) -> GameState:
    """A copy of everything a move or a round's scoring changes (results are immutable and shared)."""
    other = copy.copy(gs)
    other.cabbages = list(gs.cabbages)
    other.machines_left = Counter(gs.machines_left)
    other.results = list(gs.results)
    other.hands = [set(h) for h in gs.hands]
    other.played = set(gs.played)
    other.won = [set(w) for w in gs.won]
    other.tricks = list(gs.tricks)
    other.voids = [set(v) for v in gs.voids]
    other.trick = list(gs.trick)
    other.trick_log = list(gs.trick_log)
    other.machine_token = list(gs.machine_token)
    other.machine_placer = list(gs.machine_placer)
    other.token_placed = list(gs.token_placed)
    other.placements = list(gs.placements)
    return other


def redeal_unseen(gs: GameState, seat: int, words: np.ndarray, pub: np.ndarray | None = None) -> None:
    """Draw again, in place, every card ``seat`` has not seen: the other hands and the face-down set-aside cards,
    each seat keeping its hand size and never getting a suit it has shown it lacks (lookahead's own draw).
    ``pub`` is the seat's observation as the jitted policies read it (default: the state's)."""
    pub = gs.observe(seat).to_pub() if pub is None else pub
    hand = np.uint64(card_mask(gs.hands[seat]))
    hands = np.zeros(E.MAX_PLAYERS, dtype=np.uint64)
    rng = np.array(words, dtype=np.uint64)
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
    """The reference :class:`GameState` with the round's machines, faces and cards being turned up and dealt."""

    value_scale = 4.0  # a round moves a seat's cabbages by a few
    copy_state = staticmethod(copy_game_state)
    stepped_lists = ("drawn", "faces", "dealt")

    def __init__(self, rules, state: GameState | None = None):
        super().__init__(rules)
        self.state = state if state is not None else GameState(rules)
        self.drawn: list[int] = []  # machines turned up for the next round
        self.faces: list[int] = []
        self.dealt: list[int] = []

    @classmethod
    def new(cls, rules) -> "LasveganState":
        return cls(rules)

    @classmethod
    def sizes(cls, rules) -> Sizes:
        per_round = E.MACHINES_PER_ROUND + len(rules.tokens) + 1 + 2 * E.N_CARDS + 4
        return Sizes(N_ACTIONS, E.N_CARDS, rules.rounds * per_round)

    @classmethod
    def from_observation(cls, rules, obs, words: np.ndarray, placing: bool = False) -> "LasveganState":
        """``placing``: the seat is asked to place a token (for a 7 of the trick it has just won)."""
        gs = GameState(rules)
        gs.cabbages = list(obs.cabbages)
        gs.reserve = obs.reserve
        gs.round, gs.round_leader = obs.round, obs.round_leader
        gs.machines, gs.token_values, gs.golden_value = obs.machines, obs.token_values, obs.golden_value
        gs.played = set(obs.played)
        gs.won = [set(w) for w in obs.won]
        gs.tricks = list(obs.tricks)
        gs.voids = [set(v) for v in obs.voids]
        gs.trick = list(obs.trick)
        gs.trick_leader, gs.trick_number = obs.trick_leader, obs.trick_number
        if obs.trick_number > 0:
            # Only the last trick's winner (the leader now) is needed of the tricks before: it leads the next round.
            gs.trick_log = [Trick(-1, (), obs.trick_leader)]
        gs.machine_token, gs.machine_placer = list(obs.machine_token), list(obs.machine_placer)
        gs.token_placed = list(obs.token_placed)
        gs.golden_side, gs.golden_placer = obs.golden_side, obs.golden_placer
        gs.set_aside = frozenset(obs.set_aside)
        gs.hands = [set() for _ in range(rules.players)]
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
        if not gs.in_round:
            return CHANCE
        return gs.to_move

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
        gs = self.state
        if len(self.drawn) < E.MACHINES_PER_ROUND:
            left = gs.machines_left - Counter(self.drawn)
            total = sum(left.values())
            return [(code, n / total) for code, n in sorted(left.items()) if n]
        if len(self.faces) < len(self.rules.tokens) + 1:
            return [(0, 0.5), (1, 0.5)]
        deck = sorted(set(range(E.N_CARDS)) - set(self.dealt))
        return [(card, 1.0 / len(deck)) for card in deck]

    def legal_actions(self) -> list[int]:
        gs = self.state
        seat = gs.to_move
        if not gs.placement_owed:
            return gs.legal_cards(seat)
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
            event = f"{seat}>{self._placement_text(placement)}"
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
        h = rules.hand_size
        if len(self.dealt) < rules.players * h:
            return None
        hands = [self.dealt[s * h:(s + 1) * h] for s in range(rules.players)]
        set_aside = sorted(set(range(E.N_CARDS)) - set(self.dealt))
        self.state.start_round(self.drawn, self.faces[:-1], self.faces[-1], hands, set_aside)
        self.drawn, self.faces, self.dealt = [], [], []
        if rules.set_aside_face == "revealed" and set_aside:
            return f"set aside {cards_text(set_aside)}"
        return None

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
        if gs.in_round or not self.dealt:
            return f"hand {cards_text(gs.hands[seat]) if gs.in_round else ''}"
        h = self.rules.hand_size
        return f"hand {cards_text(self.dealt[seat * h:(seat + 1) * h])}"

    def resample(self, seat: int, words: np.ndarray) -> "LasveganState":
        other = self.clone()
        if other.state.in_round:
            redeal_unseen(other.state, seat, words)
        elif other.dealt:
            # Mid-deal: the cards dealt to other seats are any the seat has not been dealt.
            h = self.rules.hand_size
            mine = set(self.dealt[seat * h:(seat + 1) * h])
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
        return f"seat {seat} places {self._placement_text(action_placement(action))}"

    def parse_action(self, name: str) -> int | None:
        """``plays R9``, ``places token 2 on machine 0`` or ``places golden min`` even when not legal now, so the
        engine names the rule it breaks."""
        if not self.state.in_round:
            return None
        verb, _, rest = name.partition(" ")
        if verb == "plays" and not self.state.placement_owed:
            return parse_card(rest)
        words = rest.split()
        if verb != "places" or not self.state.placement_owed:
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
                copy_game_state(self.state).place_token(self.state.to_move, Placement.on_machine(machine, token))
                return None
            return PLACE_BASE + machine * E.MAX_TOKENS + token
        return None

    def _placement_text(self, p: Placement) -> str:
        if p.slot == E.GOLDEN_SLOT:
            return "golden " + ("min" if p.side == E.MIN_SIDE else "max")
        return f"token {p.token} on machine {p.slot}"


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


def seat_player(rules, policy_id: int, params: np.ndarray):
    """The reference engine's player for a parsed seat: ismcts, the Python ``random``, or a jitted policy."""
    if policy_id == POLICY_ISMCTS:
        return IsmctsPlayer(rules, params)
    return reference.player_of(policy_id, params, RandomPolicy, JitPolicy)


def player_named(rules, text: str):
    """The reference engine's player for a policy as a config names it, ismcts included."""
    policy_id, params = JitPolicy.parse_policy(text)
    return seat_player(rules, policy_id, params)


# --- a decision from the jitted policies' view (the conformance suite's situations) ------------


def observation_from_pub(pub: np.ndarray, hand: int) -> tuple[Rules, Observation]:
    """The rules and the observation behind a seat's ``pub`` array and hand mask (only what they hold)."""
    players = int(pub[E.P_PLAYERS])
    seat = (int(pub[E.P_TRICK_LEADER]) + int(pub[E.P_TRICK_LEN])) % players

    def cards(mask) -> frozenset[int]:
        return frozenset(c for c in range(E.N_CARDS) if int(mask) >> c & 1)

    n_tokens = int(pub[E.P_N_TOKENS])
    values = tuple(int(v) for v in pub[E.P_TOKEN_VALUE:E.P_TOKEN_VALUE + n_tokens])
    reserve = None if pub[E.P_RESERVE] < 0 else int(pub[E.P_RESERVE])
    starting = int(pub[E.P_STARTING])
    rules = Rules(players=players, rounds=int(pub[E.P_ROUNDS]), starting_cabbages=starting,
                  total_cabbages=players * starting + (reserve or 0),
                  reserve="unlimited" if reserve is None else "finite",
                  end_on_elimination=bool(pub[E.P_END_ON_ELIMINATION]), set_aside=int(pub[E.P_N_SET_ASIDE]),
                  set_aside_face="revealed" if pub[E.P_SET_ASIDE] else "hidden",
                  tokens=tuple((v, v) for v in values),
                  payout_order="seat_zero" if pub[E.P_PAYOUT_ORDER] == E.PAYOUT_SEAT_ZERO else "next_leader")
    per_seat = range(players)
    obs = Observation(
        seat=seat, hand=tuple(sorted(cards(hand))), players=players, rounds=int(pub[E.P_ROUNDS]),
        round=int(pub[E.P_ROUND]), round_leader=int(pub[E.P_ROUND_LEADER]),
        trick_number=int(pub[E.P_TRICK_NUMBER]), trick_leader=int(pub[E.P_TRICK_LEADER]),
        trick=tuple(int(c) for c in pub[E.P_TRICK_CARDS:E.P_TRICK_CARDS + int(pub[E.P_TRICK_LEN])]),
        played=cards(pub[E.P_PLAYED]), won=tuple(cards(pub[E.P_WON + s]) for s in per_seat),
        tricks=tuple(int(pub[E.P_TRICKS + s]) for s in per_seat),
        voids=tuple(frozenset(u for u in range(E.N_SUITS) if int(pub[E.P_VOIDS + s]) >> u & 1) for s in per_seat),
        hand_sizes=tuple(int(pub[E.P_HAND_SIZE + s]) for s in per_seat),
        cabbages=tuple(int(pub[E.P_CABBAGES + s]) for s in per_seat), reserve=reserve, starting_cabbages=starting,
        end_on_elimination=bool(pub[E.P_END_ON_ELIMINATION]),
        machines=tuple(int(m) for m in pub[E.P_MACHINES:E.P_MACHINES + E.MACHINES_PER_ROUND]),
        machine_token=tuple(int(t) for t in pub[E.P_MACHINE_TOKEN:E.P_MACHINE_TOKEN + E.MACHINES_PER_ROUND]),
        machine_placer=tuple(int(t) for t in pub[E.P_MACHINE_PLACER:E.P_MACHINE_PLACER + E.MACHINES_PER_ROUND]),
        token_values=values, token_placed=tuple(bool(p) for p in pub[E.P_TOKEN_PLACED:E.P_TOKEN_PLACED + n_tokens]),
        golden_value=int(pub[E.P_GOLDEN_VALUE]), golden_side=int(pub[E.P_GOLDEN_SIDE]),
        golden_placer=int(pub[E.P_GOLDEN_PLACER]), n_set_aside=int(pub[E.P_N_SET_ASIDE]),
        set_aside=cards(pub[E.P_SET_ASIDE]), payout_order=int(pub[E.P_PAYOUT_ORDER]),
    )
    return rules, obs


def decide_from_pub(policy: str, pub: np.ndarray, hand: int, placing: bool, words: np.ndarray):
    """``policy`` (an ismcts form) deciding from a jitted policy's view, drawing from the stream ``words``
    (advanced in place): a card, or ``(slot, token, side)`` when ``placing``."""
    rules, obs = observation_from_pub(pub, hand)
    if placing:  # the placer is the last trick's winner, who leads next
        obs = Observation(**{**obs.__dict__, "seat": obs.trick_leader})
    player = player_named(rules, policy)
    rng = Stream(0, 0, 0)
    rng.s = [int(w) for w in words]
    choice = player.choose_placement(obs, rng) if placing else player.choose_card(obs, (), rng)
    words[:] = rng.s
    return tuple(int(x) for x in choice) if placing else int(choice)
