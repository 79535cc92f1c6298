"""A game given by hand, played through the game's state (``sim.state``): one replay for every game.

A script is the game's rules and a list of named steps, in order: each
chance outcome (a card dealt, a machine turned up, a die rolled) and each
decision, by the name the state gives it (``State.action_name`` without the
``seat s`` it starts with: ``plays 5``, ``deal 3``). :func:`play_steps`
applies them, the state checking each, and :func:`replay_steps` gives the
finished game's trace. A game whose script format is its own (the rounds
of Las Vegan, the hands and rounds of High Card) translates it into steps
and passes them here; a bad step is one :class:`~sim.errors.ScriptError`
naming where the script says it is.

The generic format, for a game with no format of its own::

    {"players": 3, "rules": {...}, "steps": ["deal 6", "deal 2", ..., "plays 6", ...]}
"""

from __future__ import annotations

from typing import Any, Iterable

from sim.errors import ScriptError
from sim.reference import IllegalMove
from sim.scripts import no_unknown_keys, script_rules
from sim.state import State


class Step(str):
    """A step's name, with where the script gives it (``where``: text, ``{seat}`` standing for the seat to move)."""

    where: str

    def __new__(cls, name: str, where: str = "") -> "Step":
        step = super().__new__(cls, name)
        step.where = where
        return step


def play_steps(state: State, steps: Iterable[str], where: str = "step {i}") -> State:
    """``state`` after every step of ``steps``; a ScriptError at the first that is not legal then, naming its
    place (the step's own ``where``, or ``where`` with ``{i}`` its 1-based index) and the rule."""
    for i, name in enumerate(steps, start=1):
        seat = state.to_move()
        at = (getattr(name, "where", "") or where).format(i=i, seat=seat)
        if state.is_terminal():
            raise ScriptError(f"{at}: the game is over, but the script goes on with {name!r}")
        try:
            state.apply_action(state.action_from_name(str(name)))
        except IllegalMove as err:
            raise ScriptError(f"{at}: {err.rule}") from None
        except ValueError as err:
            raise ScriptError(f"{at}: {err}") from None
    return state


def replay_steps(state_class: type[State], rules, steps: Iterable[str], where: str = "step {i}") -> dict:
    """The trace of the game ``steps`` play from its start under ``rules``; a ScriptError if it is not over."""
    state = play_steps(state_class.new(rules), steps, where)
    if not state.is_terminal():
        named = state.named_actions()
        raise ScriptError(f"the script ends before the game does (next: one of {', '.join(named)})")
    return state.trace()


def replay_script(state_class: type[State], Rules, data: Any) -> dict:
    """The trace of a script in the generic format (``players``, ``rules``, ``steps``)."""
    if not isinstance(data, dict):
        raise ScriptError("a script is a JSON object with 'steps' (and optionally 'players', 'rules')")
    no_unknown_keys(data, ("players", "rules", "steps"), "script")
    steps = data.get("steps")
    if not isinstance(steps, list) or not steps:
        raise ScriptError("steps: must be a non-empty list of steps")
    rules = script_rules(Rules, data)
    for i, step in enumerate(steps, start=1):
        if not isinstance(step, str):
            raise ScriptError(f"step {i}: a step is the name of an action or chance outcome, got {step!r}")
    return replay_steps(state_class, rules, steps)
