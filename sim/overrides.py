"""Dotted keys into a config: ``run.games``, ``rules.golden_token``, ``rules.tokens[2][1]``.

Sweeps and tunes name what they change by such keys. A key with indices
names one entry of a rule that is a list (``rules.tokens[2]`` a token,
``rules.tokens[2][1]`` one of its faces); this module reads those keys and
puts a value into a ``[rules]`` table there. What a key may name, and the
words of a refusal, are the caller's.
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Mapping, Sequence

from sim.knobs import parse_path


def dotted(table: Mapping[str, Any], prefix: str = "",
           into: Callable[[str, Any], bool] = lambda key, value: isinstance(value, dict)) -> dict[str, Any]:
    """``{"rules": {"players": x}}`` and ``{"rules.players": x}`` both as ``{"rules.players": x}``.

    A value is taken as a table of further keys when ``into(its dotted key,
    value)`` says so (by default: when it is a table).
    """
    out = {}
    for key, value in table.items():
        full = f"{prefix}{key}"
        if into(full, value):
            out.update(dotted(value, f"{full}.", into))
        else:
            out[full] = value
    return out


def rule_entry(key: str) -> tuple[str, tuple[int, ...]] | None:
    """``"rules.tokens[2][1]"`` as ``("tokens", (2, 1))``, ``"rules.players"`` as ``("players", ())``; None for
    a key that is not a rule's."""
    if not key.startswith("rules."):
        return None
    try:
        return parse_path(key)
    except ValueError:
        return None


def entry_name(knob: str, path: Sequence[int]) -> str:
    """``("tokens", (2, 1))`` as ``"rules.tokens[2][1]"``."""
    return f"rules.{knob}" + "".join(f"[{i}]" for i in path)


class NoSuchEntry(LookupError):
    """A path that leaves a rule's value: ``where`` is the part that exists, ``holder`` what is there."""

    def __init__(self, where: str, holder: Any):
        super().__init__(where)
        self.where, self.holder = where, holder


def entry_at(rules: Mapping[str, Any], knob: str, path: Sequence[int]) -> Any:
    """The entry ``path`` of rule ``knob`` in the ``[rules]`` table ``rules``; NoSuchEntry if it has none."""
    value = rules[knob]
    for depth, i in enumerate(path):
        if not isinstance(value, list) or i >= len(value):
            raise NoSuchEntry(entry_name(knob, path[:depth]), value)
        value = value[i]
    return value


def put_entry(rules: dict[str, Any], knob: str, path: Sequence[int], value: Any) -> None:
    """Put (a copy of) ``value`` at entry ``path`` of rule ``knob`` in ``rules``; NoSuchEntry if it has none."""
    if not path:
        rules[knob] = copy.deepcopy(value)
        return
    holder = entry_at(rules, knob, path[:-1])
    if not isinstance(holder, list) or path[-1] >= len(holder):
        raise NoSuchEntry(entry_name(knob, path[:-1]), holder)
    holder[path[-1]] = copy.deepcopy(value)
