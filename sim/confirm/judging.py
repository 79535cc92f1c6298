"""One quantity judged as the games come in: a metric's confidence sequence, or a paired difference's.

A :class:`Judge` follows one metric at one table (a rate, a mean, the first
player's advantage: one :class:`~analysis.sequential.Stream`; the worst
seat's advantage: one stream per seat, each at ``alpha / players``, since the
worst seat is as far from fair as the farthest seat). A :class:`PairedJudge`
follows the difference of a metric between two tables on the same deals,
game by game.
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np

from analysis.sequential import FIRST_LOOK, Stream, decisive_width, games_to_reach, half_width, material_width
from sim.confirm.values import WORST_SEAT_NAMES, denominator

UNDECIDED = (math.nan, -math.inf, math.inf)


def _look(stream: Stream) -> tuple[float, float, float]:
    """A stream's ``(estimate, low, high)`` now; the interval is infinite before the first look."""
    low, high = stream.look()
    return (stream.shown if math.isfinite(low) else stream.estimate), low, high


def _worst(seats: list[Stream]) -> tuple[float, float, float]:
    """The worst seat's advantage and its interval from every seat's (advantage) interval."""
    ends = [s.interval for s in seats]
    if not all(math.isfinite(lo) and math.isfinite(hi) for lo, hi in ends):
        return max(abs(s.estimate) for s in seats) if seats[0].n else math.nan, -math.inf, math.inf
    low = max(0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi)) for lo, hi in ends)
    high = max(max(abs(lo), abs(hi)) for lo, hi in ends)
    return max(abs(s.shown) for s in seats), low, high


class Judge:
    """A metric of one table: its estimate and confidence sequence as the games come in."""

    def __init__(self, metric: str, players: int, alpha: float, r2: float):
        self.metric = metric
        self.players = players
        if metric in WORST_SEAT_NAMES:
            self.seats = [Stream(alpha / players, r2, offset=-1 / players) for _ in range(players)]
            self.stream = None
        else:
            self.seats = None
            self.stream = Stream(alpha, r2)

    @property
    def games(self) -> int:
        return (self.stream or self.seats[0]).n

    def add(self, values: Mapping[str, np.ndarray], start: int = 0, stop: int | None = None) -> None:
        """The values of the next games (``values[...][start:stop]``)."""
        if self.seats is None:
            den = values.get(denominator(self.metric))
            self.stream.add(values[self.metric][start:stop], None if den is None else den[start:stop])
        else:
            for k, s in enumerate(self.seats):
                s.add(values[f"win_share_s{k}"][start:stop])

    def look(self) -> tuple[float, float, float]:
        if self.seats is None:
            return _look(self.stream)
        for s in self.seats:
            s.look()
        return _worst(self.seats)

    def games_to_decide(self, lo_bound: float | None, hi_bound: float | None) -> int | None:
        """About how many games in all would decide a target ``[lo_bound, hi_bound]``, if the estimate held."""
        if self.seats is None:
            return self.stream.games_for(decisive_width(self.stream.estimate, lo_bound, hi_bound))
        estimates = [abs(s.estimate) for s in self.seats]
        worst = max(estimates)
        if hi_bound is not None and worst > hi_bound:
            # Missed once the farthest seat's interval clears the bound.
            needs = [s.games_for(e - hi_bound) for s, e in zip(self.seats, estimates) if e > hi_bound]
            needs = [n for n in needs if n is not None]
            return min(needs) if needs else None
        if hi_bound is not None and (lo_bound is None or worst >= lo_bound):
            # Met once every seat's interval is within the bound.
            needs = [s.games_for(hi_bound - e) for s, e in zip(self.seats, estimates)]
            return None if any(n is None for n in needs) else max(needs)
        return None


