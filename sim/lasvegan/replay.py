"""Replay: a game given by hand, played through the reference engine.

A script (JSON) gives each round's machines, token faces, hands, every card
in the order played and every token placed; :func:`replay_script` feeds them
as named steps to the game's state (``sim.replay``): the machines, faces
and cards dealt as chance outcomes, then each card played and token
placed, the engine checking every one; it returns the game's trace. The script format::

    {
      "players": 4,
      "rules": {"starting_cabbages": 15},
      "rounds": [
        {
          "machines": ["suit:red", "value:5", "value:9"],
          "token_faces": [0, 1, 1, 0],
          "golden_face": 1,
          "hands": [["R3", "G0", ...], [...], [...], [...]],
          "set_aside": [],
          "plays": ["R3", "R5", "B0", "R9", ...],
          "placements": [{"token": 2, "machine": 0}, {"golden": "max"}]
        }
      ]
    }

``plays`` lists every card of the round in play order (the engine knows
whose turn it is); ``placements`` lists one placement per 7 won, in order.
``rules`` takes the keys of a config's ``[rules]`` table; ``rounds`` defaults
to the number of rounds the script lists. A script that breaks a rule or
contradicts itself raises :class:`~sim.errors.ScriptError` with one line
naming the round, trick, seat and rule (a round's deal is checked whole
by the engine before it is dealt, so its error names the round).
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from sim.errors import ScriptError, cut, shown
from sim.lasvegan import enums as E
from sim.lasvegan.params import Rules, machine_code
from sim.lasvegan.rules import STATE, LasveganState, card_name, parse_card
from sim.replay import Step, play_steps
from sim.scripts import listed_script, no_unknown_keys, read_script

SCRIPT_KEYS = ("players", "rules", "rounds")
ROUND_KEYS = ("machines", "token_faces", "golden_face", "hands", "set_aside", "plays", "placements")
REQUIRED_ROUND_KEYS = ("machines", "token_faces", "golden_face", "hands", "plays")
GOLDEN_SIDES = ("min", "max")


def replay_path(path) -> dict:
    """Replay the script in the JSON file at ``path``; a ScriptError naming it if it cannot be read."""
    return replay_script(read_script(path))


def replay_script(data: dict) -> dict:
    """Play a scripted game (already parsed from JSON) and return its trace."""
    rules, rounds = listed_script(data, Rules, SCRIPT_KEYS, "rounds", E.MAX_ROUNDS)
    table = STATE.new(rules)
    for number, round_script in enumerate(rounds, start=1):
        if table.is_terminal():
            why = "a seat has 0 cabbages" if 0 in table.state.cabbages else "its last round"
            raise ScriptError(f"round {number}: the game ended after round {number - 1} ({why}), but the script goes on")
        play_steps(table, _round_steps(table, round_script, number))
    if not table.is_terminal():
        raise ScriptError(f"the game lasts {rules.rounds} rounds (rules.rounds), but the script gives {len(rounds)}")
    return table.trace()


def _list_of(value: Any, what: str, where: str) -> list:
    if not isinstance(value, list):
        raise ScriptError(f"{where}: {what} must be a list, got {shown(value)}")
    return value


def _card(text: Any, where: str) -> int:
    try:
        return parse_card(text)
    except ValueError as err:
        raise ScriptError(f"{where}: {err}") from None


def _round_steps(table: LasveganState, script: Any, number: int) -> Iterator[Step]:
    """The round's steps: its deal (checked whole by the engine first), then its plays and placements, each
    read when the state asks for it (a placement is owed after a trick holding a 7)."""
    where = f"round {number}"
    if not isinstance(script, dict):
        raise ScriptError(f"{where}: must be an object with {', '.join(REQUIRED_ROUND_KEYS)}")
    no_unknown_keys(script, ROUND_KEYS, where)
    for key in REQUIRED_ROUND_KEYS:
        if key not in script:
            raise ScriptError(f"{where}: missing {shown(key)}")
    machines = []
    for i, sticker in enumerate(_list_of(script["machines"], "machines", where)):
        if not isinstance(sticker, str):
            raise ScriptError(f"{where}: machines[{i}]: a machine is a sticker string like 'suit:red', got {shown(sticker)}")
        try:
            machines.append(machine_code(sticker))
        except ValueError as err:
            raise ScriptError(f"{where}: machines[{i}]: {err}") from None
    token_faces = _list_of(script["token_faces"], "token_faces", where)
    hands = [
        [_card(text, f"{where}, seat {seat}") for text in _list_of(hand, "a hand", f"{where}, seat {seat}")]
        for seat, hand in enumerate(_list_of(script["hands"], "hands", where))
    ]
    set_aside = [
        _card(text, f"{where}, set_aside") for text in _list_of(script.get("set_aside", []), "set_aside", where)
    ]
    plays = _list_of(script["plays"], "plays", where)
    placements = _list_of(script.get("placements", []), "placements", where)
    try:  # the engine's own check of a whole deal; the state then deals it outcome by outcome
        table.state.copy().start_round(machines, token_faces, script["golden_face"], hands, set_aside)
    except ValueError as err:
        raise ScriptError(f"{where}: {err}") from None
    dealt = [*machines, *token_faces, script["golden_face"], *(card for hand in hands for card in hand)]
    yield from (Step(f"chance {outcome}", where) for outcome in dealt)

    gs = table.state
    next_play = next_placement = 0
    while gs.in_round:
        seat = gs.to_move
        if gs.placement_owed:  # a placement belongs to the trick just won
            at = f"round {number}, trick {gs.trick_number}, seat {seat}"
            if next_placement == len(placements):
                raise ScriptError(f"{at}: a placement is owed for each 7 won (placements lists only {len(placements)})")
            yield Step(f"places {_placement(placements[next_placement], at)}", at)
            next_placement += 1
        else:
            at = f"round {number}, trick {gs.trick_number + 1}, seat {seat}"
            if next_play == len(plays):
                needed = gs.rules.hand_size * gs.rules.players
                raise ScriptError(f"{at}: plays lists {len(plays)} cards, the round needs {needed}")
            yield Step(f"plays {card_name(_card(plays[next_play], at))}", at)
            next_play += 1
    if next_play < len(plays):
        raise ScriptError(f"round {number}: plays lists {len(plays)} cards, the round has only {next_play}")
    if next_placement < len(placements):
        raise ScriptError(
            f"round {number}: placements lists {len(placements)} placements, but only {next_placement} "
            "were owed (one per 7 won while a slot is free)"
        )


def _placement(entry: Any, where: str) -> str:
    """``{"token": t, "machine": m}`` or ``{"golden": "min"|"max"}`` -> the placement's name."""
    form = 'a placement is {"token": t, "machine": 0-2} or {"golden": "min" or "max"}'
    if isinstance(entry, dict) and set(entry) == {"golden"} and str(entry["golden"]) in GOLDEN_SIDES:
        return f"golden {str(entry['golden'])}"
    if isinstance(entry, dict) and set(entry) == {"token", "machine"}:
        token, machine = entry["token"], entry["machine"]
        if all(isinstance(x, int) and not isinstance(x, bool) for x in (token, machine)):
            if not 0 <= machine < E.MACHINES_PER_ROUND:
                raise ScriptError(f"{where}: machine {machine} does not exist (the round's machines are 0-2)")
            return f"token {token} on machine {machine}"
    raise ScriptError(f"{where}: {form}, got {cut(json.dumps(entry, default=repr))}")
