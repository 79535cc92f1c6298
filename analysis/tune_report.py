"""The tune report: the recommended change in a sentence, the finalists against the base rules, the search.

One self-contained HTML page on the shared report shell
(``analysis/report_html.py``), in the same words the terminal and
``tune.json`` use. The finalists' changes stand in a narrow table, then one
figure and one table per target, so that nothing needs scrolling sideways.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import pandas as pd

from analysis import figure_style
from analysis import report_html as H
from sim.game import Game
from sim.tune.text import keeps_base, tried_text
from sim.wording import value_words as spell

VERDICT_CLASS = {"met": "pos", "missed": "neg", "undecided": "zero"}

EXTRA_CSS = """
.table-scroll { overflow-x: auto; max-width: 100%; }
table.data td.change { min-width: 16em; }
table.data td.change span { display: block; white-space: nowrap; }
table.data td .ci { display: block; white-space: nowrap; }
.verdict-met { color: var(--good); font-weight: 600; }
.verdict-missed { color: var(--bad); font-weight: 600; }
.verdict-undecided { color: var(--muted); font-weight: 600; }
"""


def tune_report_html(summary: Mapping[str, Any], candidates: pd.DataFrame, *, game: Game) -> str:
    """The page of a finished tune: ``summary`` as ``tune.json`` holds it, ``candidates`` as ``candidates.parquet``."""
    import matplotlib

    matplotlib.use("Agg")
    sections = [
        ("recommendation", "Recommendation" if _met(summary) else "Closest candidate", lambda: _recommendation(summary)),
        ("side-effects", "Side effects and rule holes", lambda: _side_effects(summary)),
        ("finalists", "Finalists against the base rules", lambda: _finalists(summary, game)),
        ("convergence", "How the search converged", lambda: _convergence(summary)),
        ("trade-off", "Trade-off between targets", lambda: _trade_off(summary, candidates)),
        ("tune", "The tune", lambda: _definition(summary)),
    ]
    # Each section built through the guard: one that fails says why in its place, and the page is written.
    body = [H.guarded_section(key, title, build) for key, title, build in sections]
    subtitle = (f"{game.title} · {tried_text(summary)} · judged at {', '.join(map(str, summary['players']))} "
                f"players with {', '.join(summary['policies'])} · seed {summary['seed']}")
    footer = H.e(f"lvsim tune · final replay on seed {summary['final_seed']}")
    return H.page(f"Tune {summary['name']}", subtitle, [(key, title) for key, title, _ in sections], body, footer,
                  extra_css=EXTRA_CSS)


def _verdict(v: str) -> str:
    return f'<span class="verdict-{H.e(v)}">{H.e(v)}</span>'


def _label(target: Mapping[str, Any]) -> str:
    return target.get("label") or target["metric"]


def _met(summary: Mapping[str, Any]) -> bool:
    return summary.get("verdict", {}).get("all_met", True)


def _best_word(summary: Mapping[str, Any]) -> str:
    """"Recommended" only when it meets every target on the fresh seed; else it is only the closest."""
    return "recommended" if _met(summary) else "closest"


def _recommendation(summary: Mapping[str, Any]) -> str:
    best = summary["recommendation"]
    verdicts = best["verdict"]
    before, sentence, after = summary["verdict"]["headline_parts"]
    lead = (f'<p class="lead">{H.e(before)}{H.metric("recommendation", best["rules"], H.e(sentence))}'
            f'{H.e(after)}</p>')
    rows = [[H.e(_label(t)), H.e(t["spelled"]), _verdict(verdicts[t["metric"]])] for t in summary["targets"]]
    apart = summary.get("policies_apart", {}).get("sentence")
    links = ['<a href="best.toml">best.toml</a> holds these rules as a config for <code>lvsim run</code>.']
    report = summary.get("report")
    if report:
        items = "".join(f'<li><a href="{H.e(r["report"])}">{H.e(r["setting"])}</a></li>' for r in report["settings"])
        links.append(f"The full balance report of these rules at every tuned player count and policy "
                     f"({report['games']:,} games each, with its rule holes):</p><ul>{items}</ul><p>")
    return (lead + (f"<p><strong>{H.e(apart)}</strong></p>" if apart else "")
            + H.table(["metric", "wanted", "verdict (95% interval, every setting)"], rows, numeric_from=9)
            + "<p>" + " ".join(links) + "</p>")


def _side_effects(summary: Mapping[str, Any]) -> str:
    effects = summary.get("side_effects", {})
    text = f"<p>{H.e(effects.get('sentence', ''))}</p>" if effects.get("sentence") else ""
    holes = summary.get("rule_holes") or []
    if not holes:
        return text or "<p>The game names no rule holes to watch.</p>"
    metrics = list(dict.fromkeys(h["metric"] for h in holes))
    settings = list(dict.fromkeys(h["setting"] for h in holes))
    by = {(h["metric"], h["setting"]): h for h in holes}
    kept = keeps_base(summary)  # one evaluation, shown once
    columns = (("value", "base rules"),) if kept else (("value", "these rules"), ("base", "base rules"))
    header = ["setting"] + [f'{H.e(m)}<br><span class="muted">{which}</span>' for m in metrics for _, which in columns]
    rows = [[H.e(s)] + [_rate(by[(m, s)][key]) for m in metrics for key, _ in columns] for s in settings]
    meanings = "; ".join(f"<code>{H.e(h['metric'])}</code>: {H.e(h['meaning'])}"
                         for h in {h["metric"]: h for h in holes}.values())
    games = ""
    if "games" in holes[0]:
        mine, base = holes[0]["games"], holes[0]["base_games"]
        games = (f", on {mine:,} games" if kept else f", on {mine:,} games each" if mine == base
                 else f", on {mine:,} and {base:,} games")
    which = (f"the base rules (the {_best_word(summary)} rules)" if kept
             else f"the {_best_word(summary)} and with the base rules")
    note = (f"<p>Every rule hole of the game on the fresh seed, with {which}{games} (95% Wilson intervals counting "
            f"each game once). {meanings}.</p>")
    return text + note + f'<div class="table-scroll">{H.table(header, rows, numeric_from=1)}</div>'


def _rate(measured) -> str:
    x, lo, hi = measured
    if x is None:
        return "n/a"
    ci = "" if lo is None or hi is None else f' <span class="muted ci">{H.e(H.ci_pct(lo, hi))}</span>'
    return f"{H.e(H.pct(x))}{ci}"


def _cell(row: list, verdict: str, style: str = "", rests: Mapping[str, Any] | None = None) -> str:
    """A target's value at a setting, written as a run's report writes its metric (``style``), with its 95%
    interval and the games it rests on."""
    value, lo, hi = row
    if H.is_missing(value):
        return "n/a"
    text = H.e(_fmt(value, style))
    if not (H.is_missing(lo) or H.is_missing(hi)):
        text += f' <span class="muted ci">{H.e(_fmt_ci(lo, hi, style))}</span>'
    if rests is not None:
        on = "after" if rests["until_decided"] else "on"
        text += f' <span class="muted ci">{on} {rests["games"]:,} {H.e(rests["unit"])}</span>'
    return f'<span class="{VERDICT_CLASS.get(verdict, "")}" title="{H.e(verdict)}">{text}</span>'


def _fmt_ci(lo: float, hi: float, style: str = "") -> str:
    """An interval as a run's report writes it; points without their unit, which the value beside it says."""
    if style == "pts":
        return f"[{H.num(100 * lo, 1, sign=True)}, {H.num(100 * hi, 1, sign=True)}]"
    return f"[{_fmt(lo, style)}, {_fmt(hi, style)}]"