class PairedJudge:
    """A metric's difference between two tables on the same deals (``b - a``), game by game.

    For a metric with a value in every game, the stream of the per-game
    differences. For the worst seat, whose difference is not a mean of
    per-game values: the difference of two maxima is at most the largest
    difference of a seat, ``|max|b| - max|a|| <= max |b_s - a_s|``, so the
    per-seat paired differences bound it on both sides; and each table's own
    worst-seat interval bounds it again (``low_b - high_a`` to ``high_b -
    low_a``). Each of those ``3 × players`` streams gets ``alpha / (3 ×
    players)``; the interval is where both bounds agree.
    """

    def __init__(self, metric: str, players: int, alpha: float, r2: float, ratio: bool = False):
        self.metric = metric
        self.players = players
        self.ratio = PairedRatio(alpha, r2) if ratio else None
        if metric in WORST_SEAT_NAMES:
            share = alpha / 3
            self.a = Judge(metric, players, share, r2)
            self.b = Judge(metric, players, share, r2)
            self.diffs = [Stream(share / players, r2, width=2.0) for _ in range(players)]
            self.stream = None
        else:
            self.stream = Stream(alpha, r2, width=2.0)

    @property
    def games(self) -> int:
        return self.ratio.n if self.ratio is not None else (self.stream or self.diffs[0]).n

    def add(self, a: Mapping[str, np.ndarray], b: Mapping[str, np.ndarray]) -> None:
        """The same deals' values at both tables (arrays of equal length)."""
        if self.ratio is not None:
            self.ratio.add(a[self.metric], a[denominator(self.metric)], b[self.metric], b[denominator(self.metric)])
            return
        if self.stream is not None:
            self.stream.add(b[self.metric] - a[self.metric])
            return
        self.a.add(a)
        self.b.add(b)
        for k, s in enumerate(self.diffs):
            s.add(b[f"win_share_s{k}"] - a[f"win_share_s{k}"])

    def look(self) -> tuple[float, float, float]:
        if self.ratio is not None:
            return self.ratio.look()
        if self.stream is not None:
            return _look(self.stream)
        xa, la, ha = self.a.look()
        xb, lb, hb = self.b.look()
        for s in self.diffs:
            s.look()
        bound = max(max(abs(lo), abs(hi)) for lo, hi in (s.interval for s in self.diffs))
        low, high = max(-bound, lb - ha), min(bound, hb - la)
        estimate = xb - xa
        if math.isfinite(low) and math.isfinite(high):
            estimate = min(max(estimate, low), high)
        return estimate, low, high

    def games_to_decide(self, material: float) -> int | None:
        if self.ratio is not None:
            return self.ratio.games_for(material_width(self.ratio.estimate, material))
        if self.stream is not None:
            return self.stream.games_for(material_width(self.stream.estimate, material))
        estimate = max(abs(s.estimate) for s in self.b.seats) - max(abs(s.estimate) for s in self.a.seats)
        needs = [s.games_for(material_width(estimate, material)) for s in self.diffs]
        return None if any(n is None for n in needs) else max(needs)


class PairedRatio:
    """The difference of a ratio of sums between two tables on the same deals: ``Σ num_b / Σ den_b - Σ num_a /
    Σ den_a``, judged on its linearisation game by game, ``(num_b - R_b·den_b) / mean(den_b) - (num_a -
    R_a·den_a) / mean(den_a)``, whose spread comes from running sums (as :class:`~analysis.sequential.Stream`
    does for one ratio)."""

    KEYS = ("na", "da", "nb", "db")

    def __init__(self, alpha: float, r2: float):
        self.alpha, self.r2 = alpha, r2
        self.n = 0
        self.s = dict.fromkeys(self.KEYS, 0.0)
        self.ss = {(x, y): 0.0 for i, x in enumerate(self.KEYS) for y in self.KEYS[i:]}
        self.low, self.high = -math.inf, math.inf

    def add(self, na, da, nb, db) -> None:
        cols = {k: np.asarray(v, dtype=np.float64) for k, v in zip(self.KEYS, (na, da, nb, db))}
        self.n += len(cols["na"])
        for k in self.KEYS:
            self.s[k] += float(cols[k].sum())
        for x, y in self.ss:
            self.ss[x, y] += float(cols[x] @ cols[y])

    def _q(self, x: str, y: str) -> float:
        return self.ss[(x, y)] if (x, y) in self.ss else self.ss[(y, x)]

    @property
    def estimate(self) -> float:
        if not (self.s["da"] and self.s["db"]):
            return math.nan
        return self.s["nb"] / self.s["db"] - self.s["na"] / self.s["da"]

    @property
    def sd(self) -> float:
        if self.n < 2 or not (self.s["da"] and self.s["db"]):
            return math.nan
        ra, rb = self.s["na"] / self.s["da"], self.s["nb"] / self.s["db"]
        ma, mb = self.s["da"] / self.n, self.s["db"] / self.n
        # Σ (u_b - u_a)² with u = (num - R·den) / mean(den), from the sums of products.
        wa = {"na": 1 / ma, "da": -ra / ma}
        wb = {"nb": 1 / mb, "db": -rb / mb}
        terms = {**{k: -v for k, v in wa.items()}, **wb}
        squares = sum(terms[x] * terms[y] * self._q(x, y) for x in terms for y in terms)
        return math.sqrt((1.0 + max(squares, 0.0)) / (self.n + 1))  # the floor of a difference in a range of 2

    def look(self) -> tuple[float, float, float]:
        if self.n >= FIRST_LOOK:
            h = half_width(self.sd, self.n, self.alpha, self.r2)
            self.low, self.high = max(self.low, self.estimate - h), min(self.high, self.estimate + h)
        if not math.isfinite(self.low):
            return self.estimate, self.low, self.high
        return min(max(self.estimate, self.low), self.high), self.low, self.high

    def games_for(self, width: float) -> int | None:
        return games_to_reach(width, self.sd, self.alpha, self.r2, max(self.n, FIRST_LOOK))
