"""How a rule knob's value is said to a designer, in the terminal and the tune report (the knob's own name
comes from its declaration: ``Game.knob_label``)."""

from __future__ import annotations

import json
from typing import Any


def value_words(value: Any) -> str:
    """A knob's value as printed: JSON for lists, a typographic minus sign."""
    text = json.dumps(value, separators=(", ", ": ")) if not isinstance(value, str) else value
    return text.replace("-", "\u2212")
