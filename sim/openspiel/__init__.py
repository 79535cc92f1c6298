"""The games of the registry as OpenSpiel games, and OpenSpiel's ISMCTS as a policy (the ``openspiel`` extra).

``import sim.openspiel`` registers every game of the registry that has an
OpenSpiel table (a module ``openspiel`` beside the game's ``game.py``,
defining ``TABLE``, a :class:`~sim.openspiel.adapter.Table`) under the name
``lvsim_<game id>`` (dashes as underscores), its rule knobs as game
parameters: ``pyspiel.load_game("lvsim_lasvegan", {"players": 3})``.

Modules: ``adapter`` (the OpenSpiel game and state over a game's table),
``ismcts`` (the policy: OpenSpiel's Python ISMCTS deciding for one seat of
the reference engine), ``reference`` (playing a batch with such seats on the
reference engine, in the kernel's record layout).
"""

from __future__ import annotations

from sim.policy_spec import OPENSPIEL_MISSING, openspiel_installed

if not openspiel_installed():
    raise ImportError(OPENSPIEL_MISSING)

import importlib  # noqa: E402

import pyspiel  # noqa: E402

from sim.games import GAME_IDS, GAME_MODULES, get_game  # noqa: E402
from sim.openspiel.adapter import LvsimGame, Table, game_class, game_name, knob_parameters  # noqa: E402


def table_module_name(game_id: str) -> str:
    """Where a game keeps its OpenSpiel table: ``sim.lasvegan.game`` -> ``sim.lasvegan.openspiel``."""
    return GAME_MODULES[game_id].rsplit(".", 1)[0] + ".openspiel"


def table_of(game_id: str) -> type[Table] | None:
    """The game's OpenSpiel table, or None if it has none (or its module is still being imported)."""
    name = table_module_name(game_id)
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as missing:
        if missing.name == name:
            return None
        raise
    return getattr(module, "TABLE", None)


# Game id -> its OpenSpiel game class, for the games that have a table.
GAMES: dict[str, type[LvsimGame]] = {}


def register() -> dict[str, type[LvsimGame]]:
    """Register every game with a table not registered yet (a table module imported first, which imports this
    package, is registered on the next call: ``load`` makes it)."""
    known = set(pyspiel.registered_names())
    for game_id in GAME_IDS:
        if game_id in GAMES:
            continue
        table = table_of(game_id)
        if table is None:
            continue
        cls = game_class(get_game(game_id), table)
        if game_name(game_id) not in known:
            pyspiel.register_game(cls.GAME_TYPE, cls)
        GAMES[game_id] = cls
    return GAMES


register()


def load(game_id: str, rules) -> LvsimGame:
    """The OpenSpiel game of ``game_id`` under ``rules`` (its Rules)."""
    register()
    game = get_game(game_id)
    return pyspiel.load_game(game_name(game_id), knob_parameters(game.knobs, rules.to_dict()))


__all__ = ["GAMES", "LvsimGame", "Table", "game_name", "load", "register", "table_of"]
