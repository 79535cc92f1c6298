"""Replay: a game given by hand, played through the reference engine.

A script (JSON) gives each round's machines, token faces, hands, every card
in the order played and every token placed; :func:`replay_script` feeds them
to :class:`~sim.lasvegan.rules.GameState`, which checks every move, and
returns the game's trace. The script format::

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
naming the round, trick, seat and rule.
"""

from __future__ import annotations

import json
from typing import Any

from sim.errors import ScriptError, cut, shown
from sim.lasvegan import enums as E
from sim.lasvegan.params import Rules, machine_code
from sim.lasvegan.rules import GameState, IllegalMove, Placement, game_trace, parse_card
from sim.scripts import listed_script, no_unknown_keys, read_script

SCRIPT_KEYS = ("players", "rules", "rounds")
ROUND_KEYS = ("machines", "token_faces", "golden_face", "hands", "set_aside", "plays", "placements")
REQUIRED_ROUND_KEYS = ("machines", "token_faces", "golden_face", "hands", "plays")
GOLDEN_SIDES = {"min": E.MIN_SIDE, "max": E.MAX_SIDE}


def replay_path(path) -> dict:
    """Replay the script in the JSON file at ``path``; a ScriptError naming it if it cannot be read."""
    data = read_script(path)
    return replay_script(data)


def replay_script(data: dict) -> dict:
    """Play a scripted game (already parsed from JSON) and return its trace."""
    rules, rounds = listed_script(data, Rules, SCRIPT_KEYS, "rounds", E.MAX_ROUNDS)
    state = GameState(rules)
    for number, round_script in enumerate(rounds, start=1):
        if state.game_over:
            raise ScriptError(
                f"round {number}: the game ended after round {number - 1} "
                f"({_why_over(state)}), but the script goes on"
            )
        _play_round(state, round_script, number)
    if not state.game_over:
        raise ScriptError(f"the game lasts {rules.rounds} rounds (rules.rounds), but the script gives {len(rounds)}")
    return game_trace(state.results, state.winners())


def _why_over(state: GameState) -> str:
    return "a seat has 0 cabbages" if 0 in state.cabbages else "its last round"


def _list_of(value: Any, what: str, where: str) -> list:
    if not isinstance(value, list):
        raise ScriptError(f"{where}: {what} must be a list, got {shown(value)}")
    return value


def _card(text: Any, where: str) -> int:
    try:
        return parse_card(text)
    except ValueError as err:
        raise ScriptError(f"{where}: {err}") from None


def _play_round(state: GameState, script: Any, number: int) -> None:
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
    try:
        state.start_round(machines, token_faces, script["golden_face"], hands, set_aside)
    except ValueError as err:
        raise ScriptError(f"{where}: {err}") from None

    next_play = next_placement = 0
    while not state.round_over:
        seat = state.to_move
        try:
            if state.placement_owed:
                # a placement belongs to the trick just won
                where = f"round {number}, trick {state.trick_number}, seat {seat}"
                if next_placement == len(placements):
                    raise ScriptError(
                        f"{where}: a placement is owed for each 7 won (placements lists only {len(placements)})"
                    )
                placement = _placement(placements[next_placement], where)
                next_placement += 1
                state.place_token(seat, placement)
            else:
                where = f"round {number}, trick {state.trick_number + 1}, seat {seat}"
                if next_play == len(plays):
                    needed = state.rules.hand_size * state.rules.players
                    raise ScriptError(f"{where}: plays lists {len(plays)} cards, the round needs {needed}")
                card = _card(plays[next_play], where)
                next_play += 1
                state.play_card(seat, card)
        except IllegalMove as err:
            raise ScriptError(f"{where}: {err.rule}") from None
    if next_play < len(plays):
        raise ScriptError(f"round {number}: plays lists {len(plays)} cards, the round has only {next_play}")
    if next_placement < len(placements):
        raise ScriptError(
            f"round {number}: placements lists {len(placements)} placements, but only {next_placement} "
            "were owed (one per 7 won while a slot is free)"
        )
    state.end_round()


def _placement(entry: Any, where: str) -> Placement:
    """``{"token": t, "machine": m}`` or ``{"golden": "min"|"max"}`` -> Placement."""
    form = 'a placement is {"token": t, "machine": 0-2} or {"golden": "min" or "max"}'
    if isinstance(entry, dict) and set(entry) == {"golden"} and str(entry["golden"]) in GOLDEN_SIDES:
        return Placement.golden(GOLDEN_SIDES[str(entry["golden"])])
    if isinstance(entry, dict) and set(entry) == {"token", "machine"}:
        token, machine = entry["token"], entry["machine"]
        if all(isinstance(x, int) and not isinstance(x, bool) for x in (token, machine)):
            if not 0 <= machine < E.MACHINES_PER_ROUND:
                raise ScriptError(f"{where}: machine {machine} does not exist (the round's machines are 0-2)")
            return Placement.on_machine(machine, token)
    raise ScriptError(f"{where}: {form}, got {cut(json.dumps(entry, default=repr))}")
