"""Intervals that stay valid however long a run goes on: confidence sequences for play-until-decided.

A 95% confidence interval holds the truth in 95% of runs of a size fixed in
advance. Looking at it after every batch and stopping once it clears a
target line breaks that promise: the chance that some look along the way
misses the truth grows with the number of looks, towards certainty. A
*confidence sequence* is a sequence of intervals, one per number of games,
that hold the truth at every number of games at once with probability
``1 - alpha``; a run may stop whenever its interval decides, and the
decision is wrong at most ``alpha`` of the time.

The one used here is the Gaussian-mixture asymptotic confidence sequence of
Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas ("Time-uniform central limit
theory and asymptotic confidence sequences", *Ann. Statist.* 2024, Theorem 2.2,
the normal-mixture boundary of Howard, Ramdas, McAuliffe and Sekhon, *Ann.
Statist.* 2021, with the standard deviation estimated)::

    mean ± sd · sqrt( 2 (n ρ² + 1) / (n² ρ²) · log( sqrt(n ρ² + 1) / alpha ) )

It asks nothing of the per-game values but a finite variance, so every
metric a game gives game by game (a rate, a mean, a difference of two tables
on the same deals, a ratio of sums by its linearisation) is judged one way.
``ρ`` sets the number of games around which the sequence is tightest
(:func:`rho2`); it must be fixed before the first look. Being asymptotic, it
is used from :data:`FIRST_LOOK` games on, with the variance of a value
bounded in a range of width ``w`` estimated as ``(w²/4 + Σ (x - mean)²) / (n + 1)``
(Waudby-Smith and Ramdas, *JRSS-B* 2024), so that 0 events in ``n`` games
never give a zero-width interval. Its error rate is measured by simulation
in ``tests/analysis/test_sequential.py``.

Several targets judged together share ``alpha`` (Bonferroni): each gets
``alpha / k``, so the chance that any decision is wrong stays at most
``alpha``. The running intersection of a sequence's intervals is again a
confidence sequence, and is what :class:`Stream` reports: an interval never
widens once more games are in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ALPHA = 0.05
# The first number of games at which a sequence is looked at: below it the normal approximation it rests on is
# not trusted.
FIRST_LOOK = 1_000


def rho2(alpha: float, tightest: float) -> float:
    """``ρ²`` that makes the sequence tightest around ``tightest`` games (Waudby-Smith et al. 2024, eq. 2.7)."""
    minus_2_log = -2 * math.log(alpha)
    return (minus_2_log + math.log(minus_2_log + 1)) / tightest


def half_width(sd: float, n: float, alpha: float, r2: float) -> float:
    """The half-width of the confidence sequence at ``n`` games with standard deviation ``sd`` per game."""
    if n <= 0:
        return math.inf
    nr = n * r2
    return sd * math.sqrt(2 * (nr + 1) / (n * n * r2) * math.log(math.sqrt(nr + 1) / alpha))


def games_to_reach(width: float, sd: float, alpha: float, r2: float, start: int) -> int | None:
    """The fewest games from ``start`` on at which the half-width is at most ``width``; None when none will do
    (a width of 0, an estimate on the line, or more than ``10**12`` games)."""
    if width <= 0 or not math.isfinite(width) or not math.isfinite(sd):
        return None
    if half_width(sd, start, alpha, r2) <= width:
        return start
    hi = max(start, 1) * 2
    while half_width(sd, hi, alpha, r2) > width:
        hi *= 2
        if hi > 10**12:
            return None
    lo = hi // 2
    while hi - lo > max(1, lo // 1000):
        mid = (lo + hi) // 2
        if half_width(sd, mid, alpha, r2) <= width:
            hi = mid
        else:
            lo = mid
    return int(hi)


@dataclass
class Stream:
    """A per-game quantity's running sums and its confidence sequence: a mean, or a ratio of two sums.

    ``add(values)`` takes the next games' values (``add(num, den)`` for a
    ratio ``Σ num / Σ den``, linearised: each game counts
    ``(num - R·den) / mean(den)``). ``width`` is the range the per-game
    value (or its linearisation) can span, for the variance's floor;
    ``scale`` divides every value reported (win units, say). The interval
    is the running intersection of the sequence's intervals from
    :data:`FIRST_LOOK` games on.
    """

    alpha: float
    r2: float
    width: float = 1.0
    scale: float = 1.0
    offset: float = 0.0  # added to every value reported (a share minus its fair share)
    n: int = 0
    s_num: float = 0.0
    s_den: float = 0.0
    s_nn: float = 0.0
    s_dd: float = 0.0
    s_nd: float = 0.0
    ratio: bool = False
    low: float = -math.inf
    high: float = math.inf
    looks: int = 0

    def add(self, num: np.ndarray, den: np.ndarray | None = None) -> None:
        num = np.asarray(num, dtype=np.float64)
        if den is None:
            den = np.ones_like(num)
        else:
            self.ratio = True
            den = np.asarray(den, dtype=np.float64)
        self.n += len(num)
        self.s_num += float(num.sum())
        self.s_den += float(den.sum())
        self.s_nn += float(num @ num)
        self.s_dd += float(den @ den)
        self.s_nd += float(num @ den)

    @property
    def mean(self) -> float:
        """The estimate in the values' own units, before ``scale`` and ``offset``."""
        return self.s_num / self.s_den if self.s_den else math.nan

    @property
    def estimate(self) -> float:
        return self.mean / self.scale + self.offset

    @property
    def sd(self) -> float:
        """The per-game standard deviation (of the linearised values, for a ratio), with its floor."""
        if self.n < 2 or not self.s_den:
            return math.nan
        r = self.mean
        squares = self.s_nn - 2 * r * self.s_nd + r * r * self.s_dd  # Σ (num - r·den)²
        d_bar = self.s_den / self.n
        return math.sqrt((self.width ** 2 / 4 + max(squares, 0.0) / d_bar ** 2) / (self.n + 1))

    def look(self) -> tuple[float, float]:
        """The interval now (in reported units), narrowed by every earlier look; (-inf, inf) before the first."""
        if self.n >= FIRST_LOOK:
            h = half_width(self.sd, self.n, self.alpha, self.r2)
            m = self.mean
            self.low = max(self.low, (m - h) / self.scale + self.offset)
            self.high = min(self.high, (m + h) / self.scale + self.offset)
            self.looks += 1
        return self.interval

    @property
    def interval(self) -> tuple[float, float]:
        # The running intersection can leave the estimate just outside it; the estimate is then the nearest
        # end (a sequence's intervals all hold the truth, so nothing outside one of them is worth printing).
        return self.low, self.high

    @property
    def shown(self) -> float:
        """The estimate as printed: inside its interval."""
        return min(max(self.estimate, self.low), self.high)

    def games_for(self, width: float) -> int | None:
        """Games (in all) at which the half-width would be ``width`` in reported units, at the variance now."""
        return games_to_reach(width * self.scale, self.sd, self.alpha, self.r2, max(self.n, FIRST_LOOK))


