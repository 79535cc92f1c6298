"""The tune report: the recommended change in a sentence, the finalists against the base rules, the search.

One self-contained HTML page on the shared report shell
(``analysis/report_html.py``) and figure style: the recommendation and
its per-target verdicts, a table of the finalists and the base rules with
95% intervals on the fresh seed, how the search converged, the trade-off
between the first two targets over every candidate tried, and a link to
the full balance report of the recommended rules.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import pandas as pd

from analysis import figure_style
from analysis import report_html as H
from sim.game import Game

VERDICT_CLASS = {"met": "pos", "missed": "neg", "undecided": "zero"}

EXTRA_CSS = """
.table-scroll { overflow-x: auto; max-width: 100%; }
.verdict-met { color: var(--good); font-weight: 600; }
.verdict-missed { color: var(--bad); font-weight: 600; }
.verdict-undecided { color: var(--muted); font-weight: 600; }
"""


def tune_report_html(summary: Mapping[str, Any], candidates: pd.DataFrame, *, game: Game) -> str:
    """The page of a finished tune: ``summary`` as ``tune.json`` holds it, ``candidates`` as ``candidates.parquet``."""
    import matplotlib

    matplotlib.use("Agg")
    best = summary["recommendation"]
    sections = [("recommendation", "Recommendation"), ("finalists", "Finalists against the base rules"),
                ("convergence", "How the search converged"), ("trade-off", "Trade-off between targets"),
                ("tune", "The tune")]
    body = [
        H.section("recommendation", "Recommendation", _recommendation(summary, best)),
        H.section("finalists", "Finalists against the base rules", _finalists(summary)),
        H.section("convergence", "How the search converged", _convergence(summary)),
        H.section("trade-off", "Trade-off between targets", _trade_off(summary, candidates)),
        H.section("tune", "The tune", _definition(summary)),
    ]
    subtitle = (f"{game.title} · {summary['budget']:,} candidates tried at {summary['games']:,} games each · "
                f"judged at {', '.join(map(str, summary['players']))} players with "
                f"{', '.join(summary['policies'])} · seed {summary['seed']}")
    footer = H.e(f"lvsim tune · final replay on seed {summary['final_seed']}")
    return H.page(f"Tune {summary['name']}", subtitle, sections, body, footer, extra_css=EXTRA_CSS)


def _verdict(v: str) -> str:
    return f'<span class="verdict-{H.e(v)}">{H.e(v)}</span>'


def _recommendation(summary: Mapping[str, Any], best: Mapping[str, Any]) -> str:
    sentence = best["sentence"]
    verdicts = best["verdict"]
    all_met = set(verdicts.values()) == {"met"}
    lead = (f'<p class="lead">{H.metric("recommendation", best["rules"], H.e(sentence[0].upper() + sentence[1:]))}.'
            + (" Every target is met on a fresh seed." if all_met else
               " No candidate tried meets every target on a fresh seed: this is the closest one.") + "</p>")
    rows = [[H.e(t["metric"]), H.e(t["spelled"]), _verdict(verdicts[t["metric"]])] for t in summary["targets"]]
    links = [f'<a href="best.toml">best.toml</a> holds these rules as a config for <code>lvsim run</code>.']
    report = summary.get("report")
    if report:
        links.append(f'<a href="{H.e(report["report"])}">The full balance report of the recommended rules</a> '
                     f'({report["games"]:,} games at the base config\'s player count and seats).')
    return (lead + H.table(["target", "wanted", "verdict (95% interval, every setting)"], rows, numeric_from=9)
            + "<p>" + " ".join(links) + "</p>")


def _cell(row: list, metric: str, verdict: str) -> str:
    value, lo, hi = row
    if value is None:
        return "n/a"
    text = _fmt(value)
    if lo is not None and hi is not None:
        text += f' <span class="muted">[{_fmt(lo)}, {_fmt(hi)}]</span>'
    return f'<span class="{VERDICT_CLASS.get(verdict, "")}" title="{H.e(verdict)}">{text}</span>'


def _fmt(x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:.3f}".replace("-", H.MINUS) if abs(x) < 10 else f"{x:,.1f}"


def _finalists(summary: Mapping[str, Any]) -> str:
    entries = [("recommended", summary["recommendation"]), *(("runner-up", e) for e in summary["runners_up"])]
    if all(e["values"] != summary["base_rules"]["values"] for _, e in entries):
        entries.append(("base rules", summary["base_rules"]))
    settings = list(summary["base_rules"]["metrics"])
    header = ["candidate", "change", "games"]
    columns = []
    for t in summary["targets"]:
        for s in settings:
            header.append(f'{H.e(t["metric"])}<br><span class="muted">{H.e(s)}</span>')
            columns.append((t["metric"], s))
    rows = []
    for label, e in entries:
        if e["values"] == summary["base_rules"]["values"] and label != "base rules":
            label += " (base rules)"
        cells = [H.e(f"{label} #{e['trial']}" if e["trial"] >= 0 else label),
                 H.e(e["sentence"] if e["changes"] else "none"), f"{e['games']:,}"]
        cells += [_cell(e["metrics"][s][m], m, e["verdicts"][m][s]) for m, s in columns]
        rows.append(cells)
    note = (f"<p>Every candidate here was played again on a fresh seed ({summary['final_seed']}), with more games "
            "until each target's 95% interval was inside or outside what is wanted, or the most games allowed: "
            "a candidate that was only lucky on the search's deals does not win. Green: the interval meets the "
            "target; orange: it misses it; grey: undecided.</p>")
    return note + f'<div class="table-scroll">{H.table(header, rows, numeric_from=2)}</div>'


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
    n_met = sum(met)
    text = (f"<p>{len(points):,} candidates were tried ({summary['candidates_tried']:,} distinct); {n_met:,} met "
            "every target on the search's deals (point estimates). The sampler is Optuna's TPE, seeded; the first "
            "candidate is the base rules when they lie in the searched domain. Then the best candidates meeting "
            "every target were simplified, each changed value put back towards the base's while the targets "
            f"stayed met: {summary.get('simplified', 0):,} more candidates.</p>")
    return text + H.figure(fig, "Shortfall of each candidate tried and the least so far",
                           "Each dot is a candidate at its first number of games; the line is the least total "
                           "shortfall found so far.")


def _trade_off(summary: Mapping[str, Any], candidates: pd.DataFrame) -> str:
    targets = summary["targets"]
    search = candidates[candidates["stage"] == "search"]
    if search.empty:
        return "<p>No candidate was played.</p>"
    setting = search[["players", "policy"]].iloc[0]
    here = search[(search["players"] == setting["players"]) & (search["policy"] == setting["policy"])]
    x_metric = targets[0]["metric"]
    y_metric = targets[1]["metric"] if len(targets) > 1 else "changed_values"
    best_trial = summary["recommendation"]["trial"]
    with figure_style.styled():
        fig, (ax,) = figure_style.figure(3.6)
        for t, axis in ((targets[0], "x"), (targets[1] if len(targets) > 1 else None, "y")):
            if t is None:
                continue
            low, high = t["low"], t["high"]
            span = ax.axvspan if axis == "x" else ax.axhspan
            if low is not None and high is not None:
                span(low, high, color=figure_style.GAIN, alpha=0.12, lw=0)
            elif low is not None:
                (ax.axvline if axis == "x" else ax.axhline)(low, color=figure_style.GAIN, lw=1, ls="--")
            elif high is not None:
                (ax.axvline if axis == "x" else ax.axhline)(high, color=figure_style.GAIN, lw=1, ls="--")
        ax.scatter(here[x_metric], here[y_metric], s=14, color=figure_style.MAIN, alpha=0.7, label="candidate")
        chosen = here[here["trial"] == best_trial]
        ax.scatter(chosen[x_metric], chosen[y_metric], s=60, facecolor="none", edgecolor=figure_style.LOSS,
                   linewidth=1.6, label="recommended", zorder=3)
        base = here[here["changed_values"] == 0]
        ax.scatter(base[x_metric], base[y_metric], s=40, marker="s", color="#000000", label="base rules", zorder=3)
        ax.set_xlabel(x_metric)
        ax.set_ylabel(y_metric if y_metric != "changed_values" else "printed values changed")
        ax.set_title(f"Every candidate at {int(setting['players'])} players, {setting['policy']}")
        ax.legend(loc="best")
    caption = ("The shaded band (or dashed line) is what the target wants. Points are the search's estimates on "
               "its own deals, at the first number of games.")
    return H.figure(fig, f"{x_metric} against {y_metric} over the candidates", caption)


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
