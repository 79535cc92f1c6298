"""How a rule knob and its value are said to a designer, in the terminal and the tune report."""

from __future__ import annotations

import json
import re
from typing import Any


def knob_words(label: str) -> str:
    """``tokens[2]`` as a designer says it: token 3 (counting from 1)."""
    m = re.match(r"^tokens\[(\d+)\]$", label)
    if m:
        return f"token {int(m.group(1)) + 1}"
    return label.replace("_", " ")


def value_words(value: Any) -> str:
    """A knob's value as printed: JSON for lists, a typographic minus sign."""
    text = json.dumps(value, separators=(", ", ": ")) if not isinstance(value, str) else value
    return text.replace("-", "\u2212")
