"""The cost model every estimate rests on: ``fixed + games * per_game`` seconds a call, fitted by timing.

Both terms are fitted by timing the same call at two sizes, the larger
grown until one call takes long enough to time (:func:`calibrate`). The
calibrations take the clock as an argument, so the arithmetic built on
them is tested with made-up costs and clocks.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Callable

from sim.estimates.compiling import seconds_text  # noqa: F401  (said here by every estimate)
from sim.wording import wrapped

Clock = Callable[[], float]

# A calibration call is grown until it takes this long: long enough to time, short enough to answer in seconds.
ENOUGH_SECONDS = 0.2
# At most this many times the games of the call before; once two calls are timed, the next is sized to take about
# OVERSHOOT x ENOUGH_SECONDS by their fit (and at least doubled), rather than grown by GROWTH past it.
GROWTH = 4
OVERSHOOT = 1.25
# The range said around a time computed from calibrated costs: the machine's load changes between the
# calibration and the playing (other programs, turbo, caches).
BAND = (0.8, 1.25)
MAX_SPAN = 4.0

# Every cache of calibrations the estimates keep for the life of the process (see :func:`kept`).
_KEPT: list[dict] = []


def kept() -> dict:
    """A new cache of calibrations, kept for the life of the process and emptied by :func:`forget`."""
    cache: dict = {}
    _KEPT.append(cache)
    return cache


def forget() -> None:
    """Drop every cost kept by this process (the machine's load has changed, or a test starts afresh)."""
    for cache in _KEPT:
        cache.clear()


def now() -> float:
    """The clock every calibration reads unless given another: ``time.perf_counter``, looked up when read."""
    return time.perf_counter()


@dataclass(frozen=True)
class Cost:
    """Seconds of one call that plays ``games`` games: ``fixed + games * per_game``; ``start``, paid once by the
    first call of a process (loading the compiled core), is apart: the estimates that play in a fresh process add it."""

    fixed: float = 0.0
    per_game: float = 0.0
    start: float = 0.0

    def __call__(self, games: float, calls: float = 1) -> float:
        return calls * self.fixed + games * self.per_game

    def __add__(self, other: "Cost") -> "Cost":
        return Cost(self.fixed + other.fixed, self.per_game + other.per_game, self.start + other.start)

    def as_dict(self) -> dict[str, float]:
        return {"fixed": self.fixed, "per_game": self.per_game}

    def sped_up(self, times: float) -> "Cost":
        """The cost with its games played ``times`` as fast (on a cluster); what a call costs whatever its games stays."""
        return Cost(self.fixed, self.per_game / max(times, 1e-9), self.start)


def fit(small: tuple[int, float], large: tuple[int, float]) -> Cost:
    """The cost through two timed calls ``(games, seconds)``, neither term below zero."""
    (n1, t1), (n2, t2) = small, large
    if n2 <= n1:
        raise ValueError(f"the larger call must play more games: {n1} then {n2}")
    per_game = max(0.0, (t2 - t1) / (n2 - n1))
    if per_game == 0.0:
        # The larger call was no quicker than the smaller (noise): half of it start-up, half its games.
        return Cost(t2 / 2, t2 / (2 * n2))
    return Cost(max(0.0, t2 - n2 * per_game), per_game)


@dataclass(frozen=True)
class Timed:
    """A calibration: the fitted cost, the largest call's games and what that call returned."""

    cost: Cost
    games: int
    result: Any = None


def calibrate(work: Callable[[int], Any], cap: int, *, start: int = 2, clock: Clock = now,
              enough: float = ENOUGH_SECONDS, growth: int = GROWTH, warm_up: bool = True) -> Timed:
    """Fit ``work(n)``'s cost: ``n`` from ``start``, grown (:func:`grown`) until a call takes ``enough`` or ``n`` is
    ``cap``.

    ``start`` is at least the threads a call shares its games among (two
    here): a call of one game leaves a thread idle and looks as slow as one
    of two. The first call (compiling, or loading the compiled core) is not fitted
    when ``warm_up``: what it took beyond the fitted cost of its games is the
    cost's ``start`` (none when it compiled kernels, as numba tells
    ``sim.estimates.compiling``: a later process loads them). With one timed call only (it took long enough at
    once), a second call at a quarter of its games (or at two games, after
    one) gives the fit. The two calls fitted are timed twice, the quicker
    time kept.
    """
    cap = max(1, cap)
    n = min(max(1, start), cap)
    first = None
    if warm_up:
        from sim.estimates.compiling import compiles

        compiled = compiles()
        kernels = compiled.kernels
        _, seconds = _timed(work, n, clock)
        # A first call that compiled kernels says nothing of what the next process pays: it loads them.
        first = (n, seconds) if compiled.kernels == kernels else None
    points: list[tuple[int, float]] = []
    while True:
        result, seconds = _timed(work, n, clock)
        points.append((n, seconds))
        if points[-1][1] >= enough or n >= cap:
            break
        n = min(cap, grown(points, enough, growth))
    if len(points) == 1:
        n, seconds = points[0]
        if n == 1 and cap == 1:
            return Timed(Cost(0.0, seconds), n, result)
        if n == 1:  # one game took long enough: two tell its start-up apart
            result, seconds = _timed(work, 2, clock)
            points.append((2, seconds))
        else:
            smaller = max(1, n // growth)
            points.insert(0, (smaller, _timed(work, smaller, clock)[1]))
    # Other programs only ever add time: the two calls fitted are timed once more and the quicker kept.
    (n1, t1), (n2, t2) = points[-2], points[-1]
    t1 = min(t1, _timed(work, n1, clock)[1])
    result, again = _timed(work, n2, clock)
    cost = fit((n1, t1), (n2, min(t2, again)))
    if first is not None:
        cost = replace(cost, start=max(0.0, first[1] - cost(first[0])))
    return Timed(cost, n2, result)


def grown(points: list[tuple[int, float]], enough: float = ENOUGH_SECONDS, growth: int = GROWTH) -> int:
    """The games of the next calibration call after the timed ``points`` ``(games, seconds)``, none of which took
    ``enough``: the games the last two calls' fit says take about :data:`OVERSHOOT` x ``enough``, at least twice
    the last call's (the two calls fitted stay apart) and at most ``growth`` times; ``growth`` times after one
    call. Grown by ``growth`` alone, the last call took up to four times ``enough``, and was timed twice."""
    n = points[-1][0]
    if len(points) < 2:
        return n * growth
    cost = fit(points[-2], points[-1])
    wanted = (OVERSHOOT * enough - cost.fixed) / cost.per_game if cost.per_game > 0 else n * growth
    return int(min(n * growth, max(2 * n, round(wanted))))


def _timed(work: Callable[[int], Any], n: int, clock: Clock) -> tuple[Any, float]:
    began = clock()
    result = work(n)
    return result, clock() - began


def band(low: float, high: float | None = None) -> tuple[float, float]:
    """The range said for computed seconds ``low`` to ``high``: widened by the machine's load (:data:`BAND`).

    Never wider than :data:`MAX_SPAN` times, a range that says little: the
    low end is then raised to a quarter of the high end.
    """
    high = low if high is None else high
    low, high = BAND[0] * low, BAND[1] * high
    return max(low, high / MAX_SPAN), high


def span_text(low: float, high: float) -> str:
    a, b = seconds_text(low), seconds_text(high)
    return a if a == b else f"{a} to {b}"


def compiled_text(seconds: float | None, what: str) -> list[str]:
    """A dry run's line when its calibrations compiled kernels (the study it estimates loads them instead); none
    when they compiled nothing."""
    if not seconds:
        return []
    return [wrapped(f"The dry run compiled the kernels ({seconds_text(seconds)}); the {what} will load them from the "
                    "cache, so that time is not in its estimate.")]


def about_text(seconds: tuple[float, float], undone: str = "written") -> str:
    """A dry run's last line: about how long the study takes played here, and what the dry run left undone."""
    low, high = seconds
    return f"About {span_text(low, high)} in this process on this machine. Nothing was {undone}."
