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
import sys
from functools import cache
from importlib.metadata import EntryPoint, entry_points

from sim.errors import ConfigError, GameError, shown
from sim.game import Game

GROUP = "lvsim.games"
# The games shipped with the simulator are listed first, in this order (entry points come unordered);
# a game from another package follows them, by id.
SHIPPED_ORDER = ("lasvegan", "vegas-dice", "fever")


def _registered() -> tuple[dict[str, EntryPoint], dict[str, str]]:
    """The entry points by game id, and the ids two packages register, each with what to say of it: kept until the
    game is asked for, so that a package taking another's id stops that game alone, not every command."""
    found = list(entry_points(group=GROUP))
    if not found:
        raise RuntimeError(f"no game is registered under the entry-point group {GROUP!r}: "
                           "install the project (pip install -e .) so that its games are found")
    rank = {game_id: i for i, game_id in enumerate(SHIPPED_ORDER)}
    out: dict[str, EntryPoint] = {}
    clashes: dict[str, str] = {}
    for ep in sorted(found, key=lambda ep: (rank.get(ep.name, len(rank)), ep.name)):
        if ep.name in out and out[ep.name].value != ep.value:
            clashes[ep.name] = (f"two games register the id {ep.name!r}: {_installed(out[ep.name])} and "
                                f"{_installed(ep)}; rename one under [project.entry-points.\"{GROUP}\"] in its "
                                "pyproject.toml (and its GAME_ID), then install it again")
            continue
        out[ep.name] = ep
    return out, clashes


def _installed(ep: EntryPoint) -> str:
    """An entry point and the distribution that installed it: ``lvsim_mygame.game:GAME of lvsim-mygame``."""
    dist = getattr(ep, "dist", None)
    return f"{ep.value} of {dist.name}" if dist is not None else ep.value


ENTRY_POINTS, CLASHES = _registered()
GAME_IDS = tuple(ENTRY_POINTS)
# The game of a command given no config and no --game, and of a config object built without one.
DEFAULT_GAME = GAME_IDS[0]
# Game id -> the module holding its Game.
GAME_MODULES = {game_id: ep.module for game_id, ep in ENTRY_POINTS.items()}


@cache
def get_game(game_id: str, field: str = "game") -> Game:
    """The game registered as ``game_id``; a ConfigError naming ``field`` if there is none, a GameError naming the
    package and the line that failed if it does not load, or gives another game's Game."""
    if not isinstance(game_id, str) or game_id not in ENTRY_POINTS:
        known = ", ".join(f"{g!r}" for g in GAME_IDS)
        raise ConfigError(field, f"unknown game {shown(game_id)} (known: {known}; `lvsim games` lists them)")
    if game_id in CLASHES:
        raise GameError(CLASHES[game_id])
    ep = ENTRY_POINTS[game_id]
    said = f"game {game_id!r} ({_installed(ep)})"
    try:
        game = ep.load()
    except Exception as err:  # noqa: BLE001  (whatever the package raises, it is the package's fault)
        module, _, name = ep.value.partition(":")
        found = sys.modules.get(module)
        if isinstance(err, AttributeError) and found is not None and not hasattr(found, name.split(".")[0]):
            raise GameError(f"{said} does not load: {getattr(found, '__file__', module)} defines no {name}, the "
                            "Game its entry point names") from None
        raise GameError(f"{said} does not load: {_raised_in(err, module.rpartition('.')[0] or module)}") from err
    if not isinstance(game, Game):
        raise GameError(f"{said} is a {type(game).__name__}, not the sim.game.Game its entry point must name")
    if game.id != game_id:
        raise GameError(f"{said} is the Game of {game.id!r}: its enums.GAME_ID and the name of its entry point "
                        "must be the same")
    try:
        game.Rules()  # a config without [rules] plays the defaults: they must be rules the game takes
    except ConfigError as err:
        raise GameError(f"{said}: its knobs' defaults are not rules it takes ({err})") from None
    return game


def _raised_in(err: BaseException, package: str) -> str:
    """``err`` as one line, after the line of ``package`` that raised it (a syntax error's own line)."""
    if isinstance(err, SyntaxError) and err.filename:
        return f"{err.filename}, line {err.lineno}: {type(err).__name__}: {err.msg}"
    where, tb = "", err.__traceback__
    while tb is not None:
        module = tb.tb_frame.f_globals.get("__name__", "")
        if module == package or module.startswith(package + "."):
            where = f"{tb.tb_frame.f_code.co_filename}, line {tb.tb_lineno}: "
        tb = tb.tb_next
    return f"{where}{'' if isinstance(err, GameError) else type(err).__name__ + ': '}{err}"


def all_games() -> list[Game]:
    return [get_game(g) for g in GAME_IDS]


def loaded_games() -> list[Game]:
    """The games that load: what a hint about other games (a rule or script of another game, how long a compile
    takes) reads, so that one broken package does not stop the commands of the others."""
    out = []
    for game_id in GAME_IDS:
        try:
            out.append(get_game(game_id))
        except GameError:
            continue
    return out


def games_with_rule(key: str) -> list[Game]:
    """The games that have a rule knob named ``key``."""
    return [g for g in loaded_games() if key in g.knobs]


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
