"""Replay: a Las Vegas game given by hand, played through the reference engine.

A script (JSON) fixes the order of the bill pile, every roll and every
choice; :func:`replay_script` gives them as named steps to the game's state
(``sim.replay``): each bill laid out and each die rolled a chance outcome,
each value placed a decision, the engine checking every one (a turn's roll
and the table's white dice are checked whole first); it returns the game's
trace (format in ``docs/replay.md``). The script format::

    {
      "players": 3,
      "rules": {"white_dice": 2},
      "pile": [90000, 10000, 40000, 50000],
      "rounds": [
        {
          "extra_white": [2, 5],
          "turns": [
            {"seat": 0, "roll": [1, 1, 3, 4, 6, 6, 2, 5], "white": [3, 3], "place": 3},
            {"roll": [2, 2, 2, 4, 5, 6, 6, 1], "white": [1, 4], "place": 2}
          ]
        }
      ]
    }

``pile`` lists the bills drawn first, top first; the bills it leaves out
follow in the order of ``rules.bills``. ``turns`` lists every turn of the
round in order (the engine knows whose turn it is; ``seat``, optional, is
checked); ``roll`` gives the faces of the seat's own dice, ``white`` those of
its white dice (omit it when it holds none), ``place`` the value chosen.
``extra_white`` gives the faces of the table's 2 white dice at 3 players
with the variant. ``rules`` takes the keys of a config's ``[rules]`` table;
``rounds`` defaults to the number of rounds the script lists. A script that
breaks a rule or contradicts itself raises :class:`~sim.errors.ScriptError`
with one line naming the round, turn, seat and rule.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Iterator

from sim.errors import ScriptError, cut, shown
from sim.replay import Step, play_steps
from sim.scripts import check_turn, listed_script, no_unknown_keys, read_script, stacked
from sim.vegasdice import enums as E
from sim.vegasdice.params import Rules
from sim.vegasdice.rules import STATE, GameState, IllegalMove, Roll, VegasDiceState, copy_game_state

SCRIPT_KEYS = ("players", "rules", "pile", "rounds")
ROUND_KEYS = ("extra_white", "turns")
TURN_KEYS = ("seat", "roll", "white", "place")


def replay_path(path) -> dict:
    """Replay the script in the JSON file at ``path``; a ScriptError naming it if it cannot be read."""
    return replay_script(read_script(path))


def replay_script(data: Any) -> dict:
    """Play a scripted game (already parsed from JSON) and return its trace."""
    rules, rounds = listed_script(data, Rules, SCRIPT_KEYS, "rounds", E.MAX_ROUNDS)
    pile = _pile(data.get("pile", []), rules)
    table = STATE(rules, GameState(rules, pile))  # every bill unseen: each drawn, as chance, in the pile's order
    bills = iter(pile)
    for number, round_script in enumerate(rounds, start=1):
        play_steps(table, _round_steps(table, round_script, number, bills))
    if not table.is_terminal():
        raise ScriptError(f"the game lasts {rules.rounds} rounds (rules.rounds), but the script gives {len(rounds)}")
    return table.trace()


def script_from_trace(trace: dict, rules: Rules) -> dict:
    """The script that replays a traced game (``play_game(..., trace=True)``) move for move."""
    rounds = []
    for r in trace["rounds"]:
        turns = [{key: t[key] for key in TURN_KEYS if key in t} for t in r["turns"]]  # the trace's counts left out
        rounds.append({"extra_white": r["extra_white"], "turns": turns} if "extra_white" in r else {"turns": turns})
    return {"players": rules.players, "rules": rules.to_dict(), "pile": list(trace["pile"]), "rounds": rounds}


def _pile(first: Any, rules: Rules) -> list[int]:
    """The pile, top first: the script's bills, then the others in ``rules.bills`` order."""
    if not isinstance(first, list) or not all(isinstance(b, int) and not isinstance(b, bool) for b in first):
        raise ScriptError(f"pile: must be a list of bill values in dollars, got {shown(first)}")

    def none_left(i: int, bill: int, _: int) -> ScriptError:
        have = Counter(rules.pile)[bill]
        return ScriptError(f"pile[{i}]: no bill of {bill} dollars is left (rules.bills holds {have} of them)")

    return stacked(first, rules.pile, lambda i, bill: bill, none_left)


def _faces(value: Any, what: str, where: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(f, int) and not isinstance(f, bool) for f in value):
        raise ScriptError(f"{where}: {what} must be a list of die faces, got {cut(json.dumps(value, default=repr))}")
    return tuple(value)


def _round_steps(table: VegasDiceState, script: Any, number: int, bills: Iterator[int]) -> Iterator[Step]:
    """The round's steps: the bills laid out, the table's white dice, then each turn's roll and value placed
    (a roll and the table's white dice checked whole by the engine before they are rolled)."""
    gs, rules, where = table.state, table.rules, f"round {number}"
    while not gs.in_round and not table.is_terminal():
        yield Step(f"bill {next(bills)}", where)
    if table.is_terminal() and len(gs.results) == rules.rounds:
        raise ScriptError(f"{where}: the game ended after round {number - 1}, but the script goes on")
    if table.is_terminal():
        raise ScriptError(
            f"{where}: the pile cannot bring every casino to {rules.casino_minimum:,} dollars "
            "and rules.empty_pile is 'end': the game is over, but the script goes on"
        )
    if not isinstance(script, dict):
        raise ScriptError(f"{where}: must be an object with 'turns' (and 'extra_white' when the table rolls them)")
    no_unknown_keys(script, ROUND_KEYS, where)
    if rules.n_extra_white:
        if "extra_white" not in script:
            raise ScriptError(f"{where}: missing 'extra_white', the faces of the table's {rules.n_extra_white} white dice")
        faces = _faces(script["extra_white"], "extra_white", where)
        try:
            copy_game_state(gs).place_extra_white(faces)
        except ValueError as err:
            raise ScriptError(f"{where}: {err}") from None
        yield from (Step(f"die shows {face}", where) for face in faces)
    elif "extra_white" in script:
        raise ScriptError(f"{where}: extra_white given, but the table rolls no white dice under these rules")
    turns = script.get("turns")
    if not isinstance(turns, list):
        raise ScriptError(f"{where}: 'turns' must be a list of turns")
    for i, turn in enumerate(turns, start=1):
        if len(gs.results) == number:
            raise ScriptError(f"{where}: turns lists {len(turns)} turns, but every die is placed after {i - 1}")
        seat = gs.to_move
        at = f"{where}, turn {i}, seat {seat}"
        check_turn(turn, TURN_KEYS, at, seat, "'roll' and 'place' (and 'white', 'seat')", "rolls next")
        for key in ("roll", "place"):
            if key not in turn:
                raise ScriptError(f"{at}: missing {shown(key)}")
        roll = Roll(_faces(turn["roll"], "roll", at), _faces(turn.get("white", []), "white", at))
        try:
            copy_game_state(gs).take_turn(seat, roll, turn["place"])
        except IllegalMove as err:
            raise ScriptError(f"{at}: {err.rule}") from None
        yield from (Step(f"die shows {face}", at) for face in roll.own + roll.white)
        yield Step(f"places {turn['place']}", at)
    if len(gs.results) < number:
        raise ScriptError(f"{where}: turns lists {len(turns)} turns, but dice are still to be placed")
