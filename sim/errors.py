"""Errors the command line reports as one line (exit code 2 for the user's input, 1 for a game package at fault),
and how values are quoted in them."""

import datetime
from typing import Any, Iterable

# A quoted value is cut to this many characters; the message says how long it was.
MAX_SHOWN = 200
# No line of an error message is longer than this.
MAX_LINE = 600


class ConfigError(ValueError):
    """A config value is missing, malformed or impossible.

    ``field`` is the dotted key (``rules.players``); the message reads
    ``rules.players: must be between 2 and 5, got 7``.
    """

    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}" if field else problem)


class ScriptError(ValueError):
    """A replay script is illegal or inconsistent; the message names where."""


class GameError(Exception):
    """An installed game's package does not load, or declares what the machinery cannot use: a fault of that
    package, not of the user's input nor of lvsim. The message names the game and, where it can, the file and
    the declaration."""


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``"1 policy"``, ``"3 policies"``: ``n`` and the noun in its number."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def and_listed(items: Iterable[str]) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def shown(value: Any, limit: int = MAX_SHOWN) -> str:
    """``repr(value)`` for a message, cut after ``limit`` characters with how long it was.

    A bad list of ten thousand items is quoted by its start, not in full.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * limit:
        return f"an integer of about {int(value.bit_length() * 0.30103):,} digits"  # repr() would refuse it
    return cut(_spelled(value), limit)


def _spelled(value: Any) -> str:
    """``repr(value)`` but for true, false, null and dates, spelled as the TOML or JSON they came from."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (datetime.date, datetime.time)):  # a TOML date or time (a datetime is a date)
        return value.isoformat()
    if isinstance(value, (list, tuple)) and len(value) <= MAX_SHOWN:
        return "[" + ", ".join(map(_spelled, value)) + "]"
    if isinstance(value, dict) and len(value) <= MAX_SHOWN:
        return "{" + ", ".join(f"{k!r}: {_spelled(v)}" for k, v in value.items()) + "}"
    return repr(value)


def cut(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` cut after ``limit`` characters, saying how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def one_line(text: str, limit: int = MAX_LINE) -> str:
    """``text`` as one printable line of at most about ``limit`` characters.

    Line breaks and other control characters (a file name may hold them)
    are escaped; a longer line keeps its start and end, which name the
    field and the problem, and says how much was left out.
    """
    text = "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)
    if len(text) <= limit:
        return text
    head, tail = limit * 2 // 3, limit // 3
    return f"{text[:head]} …({len(text) - head - tail:,} characters left out)… {text[-tail:]}"
