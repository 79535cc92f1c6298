"""A tune's targets: what a good game looks like on one metric, and how a measured value meets it.

A target is a range (``[0.40, 0.60]``), a bound (``{ min = 0.45 }``) or a
value to be near (``{ near = 3.4 }``). It is judged on the 95% interval of
the metric at each setting (a player count and a policy): met, missed or
undecided.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, NamedTuple, Sequence

from sim.errors import ConfigError, shown
from sim.metrics import ADVANTAGE, RATE, ROUND, SEAT, SEATS, WIN_SHARE, Metric

TARGET_KEYS = ("min", "max", "near", "within", "scale", "relative")
# A skill-gap target stated against the fair share 1/players of each player count, and what it then bounds.
RELATIVE = {"above_fair": "the win share minus the fair share 1/players",
            "times_fair": "the win share times the players (1 is the fair share)"}
# Targets on these metrics read the estimate with most of the upward bias noise gives it at small samples taken out,
# kept inside the same interval (analysis.common.worst_seat_advantage_corrected): judged met on the interval, a
# target then has no shortfall on the estimate, and missed, some.
CORRECTED_COLUMNS = {"worst_seat_advantage": "worst_seat_advantage_corrected"}


@dataclass(frozen=True)
class Target:
    """What a good game looks like on one metric: a range, a bound, or a value to be near.

    ``low``/``high`` bound the acceptable values (None: unbounded); a
    ``near`` target accepts ``near ± within``. ``scale`` turns a shortfall
    into ranges: a metric 0.05 below a range 0.20 wide falls 0.25 short.
    ``relative`` states a skill-gap target against the fair share of the
    player count (:data:`RELATIVE`): the bounds then apply to the win share
    minus ``1 / players`` or to the win share times ``players``.
    """

    metric: str
    low: float | None
    high: float | None
    scale: float
    near: float | None = None
    relative: str | None = None

    @property
    def column(self) -> str:
        """The summary column the target reads: the worst seat's advantage is read bias-corrected."""
        return CORRECTED_COLUMNS.get(self.metric, self.metric)

    @property
    def label(self) -> str:
        """The metric as every output names it: ``worst_seat_advantage (bias-corrected)``, ``… − 1/players``."""
        if self.relative == "above_fair":
            return f"{self.metric} \u2212 1/players"
        if self.relative == "times_fair":
            return f"{self.metric} \u00d7 players"
        if self.column != self.metric:
            return f"{self.metric} (bias-corrected)"
        return self.metric

    @property
    def spelled(self) -> str:
        """What is wanted, as the tune file says it: ``[0.4, 0.6]``, ``at most 0.01``, ``near 3.4 (± 0.17)``."""
        return self.spelled_as(_g)

    def spelled_as(self, write: Callable[[float], str]) -> str:
        """What is wanted, each bound written by ``write``: as the values judged against it are written."""
        if self.near is not None:
            return f"near {write(self.near)} (± {write((self.high - self.low) / 2).lstrip('+')})"
        return wanted_text(self.low, self.high, write)

    def measure(self, row: Mapping[str, Any], players: int) -> tuple[float, float, float]:
        """The value the target judges and its 95% interval in an evaluation's row (nan when missing)."""
        x, lo, hi = (_nan(row.get(f"{self.column}{end}")) for end in ("", "_lo", "_hi"))
        if f"{self.column}_lo" not in row and self.column.endswith("_rate"):
            x, lo, hi = watched_value(row, self.column)  # a rate the summary gives no interval: Wilson's
        if self.relative == "above_fair":
            return x - 1 / players, lo - 1 / players, hi - 1 / players
        if self.relative == "times_fair":
            return x * players, lo * players, hi * players
        return x, lo, hi

    def judge(self, row: Mapping[str, Any], players: int) -> str:
        """The verdict on an evaluation's row. A metric whose interval the summary leaves undefined (a duel of
        too few deals to say) is undecided; a rate the summary gives no interval gets Wilson's over the games;
        any other metric without one is taken as measured."""
        x, lo, hi = self.measure(row, players)
        if f"{self.column}_lo" in row and (_missing(lo) or _missing(hi)):
            return "undecided"
        return self.verdict(x, lo, hi)

    def shortfall(self, x: float) -> float:
        """How far ``x`` falls outside the acceptable values, in units of ``scale``; inf when unknown."""
        if x is None or math.isnan(x):
            return math.inf
        below = self.low - x if self.low is not None and x < self.low else 0.0
        above = x - self.high if self.high is not None and x > self.high else 0.0
        return (below + above) / self.scale

    def distance(self, x: float) -> float:
        """How far from ``near`` (0 without one): ranks candidates that all meet the targets."""
        if self.near is None or x is None or math.isnan(x):
            return 0.0
        return abs(x - self.near) / self.scale

    def verdict(self, x: float, lo: float, hi: float) -> str:
        """``met`` if the whole 95% interval is acceptable, ``missed`` if none of it is, else ``undecided``."""
        if _missing(lo) or _missing(hi):
            if _missing(x):
                return "undecided"
            lo = hi = x  # a metric with no interval is taken as measured
        inside_low = self.low is None or lo >= self.low
        inside_high = self.high is None or hi <= self.high
        if inside_low and inside_high:
            return "met"
        if (self.low is not None and hi < self.low) or (self.high is not None and lo > self.high):
            return "missed"
        return "undecided"

    def as_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "low": self.low, "high": self.high, "near": self.near, "scale": self.scale,
                "relative": self.relative, "column": self.column, "label": self.label, "spelled": self.spelled}


