"""How a rule knob's value is said to a designer, in the terminal and the tune report (the knob's own name
comes from its declaration: ``Game.knob_label``), and how a sentence of the terminal is wrapped."""

from __future__ import annotations

import json
import re
import textwrap
from typing import Any


def value_words(value: Any) -> str:
    """A knob's value as printed: JSON for lists, a typographic minus sign."""
    text = json.dumps(value, separators=(", ", ": ")) if not isinstance(value, str) else value
    return text.replace("-", "\u2212")


def wrapped(text: str, width: int = 120, indent: str = "  ", first: str = "") -> str:
    """A sentence of the terminal's wrapped at ``width`` columns, its first line indented by ``first`` and the others
    by ``indent``; a quoted command (``'lvsim ...'``) kept on one line, to be copied whole."""
    kept = re.sub(r"'lvsim [^']*'", lambda m: m.group(0).replace(" ", "\0"), text)
    return textwrap.fill(kept, width, initial_indent=first, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False).replace("\0", " ")
