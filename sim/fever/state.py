"""$ Fever as an OpenSpiel game: the reference engine stepped one action at a time (sim.openspiel).

Chance nodes are the cards drawn, one at a time, in the order the reference
engine draws them (docs/engine.md): the deal (three cards to each seat, one
at a time, seat 0 first), the machine's three reels (again while a machine
dealt showing a combination is dealt anew, under ``dealt_combination =
"redeal"``), a double's extra cards, a refill after scoring, the draws up to
three at the end of a turn. The deck is a shuffled pile nobody has seen, so
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
from functools import partial

import numpy as np

from sim import reference
from sim.fever import enums as E
from sim.fever.params import MAX_REDEALS, Rules
from sim.fever.policies import POLICY_ISMCTS
from sim.fever.records import LAYOUT  # noqa: F401  (sim.openspiel.reference plays a batch with these two)
from sim.fever.rules import PLAY_LOOP  # noqa: F401
from sim.fever.rules import (
    Combination, GameState, JitPolicy, Observation, Play, RandomPolicy, TurnRecord, game_trace,
)
from sim.state import CHANCE, TERMINAL, Seen, Sizes, State, fields_text
from sim.rng import Stream

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


def end_turn(gs: GameState) -> None:
    gs.end_turn()


def play_step(seat: int, play: Play, gs: GameState) -> None:
    gs.play(seat, play)


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
        elif step is end_turn:
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
                events += self._run(end_turn, "turn")
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

        self.rules = rules
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


def seat_player(rules, policy_id: int, params: np.ndarray):
    """The reference engine's player for a parsed seat: ismcts, the Python ``random``, or a jitted policy."""
    if policy_id == POLICY_ISMCTS:
        return IsmctsPlayer(rules, params)
    return reference.player_of(policy_id, params, RandomPolicy, JitPolicy, rules)


def player_named(rules: Rules, text: str):
    """The reference engine's player for a policy as a config names it, ismcts included."""
    policy_id, params = JitPolicy.parse_policy(text)
    return seat_player(rules, policy_id, params)
