"""Does a verdict hold for stronger players? The headline metrics against player strength.

A run's verdicts come from its seats' policies; a designer wants them for
real tables. The strength profile (``sim.runner.strength_profile``) plays the same rules
and the same deals with every seat ``random``, ``greedy``, ``expert`` and,
on a smaller subsample, ``lookahead``; this module compares the headline
metrics across them and says in one sentence whether the verdict moves.

A metric *moves* between two strengths when the difference is both clear
(its 95% interval, from the two estimates' intervals taken as independent,
excludes 0) and material (at least the metric's ``material``, in its own
units): a difference of 0.3 points on 100,000 games is real but changes no
decision.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import pandas as pd

def profile_entry(summary: Mapping[str, Any], metrics: Mapping[str, Any]) -> dict[str, Any]:
    """The headline ``metrics`` of one strength's summary: ``{metric: [value, low, high]}``."""
    return {m: [summary[m], *(summary.get(f"{m}_ci") or [None, None])] for m in metrics}


def difference(a: list, b: list) -> tuple[float, float, float] | None:
    """``b - a`` and its 95% interval, from each estimate's own interval (independent normal)."""
    if any(x is None for x in (*a, *b)):
        return None
    half = math.hypot((a[2] - a[1]) / 2, (b[2] - b[1]) / 2)
    d = b[0] - a[0]
    return d, d - half, d + half


def moves(material: float, a: list, b: list) -> bool:
    """Whether a metric differs clearly and by at least ``material`` between estimates ``a`` and ``b``."""
    diff = difference(a, b)
    if diff is None:
        return False
    d, low, high = diff
    return (low > 0 or high < 0) and abs(d) >= material


def strength_table(strength: Mapping[str, Any], metrics: Mapping[str, Any]) -> pd.DataFrame:
    """One row per (metric, policy): value, 95% interval, games."""
    rows = []
    for entry in strength["profiles"]:
        for metric, (value, low, high) in entry["metrics"].items():
            rows.append({"metric": metric, "label": metrics[metric].label, "policy": entry["policy"],
                         "games": entry["games"], "value": value, "low": low, "high": high})
    return pd.DataFrame(rows)


def _show(kind: str, value: float) -> str:
    if kind == "pct":
        return f"{100 * value:.1f}%"
    if kind == "pts":
        return f"{100 * value:+.1f} pts"
    return f"{value:.2f}"


def verdict(strength: Mapping[str, Any], run_policy: str | None, metrics: Mapping[str, Any],
            order: tuple[str, ...]) -> dict[str, Any]:
    """Which ``metrics`` move with player strength, and the sentence that says so.

    The comparison runs from the run's own policy (when every seat plays
    the same one and it is in the profile; else ``random``) to the
    strongest profile played on the large sample above it (the first of
    ``order`` played that is stronger, e.g. ``expert`` then ``greedy``), and
    then to the slow policy on its subsample (the profile played last, when
    it is not in ``order``), which is noted but, being small, rarely decides.
    When the run's policy is already the strongest of ``order`` (the default
    player), the comparison runs up to the slow policy and down to the next
    weaker one: would stronger tables, or weaker ones, change the verdict?
    """
    profiles = {p["policy"]: p for p in strength["profiles"]}
    base = run_policy if run_policy in profiles else "random"
    ranked = [p for p in order if p in profiles]
    above = ranked[:ranked.index(base)] if base in ranked else [p for p in ranked if p != base]
    strong = above[0] if above else None
    last = strength["profiles"][-1]["policy"] if strength["profiles"] else None
    lookahead = last if last is not None and last not in order and last != "random" else None
    if base not in profiles:
        return {"from": base, "to": strong, "moved": [], "sentence": "Too few strengths were played to compare."}
    if strong is None:
        return _verdict_from_the_top(profiles, base, ranked, lookahead, metrics)
    a, b = profiles[base]["metrics"], profiles[strong]["metrics"]
    moved = [m for m in metrics if moves(metrics[m].material, a[m], b[m])]
    if moved:
        sentence = (f"The verdict changes with player strength: from {base} to {strong} seats, "
                    f"{_changes(metrics, moved, a, b)}. Judge these rules with players like the ones who will play them.")
    else:
        sentence = (f"The verdict holds for stronger players: no headline metric moves clearly and materially "
                    f"between {base} and {strong} seats.")
    if lookahead is not None and lookahead != base:
        c = profiles[lookahead]["metrics"]
        far = [m for m in metrics if moves(metrics[m].material, b[m], c[m])]
        if far:
            sentence += (f" {lookahead.split(':')[0].capitalize()} seats ({profiles[lookahead]['games']:,} games) differ "
                         f"from {strong} too: " + "; ".join(f"{metrics[m].label} {_show(metrics[m].style, c[m][0])}"
                                                            for m in far)
                         + f", so even {strong} is not yet the strongest table.")
        else:
            sentence += (f" {lookahead} seats, on a subsample of {profiles[lookahead]['games']:,} games, "
                         f"agree with {strong} within their intervals.")
    return {"from": base, "to": strong, "moved": moved, "sentence": sentence}


def _changes(metrics: Mapping[str, Any], moved: list[str], a: Mapping[str, list], b: Mapping[str, list]) -> str:
    return "; ".join(f"{metrics[m].label} {_show(metrics[m].style, a[m][0])} → {_show(metrics[m].style, b[m][0])}"
                     for m in moved)


def _verdict_from_the_top(profiles: Mapping[str, Any], base: str, ranked: list[str], lookahead: str | None,
                          metrics: Mapping[str, Any]) -> dict[str, Any]:
    """The verdict of a run whose seats play the strongest fast policy: against the slow one, and a weaker one."""
    a = profiles[base]["metrics"]
    below = ranked[ranked.index(base) + 1:] if base in ranked else []
    weaker = below[0] if below else ("random" if "random" in profiles and base != "random" else None)
    parts, moved, to = [], [], None
    if lookahead is not None and lookahead != base:
        to, c = lookahead, profiles[lookahead]["metrics"]
        moved = [m for m in metrics if moves(metrics[m].material, a[m], c[m])]
        games = f"{profiles[lookahead]['games']:,} games"
        if moved:
            parts.append(f"Stronger {lookahead} seats ({games}) change the verdict: {_changes(metrics, moved, a, c)}, "
                         f"so {base} is not yet the strongest table.")
        else:
            parts.append(f"The verdict holds for stronger players: {lookahead} seats, on a subsample of {games}, "
                         f"agree with {base} within their intervals.")
    if weaker is not None:
        w = profiles[weaker]["metrics"]
        down = [m for m in metrics if moves(metrics[m].material, a[m], w[m])]
        if down:
            parts.append(f"Weaker {weaker} seats would change it: {_changes(metrics, down, a, w)}. "
                         f"Judge these rules with players like the ones who will play them.")
        else:
            parts.append(f"Weaker {weaker} seats would not change it: no headline metric moves clearly and "
                         f"materially between {base} and {weaker} seats.")
        if to is None:
            to, moved = weaker, down
    if not parts:
        return {"from": base, "to": None, "moved": [], "sentence": "Too few strengths were played to compare."}
    return {"from": base, "to": to, "moved": moved, "sentence": " ".join(parts)}
