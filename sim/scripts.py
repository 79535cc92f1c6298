"""What every game's hand-scripted replay shares: reading the file, its rules, its keys.

A game's ``replay.py`` plays the moves of its own script format; reading
the JSON file, building the rules the script plays under and refusing an
unknown key are the same for every game, each failure a
:class:`~sim.errors.ScriptError` naming where in the script.
"""

from __future__ import annotations

from typing import Any, Mapping

from sim.errors import ConfigError, ScriptError, shown
from sim.inputs import read_json


def read_script(path) -> Any:
    """The JSON of the script file at ``path``; a ScriptError naming it if it cannot be read."""
    return read_json(path, lambda problem: ScriptError(f"{path}: {problem}"), what="script")


def script_rules(Rules, data: dict, listed: Mapping[str, tuple[int, int]] | None = None):
    """The game's ``Rules`` for a script: its ``rules`` object, its ``players``, and each knob the script's
    length implies (``listed``: knob -> (how many the script lists, the most a game has); a game of rounds
    gives ``{"rounds": (len(rounds), MAX_ROUNDS)}``) unless ``rules`` sets it."""
    table = data.get("rules", {})
    if not isinstance(table, dict):
        raise ScriptError("rules: must be an object with the keys of a config's [rules] table")
    table = dict(table)
    if "players" in data:
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
        raise ScriptError(str(err)) from None


def no_unknown_keys(obj: dict, known, where: str) -> None:
    for key in obj:
        if key not in known:
            raise ScriptError(f"{where}: unknown key {shown(key)} (known: {', '.join(known)})")
