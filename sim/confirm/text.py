"""The confirmation as ``lvsim confirm`` prints it: every target's verdict, the stronger tables, one sentence."""

from __future__ import annotations

from functools import partial
from typing import Any, Mapping

from analysis.common import interval_text, value_ci
from analysis.sequential import FIRST_LOOK
from sim.confirm.values import WORST_SEAT_NAMES
from sim.errors import and_listed, counted
from sim.estimates.compiling import seconds_text
from sim.tune.targets import wanted_text
from sim.wording import wrapped


def _style(game, metric: str) -> str:
    if metric in WORST_SEAT_NAMES:
        return "pts"
    return game.metric[metric].style if metric in game.metric else "num"


def value(style: str, x: float | None) -> str:
    return value_ci(style, x)


def interval(style: str, lo: float | None, hi: float | None) -> str:
    return interval_text(style, lo, hi) or "[not yet: too few games]"


def _diff_style(style: str) -> str:
    return "pts" if style in ("pct", "pts") else "num"


def _more(n: int | None, games: int, unit: str = "games") -> str:
    if games < FIRST_LOOK:
        return f"too few {unit} to judge yet (the first look is at {FIRST_LOOK:,})"
    if n is not None:
        return f"about {n:,} more {unit} would likely decide it"
    return f"no number of {unit} would likely decide it: the estimate is on the line"


def _played(t: Mapping[str, Any]) -> tuple[str, str]:
    """What a target's count counts, and the count as printed: games, or a skill-gap duel's deals."""
    if t.get("games_per_deal"):
        return "deals", f"{t['games']:,} deals, each played {t['games_per_deal']} times (once per seat)"
    return "games", f"{t['games']:,} games"


def _aligned(rows: list[list[str]], right: tuple[int, ...] = ()) -> list[str]:
    """Each row's cells padded to the widest of their column (those in ``right`` to the right), the last cell
    left as it is: a long label widens its column rather than pushing the numbers out of theirs. A row has two
    cells or more."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)] if rows else []
    lines = []
    for row in rows:
        head = "  " + " ".join([c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
                               + [""])
        rest = row[-1].lstrip()
        # The last cell wrapped at 120 columns, its later lines indented under the first column, past the setting.
        lines.append(wrapped(rest, first=head + " " * (len(row[-1]) - len(rest)), indent=" " * (widths[0] + 5))
                     if rest else head.rstrip())
    return lines


def confirm_text(result: Mapping[str, Any], game) -> str:
    """The whole confirmation as text."""
    conf = f"{100 * result['confidence']:.0f}%"
    lines = [wrapped(f"Confirming {result['name']} ({game.title}) on {result['rules']}, seed {result['seed']}: "
                     f"{conf} confidence over every target and setting together, valid however long each plays")]
    setting_width = max((len(e["setting"]) for e in (*result["targets"], *result["strength"])), default=0)
    by_metric: dict[str, list] = {}
    for t in result["targets"]:
        style = _style(game, t["metric"])
        wanted = wanted_text(t["low_bound"], t["high_bound"], partial(value, style))
        by_metric.setdefault(f"{t['label']} {wanted}", []).append(t)
    # One table for every target, so that the columns line up from one heading to the next.
    rows = []
    for heading, entries in by_metric.items():
        rows.append((heading, None))
        for t in entries:
            style = _style(game, t["metric"])
            unit, played = _played(t)
            rest = f" {played}" + (f"; {_more(t['more_games'], t['games'], unit)}" if t["verdict"] == "undecided" else "")
            rows.append(([t["setting"].ljust(setting_width), t["verdict"], value(style, t["estimate"]),
                          interval(style, t["low"], t["high"]), rest], t))
    aligned = iter(_aligned([row for row, t in rows if t is not None], right=(2,)))
    for row, t in rows:
        if t is None:
            lines += ["", row]
            continue
        lines.append(next(aligned))
        s = t.get("stronger")
        if s:
            style = _style(game, t["metric"])
            under = " " * (setting_width + 3)
            lines.append(wrapped(f"{s['policy']} tables: {s['verdict']}, {value(style, s['estimate'])} "
                                 f"{interval(style, s['low'], s['high'])} ({s['games']:,} games)"
                                 + (f"; {_more(None, s['games'])}" if s["verdict"] == "undecided"
                                    and s["games"] < FIRST_LOOK else ""), first=under, indent=under + "  "))
    if result["strength"]:
        against = result["strength"][0]["against"]
        lines += ["", f"Stronger tables: {against} at every seat on the same deals, minus the judged policy "
                      "(paired, game by game)"]
        rows = []
        for d in result["strength"]:
            style = _diff_style(_style(game, d["metric"]))
            verdict = {"material": "material (it moves)", "immaterial": "immaterial (it holds)",
                       "undecided": "undecided"}[d["verdict"]]
            rest = (f" {verdict} (material: {value(style, d['material']).lstrip('+')}), {d['games']:,} games"
                    + (f"; {_more(d['more_games'], d['games'])}" if d["verdict"] == "undecided" else ""))
            rows.append([d["setting"].ljust(setting_width), d["label"], value(style, d["difference"]),
                         interval(style, d["low"], d["high"]), rest])
        lines += _aligned(rows, right=(2,))
    lines += ["", wrapped(sentence(result))]
    lines.append(wrapped(f"{_played_line(result)}; stopped: {_stopped(result)}."))
    return "\n".join(lines)


def _played_line(result: Mapping[str, Any]) -> str:
    """Every game played, and of what: the judged policy's, the stronger tables', the skill-gap duels'."""
    games = result["games"].values()
    judged, stronger = sum(g["judged"] for g in games), sum(g["stronger"] for g in games)
    deals, duel_games = sum(g.get("duel_deals", 0) for g in games), sum(g.get("duel_games", 0) for g in games)
    parts = [f"{judged:,} of the judged policy"]
    if stronger:
        parts.append(f"{stronger:,} at the stronger tables")
    if duel_games:
        parts.append(f"{duel_games:,} in skill-gap duels ({deals:,} deals, each played once per seat)")
    took = f"in {seconds_text(result['seconds'])}"
    total = judged + stronger + duel_games
    return f"Played {total:,} games {took}" + (f": {and_listed(parts)}" if len(parts) > 1 else "")


