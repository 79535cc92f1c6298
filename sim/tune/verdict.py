"""What a tune watches beside its targets: side effects on untargeted metrics, policies pulling apart under
the recommended rules, and the game's rule holes, each with 95% intervals on the fresh seed."""

from __future__ import annotations

import math
from typing import Any

from sim.tune.evaluation import Judged
from sim.tune.spec import Tune
from sim.tune.targets import _finite_or_none, setting_name, target_style, watched_value

# An untargeted seat advantage counts as much worse than the base rules' when it grows by this much.
SEAT_MARGIN = 0.02


def watched_metrics(tune: Tune) -> dict[str, tuple[str, float, bool]]:
    """Untargeted metrics a tune watches for harm: metric -> (what it measures, the rise that is much worse,
    whether its size is what matters). The game's rule holes (``Game.rule_holes``) and the seats' advantages."""
    from analysis.sweep import HOLE_MARGIN

    watched = {m: (meaning, HOLE_MARGIN, False) for m, meaning in tune.game.rule_holes.items()}
    watched["first_player_advantage"] = ("the first seat's distance from its fair share", SEAT_MARGIN, True)
    watched["worst_seat_advantage_corrected"] = ("the worst seat's distance from its fair share, bias-corrected",
                                                 SEAT_MARGIN, False)
    targeted = {t.metric for t in tune.targets} | {t.column for t in tune.targets}
    return {m: v for m, v in watched.items() if m not in targeted}


def side_effects(tune: Tune, best: Judged, base: Judged) -> list[dict[str, Any]]:
    """Untargeted metrics that got much worse with ``best`` than with the base rules, setting by setting.

    Much worse: at least the metric's margin worse (a rule-hole rate also
    at least twice the base's), with the two 95% intervals apart. Both are
    on the fresh seed's deals, the same for both.
    """
    out = []
    if not tune.changes(best.values):
        return out
    for metric, (meaning, margin, size) in watched_metrics(tune).items():
        for key, row in best.rows.items():
            was_row = base.rows.get(key)
            if was_row is None:
                continue
            now, was = watched_value(row, metric), watched_value(was_row, metric)
            if any(math.isnan(v) for v in (*now, *was)):
                continue
            if size:  # a signed advantage: its distance from 0
                now, was = _size(now), _size(was)
            worse = now[0] >= was[0] + margin and now[1] > was[2]
            if metric in tune.game.rule_holes:
                worse = worse and now[0] >= 2 * was[0]
            if worse:
                out.append({"metric": metric, "meaning": meaning, "setting": setting_name(*key),
                            "value": list(now), "base": list(was), "games": best.games, "base_games": base.games})
    return out


def _size(measured: tuple[float, float, float]) -> tuple[float, float, float]:
    """A signed value's distance from 0, and how far from 0 its interval lies at the least and at the most."""
    x, lo, hi = measured
    nearest = 0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))
    return abs(x), nearest, max(abs(lo), abs(hi))


def policies_apart(tune: Tune, judged: Judged) -> list[dict[str, Any]]:
    """Targets on which the policies of the tune pull apart under ``judged``'s rules, player count by count.

    Apart: the highest and the lowest policy's 95% intervals do not
    overlap and lie at least the target's scale (its range's width) apart,
    so that rules right for one kind of player are not for another. The
    values are the targets' as judged (``Judged.measured``), with the games
    each rests on and how they are written (``style``).
    """
    out = []
    if len(tune.policies) < 2:
        return out
    for t in tune.targets:
        for players in tune.players:
            measured = {pol: judged.measured(t, players, pol) for pol in tune.policies
                        if (players, pol) in judged.rows}
            measured = {pol: m for pol, m in measured.items() if not any(math.isnan(v) for v in m[:3])}
            if len(measured) < 2:
                continue
            high = max(measured, key=lambda pol: measured[pol].value)
            low = min(measured, key=lambda pol: measured[pol].value)
            (x_hi, lo_hi, _), (x_lo, _, hi_lo) = measured[high][:3], measured[low][:3]
            if lo_hi > hi_lo and x_hi - x_lo >= t.scale:
                out.append({"metric": t.metric, "label": t.label, "players": players, "high": high, "low": low,
                            "by_policy": {pol: list(m[:3]) for pol, m in measured.items()},
                            "games": {pol: m.games for pol, m in measured.items()}, "unit": measured[high].unit,
                            "style": target_style(tune.game, t)})
    return out


def rule_hole_table(tune: Tune, best: Judged, base: Judged) -> list[dict[str, Any]]:
    """Every rule-hole rate of the recommended and the base rules at every setting on the fresh seed, with
    95% intervals: shown whether or not it got worse."""
    out = []
    for metric, meaning in tune.game.rule_holes.items():
        for key, row in best.rows.items():
            was = base.rows.get(key, {})
            out.append({"metric": metric, "meaning": meaning, "setting": setting_name(*key),
                        "value": [_finite_or_none(v) for v in watched_value(row, metric)],
                        "base": [_finite_or_none(v) for v in watched_value(was, metric)],
                        "games": best.games, "base_games": base.games})
    return out
