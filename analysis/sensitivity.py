"""What moves the verdict: the one-step effects of ``sim.sensitivity`` as tornado figures and sentences.

Each headline metric gets a tornado figure, the largest effects first,
each drawn with its 95% interval; an effect that is not clear (its
interval at 1 − 0.05/m holds 0, m the changes tried for the metric:
Bonferroni) is inside the noise and drawn grey. Its sentence names the
printed number that moves the metric most (a clear effect) and by how
much, or says that no single printed number does. The same
body is the "What moves the verdict" section of every run's report and
the page ``lvsim sensitivity --out`` writes.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from analysis import figure_style
from analysis.report_html import e, figure, is_missing, num, page, section, table

TITLE = "What moves the verdict"
ANCHOR = "sensitivity"
# The effects a tornado shows: the largest, by the size of the change.
SHOWN = 12


def clear(effect: Mapping[str, Any]) -> bool:
    """An effect outside the noise: ``clear``, its interval away from 0 after a Bonferroni correction over the
    one-step changes tried for its metric (``sim.sensitivity.playing.is_clear``), not merely its 95% one."""
    return bool(effect.get("clear"))


def ranked(effects: Sequence[Mapping[str, Any]], metric: str, players: int) -> list[Mapping[str, Any]]:
    """The effects on ``metric`` at ``players``, largest change first (undefined ones left out)."""
    rows = [r for r in effects if r["metric"] == metric and r["players"] == players and not is_missing(r["delta"])]
    return sorted(rows, key=lambda r: -abs(r["delta"]))


def printed(value: Any) -> str:
    """A printed value as the rules spell it: a number (a true minus sign), a word, a flag."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return num(value, 0) if float(value).is_integer() else num(value, 2)
    return str(value)


def step_text(effect: Mapping[str, Any]) -> str:
    """``token 3, face 2 from −3 to −2``."""
    return f"{effect['label']} from {printed(effect['from'])} to {printed(effect['to'])}"


def amount(metric, value: float | None, sign: bool = True) -> str:
    """A change of ``metric`` (a ``sim.metrics.Metric``) as a number in its units: percentage points for a
    rate or an advantage, the metric's own units for a mean."""
    if is_missing(value):
        return "n/a"
    if metric.kind in ("rate", "advantage"):
        return num(100 * value, 1, sign)
    return num(value, 2, sign)


def unit(metric) -> str:
    return " points" if metric.kind in ("rate", "advantage") else ""


def sentence(effects: Sequence[Mapping[str, Any]], metric, players: int) -> str:
    """The printed number that moves ``metric`` most at ``players``, or that no single one does."""
    rows = ranked(effects, metric.name, players)
    games = rows[0]["games"] if rows else 0
    moving = [r for r in rows if clear(r)]
    tried = len(rows)
    if not moving:
        return (f"No single printed number moves the {metric.label} beyond the noise of {games:,} games: "
                f"none of the {tried} one-step changes is clear once corrected for trying {tried} (Bonferroni).")
    top = moving[0]
    low, high = top["delta_ci"]
    others = len(moving) - 1
    more = f"; {others} other one-step change{'s' if others != 1 else ''} move{'s' if others == 1 else ''} it " \
           "clearly too" if others else "; no other one-step change moves it clearly"
    more += f" (clear: beyond the noise after a Bonferroni correction over the {tried} changes tried)"
    return (f"The {metric.label} moves most with {step_text(top)}: {amount(metric, top['delta'])}{unit(metric)} "
            f"(95% interval {amount(metric, low)} to {amount(metric, high)}){more}.")


