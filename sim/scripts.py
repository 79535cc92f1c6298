"""What every game's hand-scripted replay shares: reading the file, its rules, its keys.

A game's ``replay.py`` plays the moves of its own script format; reading
the JSON file, building the rules the script plays under and refusing an
unknown key are the same for every game, each failure a
:class:`~sim.errors.ScriptError` naming where in the script.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Hashable, Mapping, Sequence

from sim.errors import ConfigError, ScriptError, shown
from sim.inputs import read_json


def read_script(path) -> Any:
    """The JSON of the script file at ``path``; a ScriptError naming it if it cannot be read."""
    data = read_json(path, lambda problem: ScriptError(f"{path}: {problem}"), what="script")
    if not isinstance(data, dict):
        raise ScriptError(f"{path}: a script is a JSON object of named keys (docs/replay.md), not {_json_kind(data)}")
    return data


def _json_kind(value: Any) -> str:
    return {list: "a list", str: "a string", bool: "true or false", type(None): "null"}.get(type(value), "a number")


def script_rules(Rules, data: dict, listed: Mapping[str, tuple[int, int]] | None = None):
    """The game's ``Rules`` for a script: its ``rules`` object, its ``players``, and each knob the script's
    length implies (``listed``: knob -> (how many the script lists, the most a game has); a game of rounds
    gives ``{"rounds": (len(rounds), MAX_ROUNDS)}``) unless ``rules`` sets it."""
    table = data.get("rules", {})
    if not isinstance(table, dict):
        raise ScriptError("rules: must be an object with the keys of a config's [rules] table")
    table = dict(table)
    top = "players" in data and "players" not in table  # the count is the script's own key, not its rules'
    if "players" in data:
        if isinstance(data["players"], bool) or not isinstance(data["players"], int):
            raise ScriptError(f"players: must be an integer, got {shown(data['players'])}")
        if "players" in table and table["players"] != data["players"]:
            raise ScriptError(f"players: {shown(data['players'])} at the top but rules.players is {shown(table['players'])}")
        table["players"] = data["players"]
    for knob, (n, most) in (listed or {}).items():
        if knob not in table:
            if n > most:
                raise ScriptError(f"{knob}: the script lists {n} {knob}, a game has at most {most}")
            table[knob] = n  # a scripted game lasts as long as it lists
    try:
        return Rules.from_mapping(table, prefix="rules")
    except ConfigError as err:
        if top and err.field == "rules.players":
            raise ScriptError(f"players: {err.problem}") from None
        raise ScriptError(str(err)) from None


def no_unknown_keys(obj: dict, known, where: str) -> None:
    for key in obj:
        if key not in known:
            raise ScriptError(f"{where}: unknown key {shown(key)} (known: {', '.join(known)})")


def check_turn(turn: Any, known: Sequence[str], at: str, seat: int, holds: str, moves: str) -> None:
    """Refuse a scripted turn of ``seat`` that is not an object of ``known`` keys (``holds`` says what it holds),
    or whose 'seat' is not the seat to move (``moves`` says what that seat does: "plays")."""
    if not isinstance(turn, dict):
        raise ScriptError(f"{at}: a turn is an object with {holds}")
    no_unknown_keys(turn, known, at)
    if "seat" in turn and turn["seat"] != seat:
        raise ScriptError(f"{at}: the script says seat {shown(turn['seat'])}, but seat {seat} {moves}")


def listed_script(data: Any, Rules, keys: Sequence[str], listed: str, most: int) -> tuple[Any, list]:
    """``(rules, items)`` of a script whose key ``listed`` (one of ``keys``, the only keys it may have) holds a
    non-empty list, a game's worth of them: the knob of that name defaults to how many it lists (at most
    ``most``). A game of rounds passes ``"rounds"``."""
    if not isinstance(data, dict):
        optional = ", ".join(repr(key) for key in keys if key != listed)
        raise ScriptError(f"a script is a JSON object with {listed!r} (and optionally {optional})")
    no_unknown_keys(data, keys, "script")
    items = data.get(listed)
    if not isinstance(items, list) or not items:
        raise ScriptError(f"{listed}: must be a non-empty list of {listed}")
    return script_rules(Rules, data, {listed: (len(items), most)}), items


def stacked(first: Sequence[Any], everything: Sequence[Hashable], read: Callable[[int, Any], Hashable],
            none_left: Callable[[int, Any, Hashable], ScriptError]) -> list:
    """A stack top first (a pile, a deck): the script's ``first`` items, each ``read(i, item)``, then the
    rest of ``everything`` in its own order. ``none_left(i, item, read)`` is the error for an item of which
    ``everything`` holds no more."""
    left = Counter(everything)
    top = []
    for i, item in enumerate(first):
        x = read(i, item)
        if left[x] == 0:
            raise none_left(i, item, x)
        left[x] -= 1
        top.append(x)
    rest = []
    for x in everything:
        if left[x]:
            rest.append(x)
            left[x] -= 1
    return top + rest
