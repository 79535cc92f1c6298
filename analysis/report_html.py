"""The shell every game's HTML report shares: page, styles, formatting and the game-generic sections.

A game's report (``sim/<game>/report.py``) writes its own sections
and assembles the page with :func:`page`; what reads the same in every
game lives here: escaping, numbers with their 95% intervals, tables,
embedded figures, metric cards whose numbers carry ``data-metric`` /
``data-value`` attributes (the summary's exact values, as JSON, for tests
and machines), the setup facts, the skill and "Does it hold for stronger
players?" sections (their duels and metrics come from the summary and the
game's contract), the config-and-reproduction section, the method note and
the footer.

The page is one self-contained HTML document: figures embedded as PNG
data, styles inline, no script, nothing fetched.

A report never costs the results it shows: every figure is drawn through
one guard (:func:`figure`, given the function that draws it) and a section
can be built through another (:func:`guarded_section`), so a figure or a
section that fails stands on the page as one line saying why
(:func:`not_drawn`), and :func:`write_page` writes a page, or says in one
line why it could not, without ever raising for it.
"""

from __future__ import annotations

import base64
import html
import json
import math
import re
import secrets
import sys
import time
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import pandas as pd
from matplotlib.figure import Figure

from analysis import figure_style
from analysis.common import mixed_seats_words
from analysis.strength import strength_table

MINUS = "\u2212"


# --- formatting -------------------------------------------------------------------


def e(text: Any) -> str:
    """``text`` escaped for HTML (quotes included)."""
    return html.escape(str(text), quote=True)


def decimals(half_width: float, lowest: int = 1, highest: int = 3) -> int:
    """Decimals that show an interval's half-width to two significant digits.

    Enough to keep both ends of an interval apart from a rounded 0, no more
    than the sample size supports.
    """
    if not half_width or not math.isfinite(half_width):
        return lowest
    return int(min(highest, max(lowest, 1 - math.floor(math.log10(abs(half_width))))))


def ci_decimals(ci: Sequence[float | None] | None, scale: float = 100, lowest: int = 1, highest: int = 3) -> int:
    """:func:`decimals` for an interval ``[low, high]`` shown times ``scale`` (``lowest`` when it is unknown)."""
    if not ci or None in ci or any(math.isnan(x) for x in ci):
        return lowest
    return decimals(scale * (ci[1] - ci[0]) / 2, lowest, highest)


def is_missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def num(x: float | None, decimals: int = 1, sign: bool = False) -> str:
    if is_missing(x):
        return "n/a"
    text = f"{x:+.{decimals}f}" if sign else f"{x:.{decimals}f}"
    return text.replace("-", MINUS)


def pct(x: float | None, decimals: int = 1, sign: bool = False) -> str:
    return "n/a" if is_missing(x) else num(100 * x, decimals, sign) + ("%" if not sign else "")


def fair_pct(fair: float) -> str:
    """1/4 -> "25%", 1/3 -> "33.3%"."""
    return f"{100 * fair:.1f}".rstrip("0").rstrip(".") + "%"


def ci_pct(low: float | None, high: float | None, decimals: int = 1) -> str:
    if is_missing(low) or is_missing(high):
        return "n/a"
    return f"{num(100 * low, decimals)}–{num(100 * high, decimals)}%"


def pm_pct(mean: float, low: float, high: float) -> str:
    """``27.1% ± 0.3%`` for a symmetric (normal) interval."""
    half = (high - low) / 2
    d = decimals(100 * half)
    return f"{num(100 * mean, d)}% ± {num(100 * half, d)}%"


def metric(name: str, value: Any, text: str, tag: str = "span", cls: str = "") -> str:
    """An element holding a headline number: what it shows, and the exact value for machines."""
    attrs = f' class="{cls}"' if cls else ""
    return f'<{tag}{attrs} data-metric="{e(name)}" data-value="{e(json.dumps(value))}">{text}</{tag}>'


