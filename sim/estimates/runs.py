"""What a run costs: its games (records written, summary made), skill-gap duels, strength profile and
report, each calibrated on this machine; ``lvsim run --dry-run``."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping

from sim.estimates.costs import (
    ENOUGH_SECONDS, GROWTH, Clock, Cost, Timed, about_text, band, calibrate, compiled_text, kept, now, seconds_text,
)

_GAMES_COSTS: dict[tuple, Timed] = kept()
_EXTRA_COSTS: dict[tuple, tuple[Cost, Cost, Cost]] = kept()
_REPORT_SECONDS: dict[tuple, float] = kept()
_DECISIONS_SECONDS: dict[tuple, float] = kept()


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
    """Seconds of each part of a run of ``size``, and their ``total``: each part played pays its cost's ``start``
    (the first call of a process loading its compiled core) once."""

    def once(cost, games: int) -> float:
        return cost(games) + cost.start if games > 0 else 0.0

    parts = {
        "games": once(costs.games, size.games),
        "skill_gap": once(costs.skill_gap, size.deals),
        "strength": once(costs.strength, size.strength_games) + once(costs.strength_slow, size.strength_slow_games),
        "report": costs.report if report else 0.0,
    }
    parts["total"] = sum(parts.values())
    return parts


def games_key(config) -> tuple:
    return (config.game, config.rules, config.seat_policies, config.threads)


def games_cost(config, *, clock: Clock = now, cap: int | None = None) -> Timed:
    """The cost of playing ``config``'s games as a run does: in chunks, records written to Parquet, summary made.

    Kept per (game, rules, seats, threads) for the life of the process.
    The timed call's result is the summary of its games. Once other rules of the same game, policies and threads
    are timed, the timing starts near the games that take long enough to time (a sweep's cells), not at two.
    """
    key = games_key(config)
    if key not in _GAMES_COSTS:
        alike = [t.cost.per_game for (game, _, seats, threads), t in _GAMES_COSTS.items()
                 if (game, set(seats), threads) == (key[0], set(key[2]), key[3])]
        start = max(2, int(ENOUGH_SECONDS / GROWTH / alike[-1])) if alike and alike[-1] > 0 else 2
        from sim.runner import IN_PROCESS, GamesPlayed

        with tempfile.TemporaryDirectory(prefix="lvsim-estimate-") as tmp:
            path = Path(tmp) / "records.parquet"

            def play(n: int) -> dict[str, Any]:
                one = replace(config, games=n)
                with GamesPlayed(one, path) as played:
                    played.play(0, n, IN_PROCESS)
                return played.summary()

            _GAMES_COSTS[key] = calibrate(play, cap or config.games, start=start, clock=clock)
    return _GAMES_COSTS[key]


# What is said of a study's games before it plays them (a sweep cell's interval at its cap, the games its
# --target-ci needs) is read from this many of its first games at most, a slow policy's fewer: a number the
# config decides, so that the sentence is the same on any machine (a calibration's games depend on its speed).
SAMPLE_GAMES = 4_096
SAMPLE_GAMES_SLOW = 256


@dataclass(frozen=True)
class Sample:
    """The summary (``result``) of the first ``games`` games of a config, on its seed."""

    games: int
    result: dict[str, Any]


_SAMPLES: dict[tuple, Sample] = kept()


def sample_games(config, games: int) -> int:
    """The games of ``config`` a :func:`games_sample` plays: at most ``games``, :data:`SAMPLE_GAMES` (a slow
    policy's :data:`SAMPLE_GAMES_SLOW`) at most."""
    cap = SAMPLE_GAMES_SLOW if config.game_spec.is_slow(config.seat_policies) else SAMPLE_GAMES
    return max(1, min(games, cap))


def games_sample(config, games: int) -> Sample:
    """The summary of ``config``'s first :func:`sample_games` ``(config, games)`` games on its seed, the games
    the study plays first: the same on any machine. Kept per (game, rules, seats, seed, games) for the life of
    the process."""
    from sim.runner import IN_PROCESS, GamesPlayed

    n = sample_games(config, games)
    key = (config.game, config.rules, config.seat_policies, config.seed, n)
    if key not in _SAMPLES:
        with GamesPlayed(replace(config, games=n)) as played:
            played.play(0, n, IN_PROCESS)
        _SAMPLES[key] = Sample(n, played.summary())
    return _SAMPLES[key]


def extra_costs(config, *, clock: Clock = now) -> tuple[Cost, Cost, Cost]:
    """Costs of the skill gap (per deal), the fast strength profile (per game) and its slow policy (per game).

    The duels and profiles seat their own policies, and a rule change moves
    their speed far less than the noise of timing them: kept per (game,
    table shape, threads) for the life of the process.
    """
    size = RunSize.of(config)
    parts = (size.deals > 0, size.strength_games > 0, size.strength_slow_games > 0)
    key = (config.game, config.game_spec.table_shape(config.rules), config.threads, parts)
    if key not in _EXTRA_COSTS:
        from sim.duel import skill_gap
        from sim.runner import strength_profile

        parts = (
            (size.deals, lambda n: skill_gap(config.game_spec, config.rules, n, config.seed, threads=config.threads), {}),
            (size.strength_games, lambda n: strength_profile(config, n, 0), {"start": 16}),
            (size.strength_slow_games, lambda n: strength_profile(config, 0, n), {}),
        )
        _EXTRA_COSTS[key] = tuple(calibrate(play, n, clock=clock, **more).cost if n > 0 else Cost()
                                  for n, play, more in parts)
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


def decisions_played(config) -> int:
    """The games a run of ``config`` plays to say which decisions matter (``sim.decisions.run_decisions``); 0 when
    it leaves them out."""
    from sim.decisions import kinds_played, run_decision_deals, run_plays_decisions

    if not run_plays_decisions(config):
        return 0
    return kinds_played(config.game_spec, config.rules, list(config.seat_policies),
                        run_decision_deals(config))["total_games"]


def decisions_seconds(config) -> float:
    """About how long a run of ``config`` takes to say which decisions matter; kept for the life of the process."""
    from sim.decisions import run_decision_deals, seconds_of

    key = (games_key(config), config.skill_gap_deals, config.seed)
    if key not in _DECISIONS_SECONDS:
        _DECISIONS_SECONDS[key] = seconds_of(config.game_spec, config.rules, list(config.seat_policies),
                                             run_decision_deals(config), config.seed, config.threads)
    return _DECISIONS_SECONDS[key]


def run_costs(config, *, report: bool = True, clock: Clock = now) -> RunCosts:
    """What each part of a run costs, timed in the order the run plays them: its own games first."""
    games = games_cost(config, clock=clock).cost
    gap, fast, slow = extra_costs(config, clock=clock)
    return RunCosts(games, gap, fast, slow, report_seconds(config, clock=clock) if report else 0.0)


def plan_run(config, *, report: bool = True, clock: Clock = now) -> dict[str, Any]:
    """What ``lvsim run`` would play and about how long it takes; writes nothing.

    ``compiled_seconds``: what the calibrations spent compiling kernels (none
    when the kernel cache held them). The run then loads them from the cache
    instead, so they are not in its time.
    """
    from sim.estimates.compiling import compiled_seconds, compiled_since, compiles, other_tables
    from sim.sensitivity.study import plan_run_section

    compiled = compiled_seconds()
    size = RunSize.of(config)
    # Compiled and said as the run compiles them: the kernel of its own games first, then its other tables'.
    with compiles().as_one():
        games_cost(config, clock=clock)  # kept for the life of the process: run_costs reads it back
    with compiles().as_one(other_tables(config.game_spec.title)):
        costs = run_costs(config, report=report, clock=clock)
        section = plan_run_section(config, clock=clock)
        decided = decisions_played(config)
        decisions = decisions_seconds(config) if decided else 0.0
    parts = run_seconds(size, costs, report=report)
    parts["sensitivity"] = section["seconds"]
    parts["decisions"] = decisions
    parts["total"] += section["seconds"] + parts["decisions"]
    low, high = band(parts["total"])
    return {"name": config.name, "game": config.game, "players": config.players, "seats": list(config.seat_policies),
            "games": size.games, "skill_gap_deals": size.deals, "strength_games": size.strength_games,
            "strength_slow_games": size.strength_slow_games, "sensitivity_rule_sets": section["rule_sets"],
            "sensitivity_games": section["games"], "decisions_games": decided, "parts": parts, "seconds": [low, high],
            "compiled_seconds": compiled_since(compiled)}


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
    if plan.get("sensitivity_rule_sets"):
        lines.append(f"sensitivity {seconds_text(p['sensitivity'])} ({plan['sensitivity_rule_sets']} rule sets of "
                     f"{plan['sensitivity_games']:,} games: what moves the verdict)")
    if plan.get("decisions_games"):
        lines.append(f"decisions   {seconds_text(p['decisions'])} ({plan['decisions_games']:,} games: which decisions "
                     "matter)")
    if p["report"]:
        lines.append(f"report      {seconds_text(p['report'])}")
    lines += ["", *compiled_text(plan.get("compiled_seconds"), "run"), about_text(plan["seconds"])]
    return "\n".join(lines)
