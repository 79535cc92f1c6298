"""Replay: a High Card game given by hand, played through the reference engine.

A script (JSON) gives the hands dealt and every card played::

    {
      "players": 2,
      "rules": {"top": 5, "copies": 2},
      "hands": [[5, 1, 3], [4, 4, 2]],
      "rounds": [[5, 4], [2, 3]]
    }

``hands`` lists each seat's cards; ``rounds`` lists, for each round, the
cards in the order they are played, from the round's leader (seat
``round mod players``) on. ``rules`` takes the keys of a config's
``[rules]`` table; ``players`` defaults to the hands given, ``hand`` to
the first hand's size and ``rounds`` to the rounds listed. A script that
breaks a rule raises :class:`~sim.errors.ScriptError` naming the round,
the seat and the rule. The script is read into the shared replay's steps
(``sim.replay``): the cards dealt, seat 0's hand first, then the plays.
"""

from __future__ import annotations

from typing import Any

from sim.errors import ScriptError, shown
from sim.replay import Step, replay_steps
from sim.scripts import no_unknown_keys, read_script, script_rules

from lvsim_highcard import enums as E
from lvsim_highcard.params import Rules
from lvsim_highcard.rules import check_hands
from lvsim_highcard.state import STATE

SCRIPT_KEYS = ("players", "rules", "hands", "rounds")


def replay_path(path) -> dict:
    """The trace of the script in the JSON file at ``path``."""
    return replay_script(read_script(path))


def replay_script(data: Any) -> dict:
    if not isinstance(data, dict):
        raise ScriptError("a script is a JSON object with 'hands' and 'rounds' (and optionally 'players', 'rules')")
    no_unknown_keys(data, SCRIPT_KEYS, "script")
    hands, rounds = data.get("hands"), data.get("rounds")
    table = data.get("rules", {})
    if isinstance(table, dict) and isinstance(hands, list) and hands and isinstance(hands[0], list):
        defaults = {"hand": len(hands[0])} | ({} if "players" in data else {"players": len(hands)})
        data = {**data, "rules": {**defaults, **table}}
    listed = len(rounds) if isinstance(rounds, list) and rounds else None
    rules = script_rules(Rules, data, {"rounds": (listed, E.MAX_ROUNDS)})
    if not listed or not all(isinstance(r, list) for r in rounds):
        raise ScriptError(f"rounds: must be a list of rounds, each the cards played in order, got {shown(rounds)}")
    if not isinstance(hands, list) or not all(isinstance(h, list) for h in hands):
        raise ScriptError(f"hands: must be a list of each seat's cards, got {shown(hands)}")
    try:
        check_hands(rules, hands)
    except ValueError as err:
        raise ScriptError(f"hands: {err}") from None
    steps = [Step(f"deal {card}") for hand in hands for card in hand]
    for number, cards in enumerate(rounds, start=1):
        if number > rules.rounds:
            raise ScriptError(f"round {number}: the game lasts {rules.rounds} rounds (rules.rounds)")
        if len(cards) != rules.players:
            raise ScriptError(f"round {number}: each of the {rules.players} players plays one card, "
                              f"the script lists {len(cards)}")
        steps += [Step(f"plays {card}", f"round {number}, seat {{seat}}") for card in cards]
    if len(rounds) < rules.rounds:
        raise ScriptError(f"the game lasts {rules.rounds} rounds (rules.rounds), but the script gives {len(rounds)}")
    return replay_steps(STATE, rules, steps)
