"""The sections on the players every game's report gives, built in the order ``PLAYER_SECTIONS`` lists them.

Their builders live beside their declarations (``analysis.report_html``) and, for what moves the verdict,
in ``analysis.sensitivity``, which itself builds on ``analysis.report_html``: this module joins them.
"""

from __future__ import annotations

from analysis.report_html import skill_section, strength_section
from analysis.sensitivity import report_section as sensitivity_section


def player_sections(results) -> list[str]:
    """The ``PLAYER_SECTIONS`` of a run's report: skill, strength, what moves the verdict."""
    return [skill_section(results), strength_section(results), sensitivity_section(results)]