def table(header: Sequence[str], rows: Iterable[Sequence[Any]], cls: str = "data", numeric_from: int = 1) -> str:
    """A plain HTML table; cells are HTML already (escape before)."""
    head = "".join(
        f'<th class="{"num" if i >= numeric_from else ""}">{h}</th>' for i, h in enumerate(header)
    )
    body = "".join(
        "<tr>" + "".join(f'<td class="{"num" if i >= numeric_from else ""}">{c}</td>' for i, c in enumerate(r))
        + "</tr>"
        for r in rows
    )
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def figure(fig: Figure | Callable[[], Figure], alt: str, caption: str = "") -> str:
    """A matplotlib figure embedded as PNG data, with its alternative text and caption (HTML).

    ``fig`` is best given as the function of no arguments that draws it
    (``lambda: tornado(...)``): whatever goes wrong, in making the figure or
    in drawing it, its place then holds one line saying why (:func:`not_drawn`)
    and the page is written all the same. A figure given already made is
    guarded only while it is drawn.

    Inside :func:`figures_drawn_together` the figure is drawn later, with
    the page's others; its place holds a marker until then.
    """
    if callable(fig) and not isinstance(fig, Figure):
        try:
            fig = fig()
        except Exception as err:  # a bug in one figure costs that figure, never the page or the results
            return figure_not_drawn(alt, err)
    size = _size(fig)
    batch = _FIGURES.get()
    if batch is not None:
        return batch.add(fig, alt, caption, size)
    try:
        png = figure_style.png_bytes(fig)
    except Exception as err:
        return figure_not_drawn(alt, err)
    return _figure_html(png, alt, caption, size)


def _size(fig: Figure) -> tuple[int, int]:
    width, height = (int(round(v)) for v in fig.get_size_inches() * 100)
    return width, height


def _figure_html(png: bytes, alt: str, caption: str, size: tuple[int, int]) -> str:
    cap = f"<figcaption>{caption}</figcaption>" if caption else ""
    return f'<figure><img src="{_png_src(png)}" alt="{e(alt)}" width="{size[0]}" height="{size[1]}">{cap}</figure>'


