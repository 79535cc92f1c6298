"""Small statistics for Monte Carlo summaries: intervals, exact moments, histograms.

Everything here works from sufficient statistics (counts, integer sums,
sums of squares, integer histograms) rather than raw samples, so partial
results of any number of chunks merge exactly and a run of any size keeps
memory bounded. Intervals of means use Student's t over the independent
samples (games, or deals of a duel), not the normal quantile, which is too
narrow over few of them. Undefined values (an interval from fewer than
:data:`MIN_SAMPLES` samples) are ``nan``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist
from typing import Mapping

import numpy as np
from numba import njit

CONFIDENCE = 0.95
Z95 = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)  # 1.959963984540054

NAN_INTERVAL = (math.nan, math.nan)

# Below this many independent samples (deals of a duel, games of a run) a 95%
# interval of a mean is not given: with 2 or 3 deals the samples of a bounded,
# lumpy value such as a seat's share of wins are too often all equal (an
# interval of width 0), and the Student t interval, exact only for normal
# samples, misses the true mean far more often than 5% of the time. From 4
# on, measured over many seeds of Las Vegan duels, it covers as it says
# (tests/analysis/test_coverage.py).
MIN_SAMPLES = 4
TOO_FEW = "too few deals to say"
# Why a duel's interval is not given, in the words every output (terminal, JSON, HTML) uses.
TOO_FEW_REASON = f"{TOO_FEW} (an interval needs at least {MIN_SAMPLES} deals)"


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    # The continued fraction converges fast below (a + 1) / (a + b + 2); above, by symmetry.
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: int) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def _t_quantile_expansion(z: float, df: float) -> float:
    """Cornish-Fisher expansion of the t quantile in 1/df (Abramowitz & Stegun 26.7.5)."""
    z2 = z * z
    g1 = (z2 + 1) * z / 4
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
    return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df


@lru_cache(maxsize=4096)
def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (``t_quantile(0.975, 3)`` = 3.1824...).

    Found by bisection on :func:`t_cdf` (to about 1e-12) up to 1000 degrees
    of freedom; beyond, the expansion in 1/df is as exact and much cheaper.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"a quantile needs 0 < p < 1, got {p}")
    if df < 1:
        raise ValueError(f"Student's t needs at least 1 degree of freedom, got {df}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if p == 0.5:
        return 0.0
    z = NormalDist().inv_cdf(p)
    if df > 1000:
        return _t_quantile_expansion(z, df)
    low, high = z, max(z, _t_quantile_expansion(z, df))
    while t_cdf(high, df) < p:
        low, high = high, 2 * high
    for _ in range(200):
        mid = (low + high) / 2
        if mid in (low, high):
            break
        if t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
    return high


def t95(n: int) -> float:
    """The multiplier of a 95% interval of a mean of ``n`` samples: Student t with ``n - 1`` degrees of freedom.

    The normal quantile (1.96) is what this tends to at many samples; over
    a few it is too small — with 4 deals 3.18 is right, and 1.96 gives an
    interval that holds the true mean in about 82% of runs, not 95%.
    """
    return t_quantile(0.5 + CONFIDENCE / 2, n - 1) if n >= 2 else math.nan


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion: sound near 0 and 1, unlike p ± z·se."""
    if trials <= 0:
        return NAN_INTERVAL
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    # At 0 or all successes the bound is exactly 0 or 1; rounding must not
    # leave it a hair inside and exclude the estimate itself.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def share_interval(shares: np.ndarray, games_per_sample: int) -> tuple[float, float]:
    """95% interval of the mean of shares in [0, 1] over few independent samples (deals of a duel).

    A seat's share of the wins on one deal, averaged over its rotations, is
    bounded and lumpy: over 4 deals all four are often equal (a t interval
    of width 0), and near 0 or 1 a symmetric interval spills out of the
    range. So this is Korn and Graubard's interval for a proportion from
    few clusters (Survey Methodology 24, 1998), with the Wilson score in place
    of Clopper-Pearson: the effective number of games ``p(1 - p) / se²`` (at
    most the games played, ``games_per_sample`` a sample, as if the games
    were independent), shrunk by ``(z / t)²`` for Student t's ``n - 1``
    degrees of freedom, and the Wilson interval at that many games.

    Measured on Las Vegan duels (tests/analysis/test_coverage.py) it holds
    the true share in at least 95% of seeds at 4 to 64 deals and 2 to 4
    players (96% to 99.9%), where the t interval alone holds it in as few
    as 78% (2 players, 4 deals) and the normal one in 77%. Below
    :data:`MIN_SAMPLES` deals there is no interval (nan).
    """
    shares = np.asarray(shares, dtype=np.float64)
    n = len(shares)
    if n < MIN_SAMPLES:
        return NAN_INTERVAL
    p = min(1.0, max(0.0, float(shares.mean())))
    var_mean = float(shares.var(ddof=1)) / n
    games = n * games_per_sample
    effective = games if var_mean <= 0 else min(games, p * (1 - p) / var_mean)
    effective *= (Z95 / t95(n)) ** 2
    if effective <= 0:
        return 0.0, 1.0
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * effective)) / (1 + z2 / effective)
    half = Z95 / (1 + z2 / effective) * math.sqrt(p * (1 - p) / effective + z2 / (4 * effective * effective))
    low = 0.0 if p <= 0.0 else max(0.0, centre - half)
    high = 1.0 if p >= 1.0 else min(1.0, centre + half)
    return min(low, p), max(high, p)


