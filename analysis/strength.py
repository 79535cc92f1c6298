"""Does a verdict hold for stronger players? The headline metrics against player strength, paired on the same deals.

A run's verdicts come from its seats' policies; a designer wants them for
real tables. The strength profile (``sim.runner.strength_profile``) plays the same rules
and the same deals with every seat ``random``, ``greedy``, ``expert`` and,
on fewer games, the game's slow, strong policy (``lookahead:16`` for Las
Vegan); this module compares the headline metrics across them and says in
one sentence whether the verdict moves.

Every profile is played on the run's seed, so game *i* is dealt the same
under every strength, and the slow policy's games are the first of the
others'. Two profiles are therefore compared game by game over the games
both played (:func:`compare`): the interval is that of the mean per-game
difference, far tighter than two intervals taken as independent, and valid
at the few games the slow policy plays (:func:`paired_difference` says how
each kind of metric is paired).

A metric *moves* between two strengths when that interval lies wholly
beyond its ``material`` difference, on one side (it is clearly material),
*holds* when it lies wholly within ±``material`` (clearly immaterial), and
is *undecided* otherwise: its games cannot tell, and the sentence says so
and names the command that would play until they can
(:func:`confirm_command`).
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from analysis.stats import CONFIDENCE, MIN_SAMPLES, Z95, t_quantile, wilson_interval, win_unit
from sim.metrics import ADVANTAGE, RATE, SEATS as SEATS_INTERVAL

ALPHA = 1 - CONFIDENCE
MOVES, HOLDS, UNDECIDED = "moves", "holds", "undecided"

# How a profile gives a metric game by game (:class:`Values`).
MEAN = "mean"  # one value a game; the metric is their mean
RATIO = "ratio"  # a numerator and a denominator a game; the metric is Σ numerators / Σ denominators
SEATS = "seats"  # every seat's win share a game; the metric is the largest |mean share − fair share|
SUMMARY = "summary"  # no value a game: the game's own summary of groups of games
# Groups of the delete-a-group jackknife a SUMMARY metric is compared by (fewer when fewer games).
JACKKNIFE_GROUPS = 20


# --- what a profile gives game by game -------------------------------------------------------------


@dataclass(frozen=True)
class Values:
    """One profile's per-game values of one headline metric, as :func:`paired_difference` reads them.

    ``kind`` is :data:`MEAN` (``x[i]`` is game *i*'s value: a rate's 0 or 1,
    seat 0's share minus the fair share, rounds played), :data:`RATIO`
    (``x[i] / y[i]`` summed: mean |swing| per round is cabbages moved over
    seat-rounds played), :data:`SEATS` (``x[i, s]`` is seat *s*'s win share in
    game *i*, ``fair`` the fair share) or :data:`SUMMARY` (the game gives no
    per-game value: ``records`` are summarised group by group). ``records``,
    the profile's games, come along with every kind, so that a metric one
    profile gives game by game and another does not is still compared.
    """

    kind: str
    x: np.ndarray | None = None
    y: np.ndarray | None = None
    fair: float = 0.0
    records: Mapping[str, np.ndarray] | None = field(default=None, repr=False)

    @property
    def games(self) -> int:
        if self.kind == SUMMARY:
            return len(next(iter(self.records.values()))) if self.records else 0
        return len(self.x)

    def head(self, n: int) -> "Values":
        """The values of the first ``n`` games (the deals another profile also played)."""
        records = None if self.records is None else {k: v[:n] for k, v in self.records.items()}
        if self.kind == SUMMARY:
            return Values(SUMMARY, records=records)
        return Values(self.kind, self.x[:n], None if self.y is None else self.y[:n], self.fair, records)

    def summarised(self) -> "Values":
        return Values(SUMMARY, records=self.records)

    def value(self) -> float:
        """The metric over these games (nan when undefined: no denominator, no game)."""
        if self.kind == MEAN:
            return float(self.x.mean()) if len(self.x) else math.nan
        if self.kind == RATIO:
            den = int(self.y.sum())
            return int(self.x.sum()) / den if den else math.nan
        if self.kind == SEATS:
            return float(np.abs(self.x.mean(axis=0) - self.fair).max()) if len(self.x) else math.nan
        raise ValueError("a SUMMARY metric's value comes from the game's summary")


def paired_and_ratios(game, rec: Mapping[str, np.ndarray], players: int) -> tuple[dict[str, np.ndarray], dict]:
    """Each paired metric's value in every game in reported units (an advantage as a share), and each ratio's
    per-game (numerators, denominators) as the game gives them: what a confirmation and a strength profile
    judge game by game."""
    unit = win_unit(players)
    paired = {name: np.asarray(values, dtype=np.float64) / (unit if game.metric[name].kind == ADVANTAGE else 1)
              for name, values in game.per_game(rec, players, unit).items()}
    return paired, game.per_game_ratios(rec, players) if game.per_game_ratios is not None else {}


def per_game_values(game, records: Mapping[str, np.ndarray], players: int,
                    summary: Mapping[str, Any]) -> dict[str, Values]:
    """Each headline metric of ``game`` game by game, from one profile's ``records`` (its ``summary`` checks them).

    A ratio the game declares (``Game.per_game_ratios``) is read as one; a
    paired metric (``Game.per_game``) as a mean; the worst seat's advantage
    through every seat's win share. Whatever these do not give, or give so
    that their metric over the profile's games is not the summary's own
    (seat 0's share of finished games only, say), is :data:`SUMMARY`.
    """
    paired, ratios = paired_and_ratios(game, records, players)
    out = {}
    for name, metric in game.strength_metrics.items():
        if name in ratios:
            num, den = ratios[name]
            values = Values(RATIO, np.asarray(num, dtype=np.int64), np.asarray(den, dtype=np.int64), records=records)
        elif name in paired:
            values = Values(MEAN, paired[name], records=records)
        elif metric.interval == SEATS_INTERVAL:
            values = Values(SEATS, np.asarray(records["win_share"], dtype=np.float64), fair=1 / players,
                            records=records)
        else:
            values = None
        if values is None or not _agrees(values.value(), summary.get(name)):
            values = Values(SUMMARY, records=records)
        out[name] = values
    return out


def _agrees(mine: float, theirs: float | None) -> bool:
    if theirs is None or math.isnan(mine):
        return False
    return abs(mine - theirs) <= 1e-9 * max(1.0, abs(theirs))


# --- intervals -----------------------------------------------------------------------------------


def _z(confidence: float) -> float:
    return Z95 if confidence == CONFIDENCE else NormalDist().inv_cdf(0.5 + confidence / 2)


def score_interval(mean: float, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson's score interval of the mean of ``n`` values in [0, 1]: a rate's 0s and 1s, a seat's win shares.

    A value in [0, 1] with mean p has variance at most p(1 − p), a rate's
    own, so the score interval of a rate covers such a mean at least as well.
    0 of n gives [0, 3.84/(n + 3.84)], never a width of 0.
    """
    if n <= 0 or math.isnan(mean):
        return math.nan, math.nan
    p = min(1.0, max(0.0, mean))
    z = _z(confidence)
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return (0.0 if p == 0 else max(0.0, min(p, centre - half)),
            1.0 if p == 1 else min(1.0, max(p, centre + half)))


def paired_score_interval(up: int, down: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """``(difference, low, high)`` of two rates paired game by game: Tango's score interval.

    Of ``n`` games, ``up`` count 1 under the second profile and 0 under the
    first, ``down`` the other way round; the difference is ``(up − down) / n``.
    The interval is every Δ that the score test of "the difference is Δ"
    does not reject (Tango, *Statistics in Medicine* 17, 1998), with the
    discordant rates estimated under that Δ by maximum likelihood. It keeps
    within [−1, 1], holds its estimate, and is never of width 0: with no
    discordant game it is ±3.84/(n + 3.84), as a proportion's 0 of n is.
    Chosen over a paired t with a variance floor because a metric like
    the tie rate has few discordant games in a small table, where a t
    interval is too narrow or, floored, arbitrary; the score interval covers
    close to its 95% at 16 to 300 games (``tests/analysis/test_strength.py``).
    """
    if n <= 0:
        return math.nan, math.nan, math.nan
    z = _z(confidence)
    d = (up - down) / n

    def score(delta: float) -> float:
        b = -(up + down) + delta * (2 * n - up + down)
        c = -down * delta * (1 - delta)
        q = (-b + math.sqrt(max(b * b - 8 * n * c, 0.0))) / (4 * n)  # the restricted estimate of the down rate
        var = n * (2 * q + delta - delta * delta)
        num = up - down - n * delta
        if var <= 0:
            return 0.0 if num == 0 else math.copysign(math.inf, num)
        return num / math.sqrt(var)

    # score falls as delta grows, through 0 at the estimate: each end is where it crosses ±z.
    def crossing(inside: float, end: float, target: float) -> float:
        if (score(end) - target) * (score(inside) - target) >= 0:
            return end
        for _ in range(200):
            mid = (inside + end) / 2
            if mid in (inside, end):
                break
            if (score(mid) - target) * (score(inside) - target) > 0:
                inside = mid
            else:
                end = mid
        return end

    low = -1.0 if d <= -1 else crossing(d, -1.0, z)
    high = 1.0 if d >= 1 else crossing(d, 1.0, -z)
    return d, min(low, d), max(high, d)


def paired_t_interval(d: np.ndarray, span: float, confidence: float = CONFIDENCE,
                      estimate: float | None = None) -> tuple[float, float, float]:
    """``(mean, low, high)`` of per-game differences ``d``: Student's t, with a floor on the variance.

    The variance is the larger of the sample variance and
    ``(span²/4 + Σ (d − mean)²) / (n + 1)``: the games as if one more had
    differed by half of ``span``, the range a difference can take
    (2 for a rate or a win share). So games that all differ alike (16 games
    of 4 rounds each under both profiles) still give an interval, never one
    of width 0; over many games the floor is below the sample variance and
    changes nothing. ``estimate`` centres the interval elsewhere than the
    mean (a ratio's difference, whose linearised values have mean 0).
    Fewer than :data:`~analysis.stats.MIN_SAMPLES` games give no interval.
    """
    d = np.asarray(d, dtype=np.float64)
    n = len(d)
    centre = float(d.mean()) if estimate is None and n else (math.nan if estimate is None else estimate)
    if n < MIN_SAMPLES or math.isnan(centre):
        return centre, math.nan, math.nan
    ss = float(((d - d.mean()) ** 2).sum())
    var = max(ss / (n - 1), (span * span / 4 + ss) / (n + 1))
    half = t_quantile(0.5 + confidence / 2, n - 1) * math.sqrt(var / n)
    return centre, centre - half, centre + half


def _linearised(num: np.ndarray, den: np.ndarray) -> tuple[float, np.ndarray]:
    """A ratio of sums and each game's linearised part in it (the delta method): ``(num − R·den) / mean(den)``."""
    total = int(den.sum())
    if total == 0:
        return math.nan, np.full(len(num), math.nan)
    ratio = int(num.sum()) / total
    return ratio, (num - ratio * den) / (total / len(den))


def _span(metric, *values: np.ndarray, difference: bool = False) -> float:
    """The span :func:`paired_t_interval`'s floor takes: the range a per-game value of ``metric`` can take (1 for
    a rate or a share, whose differences span 2), or for a mean in the game's units the range seen, values and
    differences alike (a guard against a width of 0, not a bound)."""
    if metric.kind in (RATE, ADVANTAGE):
        return 2.0 if difference else 1.0
    seen = np.concatenate([v[np.isfinite(v)] for v in values]) if values else np.zeros(0)
    return float(seen.max() - seen.min()) if len(seen) else 0.0


def _ratios(v: Values) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(v.y > 0, v.x / np.where(v.y > 0, v.y, 1), np.nan)


def _is_binary(metric, *values: Values) -> bool:
    return metric.kind == RATE and all(v.kind == MEAN and np.isin(v.x, (0.0, 1.0)).all() for v in values)


def worst_seat_range(shares: np.ndarray, n: int, fair: float, confidence: float) -> tuple[float, float]:
    """The range of the largest |seat share − fair| that every seat's score interval (at ``confidence``) allows."""
    low = high = 0.0
    for share in shares:
        lo, hi = score_interval(float(share), n, confidence)
        if math.isnan(lo):
            return math.nan, math.nan
        low = max(low, 0.0 if lo <= fair <= hi else min(abs(lo - fair), abs(hi - fair)))
        high = max(high, abs(lo - fair), abs(hi - fair))
    return low, high


def profile_interval(metric, values: Values, summary_ci: Sequence[float | None] | None) -> tuple[float, float]:
    """A profile's own 95% interval of ``metric`` from its per-game ``values``, valid at its number of games.

    A rate of 0s and 1s: Wilson's score interval; a mean: Student's t with
    :func:`paired_t_interval`'s floor; a ratio: the same over its linearised
    values, a rate's cut to [0, 1]; the worst seat: the range every seat's score interval allows
    (as the summary gives it, with score intervals in place of t, so that a
    seat with no win in 16 games does not pin one end at the estimate). A
    :data:`SUMMARY` metric keeps the summary's interval ``summary_ci``.
    """
    n = values.games
    if values.kind == SUMMARY:
        lo, hi = summary_ci if summary_ci else (None, None)
        return (math.nan if lo is None else lo), (math.nan if hi is None else hi)
    if n == 0:
        return math.nan, math.nan
    if values.kind == SEATS:
        return worst_seat_range(values.x.mean(axis=0), n, values.fair, CONFIDENCE)
    if _is_binary(metric, values):
        return wilson_interval(int(values.x.sum()), n)
    if values.kind == MEAN:
        low, high = paired_t_interval(values.x, _span(metric, values.x))[1:]
    else:
        ratio, z = _linearised(values.x, values.y)
        low, high = paired_t_interval(z, _span(metric, _ratios(values)), estimate=ratio)[1:]
    if metric.kind == RATE:  # a share lies in [0, 1]: cut there, the interval covers at least as often
        low, high = max(low, 0.0), min(high, 1.0)
    return low, high


# --- two profiles on the same deals ----------------------------------------------------------------


def paired_difference(metric, a: Values, b: Values, n: int, game=None) -> dict[str, Any]:
    """``b − a`` over the first ``n`` games both played, with its 95% interval; ``method`` says how it was paired.

    * a rate of 0s and 1s: Tango's score interval (:func:`paired_score_interval`);
    * a mean: Student's t over the per-game differences, floored
      (:func:`paired_t_interval`; the span a difference can take is 2 for
      a rate or an advantage, the range of the values seen for a mean);
    * a ratio of sums: the same over the difference of each game's
      linearised values, ``(x − R·y) / mean(y)`` for each profile (the delta
      method), centred on the difference of the two ratios;
    * the worst seat's advantage, ``W = max_s |share_s − fair|``: not a mean of
      anything, and not smooth. Two intervals, each at 97.5%, are
      intersected. First, paired: ``|W_b − W_a| ≤ max_s |δ_s|``, δ_s the
      paired difference of seat s's share (the largest of several distances
      moves by at most the largest move of one), so ``[−M, M]`` with M the
      largest end of the seats' paired t intervals, Bonferroni over the seats
      (each at 1 − 0.025/seats). Second, each profile's W lies in the range
      its seats' score intervals allow (each seat at 1 − 0.0125/seats), so
      ``W_b − W_a`` lies between ``low_b − high_a`` and ``high_b − low_a``. The
      first can say "holds", the second "moves"; the estimate lies in both;
    * a :data:`SUMMARY` metric: the delete-a-group jackknife of the
      difference of the game's own summary of each profile, over up to
      :data:`JACKKNIFE_GROUPS` groups of games (Student's t over the groups),
      floored as a mean is (``game`` gives the summaries); none for a worst
      seat's advantage, which is not smooth enough for it (it is then undecided).

    Values of the difference are in the metric's units (a rate or an
    advantage as a fraction); None where undefined.
    """
    a, b = a.head(n), b.head(n)
    if a.kind != b.kind or a.kind == SUMMARY:
        a, b = a.summarised(), b.summarised()
        # The jackknife needs a smooth metric: a largest distance over seats is not one.
        smooth = metric.interval != SEATS_INTERVAL and a.records is not None and b.records is not None
        out = _jackknife(metric, a, b, n, game) if smooth else None
        return out or _entry(math.nan, math.nan, math.nan, math.nan, math.nan, n, "none")
    if a.kind == SEATS:
        return _worst_seat_difference(a, b, n)
    va, vb = a.value(), b.value()
    if _is_binary(metric, a, b):
        up = int(((b.x == 1) & (a.x == 0)).sum())
        down = int(((b.x == 0) & (a.x == 1)).sum())
        d, low, high = paired_score_interval(up, down, n)
        return _entry(va, vb, d, low, high, n, "paired score (Tango)")
    if a.kind == MEAN:
        _, low, high = paired_t_interval(b.x - a.x, _span(metric, a.x, b.x, difference=True), estimate=vb - va)
        return _entry(va, vb, vb - va, low, high, n, "paired t")
    _, za = _linearised(a.x, a.y)
    _, zb = _linearised(b.x, b.y)
    _, low, high = paired_t_interval(zb - za, _span(metric, _ratios(a), _ratios(b), difference=True),
                                       estimate=vb - va)
    return _entry(va, vb, vb - va, low, high, n, "paired t, linearised ratio")


def _entry(va, vb, d, low, high, n, method) -> dict[str, Any]:
    def plain(x):
        return None if x is None or math.isnan(x) else float(x)

    return {"from": plain(va), "to": plain(vb), "difference": plain(d), "low": plain(low), "high": plain(high),
            "games": int(n), "method": method}


def _worst_seat_difference(a: Values, b: Values, n: int) -> dict[str, Any]:
    va, vb = a.value(), b.value()
    d = vb - va
    if n < MIN_SAMPLES:
        return _entry(va, vb, d, math.nan, math.nan, n, "seats")
    seats = a.x.shape[1]
    each = 1 - ALPHA / 2 / seats
    largest = 0.0
    for s in range(seats):
        _, lo, hi = paired_t_interval(b.x[:, s] - a.x[:, s], 2.0, each)
        largest = max(largest, abs(lo), abs(hi))
    ranges = 1 - ALPHA / 4 / seats
    low_a, high_a = worst_seat_range(a.x.mean(axis=0), n, a.fair, ranges)
    low_b, high_b = worst_seat_range(b.x.mean(axis=0), n, b.fair, ranges)
    low, high = max(-largest, low_b - high_a), min(largest, high_b - low_a)
    return _entry(va, vb, d, min(low, d), max(high, d), n, "seats: paired shares and each table's range")


def _jackknife(metric, a: Values, b: Values, n: int, game) -> dict[str, Any] | None:
    if game is None or n < MIN_SAMPLES:
        return None
    groups = min(n, JACKKNIFE_GROUPS)
    which = np.arange(n) * groups // n

    def summarised(records, keep=None):
        part = records if keep is None else {k: v[keep] for k, v in records.items()}
        return game.summarize(game.tally(part)).get(metric.name)

    full_a, full_b = summarised(a.records), summarised(b.records)
    if full_a is None or full_b is None:
        return None
    d = full_b - full_a
    left_out = []
    for g in range(groups):
        keep = which != g
        ta, tb = summarised(a.records, keep), summarised(b.records, keep)
        if ta is None or tb is None:
            return None
        left_out.append(tb - ta)
    pseudo = groups * d - (groups - 1) * np.asarray(left_out)
    var = float(pseudo.var(ddof=1)) / groups
    if metric.kind in (RATE, ADVANTAGE):  # the floor of a mean, for a difference that can span 2
        var = max(var, (1.0 + n * (n - 1) * var) / (n * (n + 1)))
    half = t_quantile(0.5 + CONFIDENCE / 2, groups - 1) * math.sqrt(var)
    return _entry(full_a, full_b, d, d - half, d + half, n, f"jackknife over {groups} groups of games")


def judge(material: float, low: float | None, high: float | None) -> str:
    """:data:`MOVES` when ``[low, high]`` lies wholly beyond ±``material`` on one side, :data:`HOLDS` when wholly
    within it, :data:`UNDECIDED` otherwise (or with no interval)."""
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return UNDECIDED
    if low > material or high < -material:
        return MOVES
    if -material <= low and high <= material:
        return HOLDS
    return UNDECIDED


@dataclass
class Profile:
    """One strength of player as played: its policy, games, summary and per-game values of each headline metric."""

    policy: str
    games: int
    summary: Mapping[str, Any]
    values: dict[str, Values]

    @classmethod
    def of(cls, game, policy: str, records: Mapping[str, np.ndarray], summary: Mapping[str, Any],
           players: int) -> "Profile":
        return cls(policy, int(summary["games"]), summary, per_game_values(game, records, players, summary))

    def entry(self, metrics: Mapping[str, Any]) -> dict[str, Any]:
        """The profile as ``summary.json`` keeps it: policy, games and ``{metric: [value, low, high]}``."""
        return {"policy": self.policy, "games": self.games, "metrics": profile_entry(self.summary, metrics, self.values)}


def profile_entry(summary: Mapping[str, Any], metrics: Mapping[str, Any],
                  values: Mapping[str, Values] | None = None) -> dict[str, Any]:
    """The headline ``metrics`` of one strength's summary: ``{metric: [value, low, high]}``.

    With the profile's per-game ``values``, each interval is
    :func:`profile_interval`'s, valid at the profile's number of games;
    without, the summary's own.
    """
    out = {}
    for m, metric in metrics.items():
        ci = summary.get(f"{m}_ci") or [None, None]
        if values is not None and m in values:
            lo, hi = profile_interval(metric, values[m], ci)
            ci = [None if math.isnan(lo) else lo, None if math.isnan(hi) else hi]
        out[m] = [summary[m], *ci]
    return out


def compare(game, metrics: Mapping[str, Any], a: Profile, b: Profile) -> dict[str, Any]:
    """``b`` against ``a`` on the deals both played: each metric's paired difference, interval and verdict."""
    n = min(a.games, b.games)
    out = {}
    for m, metric in metrics.items():
        entry = paired_difference(metric, a.values[m], b.values[m], n, game)
        entry["verdict"] = judge(metric.material, entry["low"], entry["high"])
        out[m] = entry
    return {"from": a.policy, "to": b.policy, "games": n, "metrics": out}


# --- which comparisons, and the sentence -------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """The comparisons a verdict rests on: from the run's policy ``base`` up to ``strong`` (a fast policy above
    it) and on to ``slow``; or, when ``base`` is the strongest fast policy, up to ``slow`` and down to ``weaker``."""

    base: str | None
    strong: str | None = None
    slow: str | None = None
    weaker: str | None = None

    @property
    def pairs(self) -> list[tuple[str, str]]:
        if self.base is None:
            return []
        if self.strong is not None:
            return [(self.base, self.strong)] + ([(self.strong, self.slow)] if self.slow else [])
        return ([(self.base, self.slow)] if self.slow else []) + ([(self.base, self.weaker)] if self.weaker else [])


def plan(policies: Sequence[str], run_policy: str | None, order: Sequence[str]) -> Plan:
    """Which profiles the verdict compares, from the ``policies`` played (in play order, the slow one last).

    The comparison runs from the run's own policy (when every seat plays
    the same one and it is in the profile; else ``random``) to the
    strongest profile played on the large sample above it (the first of
    ``order`` played that is stronger, e.g. ``expert`` then ``greedy``), and
    then to the slow policy (the profile played last, when it is not in
    ``order``). When the run's policy is already the strongest of
    ``order`` (the default player), the comparison runs up to the slow
    policy and down to the next weaker one: would stronger tables, or
    weaker ones, change the verdict?
    """
    played = list(policies)
    base = run_policy if run_policy in played else "random"
    if base not in played:
        return Plan(None)
    ranked = [p for p in order if p in played]
    above = ranked[:ranked.index(base)] if base in ranked else [p for p in ranked if p != base]
    last = played[-1] if played else None
    slow = last if last is not None and last not in order and last != "random" and last != base else None
    if above:
        return Plan(base, strong=above[0], slow=slow)
    below = ranked[ranked.index(base) + 1:] if base in ranked else []
    weaker = below[0] if below else ("random" if "random" in played and base != "random" else None)
    return Plan(base, slow=slow, weaker=weaker)


def comparison_pairs(policies: Sequence[str], run_policy: str | None, order: Sequence[str],
                     fast: Sequence[str]) -> list[tuple[str, str]]:
    """Every comparison the strength block holds: the verdict's, then each fast policy against the next
    stronger one (``fast`` weakest first), each pair of policies once (in either direction)."""
    pairs = list(plan(policies, run_policy, order).pairs)
    played = [p for p in fast if p in policies]
    for a, b in zip(played, played[1:]):
        if (a, b) not in pairs and (b, a) not in pairs:
            pairs.append((a, b))
    return pairs


def confirm_command(config_path: str | None, players: int) -> str:
    """The command that plays a run's rules against stronger players until every headline metric is decided.

    With no ``config_path`` it names the ``config.toml`` every run writes
    into its results directory, as ``RESULTS_DIR/config.toml``: a summary
    says the same wherever its run was written (a sweep's cell and ``lvsim
    run`` of the cell's config give the same summary).
    """
    path = "RESULTS_DIR/config.toml" if config_path is None else shlex.quote(str(config_path))
    return f"lvsim confirm --config {path} --players {players}"


def strength_block(game, profiles: Sequence[Profile], run_policy: str | None, confirm: str) -> dict[str, Any]:
    """The strength profile as ``summary.json`` keeps it: ``profiles`` (each ``{policy, games, metrics}``),
    ``comparisons`` (each pair's :func:`compare`) and the ``verdict``."""
    metrics = game.strength_metrics
    by_policy = {p.policy: p for p in profiles}
    policies = [p.policy for p in profiles]
    pairs = comparison_pairs(policies, run_policy, game.strength_order, game.strength_policies)
    strength = {
        "profiles": [p.entry(metrics) for p in profiles],
        "comparisons": [compare(game, metrics, by_policy[a], by_policy[b]) for a, b in pairs],
    }
    strength["verdict"] = verdict(strength, run_policy, metrics, game.strength_order, confirm)
    return strength


def strength_table(strength: Mapping[str, Any], metrics: Mapping[str, Any]) -> pd.DataFrame:
    """One row per (metric, policy): value, 95% interval, games."""
    rows = []
    for entry in strength["profiles"]:
        for metric, (value, low, high) in entry["metrics"].items():
            rows.append({"metric": metric, "label": metrics[metric].label, "policy": entry["policy"],
                         "games": entry["games"], "value": value, "low": low, "high": high})
    return pd.DataFrame(rows)


def show(style: str, value: float | None) -> str:
    """A value as a sentence writes it: ``10.4%``, ``+2.5 pts``, ``3.66``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if style == "pct":
        return f"{100 * value:.1f}%"
    if style == "pts":
        return f"{100 * value:+.1f} pts"
    return f"{value:.2f}"


def show_difference(style: str, value: float | None) -> str:
    """A difference as a sentence writes it: percentage points for a rate or an advantage, signed."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if style in ("pct", "pts"):
        return f"{100 * value:+.1f} pts"
    return f"{value:+.2f}"


def _names(labels: Sequence[str]) -> str:
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def _changes(metrics: Mapping[str, Any], c: Mapping[str, Any], moved: list[str]) -> str:
    parts = []
    for m in moved:
        e, style = c["metrics"][m], metrics[m].style
        parts.append(f"{metrics[m].label} {show(style, e['from'])} → {show(style, e['to'])} "
                     f"({show_difference(style, e['difference'])}, 95% CI "
                     f"{show_difference(style, e['low']).removesuffix(' pts')} to {show_difference(style, e['high'])})")
    return "; ".join(parts)


def _split(c: Mapping[str, Any], metrics: Mapping[str, Any]) -> tuple[list[str], list[str], list[str], list[str]]:
    """The metrics that move, hold and are undecided, and those with no value in either table (a first-player
    advantage at 1 player), which no number of games decides."""
    by: dict[str, list[str]] = {MOVES: [], HOLDS: [], UNDECIDED: [], "undefined": []}
    for m in metrics:
        e = c["metrics"][m]
        by["undefined" if _no_value(e) else e["verdict"]].append(m)
    return by[MOVES], by[HOLDS], by[UNDECIDED], by["undefined"]


def _no_value(entry: Mapping[str, Any]) -> bool:
    """Whether a metric's comparison has no value in either table."""
    return entry.get("from") is None and entry.get("to") is None


def _rest(metrics: Mapping[str, Any], c: Mapping[str, Any], held: list[str], undecided: list[str],
          undefined: list[str]) -> str:
    """What neither moved: ``A and B stay within the difference that matters, but 300 deals cannot decide C``;
    and what has no value in either table."""
    labels = [metrics[m].label for m in held]
    parts = []
    if held:
        parts.append(f"{_names(labels)} {'stays' if len(labels) == 1 else 'stay'} within the difference that matters")
    if undecided:
        parts.append(f"{c['games']:,} deals cannot decide {_names([metrics[m].label for m in undecided])}")
    text = ", but ".join(parts)
    if undefined:
        labels = [metrics[m].label for m in undefined]
        none = f"{_names(labels)} {'has' if len(labels) == 1 else 'have'} no value in either table"
        text = f"{text}; {none}" if text else none
    return text


def verdict(strength: Mapping[str, Any], run_policy: str | None, metrics: Mapping[str, Any],
            order: tuple[str, ...], confirm: str | None = None) -> dict[str, Any]:
    """Which ``metrics`` move with player strength, and the sentence that says so.

    Reads ``strength["comparisons"]`` (:func:`compare` of the pairs
    :func:`plan` picks). The sentence names what moves (with both values on
    the same deals and the paired difference's interval), says when every
    metric holds, and names what the games cannot decide, with ``confirm``,
    the command that would play until they do. Returns ``from``, ``to``,
    ``moved``, ``held``, ``undecided`` (metric names, of the comparison
    the sentence leads with), ``compared`` (the pairs it rests on),
    ``confirm`` (when something is undecided) and ``sentence``.
    """
    confirm = confirm or "lvsim confirm --config RESULTS_DIR/config.toml"
    policies = [p["policy"] for p in strength.get("profiles", [])]
    chosen = plan(policies, run_policy, order)
    found = {(c["from"], c["to"]): c for c in strength.get("comparisons", [])}
    compared = [pair for pair in chosen.pairs if pair in found]
    if not compared:
        return {"from": chosen.base, "to": chosen.strong, "moved": [], "held": [], "undecided": [], "compared": [],
                "sentence": "Too few strengths were played to compare."}
    base = chosen.base
    parts: list[str] = []
    lead: tuple[str, list, list, list] | None = None
    undecided_anywhere = False
    for a, b in compared:
        c = found[(a, b)]
        moved, held, undecided, undefined = _split(c, metrics)
        undecided_anywhere |= bool(undecided)
        every_held = not undecided and not undefined  # every headline metric has a verdict
        n = f"{c['games']:,}"
        rest = _rest(metrics, c, held if not moved else [], undecided, undefined)
        seats = f"{b[0].upper()}{b[1:]} seats"
        if b == chosen.strong:
            if moved:
                parts.append(f"The verdict changes with player strength: from {a} to {b} seats on the same {n} deals, "
                             f"{_changes(metrics, c, moved)}" + (f"; {rest}" if rest else "")
                             + ". Judge these rules with players like the ones who will play them.")
            elif every_held:
                parts.append(f"The verdict holds for stronger players: from {a} to {b} seats on the same {n} deals, "
                             "every headline metric stays within the difference that matters.")
            else:
                parts.append(f"From {a} to {b} seats on the same {n} deals, no headline metric moves clearly and "
                             f"materially: {rest}.")
        elif a == chosen.strong:
            if moved:
                parts.append(f"{seats} differ from {a} too, on the same {n} deals: "
                             f"{_changes(metrics, c, moved)}, so even {a} is not yet the strongest table"
                             + (f"; {rest}" if rest else "") + ".")
            elif every_held:
                parts.append(f"{b} seats agree with {a} on the same {n} deals: every headline metric stays within "
                             "the difference that matters.")
            else:
                parts.append(f"{b} seats, on the same {n} deals, move no headline metric clearly and materially "
                             f"from {a}'s: {rest}.")
        elif b == chosen.slow:
            if moved:
                parts.append(f"Stronger {b} seats change the verdict: on the same {n} deals, "
                             f"{_changes(metrics, c, moved)}, so {a} is not yet the strongest table"
                             + (f"; {rest}" if rest else "") + ".")
            elif every_held:
                parts.append(f"The verdict holds for stronger players: on the same {n} deals, {b} seats agree with "
                             f"{a} on every headline metric, within the difference that matters.")
            else:
                parts.append(f"Stronger {b} seats, on the same {n} deals, move no headline metric clearly and "
                             f"materially: {rest}.")
        else:  # down the game's order: not said to be weaker, which only a duel of the two would show
            if moved:
                parts.append(f"{seats} instead would change it: {_changes(metrics, c, moved)}"
                             + (f"; {rest}" if rest else "")
                             + ". Judge these rules with players like the ones who will play them.")
            elif every_held:
                parts.append(f"{seats} instead would not change it: every headline metric "
                             f"stays within the difference that matters between {a} and {b} seats.")
            else:
                parts.append(f"{seats} instead move no headline metric clearly and materially: "
                             f"{rest}.")
        if lead is None:  # the sentence leads with the first comparison: up from the run's policy
            lead = (b, moved, held, undecided)
    if undecided_anywhere:
        where = " (RESULTS_DIR: the run's results directory)" if "RESULTS_DIR" in confirm else ""
        parts.append(f"'{confirm}'{where} plays on until they are decided.")
    to, moved, held, undecided = lead
    out = {"from": base, "to": to, "moved": moved, "held": held, "undecided": undecided,
           "compared": [list(pair) for pair in compared], "sentence": " ".join(parts)}
    if undecided_anywhere:
        out["confirm"] = confirm
    return out


def comparison_lines(strength: Mapping[str, Any], metrics: Sequence[Any], width: int = 34) -> list[str]:
    """The paired comparisons the verdict rests on, as rows of a text table: one row for each of ``metrics``,
    one column per comparison (difference, 95% interval, verdict)."""
    found = {(c["from"], c["to"]): c for c in strength.get("comparisons", [])}
    pairs = [tuple(p) for p in strength.get("verdict", {}).get("compared", [])] or list(found)
    shown = [found[p] for p in pairs if p in found]
    if not shown:
        return []
    heads = [f"{c['from']} → {c['to']} ({c['games']:,})" for c in shown]
    width = max(width, *(len(h) + 2 for h in heads))
    lines = ["  Paired on the same deals: difference (95% CI), and whether it moves, holds or is undecided",
             f"  {'':<25}" + "".join(h.rjust(width) for h in heads)]
    for metric in metrics:
        cells = []
        for c in shown:
            e = c["metrics"].get(metric.name)
            if e is None or _no_value(e):  # not compared, or no value in either table
                cells.append("n/a".rjust(width))
                continue
            number = {"pct": "{:+.1f}", "pts": "{:+.1f}"}.get(metric.style, "{:+.2f}")
            scale = 1 if metric.style == "num" else 100

            def cell(x, number=number, scale=scale):
                return "n/a" if x is None else number.format(scale * x)

            unit = "" if metric.style == "num" else " pts"
            cells.append(f"{cell(e['difference'])}{unit} [{cell(e['low'])}, {cell(e['high'])}] {e['verdict']}"
                         .rjust(width))
        lines.append(f"  {metric.title:<25}" + "".join(cells))
    return lines
