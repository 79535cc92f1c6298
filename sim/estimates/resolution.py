"""Which targets a number of games can resolve: a metric's standard error against a target's width."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

# A target is resolved when one setting's standard error is at most this share of the target's width.
RESOLVING_SHARE = 0.25
Z95 = 1.959964
# Fewer calibration games than this give too rough a standard error: a rate is then taken at 0.5.
MIN_SE_GAMES = 200


@dataclass(frozen=True)
class Spread:
    """A metric's standard error measured at ``games`` games: it shrinks as ``1 / sqrt(games)``."""

    se: float
    games: int

    def at(self, games: float) -> float:
        return self.se * math.sqrt(self.games / games)

    def games_for(self, se: float) -> int:
        """The games at which the standard error is ``se``."""
        return math.ceil(self.games * (self.se / se) ** 2)


def spread_of(row: Mapping[str, Any], metric: str, games: int) -> Spread | None:
    """The standard error of ``metric`` in a summary row of ``games`` games, from its 95% interval.

    From too few games, or without an interval, a share (a value in
    [0, 1]) is taken at its widest, ``sqrt(0.25 / games)``; otherwise None:
    nothing can be said.
    """
    x, lo, hi = (_number(row.get(k)) for k in (metric, f"{metric}_lo", f"{metric}_hi"))
    if games >= MIN_SE_GAMES and lo is not None and hi is not None and hi > lo:
        return Spread((hi - lo) / (2 * Z95), games)
    if x is not None and 0.0 <= x <= 1.0:
        return Spread(math.sqrt(0.25 / games), games)
    return None


def _number(x: Any) -> float | None:
    if x is None or isinstance(x, bool):
        return None
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


@dataclass(frozen=True)
class Resolution:
    """Whether ``games`` games resolve a target ``width`` wide: the standard error there against the width."""

    metric: str
    setting: str
    width: float
    games: int
    se: float
    games_needed: int

    @property
    def resolved(self) -> bool:
        return self.se <= RESOLVING_SHARE * self.width

    def sentence(self, what: str = "games a candidate") -> str:
        return (f"{self.metric} ({self.setting}): the target is {_g(self.width)} wide but one standard error at "
                f"{self.games:,} {what} is {_g(self.se)}; it is finer than these games resolve, about "
                f"{self.games_needed:,} would resolve it (a standard error of at most a quarter of its width).")

    def as_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "setting": self.setting, "width": self.width, "games": self.games,
                "standard_error": self.se, "resolved": self.resolved, "games_needed": self.games_needed}


def resolution(metric: str, setting: str, width: float, spread: Spread, games: int) -> Resolution:
    se = spread.at(games)
    need = spread.games_for(RESOLVING_SHARE * width) if width > 0 else math.inf
    return Resolution(metric, setting, width, games, se, need if math.isfinite(need) else 0)


def _g(x: float) -> str:
    return f"{x:.3g}"


def resolution_lines(found: Iterable[Resolution], what: str = "games a candidate") -> list[str]:
    """One sentence per target its games cannot resolve, or one saying every target is resolved."""
    found = list(found)
    if not found:
        return []
    bad = [r for r in found if not r.resolved]
    if not bad:
        return [f"Resolution: at {found[0].games:,} {what}, every target's standard error is at most a quarter "
                "of its width."]
    return ["Resolution: " + bad[0].sentence(what), *(r.sentence(what) for r in bad[1:])]


def _target_value(target, row: Mapping[str, Any], players: int) -> tuple[float | None, float | None, float | None]:
    measure = getattr(target, "measure", None)
    if measure is not None:
        return tuple(_number(v) for v in measure(row, players))
    return tuple(_number(row.get(f"{target.metric}{end}")) for end in ("", "_lo", "_hi"))


def target_spread(target, row: Mapping[str, Any], players: int, games: int) -> Spread | None:
    x, lo, hi = _target_value(target, row, players)
    return spread_of({"x": x, "x_lo": lo, "x_hi": hi}, "x", games)
