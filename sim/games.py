"""The registry of games: the one place that knows which games exist.

A game registers under the entry-point group ``lvsim.games``, named by its
id, pointing at its :class:`~sim.game.Game` (``lasvegan =
"sim.lasvegan.game:GAME"`` in this project's ``pyproject.toml``). A game
from another installed package registers the same way in its own
``pyproject.toml`` and is played, swept, tuned and checked like the games
shipped here, with no edit to this package.

``get_game("lasvegan")`` gives the game's Game; every other shared module
asks here rather than importing a game package. Game ids are kept more than
one typo apart, so that a slip of one letter in a config is an unknown game
rather than another game.
"""

from __future__ import annotations

import importlib
from functools import cache
from importlib.metadata import EntryPoint, entry_points

from sim.errors import ConfigError, shown
from sim.game import Game

GROUP = "lvsim.games"
# The games shipped with the simulator are listed first, in this order (entry points come unordered);
# a game from another package follows them, by id.
SHIPPED_ORDER = ("lasvegan", "vegas-dice", "fever")


def _registered() -> dict[str, EntryPoint]:
    found = list(entry_points(group=GROUP))
    if not found:
        raise RuntimeError(f"no game is registered under the entry-point group {GROUP!r}: "
                           "install the project (pip install -e .) so that its games are found")
    rank = {game_id: i for i, game_id in enumerate(SHIPPED_ORDER)}
    out: dict[str, EntryPoint] = {}
    for ep in sorted(found, key=lambda ep: (rank.get(ep.name, len(rank)), ep.name)):
        if ep.name in out and out[ep.name].value != ep.value:
            raise RuntimeError(f"two games register the id {ep.name!r}: {out[ep.name].value} and {ep.value}")
        out[ep.name] = ep
    return out


ENTRY_POINTS = _registered()
GAME_IDS = tuple(ENTRY_POINTS)
# The game of a command given no config and no --game, and of a config object built without one.
DEFAULT_GAME = GAME_IDS[0]
# Game id -> the module holding its Game.
GAME_MODULES = {game_id: ep.module for game_id, ep in ENTRY_POINTS.items()}


@cache
def get_game(game_id: str, field: str = "game") -> Game:
    """The game registered as ``game_id``; a ConfigError naming ``field`` if there is none."""
    if not isinstance(game_id, str) or game_id not in ENTRY_POINTS:
        known = ", ".join(f"{g!r}" for g in GAME_IDS)
        raise ConfigError(field, f"unknown game {shown(game_id)} (known: {known}; `lvsim games` lists them)")
    game = ENTRY_POINTS[game_id].load()
    if not isinstance(game, Game) or game.id != game_id:
        raise RuntimeError(f"the entry point {game_id} = {ENTRY_POINTS[game_id].value!r} is not the Game "
                           f"of {game_id!r}")
    return game


def all_games() -> list[Game]:
    return [get_game(g) for g in GAME_IDS]


def games_with_rule(key: str) -> list[Game]:
    """The games that have a rule knob named ``key``."""
    return [g for g in all_games() if key in g.knobs]


def part_module_name(game, part: str) -> str:
    """Where a game (its id, or the Game) keeps ``part``: ``sim.lasvegan.game`` and "state" -> ``sim.lasvegan.state``."""
    return GAME_MODULES[getattr(game, "id", game)].rsplit(".", 1)[0] + "." + part


def part_module(game, part: str):
    """The module ``part`` of the game's package, or None if the game has none."""
    name = part_module_name(game, part)
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as missing:
        if missing.name == name:
            return None
        raise


def state_module_name(game) -> str:
    """Where a game (its id, or the Game) keeps its state: ``sim.lasvegan.game`` -> ``sim.lasvegan.state``."""
    return part_module_name(game, "state")


def state_module(game):
    """The module of the game's state (``STATE``), or None if the game has none."""
    return part_module(game, "state")


def state_of(game):
    """The game's state class (``sim.state.State``), or None if it has none (or its module is still being imported)."""
    module = state_module(game)
    return None if module is None else getattr(module, "STATE", None)