class Reach(NamedTuple):
    """The values a target's metric can take at some player counts: every bound of the target lies within."""

    low: float
    high: float
    what: str  # what the metric is, which is why: "a rate (a share)"
    where: str = ""  # the player counts it holds at, when it depends on them: " at 3 players"


def declared(game, metric: str) -> Metric | None:
    """The declaration (``sim.metrics``) of the metric a target names: its own; its list's for one entry of a
    list (``win_share_s2`` is a seat's ``win_share``, ``end_round_share_r1`` a round's); the win share for a
    skill gap (a duel measures the stronger seat's win share). None for a summary value the game leaves
    undeclared."""
    found = game.metric.get(metric)
    if found is not None:
        return found
    if metric.startswith("skill_gap_"):
        return WIN_SHARE
    entry = re.fullmatch(r"(.+)_([sr])\d+", metric)
    if entry is not None:
        found = game.metric.get(entry.group(1))
        if found is not None and found.per == {"s": SEAT, "r": ROUND}[entry.group(2)]:
            return found
    return None


def reach(metric: Metric | None, relative: str | None, players: Sequence[int]) -> list[Reach]:
    """The values a target on ``metric`` can take, from its declaration: a rate is a share, within [0, 1]; an
    advantage a difference of win shares, within [-1, 1], or, when its interval is the seats' (the largest
    distance of any seat from its fair share, as ``analysis.strength`` reads it), within [0, 1]. A skill gap
    stated ``relative`` to the fair share is bounded at each player count. Nothing for a mean, whose units
    are the game's, or an undeclared value."""
    if metric is None:
        return []
    if metric.kind == RATE:
        low, high, what = 0.0, 1.0, "a rate (a share)"
    elif metric.kind == ADVANTAGE and metric.interval == SEATS:
        low, high, what = 0.0, 1.0, "a distance from the fair share, never below 0"
    elif metric.kind == ADVANTAGE:
        low, high, what = -1.0, 1.0, "a difference of win shares"
    else:
        return []
    if relative == "above_fair":
        return [Reach(low - 1 / p, high - 1 / p, f"a win share less the fair share 1/{p}", f" at {p} players")
                for p in players]
    if relative == "times_fair":
        return [Reach(low * p, high * p, f"a win share times {p}", f" at {p} players") for p in players]
    return [Reach(low, high, what)]


def target_style(game, target: Target) -> str:
    """How the target's values are written, as ``lvsim run`` writes its metric: ``pct`` (a percentage), ``pts``
    (percentage points: a win share less the fair share too), ``num`` (a mean, a multiple of the fair share),
    or ``""`` for a summary value the game leaves undeclared."""
    if target.relative == "above_fair":
        return "pts"
    if target.relative == "times_fair":
        return "num"
    return declared_style(game, target.column)


def wanted_text(low: float | None, high: float | None, write: Callable[[float], str] | None = None) -> str:
    """A band or a bound, each end written by ``write`` (default: as a file spells it): ``[40.00%, 60.00%]``,
    ``at least 0.050``."""
    write = write or _g
    if low is not None and high is not None:
        return f"[{write(low)}, {write(high)}]"
    return f"at least {write(low)}" if low is not None else f"at most {write(high)}"


def declared_style(game, metric: str) -> str:
    """How ``lvsim run`` writes the metric (:func:`declared`'s ``style``); ``""`` for one the game leaves
    undeclared."""
    found = declared(game, metric)
    return "" if found is None else found.style


def _nan(x: Any) -> float:
    return math.nan if x is None else float(x)


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _g(x: float) -> str:
    return f"{x:g}"


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _finite_or_none(x: float) -> float | None:
    return None if x is None or math.isnan(x) else x


def _finite(x: float) -> float | None:
    """A number for JSON: None for an infinite shortfall (a metric the game could not measure)."""
    return x if math.isfinite(x) else None


def setting_name(players: int, policy: str) -> str:
    """A setting as every output names it: ``4 players, expert``."""
    return f"{players} players, {policy}"


