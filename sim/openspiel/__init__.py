"""The games of the registry as OpenSpiel games, and OpenSpiel's ISMCTS as a policy (the ``openspiel`` extra).

``import sim.openspiel`` registers every game of the registry that has a
state (a module ``state`` beside the game's ``game.py``, defining
``STATE``, a :class:`~sim.state.State`) under the name ``lvsim_<game id>``
(dashes as underscores), its rule knobs as game parameters:
``pyspiel.load_game("lvsim_lasvegan", {"players": 3})``. No game writes
anything for OpenSpiel: the one game and state of ``adapter`` wrap any
game's state.

Modules: ``adapter`` (the OpenSpiel game and state over a game's state),
``search`` (the ``ismcts`` policy: OpenSpiel's Python ISMCTS deciding for
one seat of the reference engine), ``reference`` (playing a batch with such
seats on the reference engine, in the kernel's record layout).
"""

from __future__ import annotations

from sim.policy_spec import OPENSPIEL_MISSING, openspiel_installed

if not openspiel_installed():
    raise ImportError(OPENSPIEL_MISSING)

import pyspiel  # noqa: E402

from sim.games import GAME_IDS, get_game  # noqa: E402
from sim.openspiel.adapter import LvsimGame, game_class, game_name, knob_parameters  # noqa: E402
from sim.games import state_of  # noqa: E402

# Game id -> its OpenSpiel game class, for the games that have a state.
GAMES: dict[str, type[LvsimGame]] = {}


def register() -> dict[str, type[LvsimGame]]:
    """Register every game with a state not registered yet."""
    known = set(pyspiel.registered_names())
    for game_id in GAME_IDS:
        if game_id in GAMES:
            continue
        state = state_of(game_id)
        if state is None:
            continue
        cls = game_class(get_game(game_id), state)
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


__all__ = ["GAMES", "LvsimGame", "game_name", "load", "register"]
