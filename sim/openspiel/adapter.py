"""One OpenSpiel game and state over any game's table: the parts every game shares.

A game's ``openspiel.py`` (beside its ``rules.py``) defines a :class:`Table`
subclass: its reference engine's state plus what is being dealt, flipped or
rolled, stepped one OpenSpiel action at a time. Everything OpenSpiel asks
of a game is answered here from that table:

* chance nodes are the table's deals, flips and rolls, with their true
  probabilities (:meth:`Table.chance_outcomes`);
* a seat's information-state string is its seat, the public view it
  started from, its private holding now and every public event since
  (moves, machines turned up, faces shown) and the private events it alone
  saw (the cards it drew, where a game draws during play) — what it saw, in
  order, and nothing it did not (perfect recall);
* its observation string is the reference engine's observation of the seat;
* ``resample_from_infostate`` asks the table for the hidden holdings drawn
  again, consistent with what the seat has seen.

A state is either a whole game from its first deal (the registered game,
``new_initial_state``) or a *rooted* one (:meth:`LvsimState.rooted`): a
table rebuilt from one seat's observation, played only to the end of the
current round, its returns then each seat's gain in the round divided by
the table's ``value_scale``. The search behind the ``ismcts`` policy plays
rooted states, so that it needs no more than an observation.
"""

from __future__ import annotations

import copy
import json
from typing import Any, ClassVar, NamedTuple

import numpy as np
import pyspiel

CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)


class Seen(NamedTuple):
    """An event only ``seat`` sees (a card it draws): in its information-state string, no other seat's."""

    seat: int
    text: str

    def __deepcopy__(self, memo) -> "Seen":
        return self  # immutable: a cloned state shares it


class Sizes(NamedTuple):
    """What OpenSpiel's GameInfo needs beyond the players."""

    num_distinct_actions: int
    max_chance_outcomes: int
    max_game_length: int


class Table:
    """One game's table stepped action by action; a game's ``openspiel.py`` subclasses it.

    ``rules`` are the game's Rules. A subclass sets ``value_scale`` (a
    round's typical gain, which brings a rooted state's returns near 1) and
    implements the methods below. ``clone`` copies what a step changes: the
    reference ``state`` (by ``copy_state``, the game's fast copy) and the
    lists named in ``stepped_lists``; a subclass copies anything else.
    """

    value_scale: ClassVar[float] = 1.0
    stepped_lists: ClassVar[tuple[str, ...]] = ()
    # False when a finished game can have no winner (its win shares then sum to 0, not 1).
    constant_sum: ClassVar[bool] = True

    def __init__(self, rules):
        self.rules = rules

    # --- the game's shape ---------------------------------------------------
    @classmethod
    def sizes(cls, rules) -> Sizes:
        raise NotImplementedError

    @classmethod
    def from_observation(cls, rules, obs, words: np.ndarray) -> "Table":
        """A table agreeing with one seat's observation, the holdings it cannot see drawn from ``words``."""
        raise NotImplementedError

    # --- stepping ---------------------------------------------------------------
    @staticmethod
    def copy_state(state):
        raise NotImplementedError

    def clone(self) -> "Table":
        other = copy.copy(self)
        other.state = None if self.state is None else self.copy_state(self.state)
        for name in self.stepped_lists:
            setattr(other, name, list(getattr(self, name)))
        return other

    def __deepcopy__(self, memo) -> "Table":
        # OpenSpiel clones a state by deep-copying its attributes: the table's own copy is the fast one.
        return self.clone()

    def to_move(self) -> int:
        """The seat to act, or CHANCE, or TERMINAL."""
        raise NotImplementedError

    def chance_outcomes(self) -> list[tuple[int, float]]:
        raise NotImplementedError

    def legal_actions(self) -> list[int]:
        raise NotImplementedError

    def apply(self, action: int) -> "str | Seen | list[str | Seen] | None":
        """Apply ``action`` (a chance outcome at a chance node); the event it makes — public text, a
        :class:`Seen` for one seat, a list of them — or None when it shows nothing yet."""
        raise NotImplementedError

    def rounds_scored(self) -> int:
        """Rounds (or the game's unit of play) finished so far: a rooted state ends when one more is."""
        raise NotImplementedError

    def scores(self) -> list[float]:
        """Each seat's standing now (what a round's gain is measured in)."""
        raise NotImplementedError

    def win_shares(self) -> list[float]:
        """The finished game's win share of each seat (tied winners share)."""
        raise NotImplementedError

    # --- what a seat knows ------------------------------------------------------
    def observation(self, seat: int) -> str:
        raise NotImplementedError

    def public_view(self) -> str:
        """Everything public now, the same text for every seat."""
        raise NotImplementedError

    def private(self, seat: int) -> str:
        """What only ``seat`` knows now (its hand)."""
        raise NotImplementedError

    def resample(self, seat: int, words: np.ndarray) -> "Table":
        """A copy with every holding ``seat`` cannot see drawn again from ``words``, consistent with what it saw."""
        raise NotImplementedError

    def action_name(self, seat: int, action: int) -> str:
        return f"{'chance' if seat == CHANCE else f'seat {seat}'}:{action}"


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