def verdict(low: float, high: float, lo_bound: float | None, hi_bound: float | None) -> str:
    """``met`` when the whole interval is inside the wanted range, ``missed`` when none of it is, else
    ``undecided``."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return "undecided"
    if (lo_bound is None or low >= lo_bound) and (hi_bound is None or high <= hi_bound):
        return "met"
    if (lo_bound is not None and high < lo_bound) or (hi_bound is not None and low > hi_bound):
        return "missed"
    return "undecided"


def decisive_width(estimate: float, lo_bound: float | None, hi_bound: float | None) -> float:
    """The half-width that would decide a target at ``estimate``: its distance to the nearest line it must clear."""
    if not math.isfinite(estimate):
        return math.nan
    inside = (lo_bound is None or estimate >= lo_bound) and (hi_bound is None or estimate <= hi_bound)
    if inside:
        return min(estimate - lo_bound if lo_bound is not None else math.inf,
                   hi_bound - estimate if hi_bound is not None else math.inf)
    return (lo_bound - estimate) if lo_bound is not None and estimate < lo_bound else (estimate - hi_bound)


def materiality(low: float, high: float, material: float) -> str:
    """A difference's verdict against the smallest that matters: ``material`` when its whole interval is beyond
    ``±material``, ``immaterial`` when it is within, else ``undecided``."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return "undecided"
    if low > material or high < -material:
        return "material"
    if -material <= low and high <= material:
        return "immaterial"
    return "undecided"


def material_width(estimate: float, material: float) -> float:
    """The half-width that would decide a difference at ``estimate`` against ``±material``."""
    if not math.isfinite(estimate):
        return math.nan
    a = abs(estimate)
    return material - a if a <= material else a - material
