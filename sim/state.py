"""The one state protocol every game's reference engine speaks (OpenSpiel's shape, no OpenSpiel needed).

A game's ``state.py`` (beside its ``rules.py``) defines a :class:`State`
subclass, ``STATE``: its reference engine's game plus what is being dealt,
flipped or rolled, stepped one action at a time. From that alone the shared
code derives the OpenSpiel game (``sim.openspiel``), the replay of a script
of named actions (``sim.replay``) and the conformance suite's walks over
random games; a new game gets them by writing its state.

What a state answers:

* whose turn it is: a seat, :data:`CHANCE` (a deal, a flip, a roll) or
  :data:`TERMINAL`; at a seat's turn, the kind of decision it faces
  (:meth:`State.decision_kind`, one of the game's ``enums.DECISION_KINDS``);
* the legal actions (ints), or at chance the outcomes with their true
  probabilities; :meth:`State.apply_action` plays one;
* each action's name in the game's words and, back, the action a name
  gives (:meth:`State.action_from_name`), so a script can name its moves;
* the finished game's win shares (:meth:`State.returns`) and its trace;
* what a seat knows: its observation now, and its information state — its
  seat, the public view it started from, its private holding now and every
  public event since plus the private events only it saw (:class:`Seen`),
  in order (perfect recall).

Player ids are OpenSpiel's (``CHANCE = -1``, ``TERMINAL = -4``), so the
OpenSpiel wrapper passes them through.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar, NamedTuple

import numpy as np

CHANCE = -1
TERMINAL = -4


class Seen(NamedTuple):
    """An event only ``seat`` sees (a card it draws): in its information state, no other seat's."""

    seat: int
    text: str

    def __deepcopy__(self, memo) -> "Seen":
        return self  # immutable: a cloned state shares it


class Sizes(NamedTuple):
    """The bounds of a game under its rules: distinct actions, chance outcomes at one node, game length."""

    num_distinct_actions: int
    max_chance_outcomes: int
    max_game_length: int