def _png_src(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


class FigureBatch:
    """The figures of one page, drawn together (on every core) once the page is written."""

    def __init__(self) -> None:
        self._figs: list[tuple[Figure, str, str, tuple[int, int]]] = []
        self._marker = f"figure-{secrets.token_hex(8)}-"

    def add(self, fig: Figure, alt: str, caption: str, size: tuple[int, int]) -> str:
        """The marker that holds the figure's place in the page until :meth:`fill`."""
        self._figs.append((fig, alt, caption, size))
        return f"{self._marker}{len(self._figs) - 1}."

    def fill(self, page: str) -> str:
        """``page`` with every figure's marker replaced by the figure, or by the line saying why it could not be
        drawn."""
        figs = [fig for fig, *_ in self._figs]
        try:
            drawn: list = figure_style.png_bytes_all(figs)
        except Exception:  # one figure failed: draw them one by one, so that only the failing ones are lost
            drawn = [_png_or_error(fig) for fig in figs]
        shown = [figure_not_drawn(alt, png) if isinstance(png, Exception) else _figure_html(png, alt, caption, size)
                 for png, (_, alt, caption, size) in zip(drawn, self._figs)]
        return re.sub(re.escape(self._marker) + r"(\d+)\.", lambda m: shown[int(m.group(1))], page)


def _png_or_error(fig: Figure) -> bytes | Exception:
    try:
        return figure_style.png_bytes(fig)
    except Exception as err:
        return err


_FIGURES: ContextVar[FigureBatch | None] = ContextVar("report_figures", default=None)


@contextmanager
def figures_drawn_together() -> Iterator[FigureBatch]:
    """Within, :func:`figure` defers drawing to the batch; ``batch.fill(page)`` draws them into the page."""
    batch = FigureBatch()
    token = _FIGURES.set(batch)
    try:
        yield batch
    finally:
        _FIGURES.reset(token)


# --- what could not be drawn --------------------------------------------------------


def failure_reason(err: BaseException) -> str:
    """Why a part of a report could not be made, in one line: the problem, when it is one a user can cause (a
    file that cannot be written, too little memory), else that it is a bug in lvsim, with the file its
    traceback was written to."""
    from sim.boundary import message_of, report_bug
    from sim.errors import one_line

    message = message_of(err)
    return one_line(message, limit=400) if message is not None else report_bug(err)


# The parts of the page being written that could not be made, each with why (see :func:`noting_what_is_not_drawn`).
_NOT_DRAWN: ContextVar[list[str] | None] = ContextVar("report_not_drawn", default=None)


@contextmanager
def noting_what_is_not_drawn() -> Iterator[list[str]]:
    """Within, every figure or section replaced by the line saying why is noted, with why, in the list given."""
    noted: list[str] = []
    token = _NOT_DRAWN.set(noted)
    try:
        yield noted
    finally:
        _NOT_DRAWN.reset(token)


def not_drawn(what: str, err: BaseException, name: str = "") -> str:
    """The line that stands where a part of a report could not be made: ``This figure could not be drawn: <why>.``

    ``what`` is ``figure`` (drawn) or ``section``, ``table``… (written); ``name``, what the part shows."""
    reason = failure_reason(err)
    noted = _NOT_DRAWN.get()
    if noted is not None:
        noted.append(f"{what} {name!r}: {reason}" if name else f"{what}: {reason}")
    verb = "drawn" if what == "figure" else "written"
    return f'<p class="check bad not-drawn" data-not-drawn="{e(what)}">This {e(what)} could not be {verb}: {e(reason)}.</p>'


def figure_not_drawn(alt: str, err: BaseException) -> str:
    """A figure's place, when it could not be made or drawn: the line saying why."""
    return f'<figure data-figure="{e(alt)}">{not_drawn("figure", err, alt)}</figure>'


def guarded(build: Callable[[], str], what: str = "section", name: str = "") -> str:
    """``build()``, the HTML of one part of a page; if it fails, the line saying why (:func:`not_drawn`)."""
    try:
        return build()
    except Exception as err:  # a bug in one part costs that part, never the page or the results
        return not_drawn(what, err, name)


def guarded_section(anchor: str, title: str, build: Callable[[], str]) -> str:
    """A section whose body ``build()`` makes; if that fails, the section holds one line saying why."""
    return section(anchor, title, guarded(build, "section", title))


def write_page(path: Path, build: Callable[[], str], *, kept: str, say: Callable[[str], None] | None = None
               ) -> float | None:
    """Write the HTML page ``build()`` makes to ``path`` (its figures drawn together); the seconds it took, or
    None if no page could be written.

    The results the page shows are already on disk (``kept`` says where, for the line below), and nothing
    here can cost them: a figure or section that fails is a line on the page saying why, and ``say`` (a
    callable taking a line; default: stderr) is told once the page is written; a page that cannot be made
    at all is not written, and ``say`` is told why and where the results are. Ctrl-C still stops it.
    """
    from sim.atomic import write_text_atomically

    if say is None:
        def say(line: str) -> None:
            print(line, file=sys.stderr)

    started = time.perf_counter()
    with noting_what_is_not_drawn() as noted:
        try:
            with figures_drawn_together() as figures:
                page_ = build()
            write_text_atomically(path, figures.fill(page_))
        except Exception as err:
            say(f"warning: {path} could not be written: {failure_reason(err)}; {kept}")
            return None
    if noted:
        parts = f"{len(noted)} part{'s' if len(noted) > 1 else ''}"
        say(f"warning: {path} is written without {parts} that could not be drawn, each replaced by a line saying "
            f"why; the first: {noted[0]}")
    return time.perf_counter() - started


def section(anchor: str, title: str, body: str) -> str:
    return f'<section id="{anchor}">\n<h2>{e(title)}</h2>\n{body}\n</section>'


def contents(sections: Sequence[tuple[str, str]]) -> str:
    """The page's table of contents: ``(anchor, title)`` for each section, in order."""
    items = "".join(f'<li><a href="#{a}">{e(t)}</a></li>' for a, t in sections)
    return f'<nav aria-label="Contents"><ol>{items}</ol></nav>'


def signed_cell(value: int, text: str | None = None) -> str:
    """A gain, a loss or nothing, coloured (``text`` shown instead of the number when given)."""
    cls = "pos" if value > 0 else ("neg" if value < 0 else "zero")
    return f'<span class="{cls}">{e(figure_style.signed_text(value) if text is None else text)}</span>'


# --- the page ---------------------------------------------------------------------


def page(title: str, subtitle: str, sections: Sequence[tuple[str, str]], body: Sequence[str], footer: str,
         extra_css: str = "") -> str:
    """The whole HTML document: ``sections`` lists the contents, ``body`` the sections' HTML in order."""
    return _PAGE.format(
        title=e(title),
        css=CSS + extra_css,
        heading=e(title),
        subtitle=e(subtitle),
        contents=contents(sections),
        body="\n".join(body),
        footer=footer,
    )


def policies_text(seats: Sequence[str]) -> str:
    if len(set(seats)) == 1:
        return f"<code>{e(seats[0])}</code> at every seat"
    return ", ".join(f"seat {s}: <code>{e(name)}</code>" for s, name in enumerate(seats))


def subtitle(results) -> str:
    """``20,000 games · 4 players · seed 1 · run 2024-…``."""
    s = results.summary
    started = results.meta.get("started_at", "")
    parts = [f"{s['games']:,} games", f"{s['players']} players", f"seed {s['seed']}"]
    if started:
        parts.append(f"run {started.replace('T', ' ')}")
    return " · ".join(parts)


def rules_differences(rules) -> str:
    """The rules that differ from the rulebook, as a list (or "none: the rulebook game")."""
    differences = rules.differences()
    if not differences:
        return "none: the rulebook game"
    return "<ul class=\"plain\">" + "".join(
        f"<li><code>{e(k)} = {e(json.dumps(v))}</code></li>" for k, v in differences.items()
    ) + "</ul>"


def setup_facts(results) -> list[tuple[str, str]]:
    """Players, rules that differ, policies, games and seed: the headline's list of facts."""
    s = results.summary
    return [
        ("Players", metric("players", s["players"], str(s["players"]))),
        ("Rules that differ from the rulebook", rules_differences(results.config.rules)),
        ("Policies", policies_text(results.config.seat_policies)),
        ("Games", metric("games", s["games"], f"{s['games']:,}")),
        ("Seed", metric("seed", s["seed"], str(s["seed"]))),
    ]


def headline(facts: Sequence[tuple[str, str]], cards: Sequence[tuple[str, str, str, str]]) -> str:
    """The headline: the setup's facts, then one card per headline number.

    A card is ``(label, big number (HTML), interval line (HTML), verdict (text))``.
    """
    facts_html = "".join(f"<dt>{e(k)}</dt><dd>{v}</dd>" for k, v in facts)
    cards_html = "".join(
        f'<div class="metric-card"><div class="label">{e(label)}</div><div class="big">{big}</div>'
        f'<div class="ci">{ci}</div><p class="verdict">{e(verdict)}</p></div>'
        for label, big, ci, verdict in cards
    )
    return (
        f'<section id="headline" aria-label="Headline">\n<dl class="facts">{facts_html}</dl>\n'
        f'<div class="cards">{cards_html}</div>\n</section>'
    )


def first_player_verdict(summary: dict) -> str:
    """"Seat 0 wins 27.1% ± 0.3% of games against a fair 25%: a first-player edge of 2.1 points."."""
    players = summary["players"]
    share, (low, high) = summary["win_share"][0], summary["win_share_ci"][0]
    adv, (adv_low, adv_high) = summary["first_player_advantage"], summary["first_player_advantage_ci"]
    fair = fair_pct(1 / players)
    if None in (low, high, adv_low, adv_high):
        return f"Seat 0 wins {pct(share)} of games against a fair {fair}; too few games to tell an edge from chance."
    d = decimals(100 * (high - low) / 2)
    opening = f"Seat 0 wins {pm_pct(share, low, high)} of games against a fair {fair}"
    mixed = mixed_seats_words(summary)
    if mixed:
        return f"{opening}; {mixed}."
    if adv_low > 0:
        return f"{opening}: a first-player edge of {num(100 * adv, d)} points."
    if adv_high < 0:
        return f"{opening}: a first-player handicap of {num(-100 * adv, d)} points."
    return (
        f"{opening}: no first-player edge that {summary['games']:,} games can tell from chance "
        f"(between {num(100 * adv_low, d, sign=True)} and {num(100 * adv_high, d, sign=True)} points)."
    )


def first_player_card(summary: dict, label: str = "First-player advantage") -> tuple[str, str, str, str]:
    """The headline card of seat 0's edge: advantage in points, its interval, seat 0's win share."""
    adv, adv_ci = summary["first_player_advantage"], summary["first_player_advantage_ci"]
    d = ci_decimals(adv_ci)
    return (
        label,
        metric("first_player_advantage", adv, f"{num(100 * adv, d, sign=True)} pts"),
        "95% CI "
        + metric(
            "first_player_advantage_ci", adv_ci,
            f"{num(100 * adv_ci[0], d, sign=True)} to {num(100 * adv_ci[1], d, sign=True)} points"
            if None not in adv_ci else "n/a",
        )
        + " · seat 0 win share "
        + metric("win_share_0", summary["win_share"][0], pct(summary["win_share"][0], d)),
        first_player_verdict(summary),
    )


def seat_cells(results, seat: int, first_seat: str) -> list[str]:
    """The first cells of a seat's row in a report's table of seats: the seat, its policy, its win share and
    the share's 95% interval."""
    s = results.summary
    low, high = s["win_share_ci"][seat]
    return [f"seat {seat}" + (f" ({first_seat})" if seat == 0 else ""),
            f"<code>{e(results.config.seat_policies[seat])}</code>", pct(s["win_share"][seat], 2),
            ci_pct(low, high, 2)]


# --- skill -------------------------------------------------------------------------


# The sections every game's report shares, in the order every report gives them: what the players' strength
# changes (a game may put its own after these, as Las Vegan's rule holes), then the closing three.
PLAYER_SECTIONS = (
    ("skill", "Skill"),
    ("decisions", "Which decisions matter"),
    ("strength", "Does it hold for stronger players?"),
    ("sensitivity", "What moves the verdict"),
)
CLOSING_SECTIONS = (
    ("examples", "Example games"),
    ("config", "Config and reproduction"),
    ("method", "How the numbers are computed"),
)


def skill_section(results) -> str:
    """Win share by policy (when the seats differ; the tally's ``win_share_by_policy``) and the skill-gap duels
    of the summary."""
    return guarded_section("skill", "Skill", lambda: _skill_body(results))


def _skill_body(results) -> str:
    seats = results.config.seat_policies
    s = results.summary
    body = []
    if len(set(seats)) > 1:
        by_policy = results.tally.win_share_by_policy(seats).copy()
        by_policy["label"] = [f"{p} (seat{'s' * (',' in st)} {st})"
                              for p, st in zip(by_policy["policy"], by_policy["seats"])]
        rows = [
            [f"<code>{e(r['policy'])}</code>", e(r["seats"]), pct(r["mean"], 2), ci_pct(r["low"], r["high"], 2),
             fair_pct(r["fair"])]
            for _, r in by_policy.iterrows()
        ]
        body += [
            "<p>Share of all wins taken by each policy's seats, against the share its number of seats would "
            "get by chance. The seats are fixed in this run, so a policy's result includes its seats' "
            "positional edge.</p>",
            figure(lambda: figure_style.skill_figure(by_policy, "Win share by policy"),
                   "Horizontal bars of the win share of each policy with 95% intervals"),
            table(["policy", "seats", "win share", "95% CI", "fair share"], rows),
        ]
    else:
        body.append(
            f"<p>Every seat played <code>{e(seats[0])}</code>, so this run does not compare policies. "
            "Give the seats different policies (<code>[policies] seats = [...]</code>) to measure skill.</p>"
        )
    gap = s.get("skill_gap")
    if isinstance(gap, dict) and gap:
        entries = []
        sentences = []
        for key, entry in gap.items():
            if not isinstance(entry, dict) or "win_share" not in entry:
                continue
            low, high = (entry.get("win_share_ci") or [None, None])[:2]
            strong, weak = entry.get("policy", key), entry.get("against", "the rest")
            fair = entry.get("fair_share", 1 / results.players)
            too_few = entry.get("win_share_ci_reason")
            if not too_few:
                # A duel too short for an interval has no bar: a bar would look as sure as the others.
                entries.append({
                    "label": f"one {strong} vs {weak}", "mean": entry["win_share"],
                    "low": entry["win_share"] if low is None else low,
                    "high": entry["win_share"] if high is None else high, "fair": fair,
                })
            interval = "" if too_few else f" ({ci_pct(low, high)})" if low is not None else ""
            games = f" over {entry['games']:,} deals" if entry.get("games") else ""
            sure = f": {e(too_few)}" if too_few else ""
            if entry.get("no_winner_share"):
                sure += (f"; {pct(entry['no_winner_share'])} of the duel's games were won by no one, so equal "
                         "players would each take less than the fair share")
            sentences.append(
                f'<li data-duel="{e(key)}">One <code>{e(strong)}</code> seat among <code>{e(weak)}</code> seats '
                f"wins {pct(entry['win_share'])}{interval} of games{games}, against a fair {fair_pct(fair)}"
                f"{sure}.</li>"
            )
        if sentences:
            body += [
                "<h3>Skill gap under these rules</h3>",
                "<p>Short duels played on the same deals with every seat rotation, so that seat and deal luck "
                "cancel out: how much a stronger policy gains over a weaker one. Their 95% intervals are made "
                "for a share over few deals (Wilson's, at the deals' effective number of games, with Student "
                "t's degrees of freedom); below 4 deals there is none: too few deals to say.</p>",
                "<ul>" + "".join(sentences) + "</ul>",
            ]
        if entries:
            body.append(
                figure(lambda: figure_style.skill_figure(pd.DataFrame(entries),
                                                         "Skill gap: one strong seat against the rest"),
                       "Horizontal bars of the skill-gap duels' win shares with 95% intervals"))
    descriptions = results.config.game_spec.policy_descriptions
    body.append(
        "<dl class=\"policies\">" + "".join(
            f"<dt><code>{e(name)}</code></dt><dd>{e(descriptions.get(name.split(':')[0], ''))}</dd>"
            for name in dict.fromkeys(seats)
        ) + "</dl>"
    )
    return "\n".join(body)


# --- does it hold for stronger players ------------------------------------------------------


def _code_list(names: Sequence[str]) -> str:
    codes = [f"<code>{e(n)}</code>" for n in names]
    return codes[0] if len(codes) == 1 else ", ".join(codes[:-1]) + " and " + codes[-1]


def strength_section(results) -> str:
    """The headline metrics with every seat played by each policy of the game's strength profile."""
    return guarded_section("strength", "Does it hold for stronger players?", lambda: _strength_body(results))


def _strength_body(results) -> str:
    strength = results.summary.get("strength")
    if not isinstance(strength, dict) or not strength.get("profiles"):
        return ("<p>This run skipped the strength profile (<code>run.strength_games = 0</code> and "
                "<code>run.strength_lookahead_games = 0</code>). Leave them at <code>\"auto\"</code> to see "
                "whether its verdicts hold for stronger players.</p>")
    game = results.config.game_spec
    metrics = game.strength_metrics
    labels = {m: (spec.label, spec.style) for m, spec in metrics.items()}
    profile = strength_table(strength, metrics)
    policies = [p["policy"] for p in strength["profiles"]]
    header = ["metric", *[f"{p} ({p_games:,} games)" for p, p_games in
                          zip(policies, (p["games"] for p in strength["profiles"]))]]
    rows = []
    for m, (label, kind) in labels.items():
        cells = [label]
        for policy in policies:
            row = profile[(profile["metric"] == m) & (profile["policy"] == policy)].iloc[0]
            cell = strength_value(row["value"], kind)
            if not (is_missing(row["low"]) or is_missing(row["high"])):
                cell += (f' <span class="muted">({strength_value(row["low"], kind)} to '
                         f'{strength_value(row["high"], kind)})</span>')
            cells.append(cell)
        rows.append(cells)
    verdict_text = strength.get("verdict", {}).get("sentence", "")
    moved = strength.get("verdict", {}).get("moved", [])
    slow = [p for p in policies if p == game.strength_slow_policy]
    fast = [p for p in policies if p not in slow]
    played = f"{_code_list(fast)} on the same sample" if fast else ""
    if slow:
        played += (", " if played else "") + (
            f"{_code_list(slow)} (the strongest and slowest player) on a smaller one"
        )
    plain_names = ", ".join(policies)
    body = [
        f'<p class="lead" id="strength-verdict" data-moved="{e(json.dumps(moved))}">{e(verdict_text)}</p>',
        f"<p>The same rules and the same deals, every seat played by one policy in turn: {played}. Two "
        "strengths are compared game by game on the deals both played. A metric is said to move when the 95% "
        "interval of that paired difference lies wholly beyond the smallest difference that changes a decision, "
        "to hold when it lies wholly within it, and to be undecided when its games cannot tell.</p>",
        figure(lambda: figure_style.strength_figure(profile, labels),
               f"Dot plots of each headline metric with 95% intervals under {plain_names} seats",
               "Each panel: one headline metric with every seat played by each policy (95% intervals)"
               + ("; the slow policy's subsample is small, so its intervals are wide." if slow else ".")),
        table(header, rows),
        *_strength_comparisons(strength, metrics),
    ]
    return "\n".join(body)


def _strength_comparisons(strength: dict, metrics: dict) -> list[str]:
    """The paired comparisons the verdict rests on: per metric, each pair's difference on the same deals, its
    95% interval and whether it moves, holds or is undecided; then the command that would decide the rest."""
    compared = [tuple(p) for p in strength.get("verdict", {}).get("compared", [])]
    found = {(c["from"], c["to"]): c for c in strength.get("comparisons", [])}
    shown = [found[p] for p in compared if p in found] or list(found.values())
    if not shown:
        return []
    header = ["metric", *[f"<code>{e(c['from'])}</code> → <code>{e(c['to'])}</code> ({c['games']:,} deals)"
                          for c in shown]]
    rows = []
    for m, spec in metrics.items():
        cells = [e(spec.label)]
        for c in shown:
            entry = c["metrics"].get(m)
            if entry is None:
                cells.append("n/a")
                continue
            diff = strength_difference(entry["difference"], spec.style)
            interval = (f' <span class="muted">({strength_difference(entry["low"], spec.style)} to '
                        f'{strength_difference(entry["high"], spec.style)})</span>'
                        if not (is_missing(entry["low"]) or is_missing(entry["high"])) else "")
            cells.append(f'{diff}{interval} <span data-verdict="{e(entry["verdict"])}">{e(entry["verdict"])}</span>')
        rows.append(cells)
    out = ["<p>Each comparison the verdict rests on, paired on the same deals: the difference, its 95% interval, "
           "and whether it moves, holds or is undecided.</p>", table(header, rows)]
    confirm = strength.get("verdict", {}).get("confirm")
    if confirm:
        out.append(f"<p>What these games cannot decide, more games can: <code>{e(confirm)}</code> plays the same "
                   "rules against stronger players until every headline metric is decided.</p>")
    return out


def strength_difference(x: float | None, kind: str) -> str:
    """A difference between two strengths: signed, in points for a rate or an advantage."""
    if is_missing(x):
        return "n/a"
    if kind in ("pct", "pts"):
        return f"{num(100 * x, 1, sign=True)} pts"
    return num(x, 2, sign=True)


def strength_value(x: float | None, kind: str) -> str:
    if is_missing(x):
        return "n/a"
    if kind == "pct":
        return pct(x)
    if kind == "pts":
        return f"{num(100 * x, 1, sign=True)} pts"
    return num(x, 2)


# --- config, method, footer --------------------------------------------------------------------


def config_section(results) -> str:
    meta = results.meta
    reproduce = meta.get("reproduce") or "lvsim run config.toml"
    body = (
        "<p>The run's config with every rule spelled out (<code>config.toml</code> in the results directory):</p>"
        f'<pre class="toml">{e(results.config_text)}</pre>'
        "<p>To play the same games again — the same seed gives the same records, whatever the machine or the "
        "number of threads:</p>"
        f'<pre class="command">{e(reproduce)} --out &lt;new directory&gt;</pre>'
        "<p>Next to this report: <code>records.parquet</code> (one row per game), <code>summary.json</code> "
        "(the summary), <code>tally.json</code> (the report's exact statistics), <code>meta.json</code> "
        "(versions, timing and the command line).</p>"
    )
    return section("config", "Config and reproduction", body)


def method_section(game_items: Sequence[str]) -> str:
    """How the numbers are computed: what every report says, then the game's own items (HTML)."""
    items = [
        "Exact and approximate: every count, share, mean and percentile in this report is exact — computed "
        "from integer counts, sums and histograms of all the games, chunk by chunk, never from a sample of "
        "them. What is approximate is only what the method says is: the 95% intervals (normal or Wilson "
        "approximations, as below) and the skill-gap duels and strength profile, which play a subsample of "
        "deals.",
        "Every interval is a 95% confidence interval.",
        *game_items,
    ]
    body = "<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>"
    return section("method", "How the numbers are computed", body)


def footer(results) -> str:
    meta = results.meta
    versions = meta.get("versions", {})
    parts = [f"lvsim {versions.get('lvsim', '')}".strip()]
    if versions.get("source_commit"):
        parts.append(f"source {versions['source_commit'][:12]}")
    for name in ("python", "numba", "numpy"):
        if versions.get(name):
            parts.append(f"{name} {versions[name]}")
    if meta.get("seconds"):
        parts.append(f"games played in {meta['seconds']:.1f} s on {meta.get('threads', '?')} threads")
    return e(" · ".join(parts))


# --- example games ------------------------------------------------------------------------------

REPLAYED = ("Each was played again from its game index and the run's seed by the reference engine, with each "
            "seat's policy, and the replay's record is compared with the row the run stored for that game.")


def examples_section(results, picks: Sequence[tuple[str, str, int, str]], told: str, notes: Sequence[str],
                     replay: Callable[[Any, int], tuple[Any, Any]], story: Callable[[Any, Any], str]) -> str:
    """The report's example games, each replayed by the reference engine, checked and told.

    ``picks`` are ``(anchor, title, game, why)``; ``told`` opens the section
    ("Games of this run told turn by turn."), ``notes`` (HTML paragraphs)
    follow it. The game says how to play a game again — ``replay(config,
    game)`` gives its record and the replayed game — and how to tell it:
    ``story(config, replayed)`` as HTML.
    """
    if not picks:
        return section("examples", "Example games", "<p>This run played no game to show.</p>")
    games = [game for _, _, game, _ in picks]
    stored = dict(zip(games, results.game_rows(games)))
    body = [f"<p>{told} {REPLAYED}</p>", *notes]
    body += [_example_game(results, *pick, stored[pick[2]], replay, story) for pick in picks]
    return section("examples", "Example games", "\n".join(body))


def _example_game(results, anchor: str, title: str, game: int, why: str, stored: dict, replay, story) -> str:
    config = results.config
    try:
        record, replayed = replay(config, game)
    except Exception as err:  # the report must still be written; say what went wrong instead
        return replay_failed(anchor, title, game, err)
    differences = config.game_spec.records.differences(record, stored)
    seats = ", ".join(f"seat {s} <code>{e(p)}</code>" for s, p in enumerate(config.seat_policies))
    match = "false" if differences else "true"
    return (
        f'<article class="example" id="example-{anchor}" data-game="{game}" data-replay-match="{match}">\n'
        f"<h3>{e(title)}: game {game}</h3>\n<p>Picked because {e(why)}. Seats: {seats}.</p>\n"
        f"{replay_check(game, config.seed, differences)}\n{story(config, replayed)}\n</article>"
    )


def replay_mismatches(page: str) -> list[int]:
    """The example games of a report page whose replay by the reference engine failed or differs from the
    stored row (as :func:`_example_game` and :func:`replay_failed` mark them)."""
    return [int(game) for game in re.findall(r'data-game="(\d+)" data-replay-match="false"', page)]


def replay_check(game: int, seed: int, differences: Sequence[str]) -> str:
    """Whether an example game's replay equals the run's stored record of it, as a coloured line."""
    if differences:
        return (
            f'<p class="check bad">The replay does <strong>not</strong> match the stored record: '
            f"{e(', '.join(differences))} differ. The story below is the reference engine's game.</p>"
        )
    return (
        f'<p class="check ok">✓ Replayed from game index {game} and seed {seed}: the reference '
        "engine's record of this game equals the run's stored row, field for field.</p>"
    )


def replay_failed(anchor: str, title: str, game: int, err: Exception) -> str:
    """An example game the reference engine could not replay: the report is still written, and says why."""
    return (
        f'<article class="example" id="example-{anchor}" data-game="{game}" data-replay-match="false">'
        f"<h3>{e(title)}: game {game}</h3><p class=\"check bad\">This game could not be replayed: "
        f"{e(err)}</p></article>"
    )


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<header>
<h1>{heading}</h1>
<p class="subtitle">{subtitle}</p>
</header>
<main>
{contents}
{body}
</main>
<footer>{footer}</footer>
</body>
</html>
"""

CSS = """
:root { --ink: #1d2327; --muted: #5f6b73; --line: #dde3e8; --soft: #f4f7f9; --accent: #0072B2;
  --good: #00785a; --bad: #b84a00; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff;
  font: 15px/1.5 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
header, main, footer { max-width: 980px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 28px; }
h1 { font-size: 26px; margin: 0 0 2px; }
h2 { font-size: 20px; margin: 40px 0 10px; padding-top: 12px; border-top: 2px solid var(--line); }
h3 { font-size: 17px; margin: 26px 0 6px; }
h4 { font-size: 15px; margin: 20px 0 4px; }
.subtitle, .muted { color: var(--muted); }
nav ol { display: flex; flex-wrap: wrap; gap: 4px 18px; padding: 0; margin: 14px 0 0; list-style: none;
  font-size: 14px; }
nav a { color: var(--accent); text-decoration: none; }
nav a:hover { text-decoration: underline; }
code, pre { font-family: "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace; font-size: 13px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--soft); border: 1px solid var(--line);
  border-radius: 6px; padding: 10px 14px;
  overflow-x: auto; }
#headline { margin-top: 18px; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 18px; margin: 0 0 18px;
  padding: 14px 18px; background: var(--soft); border-radius: 8px; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; }
ul.plain { margin: 0; padding: 0; list-style: none; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: 14px; }
.metric-card { border: 1px solid var(--line); border-top: 4px solid var(--accent); border-radius: 8px;
  padding: 12px 16px; }
.metric-card .label { font-weight: 600; color: var(--muted); font-size: 13px; text-transform: uppercase;
  letter-spacing: .04em; }
.metric-card .big { font-size: 30px; font-weight: 700; margin: 2px 0; font-variant-numeric: tabular-nums; }
.metric-card .ci { color: var(--muted); font-size: 13px; }
.metric-card .verdict { margin: 8px 0 0; }
p.lead { font-size: 16px; }
figure { margin: 14px 0 18px; }
figure img { display: block; max-width: 100%; height: auto; }
figcaption { color: var(--muted); font-size: 13px; margin-top: 4px; max-width: 760px; }
table.data { border-collapse: collapse; margin: 8px 0 16px; font-size: 14px;
  font-variant-numeric: tabular-nums; }
table.data th, table.data td { padding: 4px 12px 4px 0; border-bottom: 1px solid var(--line);
  text-align: left; vertical-align: top; }
table.data th { font-weight: 600; color: var(--muted); font-size: 13px; border-bottom-color: #b9c3cb; }
table.data .num { text-align: right; padding-left: 12px; }
table.data td:first-child { white-space: nowrap; }
.pos { color: var(--good); font-weight: 600; }
.neg { color: var(--bad); font-weight: 600; }
.zero { color: var(--muted); }
.check { padding: 6px 10px; border-radius: 6px; display: inline-block; margin: 4px 0; }
.check.ok { background: #e3f4ee; color: #005c45; }
.check.bad { background: #fbe9e0; color: #8a3500; }
.example { border-left: 3px solid var(--line); padding-left: 16px; margin: 18px 0 30px; }
.round { margin-bottom: 8px; }
details summary { cursor: pointer; color: var(--accent); font-size: 14px; }
.outcome { font-weight: 600; }
dl.policies dt { margin-top: 6px; }
dl.policies dd { margin-left: 18px; color: var(--muted); }
footer { color: var(--muted); font-size: 12px; padding-top: 18px; padding-bottom: 28px;
  border-top: 1px solid var(--line); margin-top: 36px; }
@media print { nav { display: none; } details { display: block; } .example { break-inside: avoid-page; } }
"""
