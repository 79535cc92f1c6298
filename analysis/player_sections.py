"""The sections on the players every game's report gives, built in the order ``PLAYER_SECTIONS`` lists them,
and the page a game's report stands on: its own sections, these, then the ``CLOSING_SECTIONS``.

Their builders live beside their declarations (``analysis.report_html``) and, for what moves the verdict,
in ``analysis.sensitivity``, which itself builds on ``analysis.report_html``: this module joins them.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from analysis.decisions_section import decisions_section
from analysis.report_html import config_section, footer, page, skill_section, strength_section, subtitle
from analysis.sensitivity import report_section as sensitivity_section


def player_sections(results) -> list[str]:
    """The ``PLAYER_SECTIONS`` of a run's report: skill, which decisions matter, strength, what moves the verdict."""
    return [skill_section(results), decisions_section(results), strength_section(results),
            sensitivity_section(results)]


def report_page(results, title: str, sections: Sequence[tuple[str, str]], own: Sequence[str],
                examples: Callable[[Any], str], method: Callable[[], str],
                after: Sequence[Callable[[Any], str]] = (), extra_css: str = "") -> str:
    """A game's report as one HTML document: ``own`` (its headline and sections), the player sections, the
    sections ``after`` builds, its ``examples``, the config and its ``method``; ``sections`` lists them."""
    body = [*own, *player_sections(results), *(build(results) for build in after), examples(results),
            config_section(results), method()]
    return page(f"{title} balance report: {results.config.name}", subtitle(results), sections, body,
                footer(results), extra_css=extra_css)