class State:
    """One game's table stepped action by action; a game's ``state.py`` subclasses it.

    ``rules`` are the game's Rules. A subclass sets ``value_scale`` (a
    round's typical gain, which brings a rooted state's returns near 1) and
    implements the methods that raise ``NotImplementedError``. ``clone``
    copies what a step changes: the reference ``state`` (by ``copy_state``,
    the game's fast copy) and the lists named in ``stepped_lists``, a
    subclass copying anything else; a state without a reference ``state``,
    holding the game itself, is copied whole but for its rules.
    """

    value_scale: ClassVar[float] = 1.0
    stepped_lists: ClassVar[tuple[str, ...]] = ()
    # False when a finished game can have no winner (its win shares then sum to 0, not 1).
    constant_sum: ClassVar[bool] = True

    def __init__(self, rules):
        self.rules = rules
        self.events: list[str | Seen] = []  # every event so far, public text or Seen
        self.root_view = ""  # the public view the information states start from ("" for a whole game)

    # --- the game's shape ---------------------------------------------------
    @classmethod
    def new(cls, rules) -> "State":
        """The game before its first deal."""
        return cls(rules)

    @classmethod
    def sizes(cls, rules) -> Sizes:
        raise NotImplementedError

    @classmethod
    def from_observation(cls, rules, obs, words: np.ndarray) -> "State":
        """A state agreeing with one seat's observation, the holdings it cannot see drawn from ``words``."""
        raise NotImplementedError

    # --- stepping ---------------------------------------------------------------
    @staticmethod
    def copy_state(state):
        raise NotImplementedError

    def clone(self) -> "State":
        other = copy.copy(self)
        if "state" not in vars(self):  # the state holds the game itself: every part copied but the rules
            vars(other).update(copy.deepcopy({k: v for k, v in vars(self).items() if k != "rules"}))
            return other
        other.state = None if self.state is None else self.copy_state(self.state)
        other.events = list(self.events)
        for name in self.stepped_lists:
            setattr(other, name, list(getattr(self, name)))
        return other

    def __deepcopy__(self, memo) -> "State":
        # OpenSpiel clones a state by deep-copying its attributes: the state's own copy is the fast one.
        return self.clone()

    def to_move(self) -> int:
        """The seat to act, or CHANCE, or TERMINAL."""
        raise NotImplementedError

    def current_player(self) -> int:
        return self.to_move()

    def is_terminal(self) -> bool:
        return self.to_move() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.to_move() == CHANCE

    def decision_kind(self) -> str | None:
        """The kind of decision the seat to move faces (one of the game's ``DECISION_KINDS``); None at chance
        or once the game is over."""
        raise NotImplementedError

    def chance_outcomes(self) -> list[tuple[int, float]]:
        raise NotImplementedError

    def legal_actions(self) -> list[int]:
        raise NotImplementedError

    def apply(self, action: int) -> "str | Seen | list[str | Seen] | None":
        """Apply ``action`` (a chance outcome at a chance node); the event it makes — public text, a
        :class:`Seen` for one seat, a list of them — or None when it shows nothing yet."""
        raise NotImplementedError

    def apply_action(self, action: int) -> list[str | Seen]:
        """Apply ``action`` and keep the events it makes (what the information states are told)."""
        event = self.apply(int(action))
        made = [] if event is None else event if isinstance(event, list) else [event]
        self.events += made
        return made

    def rounds_scored(self) -> int:
        """Rounds (or the game's unit of play) finished so far: a rooted state ends when one more is."""
        raise NotImplementedError

    def scores(self) -> list[float]:
        """Each seat's standing now (what a round's gain is measured in)."""
        raise NotImplementedError

    def winners(self) -> list[int]:
        """The seats with the highest score (a game whose ties are broken otherwise overrides this)."""
        scores = self.scores()
        best = max(scores)
        return [s for s, score in enumerate(scores) if score == best]

    def win_shares(self) -> list[float]:
        """The finished game's win share of each seat: the winners share the win."""
        winners = self.winners()
        return [1.0 / len(winners) if s in winners else 0.0 for s in range(self.rules.players)]

    def returns(self) -> list[float]:
        """The win shares once the game is over, 0 for every seat before."""
        return self.win_shares() if self.is_terminal() else [0.0] * self.rules.players

    def trace(self) -> dict:
        """The finished game's trace (what ``lvsim replay`` prints)."""
        raise NotImplementedError

    # --- names --------------------------------------------------------------------
    def action_name(self, seat: int, action: int) -> str:
        return f"{'chance' if seat == CHANCE else f'seat {seat}'}:{action}"

    def action_from_name(self, name: str) -> int:
        """The legal action (or chance outcome) now whose name, without its ``seat s`` prefix, is ``name``;
        a ValueError naming what is legal otherwise."""
        named = self.named_actions()
        if name in named:
            return named[name]
        parsed = self.parse_action(name)
        if parsed is not None:
            return parsed  # well formed but not legal now: applying it names the rule it breaks
        what = "outcome" if self.is_chance_node() else "action"
        raise ValueError(f"{name!r} is not a legal {what} now (legal: {', '.join(named) or 'none'})")

    def parse_action(self, name: str) -> int | None:
        """The action a well-formed name gives even when it is not legal now, so that applying it lets the
        engine name the rule broken; None (the default) when the game leaves that to the list of legal names."""
        return None

    def named_actions(self) -> dict[str, int]:
        """The legal actions (or chance outcomes) now by their names, without the ``seat s`` prefix."""
        seat = self.to_move()
        if seat == TERMINAL:
            return {}
        actions = [a for a, _ in self.chance_outcomes()] if seat == CHANCE else self.legal_actions()
        return {short_name(self.action_name(seat, a), seat): a for a in actions}

    # --- what a seat knows ------------------------------------------------------
    def observation(self, seat: int) -> str:
        """What ``seat`` sees now: the public view and its own holding."""
        return f"seat {seat} {self.public_view()} | {self.private(seat)}"

    def information_state(self, seat: int) -> str:
        seen = (e if isinstance(e, str) else e.text for e in self.events if isinstance(e, str) or e.seat == seat)
        return f"seat {seat}|{self.root_view}|{self.private(seat)}|" + "|".join(seen)

    def public_view(self) -> str:
        """Everything public now, the same text for every seat."""
        raise NotImplementedError

    def private(self, seat: int) -> str:
        """What only ``seat`` knows now (its hand)."""
        raise NotImplementedError

    def resample(self, seat: int, words: np.ndarray) -> "State":
        """A copy with every holding ``seat`` cannot see drawn again from ``words`` (four 64-bit words: a random
        stream's state, ``sim.rng``), consistent with what it saw."""
        raise NotImplementedError


def short_name(name: str, seat: int) -> str:
    """An action's name without the ``seat s `` it starts with (a chance outcome's name as it is)."""
    prefix = f"seat {seat} "
    return name[len(prefix):] if name.startswith(prefix) else name


def canonical(value: Any) -> Any:
    """Sets (at any depth) as sorted tuples, so that equal values print alike."""
    if isinstance(value, (set, frozenset)):
        return tuple(sorted(canonical(v) for v in value))
    if isinstance(value, (tuple, list)):
        return tuple(canonical(v) for v in value)
    return value


def fields_text(obj: Any, **replaced: Any) -> str:
    """A dataclass (an observation) as ``name=value`` text, its sets sorted; ``replaced`` fields take other values."""
    values = {**obj.__dict__, **replaced}
    return " ".join(f"{name}={canonical(v)}" for name, v in values.items())
