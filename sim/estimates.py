"""How long a run, sweep or tune will take, and which targets its games can resolve: said before playing.

Every time is a cost model calibrated on this machine: a call that plays
``n`` games costs ``fixed + n * per_game`` seconds. Both terms are fitted
by timing the same call at two sizes, the larger grown until one call
takes long enough to time (:func:`calibrate`): a slow policy is timed on
a few games and a fast one on thousands, and what a call costs whatever
its games (a duel's seat rotations, starting a run, writing its files) is
counted once per call instead of once per game.

The arithmetic (:func:`tune_games`, :func:`tune_seconds`, :func:`run_seconds`,
:func:`resolution`) takes the fitted costs, never a clock, so it is tested
with made-up costs; the calibrations take the clock as an argument.
"""

from __future__ import annotations

import math
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

Clock = Callable[[], float]


def now() -> float:
    """The clock every calibration reads unless given another: ``time.perf_counter``, looked up when read."""
    return time.perf_counter()


# A calibration call is grown until it takes this long: long enough to time, short enough to answer in seconds.
ENOUGH_SECONDS = 0.2
GROWTH = 4
# The range said around a time computed from calibrated costs: the machine's load changes between the
# calibration and the playing (other programs, turbo, caches).
BAND = (0.8, 1.25)
MAX_SPAN = 4.0
# A target is resolved when one setting's standard error is at most this share of the target's width.
RESOLVING_SHARE = 0.25
Z95 = 1.959964
# Fewer calibration games than this give too rough a standard error: a rate is then taken at 0.5.
MIN_SE_GAMES = 200


