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


# --- the report of a game that writes none of its own -------------------------------------------------------

# Summary fields shown in the headline's facts, the seats or the player sections, not again among the numbers
# (with the run's set-up, which a summary gives before the win shares: analysis.common.run_fields).
RUN_FIELDS = {"win_share", "win_share_ci", "first_player_advantage", "first_player_advantage_ci", "skill_gap",
              "strength", "sensitivity"}
INTERVAL_WORDS = {
    "wilson": "a Wilson score interval over its count", "student t": "Student's t over games",
    "cluster": "a ratio of sums, cluster-robust with games as clusters",
    "seats": "from every seat's own interval",
}


def default_report(results, package: str) -> str:
    """The report of a game without ``report.py``: the headline cards of its declared headline metrics with their
    intervals, the seats with every per-seat number of the summary, the summary's other numbers, the player
    sections, the run's first and last games replayed by the reference engine (``PLAY_LOOP`` and
    ``player_named`` of ``<package>.rules``, or of ``<package>.state`` when the state is the engine) and
    told from their traces, the config and how each metric's interval is computed."""

    from analysis.report_html import (
        CLOSING_SECTIONS, PLAYER_SECTIONS, e, examples_section, first_player_card, first_player_verdict,
        headline, method_section, metric, num, pct, section, seat_cells, setup_facts, table,
    )
    from sim.reference import engine_of, player_named_of

    game, s = results.config.game_spec, results.summary
    keys = list(s)
    shown_elsewhere = RUN_FIELDS | set(keys[:keys.index("win_share")] if "win_share" in keys else ())
    rules_module = engine_of(package)
    player_named = player_named_of(rules_module)

    def shown(value, m) -> str:
        return {"pct": lambda: pct(value, 2), "pts": lambda: f"{num(100 * value, 1, sign=True)} pts"}.get(
            m.style, lambda: num(value, 2))()

    def card(m):
        ci = s.get(f"{m.name}_ci")
        interval = ("95% CI " + metric(f"{m.name}_ci", ci, f"{shown(ci[0], m)} to {shown(ci[1], m)}")
                    if ci and None not in ci else "")
        return (m.label[0].upper() + m.label[1:], metric(m.name, s[m.name], shown(s[m.name], m)), interval,
                m.hole or f"The {m.label}, over every game of the run.")

    cards = [first_player_card(s)] + [card(m) for m in game.metrics
                                      if m.headline and m.name in s and m.name not in shown_elsewhere]
    per_seat = [k for k, v in s.items() if k not in shown_elsewhere and not k.endswith("_ci") and isinstance(v, list)
                and len(v) == results.players and all(isinstance(x, (int, float)) for x in v)]
    rows = [[*seat_cells(results, seat, "first to play"), *(num(s[k][seat], 2) for k in per_seat)]
            for seat in range(results.players)]
    seats = section("seats", "Seats", f'<p class="lead">{e(first_player_verdict(s))}</p>' + table(
        ["seat", "policy", "win share", "95% CI", *(k.replace("_", " ") for k in per_seat)], rows, numeric_from=2))
    labels = {m.name: m for m in game.metrics}
    numbers = []
    for k, v in s.items():
        if k in shown_elsewhere or k.endswith("_ci") or k in per_seat:
            continue
        m = labels.get(k)
        label = m.label if m else k.replace("_", " ")
        as_pct = m is None and k.endswith("_rate")
        for part, value in (v.items() if isinstance(v, dict) else [("", v)]):
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                text = shown(value, m) if m else pct(value, 2) if as_pct else num(value, 2)
                numbers.append([label + (f", {part}" if part else ""), text])
    games = section("games", "The games", table(["", "value"], numbers))

    def replay(config, g: int):
        players = [player_named(config.rules, p) for p in config.seat_policies]
        return rules_module.PLAY_LOOP.play_game(config.rules, config.seed, g, players, trace=True)

    def story(config, trace: dict) -> str:
        parts = []
        for k, v in trace.items():
            if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
                keys = list(v[0])
                parts.append(f"<p>{e(k.replace('_', ' '))}:</p>" + table(
                    keys, [[e(_plain(x.get(key))) for key in keys] for x in v], numeric_from=99))
            else:
                parts.append(f"<p>{e(k.replace('_', ' '))}: {e(_plain(v))}</p>")
        return "\n".join(parts)

    picks = [("first", "The run's first game", 0, "it is the first the run played")][:s["games"]]
    if s["games"] > 1:
        picks.append(("last", "The run's last game", s["games"] - 1, "it is the last the run played"))

    def examples(results) -> str:
        return examples_section(results, picks, "Games of this run told from their traces.", [], replay, story)

    def method() -> str:
        return method_section([f"{m.label[0].upper() + m.label[1:]}: {INTERVAL_WORDS[m.interval]}."
                               for m in game.metrics if m.interval in INTERVAL_WORDS and m.name in s])

    sections = (("seats", "Seats"), ("games", "The games"), *PLAYER_SECTIONS, *CLOSING_SECTIONS)
    return report_page(results, game.title, sections, [headline(setup_facts(results), cards), seats, games],
                       examples, method)


def _plain(value) -> str:
    """A trace's value as text: a list of lists as its lists, joined."""
    if isinstance(value, list):
        return "; ".join(map(_plain, value)) if any(isinstance(v, (list, dict)) for v in value) else \
            " ".join(map(str, value))
    if isinstance(value, dict):
        return ", ".join(f"{k} {_plain(v)}" for k, v in value.items())
    return str(value)