def mean_and_sd(total: int, total_sq: int, n: int) -> tuple[float, float]:
    """Mean and sample standard deviation (n - 1) from integer sums.

    The numerator ``n * Σx² - (Σx)²`` is computed in exact integer
    arithmetic, so there is no cancellation and the result does not
    depend on how the sums were split into chunks.
    """
    if n <= 0:
        return math.nan, math.nan
    total, total_sq, n = int(total), int(total_sq), int(n)
    mean = total / n
    if n < 2:
        return mean, math.nan
    return mean, math.sqrt((n * total_sq - total * total) / (n * (n - 1)))


def mean_interval(mean: float, sd: float, n: int, z: float | None = None) -> tuple[float, float]:
    """Interval of a mean of ``n`` independent samples: mean ± q · sd / √n.

    ``q`` is Student's t quantile with ``n - 1`` degrees of freedom
    (:func:`t95`) unless a multiplier ``z`` is given. Below
    :data:`MIN_SAMPLES` samples there is no interval (nan).
    """
    if n < MIN_SAMPLES or math.isnan(sd):
        return NAN_INTERVAL
    half = (t95(n) if z is None else z) * sd / math.sqrt(n)
    return mean - half, mean + half


def win_share_interval(mean: float, sd: float, n: int, unit: float = 1) -> tuple[float, float]:
    """Interval of a mean share of ``n`` games, each share within [0, 1] (a win share) counted in ``unit`` units:
    Student's t (:func:`mean_interval`), but where every game gave the same share, and the t interval would have
    no width, Wilson's at ``mean / unit * n`` of ``n``: 0 wins in 1,300 games does not exclude a rate of 0.2%."""
    if n >= MIN_SAMPLES and sd == 0:
        return wilson_interval(mean / unit * n, n)
    low, high = mean_interval(mean, sd, n)
    return low / unit, high / unit


def sample_mean_interval(values: np.ndarray, z: float | None = None) -> tuple[float, float, float]:
    """Mean of independent samples and its interval (:func:`mean_interval`): ``(mean, low, high)``."""
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    if n == 0:
        return (math.nan, *NAN_INTERVAL)
    mean = float(values.mean())
    sd = float(values.std(ddof=1)) if n > 1 else math.nan
    return (mean, *mean_interval(mean, sd, n, z))