@dataclass(frozen=True)
class Cost:
    """Seconds of one call that plays ``games`` games: ``fixed + games * per_game``."""

    fixed: float = 0.0
    per_game: float = 0.0

    def __call__(self, games: float, calls: float = 1) -> float:
        return calls * self.fixed + games * self.per_game

    def __add__(self, other: "Cost") -> "Cost":
        return Cost(self.fixed + other.fixed, self.per_game + other.per_game)

    def as_dict(self) -> dict[str, float]:
        return {"fixed": self.fixed, "per_game": self.per_game}


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
    """Fit ``work(n)``'s cost: ``n`` from ``start``, times ``growth``, until a call takes ``enough`` or ``n`` is ``cap``.

    ``start`` is at least the threads a call shares its games among (two
    here): a call of one game leaves a thread idle and looks as slow as one
    of two. The first call (compiling, or loading the compiled core) is not timed
    when ``warm_up``. With one timed call only (it took long enough at
    once), a second call at a quarter of its games (or at two games, after
    one) gives the fit. The two calls fitted are timed twice, the quicker
    time kept.
    """
    cap = max(1, cap)
    n = min(max(1, start), cap)
    if warm_up:
        work(n)
    points: list[tuple[int, float]] = []
    result = None
    while True:
        began = clock()
        result = work(n)
        points.append((n, clock() - began))
        if points[-1][1] >= enough or n >= cap:
            break
        n = min(cap, n * growth)
    if len(points) == 1:
        n, seconds = points[0]
        if n == 1 and cap == 1:
            return Timed(Cost(0.0, seconds), n, result)
        if n == 1:  # one game took long enough: two tell its start-up apart
            began = clock()
            result = work(2)
            points.append((2, clock() - began))
        else:
            smaller = max(1, n // growth)
            began = clock()
            work(smaller)
            points.insert(0, (smaller, clock() - began))
    # Other programs only ever add time: the two calls fitted are timed once more and the quicker kept.
    (n1, t1), (n2, t2) = points[-2], points[-1]
    began = clock()
    work(n1)
    t1 = min(t1, clock() - began)
    began = clock()
    result = work(n2)
    t2 = min(t2, clock() - began)
    return Timed(fit((n1, t1), (n2, t2)), n2, result)


def band(low: float, high: float | None = None) -> tuple[float, float]:
    """The range said for computed seconds ``low`` to ``high``: widened by the machine's load (:data:`BAND`).

    Never wider than :data:`MAX_SPAN` times, a range that says little: the
    low end is then raised to a quarter of the high end.
    """
    high = low if high is None else high
    low, high = BAND[0] * low, BAND[1] * high
    return max(low, high / MAX_SPAN), high


def seconds_text(s: float) -> str:
    if s < 60:
        return f"{s:.1f} s"
    if s < 3600:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"


def span_text(low: float, high: float) -> str:
    a, b = seconds_text(low), seconds_text(high)
    return a if a == b else f"{a} to {b}"


# --- a run ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunCosts:
    """What a run's parts cost on this machine: its games, skill-gap duels, strength profile and report."""

    games: Cost  # per call playing the run's games, records written, summary made
    skill_gap: Cost = Cost()  # per call of the skill gap, per deal of every duel
    strength: Cost = Cost()  # per call of the fast profile policies, per game of each
    strength_slow: Cost = Cost()  # per call of the slow profile policy, per game
    report: float = 0.0  # the HTML report, whatever the games


@dataclass(frozen=True)
class RunSize:
    games: int
    deals: int = 0  # skill-gap deals
    strength_games: int = 0
    strength_slow_games: int = 0

    @classmethod
    def of(cls, config) -> "RunSize":
        fast, slow = config.strength_sizes
        has_slow = config.game_spec.strength_slow_policy is not None
        return cls(config.games, config.skill_gap_deals, fast, slow if has_slow else 0)


def run_seconds(size: RunSize, costs: RunCosts, report: bool = True) -> dict[str, float]:
    """Seconds of each part of a run of ``size``, and their ``total``."""
    parts = {
        "games": costs.games(size.games),
        "skill_gap": costs.skill_gap(size.deals) if size.deals > 0 else 0.0,
        "strength": (costs.strength(size.strength_games) if size.strength_games > 0 else 0.0)
        + (costs.strength_slow(size.strength_slow_games) if size.strength_slow_games > 0 else 0.0),
        "report": costs.report if report else 0.0,
    }
    parts["total"] = sum(parts.values())
    return parts


_GAMES_COSTS: dict[tuple, Timed] = {}
_EXTRA_COSTS: dict[tuple, tuple[Cost, Cost, Cost]] = {}
_REPORT_SECONDS: dict[tuple, float] = {}


def forget() -> None:
    """Drop every cost kept by this process (the machine's load has changed, or a test starts afresh)."""
    for kept in (_GAMES_COSTS, _EXTRA_COSTS, _REPORT_SECONDS, _EVALUATION_COSTS):
        kept.clear()


def games_key(config) -> tuple:
    return (config.game, config.rules, config.seat_policies, config.threads)


def games_cost(config, *, clock: Clock = now, cap: int | None = None) -> Timed:
    """The cost of playing ``config``'s games as a run does: in chunks, records written to Parquet, summary made.

    Kept per (game, rules, seats, threads) for the life of the process.
    The timed call's result is the summary of its games.
    """
    key = games_key(config)
    if key not in _GAMES_COSTS:
        from sim.runner import IN_PROCESS, GamesPlayed

        with tempfile.TemporaryDirectory(prefix="lvsim-estimate-") as tmp:
            path = Path(tmp) / "records.parquet"

            def play(n: int) -> dict[str, Any]:
                one = replace(config, games=n)
                with GamesPlayed(one, path) as played:
                    played.play(0, n, IN_PROCESS)
                return played.summary()

            _GAMES_COSTS[key] = calibrate(play, cap or config.games, clock=clock)
    return _GAMES_COSTS[key]


def extra_costs(config, *, clock: Clock = now) -> tuple[Cost, Cost, Cost]:
    """Costs of the skill gap (per deal), the fast strength profile (per game) and its slow policy (per game).

    The duels and profiles seat their own policies, and a rule change moves
    their speed far less than the noise of timing them: kept per (game,
    player count, rounds, threads) for the life of the process.
    """
    size = RunSize.of(config)
    parts = (size.deals > 0, size.strength_games > 0, size.strength_slow_games > 0)
    key = (config.game, config.players, getattr(config.rules, "rounds", None), config.threads, parts)
    if key not in _EXTRA_COSTS:
        from sim.duel import skill_gap
        from sim.runner import strength_profile

        game = config.game_spec
        gap = Cost()
        if size.deals > 0:
            gap = calibrate(lambda n: skill_gap(game, config.rules, n, config.seed, threads=config.threads),
                            size.deals, clock=clock).cost
        fast = Cost()
        if size.strength_games > 0:
            fast = calibrate(lambda n: strength_profile(config, n, 0), size.strength_games, start=16,
                             clock=clock).cost
        slow = Cost()
        if size.strength_slow_games > 0:
            slow = calibrate(lambda n: strength_profile(config, 0, n), size.strength_slow_games,
                             clock=clock).cost
        _EXTRA_COSTS[key] = (gap, fast, slow)
    return _EXTRA_COSTS[key]


def report_seconds(config, *, clock: Clock = now) -> float:
    """Seconds of a run's HTML report: one written for a small run of ``config`` in a scratch directory.

    The report is drawn from the tallies, not the records: its time hardly
    depends on the games or on who plays them, so the small run is played
    at random (a slow policy would make the estimate as long as the run).
    Nor does the player count change it much: kept per (game, one policy or
    several) for the life of the process.
    """
    several = len(set(config.seat_policies)) > 1
    key = (config.game, several)
    if key not in _REPORT_SECONDS:
        from sim.runner import run, write_report_or_say_how

        seats = ["random"] * (config.players - 1) + ["greedy"] if several else "random"
        small = replace(config, seats=seats, games=512, skill_gap_games=min(config.skill_gap_deals, 1),
                        strength_games=min(config.strength_sizes[0], 16) if config.strength_sizes[0] else 0,
                        strength_slow_games=min(config.strength_sizes[1], 1) if config.strength_sizes[1] else 0)
        with tempfile.TemporaryDirectory(prefix="lvsim-estimate-") as tmp:
            out = Path(tmp) / "run"
            run(small, out=out, progress=False, report=False)
            began = clock()  # the first report of a process sets up the plotting, as the run's will
            write_report_or_say_how(out)
            _REPORT_SECONDS[key] = clock() - began
    return _REPORT_SECONDS[key]


def run_costs(config, *, report: bool = True, clock: Clock = now) -> RunCosts:
    gap, fast, slow = extra_costs(config, clock=clock)
    return RunCosts(games_cost(config, clock=clock).cost, gap, fast, slow,
                    report_seconds(config, clock=clock) if report else 0.0)


def plan_run(config, *, report: bool = True, clock: Clock = now) -> dict[str, Any]:
    """What ``lvsim run`` would play and about how long it takes; writes nothing."""
    size = RunSize.of(config)
    parts = run_seconds(size, run_costs(config, report=report, clock=clock), report=report)
    low, high = band(parts["total"])
    return {"name": config.name, "game": config.game, "players": config.players, "seats": list(config.seat_policies),
            "games": size.games, "skill_gap_deals": size.deals, "strength_games": size.strength_games,
            "strength_slow_games": size.strength_slow_games, "parts": parts, "seconds": [low, high]}


def run_plan_text(plan: Mapping[str, Any]) -> str:
    p = plan["parts"]
    lines = [f"Run {plan['name']}: {plan['game']}, {plan['players']} players ({', '.join(dict.fromkeys(plan['seats']))}), "
             f"{plan['games']:,} games"]
    lines.append(f"games       {seconds_text(p['games'])}")
    if plan["skill_gap_deals"]:
        lines.append(f"skill gap   {seconds_text(p['skill_gap'])} ({plan['skill_gap_deals']:,} deals of each duel)")
    if plan["strength_games"] or plan["strength_slow_games"]:
        lines.append(f"strength    {seconds_text(p['strength'])} ({plan['strength_games']:,} games per profile policy, "
                     f"{plan['strength_slow_games']:,} with the slow one)")
    if p["report"]:
        lines.append(f"report      {seconds_text(p['report'])}")
    low, high = plan["seconds"]
    lines += ["", f"About {span_text(low, high)} in this process on this machine. Nothing was written."]
    return "\n".join(lines)


# --- a tune -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Evaluations:
    """How many evaluations (one candidate at every setting) a tune plays at each number of games.

    ``low`` and ``high`` map games -> evaluations: about the least and the
    most the tune can play; ``likely`` the most to expect: one finalist
    replayed up to ``max_games`` (it sits on a target's edge), the others
    stopping once their targets are decided.
    """

    low: dict[int, int]
    likely: dict[int, int]
    high: dict[int, int]

    def games(self, which: str) -> int:
        return sum(g * n for g, n in getattr(self, which).items())


def _add(counts: dict[int, int], games: int, n: int) -> None:
    if n > 0:
        counts[games] = counts.get(games, 0) + n


def tune_games(*, budget: int, domain: int, games: int, max_games: int, finalists: int, dims: int,
               halving: int, final_growth: int, decided_games: int | None = None) -> Evaluations:
    """The evaluations of a tune by games: search, simplification, successive halving and the final replay.

    ``domain`` is how many distinct candidates exist; ``dims`` the values
    searched (the simplification tries each changed value back towards the
    base's, twice at most per value and finalist in the count of the
    ``high`` end); ``decided_games`` the games at which a target's
    interval is narrow enough to be decided for a candidate that is not on
    its edge (None: the first final replay decides).
    """
    searched = min(budget, domain)
    # The simplified candidates join the searched ones in the halving: none, each changed value of each
    # finalist tried once, and once more a step towards the base's.
    simplified = {"low": 0, "likely": finalists * dims, "high": finalists * 2 * dims}
    out = {}
    for end, extra in simplified.items():
        counts: dict[int, int] = {}
        _add(counts, games, searched + extra)
        n, g = searched + extra, games
        while n > finalists and g * halving <= max_games:
            n = max(finalists, math.ceil(n / halving))
            g *= halving
            _add(counts, g, n)
        kept = min(n, finalists)
        # The finalists and the base rules (unless the base is a finalist) on the fresh seed, each replayed
        # with more games until its targets are decided: one in a target's middle half at ``decided_games``,
        # one on a target's edge (a finalist met the targets on the search's deals, often only just) at
        # ``max_games``.
        steps = [min(max_games, g * final_growth ** k) for k in range(_growth_steps(g, max_games, final_growth))]
        decided_steps = []
        for step in steps:
            decided_steps.append(step)
            if decided_games is None or step >= decided_games:
                break
        if end == "high":
            for step in steps:
                _add(counts, step, finalists + 1)
        else:
            for step in decided_steps:
                _add(counts, step, kept + 1)
            if end == "likely":
                for step in steps[len(decided_steps):]:
                    _add(counts, step, 1)
        out[end] = counts
    low, likely, high = out["low"], out["likely"], out["high"]
    return Evaluations(low, likely, high)


def _growth_steps(games: int, max_games: int, growth: int) -> int:
    k = 1
    while games * growth ** (k - 1) < max_games:
        k += 1
    return k


def tune_seconds(evaluations: Evaluations, costs: Sequence[Cost], *, report: float = 0.0,
                 trial: float = 0.0) -> dict[str, float]:
    """Seconds at each end: every evaluation costs the sum over the settings of each setting's cost at its games.

    ``report`` is the balance report's seconds; ``trial`` what the search
    spends per candidate beyond its games (the sampler, the stored file).
    """
    def total(counts: Mapping[int, int]) -> float:
        return sum(n * (sum(c(g) for c in costs) + trial) for g, n in counts.items()) + report

    return {"low": total(evaluations.low), "likely": total(evaluations.likely), "high": total(evaluations.high)}


# --- resolution ------------------------------------------------------------------------------


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


# --- a tune's plan -----------------------------------------------------------------------------

# What the search spends per candidate beyond its games, per value searched: the sampler's ask and
# tell and the journal (measured on this machine: about 35 ms a trial with 10 values, at 150 trials).
TRIAL_SECONDS_PER_DIM = 0.0035
_EVALUATION_COSTS: dict[tuple, Timed] = {}


def evaluation_cost(tune, players: int, policy: str, *, clock: Clock = now) -> Timed:
    """The cost of one evaluation of a candidate at one setting (its games and the skill-gap duels its targets name).

    Timed on the base rules at growing games, up to the tune's; the timed
    call's result is the evaluation's row. Kept for the life of the process.
    """
    import json

    key = (json.dumps(tune.definition(), sort_keys=True, default=str), tune.base.threads, players, policy)
    if key not in _EVALUATION_COSTS:
        values = tune.base_values()
        _EVALUATION_COSTS[key] = calibrate(
            lambda n: tune.evaluate(values, players, policy, n, tune.seed), tune.games, start=2 * players,
            clock=clock)
    return _EVALUATION_COSTS[key]


def _target_value(target, row: Mapping[str, Any], players: int) -> tuple[float | None, float | None, float | None]:
    measure = getattr(target, "measure", None)
    if measure is not None:
        return tuple(_number(v) for v in measure(row, players))
    return tuple(_number(row.get(f"{target.metric}{end}")) for end in ("", "_lo", "_hi"))


def target_spread(target, row: Mapping[str, Any], players: int, games: int) -> Spread | None:
    x, lo, hi = _target_value(target, row, players)
    return spread_of({"x": x, "x_lo": lo, "x_hi": hi}, "x", games)


def tune_resolution(tune, *, clock: Clock = now) -> list[Resolution]:
    """For each two-sided target and setting: one standard error at the search's games against the target's width."""
    out = []
    for players, policy in tune.settings:
        timed = evaluation_cost(tune, players, policy, clock=clock)
        for t in tune.targets:
            if t.low is None or t.high is None:
                continue  # a bare bound has no width to resolve
            spread = target_spread(t, timed.result, players, timed.games)
            if spread is not None:
                out.append(resolution(getattr(t, "label", t.metric), f"{players} players, {policy}", t.high - t.low,
                                      spread, tune.games))
    return out


def _decided_games(tune, rows: Mapping[tuple[int, str], Timed]) -> int | None:
    """The games at which every target's 95% half-width is a quarter of its width (a candidate in its middle half
    is decided), at the slowest-resolving setting; None when no target can say."""
    need = None
    for (players, _), timed in rows.items():
        for t in tune.targets:
            spread = target_spread(t, timed.result, players, timed.games)
            if t.low is None or t.high is None:
                continue  # a bare bound is decided as soon as the interval clears it: no width says when
            width = t.high - t.low
            if spread is None or width <= 0:
                continue
            n = spread.games_for(RESOLVING_SHARE * width / Z95)
            need = n if need is None else max(need, n)
    return need


def _report_configs(tune, games: int) -> list:
    """The runs of the tune's balance report: one per setting the tune reports, else one at the base's setting."""
    values = tune.base_values()
    return [replace(tune.config(values, players, policy, name=f"{tune.name}-best"), games=games)
            for players, policy in tune.report_settings()]


def plan_tune(tune, *, calibrate_costs: bool = True, report: bool = True, report_games: int | None = None,
              clock: Clock = now) -> dict[str, Any]:
    """What a tune would play, about how long it takes and which targets its games can resolve; writes nothing."""

    rows = {s: evaluation_cost(tune, *s, clock=clock) for s in tune.settings} if calibrate_costs else {}
    decided = _decided_games(tune, rows) if rows else None
    counts = tune_games(budget=tune.budget, domain=tune.domain_size(), games=tune.games, max_games=tune.max_games,
                        finalists=tune.finalists, dims=len(tune.dims), halving=tune.halving,
                        final_growth=tune.final_growth, decided_games=decided)
    report_games = (report_games or tune.games) if report else 0
    plan: dict[str, Any] = {
        "name": tune.name, "game": tune.base.game, "seed": tune.seed, "budget": tune.budget,
        "settings": [tune.setting_name(p, pol) for p, pol in tune.settings],
        "games_per_setting": {"low": counts.games("low"), "likely": counts.games("likely"),
                              "high": counts.games("high"), "report": report_games},
        "evaluations": {k: {str(g): n for g, n in sorted(getattr(counts, k).items())}
                        for k in ("low", "likely", "high")},
        "seconds": None, "worst_seconds": None, "resolution": [],
    }
    if not rows:
        return plan
    report_s = 0.0
    if report:
        for config in _report_configs(tune, report_games):
            report_s += run_seconds(RunSize.of(config), run_costs(config, clock=clock))["total"]
            report_s += report_seconds(config, clock=clock)  # tune.html, drawn as a run's report is
    seconds = tune_seconds(counts, [r.cost for r in rows.values()], report=report_s,
                           trial=TRIAL_SECONDS_PER_DIM * len(tune.dims))
    low, high = band(seconds["low"], seconds["likely"])
    plan["seconds"] = [low, high]
    plan["worst_seconds"] = band(seconds["high"])[1]
    plan["report_seconds"] = report_s
    plan["costs"] = {tune.setting_name(p, pol): rows[(p, pol)].cost.as_dict() for p, pol in tune.settings}
    plan["resolution"] = [r.as_dict() for r in tune_resolution(tune, clock=clock)]
    return plan


def tune_plan_text(tune, plan: Mapping[str, Any]) -> str:
    g = plan["games_per_setting"]
    skill = any(t.metric.startswith("skill_gap_") for t in tune.targets)
    lines = [
        f"Tune {tune.name}: {tune.game.title}, {len(tune.dims)} values searched, {len(tune.targets)} targets, "
        f"seed {tune.seed}",
        f"judged at: {'; '.join(plan['settings'])}",
        "",
        f"search      {tune.budget:,} candidates x {tune.games:,} games (fewer if the domain is smaller)",
        f"simplify    none to {tune.finalists * 2 * len(tune.dims):,} candidates x {tune.games:,} games "
        "(each changed value of the best put back towards the base's)",
        f"halving     the best third, three times the games, same deals, until {tune.finalists} remain",
        f"final       the finalists and the base on a fresh seed, the games x{tune.final_growth} until every target "
        f"is decided (at most {tune.max_games:,})",
        f"in all      {g['low']:,} to {g['likely']:,} games per setting"
        + (f" ({g['high']:,} if every finalist's replay reaches {tune.max_games:,})" if g["high"] > g["likely"] else ""),
        f"report      {g['report']:,} games of the recommended rules, with skill gap and strength profile",
    ]
    if skill:
        lines.append("skill gap   every evaluation also plays the skill-gap duels the targets name, on about its "
                     "games (timed with them)")
    found = [Resolution(**{**{k: r[k] for k in ("metric", "setting", "width", "games", "games_needed")},
                           "se": r["standard_error"]}) for r in plan.get("resolution", [])]
    res = resolution_lines(found)
    if res:
        lines += [""] + res
    if plan["seconds"] is not None:
        low, high = plan["seconds"]
        worst = plan.get("worst_seconds")
        more = (f"; up to {seconds_text(worst)} if a finalist sits on a target's edge and its replay grows to "
                f"{tune.max_games:,} games") if worst is not None and seconds_text(worst) != seconds_text(high) else ""
        lines += ["", f"About {span_text(low, high)} in this process on this machine{more}. Nothing was written."]
    return "\n".join(lines)