def _stopped(result: Mapping[str, Any]) -> str:
    """Why the confirmation stopped; at the most games allowed, the option that bound what is still undecided."""
    how = result["stopped"]
    if how != "max-games":
        return {"decided": "everything decided", "max-minutes": "the time budget (--max-minutes)"}[how]
    targets = result["targets"]
    bound = [option for option, open_ in (
        ("--max-games", any(t["verdict"] == "undecided" for t in targets)),
        ("--max-slow-games", any(d["verdict"] == "undecided" for d in result["strength"])
         or any((t.get("stronger") or {}).get("verdict") == "undecided" for t in targets))) if open_]
    return f"the most games allowed ({', '.join(bound or ['--max-games', '--max-slow-games'])})"


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
            of = counted(len(targets), "target and setting", "targets and settings")
            parts.append(f"Not confirmed: of {of}, {', '.join(said)}.")
        paired = [(t["verdict"], t["stronger"]["verdict"]) for t in targets if t.get("stronger")]
        if paired:
            policy = next(t["stronger"]["policy"] for t in targets if t.get("stronger"))
            there = {v: sum(s == v for _, s in paired) for v in ("met", "missed", "undecided")}
            # A verdict holds only where it is decided at both tables: undecided beside undecided says nothing.
            if all(v == s != "undecided" for v, s in paired):
                parts.append(f"The verdicts hold at {policy} tables.")
            else:
                others = [f"{there[v]} {v}" for v in ("missed", "undecided") if there[v]]
                parts.append(f"At {policy} tables {there['met']} of {len(paired)} {'is' if there['met'] == 1 else 'are'} "
                             "met" + (f", {and_listed(others)}" if others else "") + ".")
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
            parts.append(f"{len(open_)} of {len(strength)} comparisons with {against} tables "
                         f"{'is' if len(open_) == 1 else 'are'} undecided.")
    return " ".join(parts) if parts else "Nothing to confirm."