def tornado(effects: Sequence[Mapping[str, Any]], metric, players: int, shown: int = SHOWN) -> Figure:
    """One metric's effects as horizontal bars, the largest on top, 95% intervals drawn, the noise grey."""
    rows = ranked(effects, metric.name, players)[:shown]
    scale = metric.scale
    height = 0.9 + 0.24 * max(len(rows), 1)
    with figure_style.styled():
        fig = Figure(figsize=(figure_style.WIDTH, height), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        for y, r in enumerate(reversed(rows)):
            colour = (figure_style.GAIN if r["delta"] > 0 else figure_style.LOSS) if clear(r) \
                else figure_style.NEUTRAL
            ax.barh(y, scale * r["delta"], color=colour, height=0.7, zorder=2)
            if r["delta_ci"] and None not in r["delta_ci"]:
                lo, hi = (scale * v for v in r["delta_ci"])
                ax.plot([lo, hi], [y, y], color="#222222", linewidth=1.1, zorder=3)
        ax.set_yticks(range(len(rows)), [step_text(r) for r in reversed(rows)], fontsize=7)
        ax.axvline(0, color=figure_style.FAIR, linewidth=1, zorder=1)
        unit = " (percentage points)" if metric.kind in ("rate", "advantage") else ""
        ax.set_xlabel(f"change in {metric.label}{unit}", fontsize=8)
        ax.set_title(f"{metric.label[:1].upper()}{metric.label[1:]}, {players} players", fontsize=9)
        if not rows:
            ax.text(0.5, 0.5, "no one-step change of these rules", ha="center", va="center",
                    transform=ax.transAxes, fontsize=8)
    return fig


def body(effects: Sequence[Mapping[str, Any]], game, players: Sequence[int]) -> str:
    """Each count's sentences, then a tornado per headline metric, then the strongest effects as a table."""
    parts = []
    for n in players:
        here = [r for r in effects if r["players"] == n]
        if not here:
            continue
        games = here[0]["games"]
        deviations = len({(r["knob"], json.dumps(r["to"])) for r in here})
        inert = sorted({r["label"] for r in here if r["inert"]})
        heading = f"<h3>{n} players</h3>" if len(players) > 1 else ""
        note = (f"<p>{deviations} one-step changes of the printed rules, each played on the same {games:,} deals "
                "with the same players as the rules as printed; each bar is the change of the metric (95% "
                "interval, a delete-a-block jackknife over 10 blocks of games); a grey bar is inside the noise: not clear "
                f"once corrected for the {deviations} changes tried (its interval at 1 − 0.05/{deviations} holds 0, "
                "Bonferroni).")
        if inert:
            note += (f" Inert under these rules, so exactly zero and not played: {e(', '.join(inert))}.")
        parts.append(heading + note + "</p>")
        sentences = []
        for metric in game.headline_metrics.values():
            text = sentence(here, metric, n)
            sentences.append(f'<li data-moved-metric="{e(metric.name)}" data-players="{n}">{e(text)}</li>')
        parts.append(f'<ul class="sensitivity">{"".join(sentences)}</ul>')
        for metric in game.headline_metrics.values():
            parts.append(figure(tornado(here, metric, n),
                                f"Tornado of the one-step changes' effects on the {metric.label} at {n} players",
                                f"The {metric.label}: the {min(SHOWN, deviations)} largest one-step changes, "
                                "95% intervals; grey inside the noise."))
    return "\n".join(parts)


def effects_table(effects: Sequence[Mapping[str, Any]], game, players: int, shown: int = SHOWN) -> str:
    """The clearest effects of every headline metric at ``players``, one row each."""
    rows = []
    for metric in game.headline_metrics.values():
        for r in [r for r in ranked(effects, metric.name, players) if clear(r)][:shown]:
            rows.append([e(metric.label), e(step_text(r)), amount(metric, r["delta"]) + unit(metric),
                         f"{amount(metric, r['delta_ci'][0])} to {amount(metric, r['delta_ci'][1])}"])
    if not rows:
        return ""
    return table(["metric", "one-step change", "effect", "95% interval"], rows, numeric_from=2)


def report_section(results) -> str:
    """The run report's "What moves the verdict", from the summary's ``sensitivity``."""
    found = results.summary.get("sensitivity")
    if not isinstance(found, dict) or not found.get("effects"):
        return section(ANCHOR, TITLE, "<p>This run skipped the sensitivity (<code>run.sensitivity_games = 0</code>"
                                      "). Leave it at <code>\"auto\"</code>, or run <code>lvsim sensitivity "
                                      "CONFIG</code> for the full study.</p>")
    game = results.config.game_spec
    players = found["players"]
    intro = (f"<p>Which printed number of the rules to change: every one is moved one step and played on the run's "
             f"seed, deals and players ({found['games']:,} games each, a small share of the run's; "
             "<code>lvsim sensitivity</code> plays the full study, at several player counts).")
    left = found.get("swaps_left") or {}
    if left:
        swaps = "; ".join(f"{e(label)}: {n} swaps" for label, n in left.items())
        intro += (f" Sticker swaps are not played here ({swaps}): see <code>lvsim sensitivity "
                  "CONFIG</code>, which plays them.")
    intro += "</p>"
    return section(ANCHOR, TITLE, intro + body(found["effects"], game, players))


def study_page(result: Mapping[str, Any], config) -> str:
    """The page ``lvsim sensitivity --out`` writes: the study's sentences, tornadoes and tables."""
    game = config.game_spec
    players = result["players"]
    parts = [body(result["effects"], game, players)]
    for n in players:
        tab = effects_table(result["effects"], game, n)
        if tab:
            parts.append((f"<h3>Clear effects at {n} players</h3>" if len(players) > 1 else "<h3>Clear effects</h3>")
                         + tab)
    seats = ", ".join(sorted({s for seat in result["seats"] for s in seat}))
    subtitle = (f"{game.title}, {', '.join(map(str, players))} players, {seats}; {result['games']:,} games per "
                f"rule set, seed {result['seed']}")
    with_sections = [section(ANCHOR, TITLE, "\n".join(parts))]
    return page(f"{game.title} sensitivity: {config.name}", subtitle, [(ANCHOR, TITLE)], with_sections,
                f"<footer><p>lvsim sensitivity {e(config.name)}</p></footer>")


def study_text(result: Mapping[str, Any], game) -> str:
    """The study as ``lvsim sensitivity`` prints it: per player count, one sentence per headline metric."""
    lines = [f"{game.title}: one-step changes of the printed rules, {result['games']:,} games each on the same deals, "
             f"seed {result['seed']} (95% intervals)"]
    for n in result["players"]:
        here = [r for r in result["effects"] if r["players"] == n]
        lines += ["", f"{n} players"]
        lines += [f"- {sentence(here, metric, n)}" for metric in game.headline_metrics.values()]
    return "\n".join(lines)
