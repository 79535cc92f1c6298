"""What several games' replay parsers share beyond :mod:`sim.scripts`: a script listing its
rounds (a game's worth), a stack given top first.

Each failure is a :class:`~sim.errors.ScriptError` naming where in the script, in the words the game gives.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Hashable, Sequence

from sim.errors import ScriptError
from sim.scripts import no_unknown_keys, script_rules


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