def ratio_interval(sums: np.ndarray, counts: np.ndarray, z: float | None = None) -> tuple[float, float, float]:
    """Mean per observation when observations come in clusters: ``(mean, low, high)``.

    ``sums[g]`` and ``counts[g]`` are the total and the number of
    observations of cluster ``g`` — one game, whose rounds and seats are
    not independent of each other, while games are. The mean is
    ``Σ sums / Σ counts``; its interval uses the cluster-robust
    (delta-method) standard error, so correlation inside a game does not
    make the interval look narrower than it is, and Student's t over the
    clusters (``clusters - 1`` degrees of freedom) unless ``z`` is given;
    below :data:`MIN_SAMPLES` clusters there is none.
    """
    sums = np.asarray(sums, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum()
    g = len(sums)
    if g == 0 or total == 0:
        return (math.nan, *NAN_INTERVAL)
    mean = float(sums.sum() / total)
    if g < MIN_SAMPLES:
        return (mean, *NAN_INTERVAL)
    residual = sums - mean * counts
    se = math.sqrt(float(residual @ residual) * g / (g - 1)) / total
    q = t95(g) if z is None else z
    return mean, mean - q * se, mean + q * se


def cluster_ratio_interval(x: int, y: int, xx: int, xy: int, yy: int, clusters: int,
                           z: float | None = None) -> tuple[float, float, float]:
    """``Σx / Σy`` over clusters and its 95% interval, as :func:`ratio_interval` gives it, from the exact
    integer moments ``Σx, Σy, Σx², Σxy, Σy²`` over ``clusters`` clusters (games).

    The multiplier is Student's t over the clusters unless ``z`` is given.
    """
    g, X, Y = clusters, x, y
    if g == 0 or Y == 0:
        return math.nan, math.nan, math.nan
    mean = X / Y
    if g < MIN_SAMPLES:
        return mean, math.nan, math.nan
    z = t95(g) if z is None else z
    # Σ (x - m·y)² · Y² in exact integers, m = X / Y.
    residual_y2 = Y * Y * xx - 2 * X * Y * xy + X * X * yy
    se = math.sqrt(residual_y2 / (Y * Y) * g / (g - 1)) / Y
    return mean, mean - z * se, mean + z * se


@dataclass(eq=False)
class Moments:
    """``Σx, Σy, Σx², Σxy, Σy²`` over clusters, for the ratio ``Σx / Σy`` and its interval.

    Arrays of any shape hold one set of moments per cell; a cluster with
    ``y = 0`` still counts as a cluster (it enters the standard error).
    """

    clusters: int
    x: np.ndarray
    y: np.ndarray
    xx: np.ndarray
    xy: np.ndarray
    yy: np.ndarray

    @classmethod
    def of(cls, x: np.ndarray, y: np.ndarray) -> "Moments":
        """Moments of clusters along axis 0 (``x`` and ``y`` broadcast to one shape)."""
        x = np.asarray(x, dtype=np.int64)
        y = np.broadcast_to(np.asarray(y, dtype=np.int64), x.shape) if x.ndim else np.asarray(y, dtype=np.int64)
        return cls(len(x), x.sum(axis=0), y.sum(axis=0), (x * x).sum(axis=0), (x * y).sum(axis=0),
                   (y * y).sum(axis=0))

    def __eq__(self, other) -> bool:
        if not isinstance(other, Moments):
            return NotImplemented
        return self.to_json() == other.to_json()

    def merge(self, other: "Moments") -> "Moments":
        return Moments(self.clusters + other.clusters, *(getattr(self, k) + getattr(other, k)
                                                        for k in ("x", "y", "xx", "xy", "yy")))

    def interval(self, index=(), z: float | None = None) -> tuple[float, float, float]:
        """``(mean, low, high)`` of cell ``index``, as :func:`ratio_interval` gives it.

        The multiplier is Student's t over the clusters unless ``z`` is given.
        """
        return cluster_ratio_interval(int(self.x[index]), int(self.y[index]), int(self.xx[index]),
                                      int(self.xy[index]), int(self.yy[index]), self.clusters, z)

    def to_json(self) -> dict:
        return {"clusters": self.clusters, **{k: getattr(self, k).tolist() for k in ("x", "y", "xx", "xy", "yy")}}

    @classmethod
    def from_json(cls, data: Mapping) -> "Moments":
        return cls(int(data["clusters"]), *(np.asarray(data[k], dtype=np.int64) for k in ("x", "y", "xx", "xy", "yy")))


class IntHistogram:
    """Counts of integer values, mergeable, with exact moments and percentiles.

    Only the values that occurred are kept, each with its count, so a histogram of a few hundred values
    spread over millions (money counted in dollars, say) is as small and as quick to merge as a narrow one.
    ``IntHistogram(counts, offset)`` is the histogram in which ``offset + i`` occurred ``counts[i]`` times;
    :attr:`counts` and :attr:`offset` give it back so, from the least value seen to the largest, and that is
    its JSON.
    """

    def __init__(self, counts: np.ndarray | None = None, offset: int = 0):
        dense = np.zeros(0, dtype=np.int64) if counts is None else np.asarray(counts, dtype=np.int64)
        seen = np.flatnonzero(dense)
        self._of(seen + int(offset), dense[seen])

    def _of(self, values: np.ndarray, counts: np.ndarray) -> "IntHistogram":
        """This histogram made of ``values`` (increasing, each once) and their counts (each above 0)."""
        self._values, self._counts = values.astype(np.int64, copy=False), counts.astype(np.int64, copy=False)
        return self

    @classmethod
    def _sparse(cls, values: np.ndarray, counts: np.ndarray) -> "IntHistogram":
        return cls.__new__(cls)._of(values, counts)

    @classmethod
    def of(cls, values: np.ndarray) -> "IntHistogram":
        values = np.asarray(values).ravel().astype(np.int64)
        if values.size == 0:
            return cls()
        low = int(values.min())
        if int(values.max()) - low <= 4 * values.size + 4096:  # a narrow range: counted in one walk, no sort
            counts = np.bincount(values - low)
            seen = np.flatnonzero(counts)
            return cls._sparse(seen + low, counts[seen])
        return cls._sparse(*np.unique(values, return_counts=True))

    @classmethod
    def pooled(cls, histograms) -> "IntHistogram":
        """One histogram of all the values of several (per seat, say)."""
        pooled = cls()
        for h in histograms:
            pooled = pooled.merge(h)
        return pooled

    def merge(self, other: "IntHistogram") -> "IntHistogram":
        if not len(self._values) or not len(other._values):
            kept = other if not len(self._values) else self
            return IntHistogram._sparse(kept._values.copy(), kept._counts.copy())
        a, b = self._values, other._values
        if len(a) == len(b) and (a == b).all():
            return IntHistogram._sparse(a.copy(), self._counts + other._counts)
        low, high = int(min(a[0], b[0])), int(max(a[-1], b[-1]))
        if high - low <= 4 * (len(a) + len(b)) + 4096:  # a narrow range: added densely, no sort
            dense = np.zeros(high - low + 1, dtype=np.int64)
            dense[a - low] = self._counts
            dense[b - low] += other._counts
            seen = np.flatnonzero(dense)
            return IntHistogram._sparse(seen + low, dense[seen])
        values = np.union1d(self._values, other._values)
        counts = np.zeros(len(values), dtype=np.int64)
        counts[np.searchsorted(values, self._values)] += self._counts
        counts[np.searchsorted(values, other._values)] += other._counts
        return IntHistogram._sparse(values, counts)

    def scaled(self, factor: int) -> "IntHistogram":
        """The histogram of each value times ``factor`` (a whole number above 0)."""
        return IntHistogram._sparse(self._values * int(factor), self._counts.copy())

    def __eq__(self, other) -> bool:
        if not isinstance(other, IntHistogram):
            return NotImplemented
        return self.as_dict() == other.as_dict()

    def to_json(self) -> dict:
        return {"offset": self.offset, "counts": self.counts.tolist()}

    @classmethod
    def from_json(cls, data) -> "IntHistogram":
        return cls(np.asarray(data["counts"], dtype=np.int64), int(data["offset"]))

    @property
    def offset(self) -> int:
        """The least value seen (0 when none was)."""
        return int(self._values[0]) if len(self._values) else 0

    @property
    def counts(self) -> np.ndarray:
        """``counts[i]``: how often ``offset + i`` occurred, up to the largest value seen."""
        if not len(self._values):
            return np.zeros(0, dtype=np.int64)
        dense = np.zeros(int(self._values[-1] - self._values[0]) + 1, dtype=np.int64)
        dense[self._values - self._values[0]] = self._counts
        return dense

    @property
    def values(self) -> np.ndarray:
        """The values that occurred, least first (each once)."""
        return self._values

    @property
    def count(self) -> int:
        return int(self._counts.sum())

    @property
    def total(self) -> int:
        return int(self._counts @ self._values) if len(self._counts) else 0

    @property
    def total_sq(self) -> int:
        return int(self._counts @ (self._values * self._values)) if len(self._counts) else 0

    def mean_and_sd(self) -> tuple[float, float]:
        return mean_and_sd(self.total, self.total_sq, self.count)

    def order_statistic(self, k: int) -> int:
        """The k-th smallest value (0-based) of the data."""
        return int(self._values[int(np.searchsorted(np.cumsum(self._counts), k, side="right"))])

    def percentile(self, q: float) -> float:
        """The q-th percentile, equal to ``np.percentile(data, q)`` (linear method).

        The arithmetic follows numpy's step by step (virtual index
        ``(n - 1) · q/100``, then its two-sided interpolation) so that the
        two agree to the last bit, not just approximately.
        """
        n = self.count
        if n == 0:
            return math.nan
        virtual = (n - 1) * (q / 100)
        if virtual >= n - 1:
            return float(self.order_statistic(n - 1))
        if virtual < 0:
            return float(self.order_statistic(0))
        below = math.floor(virtual)
        t = virtual - below
        a = self.order_statistic(below)
        b = self.order_statistic(below + 1)
        diff = b - a
        return float(b - diff * (1 - t)) if t >= 0.5 else float(a + diff * t)

    def as_dict(self) -> dict[int, int]:
        """``{value: count}`` for the values that occurred."""
        return {int(v): int(c) for v, c in zip(self._values, self._counts)}


@njit(cache=True, nogil=True)
def _count_codes_nb(code, size):
    """How often each code in ``0 .. size - 1`` occurs in ``code``, and where it first does."""
    counts = np.zeros(size, np.int64)
    first = np.zeros(size, np.int64)
    for i in range(len(code)):
        c = code[i]
        if counts[c] == 0:
            first[c] = i
        counts[c] += 1
    return counts, first


@dataclass(eq=False)
class FirstGames:
    """For each key: how many games had it, and the lowest game index among them.

    A report picks its example games from these (the first game of each
    kind), so the pick is the same however the run was chunked.
    """

    counts: dict[tuple[int, ...], int]
    first: dict[tuple[int, ...], int]

    @classmethod
    def of(cls, keys: np.ndarray, games: np.ndarray) -> "FirstGames":
        """``keys[g]`` is game ``g``'s key (a row of small non-negative integers)."""
        if len(keys) == 0:
            return cls({}, {})
        keys = keys.astype(np.int64)
        games = games.astype(np.int64)
        if np.any(np.diff(games) < 0):
            order = np.argsort(games, kind="stable")
            keys, games = keys[order], games[order]
        # One integer per key (mixed radix), so that finding the distinct keys is one sort of integers.
        radix = keys.max(axis=0) + 1
        code = np.zeros(len(keys), dtype=np.int64)
        for column, base in enumerate(radix):
            code = code * int(base) + keys[:, column]
        size = int(np.prod(radix, dtype=np.float64))
        if size <= 4 * len(code) + 4096:
            # Few possible keys (the usual case): count them in one walk, no sort.
            all_counts, all_first = _count_codes_nb(code, size)
            seen = np.flatnonzero(all_counts)
            counts, first_at = all_counts[seen], all_first[seen]
        else:
            _, first_at, counts = np.unique(code, return_index=True, return_counts=True)
        rows = keys[first_at]  # the first occurrence of each key, in game order: its lowest game
        keys_out = [tuple(int(v) for v in row) for row in rows]
        return cls(dict(zip(keys_out, (int(c) for c in counts))),
                   dict(zip(keys_out, (int(g) for g in games[first_at]))))

    def __eq__(self, other) -> bool:
        if not isinstance(other, FirstGames):
            return NotImplemented
        return self.counts == other.counts and self.first == other.first

    def merge(self, other: "FirstGames") -> "FirstGames":
        counts, first = dict(self.counts), dict(self.first)
        counts.update({key: counts.get(key, 0) + c for key, c in other.counts.items()})
        first.update({key: g if (f := first.get(key)) is None or g < f else f for key, g in other.first.items()})
        return FirstGames(counts, first)

    def to_json(self) -> list:
        return [[list(k), self.counts[k], self.first[k]] for k in sorted(self.counts)]

    @classmethod
    def from_json(cls, data: list) -> "FirstGames":
        return cls({tuple(k): int(c) for k, c, _ in data}, {tuple(k): int(f) for k, _, f in data})


def win_unit(players: int) -> int:
    """Units per win in which 1/k of a win is whole for any k up to ``players``: lcm(1..players)."""
    return math.lcm(*range(1, players + 1))
