"""One OpenSpiel game and state over any game's state (:class:`sim.state.State`), written once.

Everything OpenSpiel asks of a game is answered from the game's state,
which speaks OpenSpiel's shape already (``sim/state.py``):

* chance nodes are the state's deals, flips and rolls, with their true
  probabilities;
* a seat's information-state string is the state's information state of
  the seat (perfect recall), its observation string the reference engine's
  observation of the seat;
* ``resample_from_infostate`` asks the state for the hidden holdings drawn
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
from typing import Any, ClassVar

import numpy as np
import pyspiel

from sim.state import CHANCE, TERMINAL, State

# The state protocol's player ids are OpenSpiel's: they pass through as they are.
assert (CHANCE, TERMINAL) == (int(pyspiel.PlayerId.CHANCE), int(pyspiel.PlayerId.TERMINAL))


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
    TABLE: ClassVar[type[State]]
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
    """A game in OpenSpiel's terms over a game's :class:`~sim.state.State`."""

    def __init__(self, game: LvsimGame, table: State):
        super().__init__(game)
        self.table = table
        self.horizon: int | None = None  # a rooted state ends when this many rounds are scored
        self.root_scores: list[float] = []

    @classmethod
    def rooted(cls, game: LvsimGame, table: State) -> "LvsimState":
        """A state that starts at ``table`` and ends when its current round is scored (or the game ends)."""
        state = cls(game, table)
        table.root_view = table.public_view()
        state.horizon = table.rounds_scored() + 1
        state.root_scores = list(table.scores())
        return state

    def __deepcopy__(self, memo):
        other = type(self)(self.get_game(), self.table.clone())
        other.horizon, other.root_scores = self.horizon, self.root_scores
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
        self.table.apply_action(int(action))

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
        return self.table.information_state(player)

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
        public = [e for e in self.table.events if isinstance(e, str)]
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


def game_type(game, table: type[State]) -> pyspiel.GameType:
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


def game_class(game, table: type[State]) -> type[LvsimGame]:
    """The OpenSpiel game class of one registry game."""
    name = "".join(part.title() for part in game_name(game.id).split("_")) + "Game"
    return type(name, (LvsimGame,), {"GAME": game, "TABLE": table, "GAME_TYPE": game_type(game, table)})