def watched_value(row: Mapping[str, Any], metric: str) -> tuple[float, float, float]:
    """A watched metric and its 95% interval in an evaluation's row.

    A rule-hole rate has no interval in the summary: it gets a Wilson
    interval counting each game once (a rate per round counts a game's
    rounds as one observation, which a rate that rounds of the same game
    share does not make narrower than it is).
    """
    x, lo, hi = (_nan(row.get(f"{metric}{end}")) for end in ("", "_lo", "_hi"))
    if math.isnan(x) or not (math.isnan(lo) or math.isnan(hi)):
        return x, lo, hi
    from analysis.stats import wilson_interval

    games = int(row.get("games") or 0)
    if games <= 0 or not 0 <= x <= 1:
        return x, math.nan, math.nan
    lo, hi = wilson_interval(x * games, games)
    return x, lo, hi


def _number(where: str, x: Any) -> float:
    if not _is_number(x) or not math.isfinite(x):
        raise ConfigError(where, f"must be a number, got {shown(x)}")
    return float(x)


def _target(where: str, metric: str, spec: Any, reaches: Sequence[Reach] = ()) -> Target:
    """The target ``spec`` on ``metric``; every bound it gives lies within each of ``reaches`` (:func:`reach`),
    else it is refused, naming the field: no value could meet it."""
    target = _parsed(where, metric, spec)
    if isinstance(spec, list):
        given = [(where, x) for x in (target.low, target.high)]
    else:
        given = [(f"{where}.{key}", float(spec[key])) for key in ("near", "min", "max") if key in spec]
    for field, x in given:
        for r in reaches:
            if not r.low <= x <= r.high:
                what = f"{target.label} is {r.what} there" if r.where else f"{metric} is {r.what}"
                raise ConfigError(field, f"must lie within [{r.low:.3g}, {r.high:.3g}]{r.where}, since {what}, "
                                         f"got {_g(x)}")
    return target


def _parsed(where: str, metric: str, spec: Any) -> Target:
    if isinstance(spec, list):
        if len(spec) != 2:
            raise ConfigError(where, f"a range is [lowest, highest], got {shown(spec)}")
        low, high = (_number(where, x) for x in spec)
        if low > high:
            raise ConfigError(where, f"[{_g(low)}, {_g(high)}] is an empty range: the lowest is above the highest")
        scale = high - low
        return Target(metric, low, high, scale if scale > 0 else _default_scale(low))
    if not isinstance(spec, dict):
        raise ConfigError(where, f"must be a range [lowest, highest] or a table with min, max or near, got "
                                 f"{shown(spec)}")
    for key in spec:
        if key not in TARGET_KEYS:
            raise ConfigError(f"{where}.{key}", f"unknown key (known: {', '.join(TARGET_KEYS)})")
    relative = spec.get("relative")
    if relative is not None:
        if not metric.startswith("skill_gap_"):
            raise ConfigError(f"{where}.relative", "only a skill-gap target (skill_gap_...) is stated relative to "
                                                   "the fair share, which is one seat's 1/players")
        if relative not in RELATIVE:
            raise ConfigError(f"{where}.relative", "must be " + " or ".join(
                f'"{k}" ({v})' for k, v in RELATIVE.items()) + f", got {shown(relative)}")
    values = {k: _number(f"{where}.{k}", v) for k, v in spec.items() if k != "relative"}
    if values.get("scale", 1) <= 0:  # a shortfall and a distance are measured in it: near targets too
        raise ConfigError(f"{where}.scale", f"must be above 0, got {_g(values['scale'])}")
    if "near" in values:
        if "min" in values or "max" in values:
            raise ConfigError(where, "give near, or min and/or max, not both")
        near = values["near"]
        within = values.get("within", _default_scale(near) / 2)
        if within <= 0:
            raise ConfigError(f"{where}.within", f"must be above 0, got {_g(within)}")
        return Target(metric, near - within, near + within, values.get("scale", within), near=near,
                      relative=relative)
    if "within" in values:
        raise ConfigError(f"{where}.within", "only applies to a near target")
    low, high = values.get("min"), values.get("max")
    if low is None and high is None:
        raise ConfigError(where, "give min, max or near")
    if low is not None and high is not None and low > high:
        raise ConfigError(where, f"min {_g(low)} is above max {_g(high)}: no value can meet it")
    scale = values.get("scale", high - low if low is not None and high is not None and high > low
                       else _default_scale(low if low is not None else high))
    return Target(metric, low, high, scale, relative=relative)


def _default_scale(x: float) -> float:
    """A tenth of the value, or 0.01 near 0: what a shortfall from a bare bound is measured in."""
    return max(abs(x) / 10, 0.01)