def _fmt(x: float, style: str = "") -> str:
    if style in ("pct", "pts", "num"):
        return H.strength_value(x, style)
    return f"{x:.3f}".replace("-", H.MINUS) if abs(x) < 10 else f"{x:,.1f}"


def _entries(summary: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    entries = [(_best_word(summary), summary["recommendation"]), *(("runner-up", e) for e in summary["runners_up"])]
    if all(e["values"] != summary["base_rules"]["values"] for _, e in entries):
        entries.append(("base rules", summary["base_rules"]))
    out = []
    for label, e in entries:
        if e["values"] == summary["base_rules"]["values"] and label != "base rules":
            label += " (base rules)"
        out.append((f"{label} #{e['trial']}" if e["trial"] >= 0 else label, e))
    return out


def _change_cell(e: Mapping[str, Any], game: Game) -> str:
    """Each changed value on a line of its own, never broken inside: ``token 1: [1, −1] → [2, −4]``."""
    if not e["changes"]:
        return "none"
    lines = [f"{game.knob_label('rules.' + c['what'])}: {spell(c['from'])} \u2192 {spell(c['to'])}"
             for c in e["changes"]]
    return "".join(f"<span>{H.e(line)}</span>" for line in lines)


def _finalists(summary: Mapping[str, Any], game: Game) -> str:
    entries = _entries(summary)
    targets = summary["targets"]
    header = ["candidate", "change", "replay games", *(H.e(_label(t)) for t in targets)]
    rows = [[H.e(label), _change_cell(e, game), f"{e['games']:,}", *(_verdict(e["verdict"][t["metric"]]) for t in targets)]
            for label, e in entries]
    table = _mark_change_cells(H.table(header, rows, numeric_from=2))
    note = (f"<p>Every candidate here was played again on a fresh seed ({summary['final_seed']}), with more games "
            "until each target's 95% interval was inside or outside what is wanted, or the most games allowed: "
            "a candidate that was only lucky on the search's deals does not win (<em>replay games</em>: those of "
            "that replay, per setting). Then, per target, its value at every setting with 95% intervals and the "
            "games each rests on (a target played until decided, as <code>lvsim confirm</code> does, on the games "
            "that took): green, the interval meets the target; orange, it misses it; grey, undecided.</p>")
    parts = [note, f'<div class="table-scroll">{table}</div>']
    settings = list(summary["base_rules"]["metrics"])
    for t in targets:
        metric = t["metric"]
        parts.append(f"<h3>{H.e(_label(t))} <span class=\"muted\">wanted {H.e(t['spelled'])}</span></h3>")
        parts.append(_target_figure(t, entries, settings))
        header = ["candidate", *(H.e(s) for s in settings)]
        rows = [[H.e(label), *(_cell(e["metrics"][s][metric], e["verdicts"][metric][s], t.get("style", ""),
                                     e.get("rests_on", {}).get(s, {}).get(metric)) for s in settings)]
                for label, e in entries]
        parts.append(f'<div class="table-scroll">{H.table(header, rows, numeric_from=1)}</div>')
    return "".join(parts)


def _mark_change_cells(table: str) -> str:
    """The second cell of each body row is the change: give it the class that keeps each change on one line."""
    import re

    return re.sub(r'(<tr><td class="">.*?</td>)<td class="">', r'\1<td class="change">', table)


def _target_figure(target: Mapping[str, Any], entries, settings: list[str]) -> str:
    """One target over the finalists: a dot and 95% interval per setting and candidate, the wanted band shaded."""
    return H.figure(lambda: _target_plot(target, entries, settings),
                    f"{_label(target)} of each finalist at every setting with 95% intervals",
                    "Each dot is a finalist at one player count and policy, with its 95% interval; the shaded band "
                    "(or dashed line) is what the target wants.")


def _target_plot(target: Mapping[str, Any], entries, settings: list[str]):
    """The figure of :func:`_target_figure`. Each interval is drawn from its low to its high end as given, and
    the estimate as a dot: an estimate outside its interval (a bias-corrected one may lie there), a
    zero-width interval or a missing end or estimate is drawn as it is, never refused."""
    metric = target["metric"]
    with figure_style.styled():
        fig, (ax,) = figure_style.figure(0.6 + 0.3 * len(entries) * max(1, len(settings)) ** 0.5 + 0.6)
        _wanted(ax, target, "x", labelled=True)
        n = len(settings)
        step = 0.7 / max(1, n)
        for i, s in enumerate(settings):
            colour = figure_style.SEQUENCE[i % len(figure_style.SEQUENCE)]
            ys = [k + (i - (n - 1) / 2) * step for k in range(len(entries))]
            measured = [(list(e["metrics"].get(s, {}).get(metric) or []) + [None] * 3)[:3] for _, e in entries]
            xs, los, his = (list(column) for column in zip(*measured))
            figure_style.intervals(ax, ys, los, his, horizontal=True, color=colour, capsize=2)
            ys, xs = figure_style.numbers(ys), figure_style.numbers(xs)
            shown = np.isfinite(xs)
            ax.plot(xs[shown], ys[shown], "o", ms=4, color=colour, label=s)
        ax.set_yticks(range(len(entries)), [label for label, _ in entries])
        ax.set_ylim(len(entries) - 0.5, -0.5)  # the first entry on top
        ax.set_xlabel(_label(target))
        ax.set_title(f"{_label(target)}: finalists on the fresh seed")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    return fig


def _finite_or_none(x) -> float | None:
    return float(x) if isinstance(x, (int, float)) and math.isfinite(x) else None


def _wanted(ax, target: Mapping[str, Any], axis: str, labelled: bool = False) -> None:
    """What ``target`` wants along ``axis`` ("x" or "y"): its range shaded, or its bound dashed."""
    low, high = _finite_or_none(target.get("low")), _finite_or_none(target.get("high"))
    if low is not None and high is not None:
        (ax.axvspan if axis == "x" else ax.axhspan)(low, high, color=figure_style.GAIN, alpha=0.12, lw=0,
                                                    label="wanted" if labelled else None)
        return
    for bound in (low, high):
        if bound is not None:
            (ax.axvline if axis == "x" else ax.axhline)(bound, color=figure_style.GAIN, lw=1, ls="--",
                                                        label="wanted bound" if labelled else None)


def _convergence(summary: Mapping[str, Any]) -> str:
    points = summary["convergence"]
    if not points:
        return "<p>No candidate was played.</p>"
    trials = [p["trial"] for p in points]
    shortfall = [p["shortfall"] if p["shortfall"] is not None else math.nan for p in points]
    best, running = [], math.inf
    for s in shortfall:
        running = min(running, s) if not math.isnan(s) else running
        best.append(running)
    met = [p["met"] for p in points]
    n_met = sum(met)
    text = (f"<p>{len(points):,} candidates were tried ({summary['candidates_tried']:,} distinct); {n_met:,} met "
            "every target on the search's deals (point estimates). The sampler is Optuna's TPE, seeded; the first "
            "candidate is the base rules when they lie in the searched domain. Then the best candidates meeting "
            "every target were simplified, each changed value put back towards the base's while the targets "
            f"stayed met: {summary.get('simplified', 0):,} more candidates.</p>")
    return text + H.figure(lambda: _convergence_plot(trials, shortfall, best, met),
                           "Shortfall of each candidate tried and the least so far",
                           "Each dot is a candidate at its first number of games; the line is the least total "
                           "shortfall found so far.")


def _convergence_plot(trials, shortfall, best, met):
    with figure_style.styled():
        fig, (ax,) = figure_style.figure(3.0)
        ax.scatter([t for t, m in zip(trials, met) if not m], [s for s, m in zip(shortfall, met) if not m], s=12,
                   color=figure_style.NEUTRAL, label="candidate (misses a target)")
        ax.scatter([t for t, m in zip(trials, met) if m], [0 for m in met if m], s=16,
                   color=figure_style.GAIN, label="candidate meeting every target", zorder=3)
        ax.step(trials, best, where="post", color=figure_style.MAIN, label="least shortfall so far")
        ax.set_xlabel("candidate (in the order tried)")
        ax.set_ylabel("total shortfall (in target ranges)")
        ax.set_title("Shortfall from the targets, candidate by candidate")
        ax.legend(loc="upper right")
    return fig


def _measured(frame: pd.DataFrame, target: Mapping[str, Any] | None, players: int):
    """A target's values over the rows of one player count, as the target judges them."""
    if target is None:
        return frame["changed_values"]
    values = frame[target.get("column") or target["metric"]]
    relative = target.get("relative")
    if relative == "above_fair":
        return values - 1 / players
    if relative == "times_fair":
        return values * players
    return values


def _trade_off(summary: Mapping[str, Any], candidates: pd.DataFrame) -> str:
    targets = summary["targets"]
    search = candidates[candidates["stage"] == "search"]
    if search.empty:
        return "<p>No candidate was played.</p>"
    setting = search[["players", "policy"]].iloc[0]
    players = int(setting["players"])
    here = search[(search["players"] == setting["players"]) & (search["policy"] == setting["policy"])]
    x_target, y_target = targets[0], (targets[1] if len(targets) > 1 else None)
    x_label = _label(x_target)
    y_label = _label(y_target) if y_target is not None else "printed values changed"
    caption = ("The shaded band (or dashed line) is what the target wants. Points are the search's estimates on "
               "its own deals, at the first number of games.")
    return H.figure(lambda: _trade_off_plot(summary, here, players, setting, (x_target, x_label), (y_target, y_label)),
                    f"{x_label} against {y_label} over the candidates", caption)


def _trade_off_plot(summary, here, players, setting, x, y):
    (x_target, x_label), (y_target, y_label) = x, y
    with figure_style.styled():
        fig, (ax,) = figure_style.figure(3.6)
        _wanted(ax, x_target, "x")
        if y_target is not None:
            _wanted(ax, y_target, "y")

        def points(frame):
            return _measured(frame, x_target, players), _measured(frame, y_target, players)

        ax.scatter(*points(here), s=14, color=figure_style.MAIN, alpha=0.7, label="candidate")
        ax.scatter(*points(here[here["trial"] == summary["recommendation"]["trial"]]), s=60, facecolor="none",
                   edgecolor=figure_style.LOSS, linewidth=1.6, label=_best_word(summary), zorder=3)
        ax.scatter(*points(here[here["changed_values"] == 0]), s=40, marker="s", color="#000000",
                   label="base rules", zorder=3)
        ax.set_xlabel(x_label)
        ax.set_ylabel(y_label)
        ax.set_title(f"Every candidate at {players} players, {setting['policy']}")
        ax.legend(loc="best")
    return fig


def _definition(summary: Mapping[str, Any]) -> str:
    rows = []
    for d in summary["search"]:
        domain = (", ".join(map(str, d["choices"])) if d["choices"] is not None else f"{d['low']} to {d['high']}")
        rows.append([f"<code>{H.e(d['name'])}</code>", H.e(str(d["base"])), H.e(domain)])
    search = H.table(["searched value", "base", "domain"], rows, numeric_from=9)
    facts = (f"<p>Base config <code>{H.e(summary['base'])}</code>; {summary['budget']:,} candidates at "
             f"{summary['games']:,} games per player count and policy on seed {summary['seed']} (the same deals for "
             f"every candidate); the best third played again with three times the games, on the same deals, until "
             f"the finalists remained; finalists replayed on seed {summary['final_seed']} with up to "
             f"{summary['max_games']:,} games. Candidates meeting every target rank by the fewest printed values "
             "changed, then by how much; the others by total shortfall, each target's scaled by its range.</p>")
    return facts + search
