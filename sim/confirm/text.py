"""The confirmation as ``lvsim confirm`` prints it: every target's verdict, the stronger tables, one sentence."""

from __future__ import annotations

from typing import Any, Mapping

from analysis.sequential import FIRST_LOOK
from sim.confirm.values import WORST_SEAT_NAMES
from sim.estimates.compiling import seconds_text


def _style(game, metric: str) -> str:
    if metric in WORST_SEAT_NAMES:
        return "pts"
    return game.metric[metric].style if metric in game.metric else "num"


# Each style's scale, its value, and each end of its interval.
_SHOWN = {"pct": (100, "{:.2f}%", "{:.2f}%"), "pts": (100, "{:+.2f} pp", "{:+.2f}"), "num": (1, "{:.3f}", "{:.3f}")}


def value(style: str, x: float | None) -> str:
    scale, shown, _ = _SHOWN.get(style, _SHOWN["num"])
    return "n/a" if x is None else shown.format(scale * x)


def interval(style: str, lo: float | None, hi: float | None) -> str:
    if lo is None or hi is None:
        return "[not yet: too few games]"
    scale, _, end = _SHOWN.get(style, _SHOWN["num"])
    return f"[{end.format(scale * lo)}, {end.format(scale * hi)}]"


def _diff_style(style: str) -> str:
    return "pts" if style in ("pct", "pts") else "num"


def _more(n: int | None, games: int) -> str:
    if n is not None:
        return f"about {n:,} more games would likely decide it"
    if games < FIRST_LOOK:
        return f"too few games to judge yet (the first look is at {FIRST_LOOK:,})"
    return "no number of games would likely decide it: the estimate is on the line"


def confirm_text(result: Mapping[str, Any], game) -> str:
    """The whole confirmation as text."""
    conf = f"{100 * result['confidence']:.0f}%"
    lines = [f"Confirming {result['name']} ({game.title}) on {result['rules']}, seed {result['seed']}: "
             f"{conf} confidence over every target and setting together, valid however long each plays"]
    by_metric: dict[str, list] = {}
    for t in result["targets"]:
        by_metric.setdefault(f"{t['label']} {t['wanted']}", []).append(t)
    for heading, entries in by_metric.items():
        lines += ["", heading]
        for t in entries:
            style = _style(game, t["metric"])
            text = (f"  {t['setting']:<22} {t['verdict']:<9} {value(style, t['estimate']):>9} "
                    f"{interval(style, t['low'], t['high'])}  {t['games']:,} games")
            if t["verdict"] == "undecided":
                text += f"; {_more(t['more_games'], t['games'])}"
            lines.append(text)
            s = t.get("stronger")
            if s:
                lines.append(f"  {'':<22} {s['policy']} tables: {s['verdict']}, {value(style, s['estimate'])} "
                             f"{interval(style, s['low'], s['high'])} ({s['games']:,} games)")
    if result["strength"]:
        against = result["strength"][0]["against"]
        lines += ["", f"Stronger tables: {against} at every seat on the same deals, minus the judged policy "
                      "(paired, game by game)"]
        for d in result["strength"]:
            style = _diff_style(_style(game, d["metric"]))
            verdict = {"material": "moves materially", "immaterial": "holds (within the material difference)",
                       "undecided": "undecided"}[d["verdict"]]
            text = (f"  {d['setting']:<22} {d['label']:<26} {value(style, d['difference']):>9} "
                    f"{interval(style, d['low'], d['high'])}  {verdict} (material: "
                    f"{value(style, d['material']).lstrip('+')}), {d['games']:,} games")
            if d["verdict"] == "undecided":
                text += f"; {_more(d['more_games'], d['games'])}"
            lines.append(text)
    lines += ["", sentence(result)]
    played = sum(g["judged"] + g["stronger"] for g in result["games"].values())
    lines.append(f"Played {played:,} games in {seconds_text(result['seconds'])}; stopped: {_stopped(result['stopped'])}.")
    return "\n".join(lines)


def _stopped(how: str) -> str:
    return {"decided": "everything decided", "max-games": "the most games allowed (--max-games, --max-slow-games)",
            "max-minutes": "the time budget (--max-minutes)"}[how]


def sentence(result: Mapping[str, Any]) -> str:
    """The confirmation in one sentence."""
    targets, strength = result["targets"], result["strength"]
    parts = []
    if targets:
        counts = {v: sum(t["verdict"] == v for t in targets) for v in ("met", "missed", "undecided")}
        if counts["met"] == len(targets):
            parts.append(f"Every target is met at every setting ({len(targets)} judged).")
        else:
            said = [f"{counts[v]} {v}" for v in ("met", "missed", "undecided") if counts[v]]
            parts.append(f"Not confirmed: of {len(targets)} targets and settings, {', '.join(said)}.")
        stronger = [t["stronger"] for t in targets if t.get("stronger")]
        if stronger:
            policy = stronger[0]["policy"]
            held = sum(s["verdict"] == "met" for s in stronger)
            if all(t["verdict"] == t["stronger"]["verdict"] for t in targets if t.get("stronger")):
                parts.append(f"The verdicts hold at {policy} tables.")
            else:
                parts.append(f"At {policy} tables {held} of {len(stronger)} are met.")
    if strength:
        moved = [d for d in strength if d["verdict"] == "material"]
        open_ = [d for d in strength if d["verdict"] == "undecided"]
        against = strength[0]["against"]
        if moved:
            parts.append(f"Stronger {against} tables change " + "; ".join(
                f"{d['label']} at {d['setting'].split(',')[0]}" for d in moved) + ".")
        elif not open_:
            parts.append(f"Stronger {against} tables change no headline metric materially.")
        if open_:
            parts.append(f"{len(open_)} of {len(strength)} comparisons with {against} tables are undecided.")
    return " ".join(parts) if parts else "Nothing to confirm."