# --- knobs as game parameters -------------------------------------------------------


def parameter(value: Any) -> bool | int | float | str:
    """A knob's value as an OpenSpiel parameter: numbers, flags and words as they are; a list as JSON with ``;``
    between items (OpenSpiel's game strings split parameters at commas): ``[[1;-1];[1;-2]]``."""
    if isinstance(value, (bool, int, float, str)):
        return value
    return json.dumps(value, separators=(";", ":"))


def knob_parameters(knobs, values: dict[str, Any] | None = None) -> dict[str, Any]:
    """Each knob's value (default: the rulebook's) as an OpenSpiel parameter."""
    values = values or {}
    out = {}
    for name, knob in knobs.items():
        default = parameter(knob.domain.plain(knob.default))
        value = parameter(values.get(name, knob.domain.plain(knob.default)))
        # OpenSpiel keeps a parameter's type: a knob whose rulebook value is a word takes a number as text.
        out[name] = str(value) if isinstance(default, str) and not isinstance(value, str) else value
    return out


def rules_table(knobs, params: dict[str, Any]) -> dict[str, Any]:
    """OpenSpiel parameters -> a ``[rules]`` table: list knobs' text back to lists, a number given as text
    (``set_aside="3"``) back to the number; the rules then check every value as a config's are checked."""
    table = {}
    for name, value in params.items():
        if name not in knobs:
            continue
        listed = not isinstance(knobs[name].domain.plain(knobs[name].default), (bool, int, float, str))
        if isinstance(value, str) and (listed or value.lstrip("-").isdigit()):
            try:
                value = json.loads(value.replace(";", ","))
            except ValueError:
                pass
        table[name] = value
    return table


def game_name(game_id: str) -> str:
    """``vegas-dice`` -> ``lvsim_vegas_dice``: the name the game is registered under in OpenSpiel."""
    return "lvsim_" + game_id.replace("-", "_")


# --- the OpenSpiel game and state -----------------------------------------------------


class LvsimGame(pyspiel.Game):
    """A registry game as an OpenSpiel game; :func:`sim.openspiel.register` makes one subclass per game."""

    GAME: ClassVar[Any]  # the sim.game.Game
    TABLE: ClassVar[type[Table]]
    GAME_TYPE: ClassVar[pyspiel.GameType]

    def __init__(self, params=None):
        params = dict(params or {})
        given = {**knob_parameters(self.GAME.knobs), **params}
        self.rules = self.GAME.rules_from_mapping(rules_table(self.GAME.knobs, given))
        sizes = self.TABLE.sizes(self.rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=sizes.num_distinct_actions,
            max_chance_outcomes=sizes.max_chance_outcomes,
            num_players=self.rules.players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0 if self.TABLE.constant_sum else None,
            max_game_length=sizes.max_game_length,
        )
        super().__init__(self.GAME_TYPE, info, params)

    def new_initial_state(self):
        return LvsimState(self, self.TABLE.new(self.rules))

    def make_py_observer(self, iig_obs_type=None, params=None):
        return Observer(iig_obs_type)


