"""The registry of games: the one place that knows which game packages exist.

``get_game("lasvegan")`` gives the game's :class:`~sim.game.Game`; every
other shared module asks here rather than importing a game package. Game
ids are kept more than one typo apart, so that a slip of one letter in a
config is an unknown game rather than another game.
"""

from __future__ import annotations

import importlib
from functools import cache

from sim.errors import ConfigError, shown
from sim.game import Game

# Game id -> the module holding its GAME.
GAME_MODULES = {
    "lasvegan": "sim.lasvegan.game",
    "vegas-dice": "sim.vegasdice.game",
    "fever": "sim.fever.game",
}
GAME_IDS = tuple(GAME_MODULES)


@cache
def get_game(game_id: str, field: str = "game") -> Game:
    """The game registered as ``game_id``; a ConfigError naming ``field`` if there is none."""
    if not isinstance(game_id, str) or game_id not in GAME_MODULES:
        known = ", ".join(f"{g!r}" for g in GAME_IDS)
        raise ConfigError(field, f"unknown game {shown(game_id)} (known: {known}; `lvsim games` lists them)")
    return importlib.import_module(GAME_MODULES[game_id]).GAME


def all_games() -> list[Game]:
    return [get_game(g) for g in GAME_IDS]


def games_with_rule(key: str) -> list[Game]:
    """The games that have a rule knob named ``key``."""
    return [g for g in all_games() if key in g.Rules.__dataclass_fields__]