class LvsimState(pyspiel.State):
    """A game in OpenSpiel's terms over a :class:`Table`."""

    def __init__(self, game: LvsimGame, table: Table):
        super().__init__(game)
        self.table = table
        self.events: list[str | Seen] = []
        self.root_view = ""  # the public view a rooted state starts from ("" for a whole game)
        self.horizon: int | None = None  # a rooted state ends when this many rounds are scored
        self.root_scores: list[float] = []

    @classmethod
    def rooted(cls, game: LvsimGame, table: Table) -> "LvsimState":
        """A state that starts at ``table`` and ends when its current round is scored (or the game ends)."""
        state = cls(game, table)
        state.root_view = table.public_view()
        state.horizon = table.rounds_scored() + 1
        state.root_scores = list(table.scores())
        return state

    def __deepcopy__(self, memo):
        other = type(self)(self.get_game(), self.table.clone())
        other.events = list(self.events)
        other.root_view, other.horizon, other.root_scores = self.root_view, self.horizon, self.root_scores
        other._history = list(self.history())
        return other

    def clone(self):
        if self.horizon is None:
            return super().clone()
        return copy.deepcopy(self)

    # --- OpenSpiel's state API ---------------------------------------------------
    def current_player(self):
        if self.is_terminal():
            return TERMINAL
        return self.table.to_move()

    def is_terminal(self):
        to_move = self.table.to_move()
        if to_move == TERMINAL:
            return True
        return self.horizon is not None and self.table.rounds_scored() >= self.horizon

    def _legal_actions(self, player):
        return self.table.legal_actions()

    def chance_outcomes(self):
        return self.table.chance_outcomes()

    def _apply_action(self, action):
        event = self.table.apply(int(action))
        if event is not None:
            self.events += event if isinstance(event, list) else [event]

    def returns(self):
        players = self.get_game().num_players()
        if not self.is_terminal():
            return [0.0] * players
        if self.horizon is None:
            return self.table.win_shares()
        scale = self.table.value_scale
        return [(now - then) / scale for now, then in zip(self.table.scores(), self.root_scores)]

    def _action_to_string(self, player, action):
        return self.table.action_name(player, action)

    def information_state_string(self, player=None):
        player = self.current_player() if player is None else player
        seen = (e if isinstance(e, str) else e.text for e in self.events if isinstance(e, str) or e.seat == player)
        return f"seat {player}|{self.root_view}|{self.table.private(player)}|" + "|".join(seen)

    def observation_string(self, player=None):
        player = self.current_player() if player is None else player
        return self.table.observation(player)

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state the seat cannot tell from this one, the hidden holdings drawn with ``probability_sampler``."""
        words = np.array([int(probability_sampler() * 2**52) * 4093 + 1 for _ in range(4)], dtype=np.uint64)
        return self.resampled(player_id, words)

    def resampled(self, player: int, words: np.ndarray) -> "LvsimState":
        other = copy.deepcopy(self)
        other.table = self.table.resample(player, words)
        return other

    def __str__(self):
        public = [e for e in self.events if isinstance(e, str)]
        return f"{self.table.public_view()} | " + " ".join(public[-12:])


class Observer:
    """OpenSpiel's observer of a state: the information-state or observation string; no tensors."""

    def __init__(self, iig_obs_type):
        self.perfect_recall = bool(iig_obs_type is None or iig_obs_type.perfect_recall)
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, np.ndarray] = {}

    def set_from(self, state, player):
        pass

    def string_from(self, state, player):
        if self.perfect_recall:
            return LvsimState.information_state_string(state, player)
        return LvsimState.observation_string(state, player)


def game_type(game, table: type[Table]) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=game_name(game.id),
        long_name=f"lvsim {game.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        # A game of perfect information is the case of one state an information set: OpenSpiel's ISMCTS
        # searches only games declared imperfect, so every game is.
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM if table.constant_sum else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players,
        min_num_players=game.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        parameter_specification=knob_parameters(game.knobs),
    )


def game_class(game, table: type[Table]) -> type[LvsimGame]:
    """The OpenSpiel game class of one registry game."""
    name = "".join(part.title() for part in game_name(game.id).split("_")) + "Game"
    return type(name, (LvsimGame,), {"GAME": game, "TABLE": table, "GAME_TYPE": game_type(game, table)})

