"""The estimates' arithmetic, on made-up costs and a fake clock: no test here times anything real.

How well the estimates hold on this machine is measured by bench/bench_estimates.py.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import sim.estimates as E
import sim.tune as T
from sim.cli import main
from tests.test_tune import PLANTED, write_tune


class FakeClock:
    """A clock that moves only when a fake piece of work says it took time."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def spend(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture(autouse=True)
def fresh_costs():
    E.forget()
    yield
    E.forget()


# --- calibration ------------------------------------------------------------------------------


def test_a_calibration_finds_the_fixed_cost_and_the_cost_per_game_and_leaves_compiling_out():
    clock = FakeClock()
    calls = []

    def work(n):
        calls.append(n)
        clock.spend((30.0 if len(calls) == 1 else 0.0) + 0.05 + n * 1e-4)  # the first call compiles

    timed = E.calibrate(work, 100_000, clock=clock)
    assert timed.cost.fixed == pytest.approx(0.05) and timed.cost.per_game == pytest.approx(1e-4)
    # Grown from 2 (a game per thread) until a call took 0.2 s: by 4, then to the 2,000 games that 128 and 512
    # games' fit says take 0.25 s (512 games took 0.10 s); the last two timed again.
    assert calls == [2, 2, 8, 32, 128, 512, 2000, 512, 2000] and timed.games == 2000


def test_a_call_just_short_of_long_enough_is_doubled_not_grown_four_times():
    """A sweep's next cell starts near the games the last took long enough to time (0.05 s here); its second call
    took 0.19 s: the third takes about 0.39 s, where four times the games took 0.78 s, timed twice."""
    clock = FakeClock()
    calls = []
    timed = E.calibrate(lambda n: (calls.append(n), clock.spend(0.003 + n * 1.4e-5)), 100_000, start=3422,
                        clock=clock)
    assert calls == [3422, 3422, 13688, 27376, 13688, 27376]
    assert timed.cost.fixed == pytest.approx(0.003) and timed.cost.per_game == pytest.approx(1.4e-5)


def test_a_calibration_keeps_the_quicker_of_two_timings():
    clock = FakeClock()
    calls = []

    def work(n):
        calls.append(n)
        clock.spend(0.1 + n * 1e-3 + (5.0 if len(calls) == 3 else 0.0))  # another program took the machine once

    timed = E.calibrate(work, 1000, start=64, clock=clock)
    assert calls == [64, 64, 256, 64, 256]
    assert timed.cost.fixed == pytest.approx(0.1) and timed.cost.per_game == pytest.approx(1e-3)


def test_a_calibration_never_plays_more_than_the_games_it_stands_for():
    clock = FakeClock()
    calls = []
    timed = E.calibrate(lambda n: (calls.append(n), clock.spend(0.01 + n * 1e-6)), 300, clock=clock)
    assert max(calls) == 300 and timed.games == 300
    assert timed.cost(300) == pytest.approx(0.01 + 300e-6)


def test_a_slow_call_is_timed_at_a_quarter_of_its_games_too():
    clock = FakeClock()
    calls = []
    timed = E.calibrate(lambda n: (calls.append(n), clock.spend(0.5 + 2.0 * n)), 1000, start=8, clock=clock)
    assert calls == [8, 8, 2, 2, 8]
    assert timed.cost.fixed == pytest.approx(0.5) and timed.cost.per_game == pytest.approx(2.0)


def test_a_fit_never_goes_below_zero():
    assert E.fit((100, 1.0), (400, 0.9)) == E.Cost(0.45, 0.9 / 800)  # noise: the larger call was quicker
    assert E.fit((100, 0.1), (400, 1.0)) == E.Cost(0.0, pytest.approx(0.003))


# --- a run --------------------------------------------------------------------------------------


def test_a_run_counts_each_part_once_and_the_duels_per_deal():
    costs = E.RunCosts(games=E.Cost(0.1, 1e-5), skill_gap=E.Cost(0.2, 0.5), strength=E.Cost(0.3, 1e-4),
                       strength_slow=E.Cost(0.1, 0.05), report=4.0)
    parts = E.run_seconds(E.RunSize(100_000, deals=20, strength_games=2000, strength_slow_games=16), costs)
    assert parts["games"] == pytest.approx(1.1)
    assert parts["skill_gap"] == pytest.approx(10.2)
    assert parts["strength"] == pytest.approx(0.5 + 0.9)
    assert parts["total"] == pytest.approx(1.1 + 10.2 + 1.4 + 4.0)
    assert E.run_seconds(E.RunSize(10, 0, 0, 0), costs, report=False)["total"] == pytest.approx(0.1001)


def test_the_said_range_is_never_wider_than_four_times():
    low, high = E.band(10.0, 20.0)
    assert low < 10.0 and high > 20.0 and high / low <= 4
    assert E.band(1.0, 100.0) == (125.0 / 4, 125.0)


# --- a tune ---------------------------------------------------------------------------------------


def test_a_tunes_evaluations_follow_its_halving_and_final_replay():
    counts = E.tune_games(budget=150, domain=10**9, games=2000, max_games=54_000, finalists=3, dims=10, halving=3,
                          final_growth=4)
    # 150 at 2,000; 50 at 6,000; 17 at 18,000; 6 at 54,000; the 3 finalists at 54,000 again, the base among them
    # at the fewest.
    assert counts.low == {2000: 150, 6000: 50, 18000: 17, 54000: 9}
    # At the most, 60 simplified candidates join the halving: 210, 70, 24, 8 and the final 4.
    assert counts.high == {2000: 150 + 60, 6000: 70, 18000: 24, 54000: 8 + 4}
    small = E.tune_games(budget=8, domain=8, games=200, max_games=20_000, finalists=2, dims=2, halving=3,
                         final_growth=4, decided_games=3000)
    # 8 at 200, 3 at 600, 2 at 1,800; the final replay of the 2 finalists and the base (at the fewest, one of
    # them) at 1,800, then 7,200 (past the 3,000 that decide a candidate off a target's edge), then 20,000 for
    # one on an edge.
    assert small.low == {200: 8, 600: 3, 1800: 2 + 2, 7200: 2}
    assert small.likely == {200: 8 + 2 * 2, 600: 4, 1800: 5, 7200: 3, 20_000: 1}
    assert small.high == {200: 8 + 2 * 2 * 2, 600: 6, 1800: 5, 7200: 3, 20_000: 3}
    assert E.tune_games(budget=100, domain=6, games=200, max_games=5400, finalists=2, dims=2, halving=3,
                        final_growth=4).low[200] == 6


def test_the_games_a_tune_says_it_plays_bracket_what_it_plays_when_the_base_is_its_finalist(tmp_path):
    """High Card's example tune keeps the base rules as its one finalist: its final replay plays them once, not
    as a finalist and again as the base, which the fewest games once counted (4,800 said; 3,400 played)."""
    from pathlib import Path

    tune = T.load_tune(Path(__file__).resolve().parents[1] / "examples" / "highcard" / "highcard-tune.toml")
    said = E.plan_tune(tune, report=False)["games_per_setting"]  # as the dry run says it
    result = T.tune(tune, out=tmp_path / "out", progress=False, report=False)
    assert result.summary["recommendation"]["changes"] == []  # the base rules won
    played = result.summary["timing"]["games_played_now"]
    assert said["low"] <= played <= said["high"], (said, played)


def test_a_skill_gap_duels_start_up_is_counted_once_per_evaluation_not_once_per_game():
    # An evaluation with duels: 0.4 s whatever its games, 20 us a game. The old estimate timed a duel
    # of 2 x players games and multiplied its time per game by every game: 0.4 / 8 s a game.
    cost = E.Cost(0.4, 2e-5)
    counts = E.tune_games(budget=60, domain=10**6, games=2000, max_games=54_000, finalists=3, dims=2, halving=3,
                          final_growth=4)
    seconds = E.tune_seconds(counts, [cost] * 3)
    true = sum(n * 3 * (0.4 + g * 2e-5) for g, n in counts.low.items())
    assert seconds["low"] == pytest.approx(true)
    per_game_only = counts.games("low") * 3 * (0.4 / 8 + 2e-5)
    assert per_game_only > 50 * seconds["low"]


def one_by_one(evaluate):
    """``evaluate_many`` (what a tune plays; the estimate times ``evaluate``) through a stand-in for ``evaluate``."""
    def evaluate_many(tune, requests, cluster=None):
        for i, request in enumerate(requests):
            yield i, evaluate(tune, *request)

    return evaluate_many


def fake_evaluations(monkeypatch, clock, fixed=0.3, per_game=1e-4):
    """sim.tune.evaluate replaced by one that costs ``fixed + games * per_game`` on ``clock``: the planted rows."""
    spent = []

    def evaluate(tune, values, players, policy, games, seed, cluster=None):
        seconds = fixed + games * per_game
        clock.spend(seconds)
        spent.append(seconds)
        rounds = values["rules.rounds"]
        half = 1.2 / math.sqrt(games)
        return {"mean_rounds": float(rounds), "mean_rounds_lo": rounds - half, "mean_rounds_hi": rounds + half}

    monkeypatch.setattr(T.evaluation, "evaluate", evaluate)
    monkeypatch.setattr(T.evaluation, "evaluate_many", one_by_one(evaluate))
    return spent


def test_a_tunes_estimate_brackets_what_its_evaluations_cost(tmp_path, monkeypatch):
    clock = FakeClock()
    spent = fake_evaluations(monkeypatch, clock)
    tune = T.load_tune(write_tune(tmp_path, PLANTED.replace("budget = 8", "budget = 6")))
    plan = E.plan_tune(tune, report=False, clock=clock)
    low, high = plan["seconds"]
    assert high / low <= 4
    spent.clear()
    T.tune(tune, out=tmp_path / "out", progress=False, report=False)
    actual = sum(spent)
    assert low <= actual <= high, (low, actual, high)


def test_a_target_finer_than_the_games_resolve_is_said_with_the_games_that_would():
    # A seat's advantage within +-1 pp at 2,000 games: one seat's standard error is about 1 pp.
    spread = E.Spread(math.sqrt(0.25 * 0.75 / 2000), 2000)
    r = E.resolution("worst_seat_advantage", "4 players, expert", 0.02, spread, 2000)
    assert not r.resolved and r.se == pytest.approx(0.0097, abs=1e-4)
    assert r.games_needed == math.ceil(2000 * (spread.se / 0.005) ** 2)  # about 7,500
    (line,) = E.resolution_lines([r])
    assert "finer than these games resolve" in line and f"{r.games_needed:,}" in line
    wide = E.resolution("elimination_rate", "4 players, expert", 0.2, E.Spread(0.011, 2000), 2000)
    assert wide.resolved
    assert E.resolution_lines([wide]) == ["Resolution: at 2,000 games a candidate, every target's standard error "
                                          "is at most a quarter of its width."]


def test_a_standard_error_comes_from_the_interval_else_a_share_at_its_widest():
    row = {"x": 0.5, "x_lo": 0.5 - 1.959964 * 0.01, "x_hi": 0.5 + 1.959964 * 0.01}
    assert E.spread_of(row, "x", 2500).se == pytest.approx(0.01)
    assert E.spread_of(row, "x", 2500).at(10_000) == pytest.approx(0.005)
    assert E.spread_of({"x": 0.3}, "x", 100).se == pytest.approx(0.05)  # too few games: sqrt(0.25 / 100)
    assert E.spread_of({"x": 3.2}, "x", 100) is None


@pytest.mark.slow("end to end")
def test_the_dry_run_and_the_tune_say_which_targets_their_games_cannot_resolve(tmp_path):
    fine = PLANTED.replace("mean_rounds = [2.5, 3.5]", "mean_rounds = [2.5, 3.5]\nfirst_player_advantage = "
                                                       "[-0.005, 0.005]").replace("budget = 8", "budget = 2")
    path = write_tune(tmp_path, fine)
    dry = CliRunner().invoke(main, ["tune", str(path), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "first_player_advantage (2 players, random): the target is 0.01 wide" in dry.stdout
    assert "finer than these games resolve" in dry.stdout and "mean_rounds (2 players" not in dry.stdout
    plan = json.loads(CliRunner().invoke(main, ["tune", str(path), "--dry-run", "--json"]).stdout)
    (unresolved,) = [r for r in plan["resolution"] if not r["resolved"]]
    assert unresolved["metric"] == "first_player_advantage" and unresolved["games_needed"] > 200
    result = CliRunner().invoke(main, ["tune", str(path), "--out", str(tmp_path / "out"), "--no-report"])
    assert result.exit_code == 0, result.output
    assert "first_player_advantage (2 players, random)" in result.stderr
    stored = json.loads((tmp_path / "out" / T.RESULT_FILE).read_text(encoding="utf-8"))["resolution"]
    assert [r["metric"] for r in stored if not r["resolved"]] == ["first_player_advantage"]


# --- a sweep ---------------------------------------------------------------------------------------


def test_a_sweep_cell_with_a_target_ci_plays_the_games_its_interval_needs_and_says_when_its_cap_comes_first():
    from sim.sweep.plan import CellPlan, _adaptive_games

    plan = CellPlan(games=1000, target_ci=0.01, max_games=10_000)
    summary = {"games": 4000, "first_player_advantage_ci": [-0.02, 0.02]}  # +-0.02 at 4,000 games
    low, high, calls, res = _adaptive_games(plan, E.Timed(E.Cost(0.1, 1e-5), 4000, summary))
    # +-0.01 needs 4 x 4,000 x 1.1 = 17,600 games: more than the cap.
    assert (low, high) == (math.floor(10_000 / 1.3), 10_000) and not res["resolved"]
    assert res["games_needed"] == 17_600 and res["half_width_at_cap"] == pytest.approx(0.02 * math.sqrt(0.4))
    plan = CellPlan(games=1000, target_ci=0.04, max_games=10_000)
    low, high, calls, res = _adaptive_games(plan, E.Timed(E.Cost(), 4000, summary))
    # +-0.04 needs 1,100 games, but a cell that grows grows by a quarter at least: 1,250, with the first
    # batch's wobble up to 1.3 times that; or no more than its 1,000 games when that batch lands inside.
    assert (low, high, calls) == (1000, math.ceil(1250 * 1.3), (2, 3)) and res["resolved"]


@pytest.mark.slow("end to end")
def test_a_run_dry_run_says_its_time_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.toml").write_text('game = "lasvegan"\n[run]\ngames = 300\nskill_gap_games = 0\n'
                                     'strength_games = 0\nstrength_lookahead_games = 0\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["run", "c.toml", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "300 games" in result.stdout and result.stdout.rstrip().endswith("Nothing was written.")
    plan = json.loads(CliRunner().invoke(main, ["run", "c.toml", "--dry-run", "--json"]).stdout)
    assert plan["games"] == 300 and 0 < plan["seconds"][0] < plan["seconds"][1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.toml"]


def test_a_run_dry_run_counts_which_decisions_matter_when_the_run_plays_them(tmp_path, monkeypatch):
    from sim.config import load_config
    from sim.decisions import RUN_FACTOR, kinds_played

    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.toml").write_text('game = "lasvegan"\n[run]\ngames = 300\nskill_gap_games = 2\n'
                                     'strength_games = 0\nstrength_lookahead_games = 0\nsensitivity_games = 0\n',
                                     encoding="utf-8")
    config = load_config("c.toml")
    result = CliRunner().invoke(main, ["run", "c.toml", "--dry-run", "--json", "--no-report"])
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    games = kinds_played(config.game_spec, config.rules, list(config.seat_policies),
                         config.skill_gap_deals * RUN_FACTOR)["total_games"]
    assert plan["decisions_games"] == games > 0 and plan["parts"]["decisions"] > 0
    assert f"\ndecisions   {E.seconds_text(plan['parts']['decisions'])} ({games:,} games: which decisions matter)" in \
        E.run_plan_text(plan)
    # A slow seat leaves them out of the run, and so of its plan.
    assert E.decisions_played(replace(config, seats=["lookahead:2"] + ["expert"] * 3)) == 0


@pytest.mark.slow("end to end")
def test_the_games_of_other_rules_are_timed_from_near_the_size_the_first_rules_took_to_time(monkeypatch):
    """A sweep's cells: the first rule set's calibration grows from two games; the next (here another player
    count), of the same game, seats and threads, starts where a call takes about a quarter of the time a
    calibration needs."""
    from sim.config import default_config
    from sim.estimates import runs

    starts = []
    real = runs.calibrate
    monkeypatch.setattr(runs, "calibrate", lambda *a, start=2, **k: starts.append(start) or real(*a, start=start, **k))
    E.forget()
    config = replace(default_config(), games=20_000, seats="greedy")
    first = E.games_cost(config).cost
    E.games_cost(config.with_overrides(players=3))
    assert starts == [2, max(2, int(E.ENOUGH_SECONDS / E.GROWTH / first.per_game))] and starts[1] > 2
    E.games_cost(config.with_overrides(threads=1))  # other threads: timed afresh
    assert starts[2] == 2
    E.forget()


SKILL_TARGET = PLANTED.replace("mean_rounds = [2.5, 3.5]", "mean_rounds = [2.5, 3.5]\n"
                               "skill_gap_greedy_vs_random = { min = 0.4 }").replace("budget = 8", "budget = 6")


def test_a_tune_with_a_skill_gap_target_is_estimated_within_what_it_then_spends(tmp_path, monkeypatch):
    """Games cost 20 us each and 0.05 s a call; the skill-gap duels 0.4 s a call whatever their deals.

    The estimate once timed the duels on 2 x players games and counted that time for every game: a
    tune of minutes was said to take hours. Here every piece of work spends fake seconds on a fake
    clock (the estimate's calibration and the tune alike), so the test times nothing real.
    """
    import time

    import sim.runner

    clock = FakeClock()
    monkeypatch.setattr(time, "perf_counter", clock)
    per_game, call, duel_call = 2e-5, 0.05, 0.4
    spent = []

    def play_chunk(config, first, n, threads=None):
        clock.spend(call + n * per_game)
        return None, None

    def duel(tune, d, config, games):
        clock.spend(duel_call + games * per_game)
        return {"win_share": 0.7, "win_share_ci": [0.6, 0.8]}

    def evaluate(tune, values, players, policy, games, seed, cluster=None):
        seconds = call + games * per_game + duel_call + games * per_game
        clock.spend(seconds)
        spent.append(seconds)
        rounds = values["rules.rounds"]
        half = 1.2 / math.sqrt(games)
        return {"mean_rounds": float(rounds), "mean_rounds_lo": rounds - half, "mean_rounds_hi": rounds + half,
                "skill_gap_greedy_vs_random": 0.7, "skill_gap_greedy_vs_random_lo": 0.6,
                "skill_gap_greedy_vs_random_hi": 0.8}

    monkeypatch.setattr(sim.runner.chunks, "play_chunk", play_chunk)
    monkeypatch.setattr(T.evaluation, "_duel", duel)
    monkeypatch.setattr(T.evaluation, "evaluate", evaluate)
    monkeypatch.setattr(T.evaluation, "evaluate_many", one_by_one(evaluate))
    tune = T.load_tune(write_tune(tmp_path, SKILL_TARGET))
    low, high = T.plan_tune(tune, report=False)["seconds"]
    spent.clear()
    T.tune(tune, out=tmp_path / "out", progress=False, report=False)
    actual = sum(spent)
    assert low / 2 <= actual <= 2 * high and high / low <= 4, (low, actual, high)


def test_a_sweep_says_before_playing_which_cells_cannot_reach_their_target_ci(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "base.toml").write_text('game = "lasvegan"\n[run]\ngames = 200\nskill_gap_games = 0\n'
                                        'strength_games = 0\nstrength_lookahead_games = 0\n[policies]\n'
                                        'seats = "random"\n', encoding="utf-8")
    (tmp_path / "s.toml").write_text('base = "base.toml"\n[sweep]\n"rules.golden_token" = [[3, 4], [4, 5]]\n',
                                     encoding="utf-8")
    options = ["--target-ci", "0.002", "--max-games", "400"]
    dry = CliRunner().invoke(main, ["sweep", "s.toml", "--dry-run", *options])
    assert dry.exit_code == 0, dry.output
    assert "Cell 000: first_player_advantage to ±0.002 needs about " in dry.stdout
    assert "more than its cap of 400" in dry.stdout
    played = CliRunner().invoke(main, ["sweep", "s.toml", "--out", "out", *options])
    assert played.exit_code == 0, played.output
    assert played.stderr.count("more than its cap of 400") == 2


def test_a_cluster_plays_the_games_share_as_many_times_faster_as_it_has_threads_playing_at_once():
    from sim.cluster import ClusterShape, cluster_shape
    from sim.errors import ConfigError

    # Three single-thread workers on two cores play two games at once, no faster than two threads here.
    local = ClusterShape(workers=3, threads=1, cores=2)
    assert local.parallel == 2 and local.speed_up(2) == 1.0 and local.speed_up(1) == 2.0
    machines = ClusterShape(workers=10, threads=8, cores=80)
    assert machines.speed_up(2) == 40.0
    assert E.Cost(0.5, 1e-3).sped_up(4) == E.Cost(0.5, 2.5e-4)  # what a call costs whatever its games stays
    assert cluster_shape() is None
    shape = cluster_shape(workers=2)
    assert shape.workers == 2 and shape.parallel <= shape.cores
    with pytest.raises(ConfigError, match="--workers"):
        cluster_shape(workers=0)


def test_a_tunes_dry_run_on_workers_says_so_and_scales_its_games(tmp_path, monkeypatch):
    from sim.cluster import ClusterShape

    clock = FakeClock()
    fake_evaluations(monkeypatch, clock, fixed=0.3, per_game=1e-4)
    tune = T.load_tune(write_tune(tmp_path, PLANTED.replace("budget = 8", "budget = 6")))
    here = E.plan_tune(tune, report=False, clock=clock)
    wide = ClusterShape(workers=4, threads=4, cores=16)
    there = E.plan_tune(tune, report=False, clock=clock, cluster=wide)
    assert there["seconds"][1] < here["seconds"][1]
    assert "on 4 workers (4 x 4 threads, 16 playing at once), timed on this machine" in T.plan_text(tune, there)
    assert "in this process on this machine" in T.plan_text(tune, here)


# --- what is said before a study: the same on any machine -------------------------------------------


class StepClock:
    """A machine of one speed: every read of the clock is ``step`` seconds after the one before, so every call
    timed takes ``step``. A slow machine's calibration stops at its first games, a fast one's grows to its cap."""

    def __init__(self, step: float):
        self.step, self.now = step, 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


FINE = PLANTED.replace("mean_rounds = [2.5, 3.5]", "mean_rounds = [2.5, 3.5]\nfirst_player_advantage = "
                       "[-0.005, 0.005]").replace("budget = 8", "budget = 2")


def test_a_tunes_dry_run_says_the_same_resolution_and_games_on_a_slow_machine_and_a_fast_one(tmp_path):
    tune = T.load_tune(write_tune(tmp_path, FINE))
    plans = []
    for step in (1.0, 1e-5):  # every timed call 1 s (the calibration stops at 4 games), or 10 us (it plays 200)
        E.forget()
        plans.append(E.plan_tune(tune, report=False, clock=StepClock(step)))
    slow, fast = plans
    assert slow["resolution"] == fast["resolution"] and slow["resolution"]
    assert slow["games_per_setting"] == fast["games_per_setting"] and slow["evaluations"] == fast["evaluations"]
    said = [line for line in T.plan_text(tune, slow).splitlines() if "standard error" in line]
    assert said == [line for line in T.plan_text(tune, fast).splitlines() if "standard error" in line] and said
    # Read from the base rules at the tune's games on its seed: the evaluation the search plays first.
    from sim.tune.evaluation import evaluate

    row = evaluate(tune, tune.base_values(), 2, "random", tune.games, tune.seed)
    assert [r.as_dict() for r in E.resolution_of_rows(tune, {(2, "random"): (row, tune.games)})] == slow["resolution"]


def test_a_tune_says_the_same_resolution_whatever_the_machines_speed_and_plays_no_game_more_for_it(tmp_path,
                                                                                                   monkeypatch):
    import time

    path = write_tune(tmp_path, FINE)
    said, played = [], []
    for k, (step, say) in enumerate([(1.0, True), (1e-5, True), (1e-5, False)]):
        E.forget()
        monkeypatch.setattr(time, "perf_counter", StepClock(step))
        lines: list[str] = []
        result = T.tune(T.load_tune(path), out=tmp_path / f"out{k}", progress=False, report=False,
                        say=lines.append if say else None)
        said.append(lines)
        played.append(result.summary["timing"]["games_played_now"])
    assert said[0] == said[1] and "first_player_advantage (2 players, random)" in said[0][0]
    assert played[1] == played[2]  # the base rules' evaluation said first is the search's first candidate
    dry = E.plan_tune(T.load_tune(path), report=False)
    assert said[0] == [line for line in T.plan_text(T.load_tune(path), dry).splitlines() if "standard error" in line]


def test_a_sweeps_target_ci_advice_is_the_same_on_a_slow_machine_and_a_fast_one(tmp_path, monkeypatch):
    import time

    from sim.sweep import load_sweep, plan_sweep, sweep_resolution

    (tmp_path / "base.toml").write_text('game = "lasvegan"\n[run]\ngames = 200\nskill_gap_games = 0\n'
                                        'strength_games = 0\nstrength_lookahead_games = 0\n[policies]\n'
                                        'seats = "random"\n', encoding="utf-8")
    (tmp_path / "s.toml").write_text('base = "base.toml"\n[sweep]\n"rules.golden_token" = [[3, 4], [4, 5]]\n',
                                     encoding="utf-8")
    sweep = load_sweep(tmp_path / "s.toml")
    seen = []
    for step in (1.0, 1e-5):
        E.forget()
        monkeypatch.setattr(time, "perf_counter", StepClock(step))
        rows = plan_sweep(sweep, target_ci=0.01, max_games=2000)
        E.forget()
        before = sweep_resolution(sweep, target_ci=0.01, max_games=2000)
        seen.append(([(r["expected_games"], r["resolution"]) for r in rows], before))
    assert seen[0] == seen[1]
    assert seen[0][0][0][1]["games_needed"] == seen[0][1][0]["resolution"]["games_needed"] > 2000


def test_a_config_sample_is_its_first_games_fewer_with_a_slow_policy():
    from dataclasses import replace

    from sim.config import default_config

    config = default_config()
    assert E.sample_games(config, 100_000) == E.SAMPLE_GAMES and E.sample_games(config, 300) == 300
    assert E.sample_games(replace(config, seats="lookahead:16"), 100_000) == E.SAMPLE_GAMES_SLOW


# --- compiling the kernels ---------------------------------------------------------------------------


class FakeTimers:
    """Timers that fire only when the test says so: ``fire()`` the one started last, as if it had run out."""

    def __init__(self):
        self.started: list[list] = []  # [seconds, call, cancelled or fired]

    def __call__(self, seconds, call):
        timer = [seconds, call, False]
        self.started.append(timer)

        class Handle:
            def cancel(self):
                timer[2] = True

        return Handle()

    def waiting(self) -> int:
        return sum(not done for _, _, done in self.started)

    def fire(self) -> None:
        timer = self.started[-1]
        assert not timer[2]
        timer[2] = True
        timer[1]()


def test_a_games_compilation_is_said_as_it_starts_then_when_nothing_has_compiled_for_a_moment():
    """Outside a group, a game's kernels compile one after another with a moment of play between them (a tally
    kernel, the kernel of play, a statistics kernel): one notice, and one "compiled in" once nothing has
    compiled for ``quiet`` seconds, with the time of them all; a later bout is said as more kernels."""
    from sim.estimates.compiling import Compiles
    from sim.games import get_game

    clock, timers = FakeClock(), FakeTimers()
    heard: list[str] = []
    found = Compiles(clock=clock, quiet=2.0, timer=timers)
    with found.heard(heard.append):
        found.started("sim.lasvegan.report_tally")
        assert len(heard) == 1 and heard[0].startswith("Compiling the kernels of Las Vegan (")
        assert f"usually about {get_game('lasvegan').compile_seconds:.0f} s on 2 cores" in heard[0]
        clock.spend(3.0)
        found.ended()
        assert timers.waiting() == 1 and timers.started[-1][0] == 2.0 and len(heard) == 1
        found.started("sim.lasvegan.nb")  # the game's kernel, its callees compiled inside it: the same bout
        found.started("sim.rng")
        clock.spend(77.0)
        found.ended()
        found.ended()
        found.started("analysis.stats")  # a shared kernel: timed into the bout, not said
        clock.spend(0.5)
        found.ended()
        assert timers.waiting() == 1 and len(heard) == 1
        timers.fire()
        assert heard[1:] == ["Compiled the kernels of Las Vegan in 1.3 min."]
        found.started("analysis.stats")  # a shared kernel with no bout of a game open: timed, not said
        clock.spend(0.5)
        found.ended()
        assert timers.waiting() == 0 and len(heard) == 2
        found.started("sim.lasvegan.nb")  # another signature, after the game was said done: more kernels
        clock.spend(40.0)
        found.ended()
        assert heard[2:] == ["Compiling more kernels of Las Vegan …"]
        found.started("sim.fever.nb")  # another game: the bout before it is said done first
        clock.spend(10.0)
        found.ended()
        assert heard[3] == "Compiled more kernels of Las Vegan in 40.0 s."
        assert heard[4].startswith("Compiling the kernels of $ Fever (")
        found.settle()  # the command ends before the timer runs out: said done then
        assert heard[5:] == ["Compiled the kernels of $ Fever in 10.0 s."] and timers.waiting() == 0
        found.settle()  # nothing owed: nothing said
    found.started("sim.vegasdice.nb")  # nobody listens any more
    found.ended()
    assert len(heard) == 6
    assert found.kernels == 7 and found.seconds == pytest.approx(131.0)


def test_a_command_says_its_own_bouts_done_and_none_when_interrupted_nor_one_from_before_it():
    from sim.estimates.compiling import said_to
    import sim.estimates.compiling as C

    heard: list[str] = []
    found = C.Compiles(clock=FakeClock(), timer=FakeTimers())
    old, C._COMPILES = C._COMPILES, found
    try:
        with pytest.raises(KeyboardInterrupt), said_to(heard.append):
            found.started("sim.fever.nb")
            found.ended()
            raise KeyboardInterrupt
        assert len(heard) == 1 and heard[0].startswith("Compiling the kernels of $ Fever (")
        with said_to(heard.append):
            found.started("sim.fever.nb")
            found.ended()
        assert heard[1:] == ["Compiling more kernels of $ Fever …", "Compiled more kernels of $ Fever in 0.0 s."]
        found.started("sim.vegasdice.nb")  # compiled before the next command, with nobody listening
        found.ended()
        with said_to(heard.append):  # a command that compiles nothing says nothing, of that bout neither
            pass
        assert len(heard) == 3, heard
    finally:
        C._COMPILES = old


def test_a_compile_line_said_while_a_progress_bar_shows_is_a_line_of_its_own(monkeypatch):
    """The command's hearer clears the bar on stderr, says the line and draws the bar again below it: the line
    does not run on from the bar's text (a timer's thread says a bout done whenever it ends)."""
    import io

    from tqdm import tqdm

    from sim.cli.group import said_over_the_bars

    stderr = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    with tqdm(total=10, desc="games", file=sys.stderr, ascii=True, mininterval=0) as bar:
        bar.update(3)
        said_over_the_bars("Compiled the kernels of Las Vegan in 20.0 s.")
        bar.update(2)
    before, _, after = stderr.getvalue().partition("Compiled the kernels of Las Vegan in 20.0 s.\n")
    assert "games:  30%" in before and before.endswith("\r"), repr(before)  # the bar cleared, not run on
    assert "games:  30%" in after or "games:  50%" in after, repr(after)  # and drawn again below the line


def test_a_dry_runs_mark_leaves_the_bout_whole_and_its_count_says_it_done_first(monkeypatch):
    """A dry run marks what was compiled before it and counts what it compiled since: taking the mark said a
    command's small tally kernel done on its own, then its kernels of play as "more"; the count says the one bout
    done, before the plan that gives the count is printed."""
    import sim.estimates.compiling as C

    clock, heard = FakeClock(), []
    found = C.Compiles(clock=clock, timer=FakeTimers())
    monkeypatch.setattr(C, "_COMPILES", found)
    with found.heard(heard.append):
        found.started("sim.lasvegan.report_tally")  # compiled as the command loads its file
        clock.spend(4.0)
        found.ended()
        mark = C.compiled_seconds()
        found.started("sim.lasvegan.nb")
        clock.spend(80.0)
        found.ended()
        assert len(heard) == 1, heard
        assert C.compiled_since(mark) == pytest.approx(80.0)
    assert heard[1:] == ["Compiled the kernels of Las Vegan in 1.4 min."]


def test_the_compilations_of_a_run_are_said_as_one_whatever_compiles_first():
    """A run compiles a small tally kernel of the game's, then its kernel of play: one notice, and one
    "compiled in" with the time of them all (a nested group is part of the outer one)."""
    from sim.estimates.compiling import Compiles

    clock = FakeClock()
    heard: list[str] = []
    found = Compiles(clock=clock)
    with found.heard(heard.append), found.as_one():
        found.started("sim.lasvegan.report_tally")
        clock.spend(2.0)
        found.ended()
        with found.as_one():
            found.started("sim.lasvegan.nb")
            clock.spend(20.0)
            found.ended()
        found.started("analysis.stats")
        clock.spend(0.5)
        found.ended()
        assert len(heard) == 1 and heard[0].startswith("Compiling the kernels of Las Vegan (")
    assert heard == [heard[0], "Compiled the kernels of Las Vegan in 22.5 s."]
    with found.heard(heard.append), found.as_one():  # nothing compiled: nothing said
        pass
    assert len(heard) == 2
    with found.heard(heard.append), found.as_one("the kernels of the other tables"):  # a game said before
        found.started("analysis.stats")  # a shared kernel: not said
        clock.spend(0.5)
        found.ended()
        found.started("sim.lasvegan.policies")
        clock.spend(30.0)
        found.ended()
    assert heard[2:] == ["Compiling the kernels of the other tables …",
                         "Compiled the kernels of the other tables in 30.5 s."]
    with found.heard(heard.append), found.as_one("the kernels of the other tables"):  # nothing of a game's
        found.started("analysis.stats")
        found.ended()
    assert len(heard) == 4
    with found.heard(heard.append), found.as_one():  # more of a game said before, with nothing to call it
        found.started("sim.lasvegan.nb")
        clock.spend(3.0)
        found.ended()
    assert heard[4:] == ["Compiling more kernels of Las Vegan …", "Compiled more kernels of Las Vegan in 3.0 s."]


def test_a_compilation_interrupted_is_not_said_done():
    """Ctrl-C while a game's kernels compile: the notice was said, and no "Compiled ... in" follows it."""
    from sim.estimates.compiling import Compiles

    clock = FakeClock()
    heard: list[str] = []
    found = Compiles(clock=clock)
    for what in (None, "the kernels of the other tables"):
        with pytest.raises(KeyboardInterrupt), found.heard(heard.append), found.as_one(what):
            found.started("sim.fever.nb" if what is None else "sim.fever.policies")
            clock.spend(5.0)
            found.ended()  # numba ends its event on the way out
            raise KeyboardInterrupt
    assert heard == [heard[0], "Compiling the kernels of the other tables …"]
    assert heard[0].startswith("Compiling the kernels of $ Fever (")


def test_a_dry_run_compiles_and_says_what_the_run_would_in_the_same_order(monkeypatch):
    """The run's own table first, said with the time that is usual for it, then its other tables on a line of
    their own: a dry run that timed a mixed table first compiled the kernel of every policy under the notice of
    the main table's usual time, and left the main table's own kernel for the run to compile."""
    import sim
    import sim.estimates.runs as R
    from sim.estimates import compiling
    from sim.estimates.costs import Cost, Timed

    clock = FakeClock()
    found = compiling.Compiles(clock=clock)
    monkeypatch.setattr(compiling, "_COMPILES", found)
    order = []

    def compiling_for(what, seconds, result):
        def call(*args, **kwargs):  # compiles on its first call only, as a kernel does
            if what not in order:
                order.append(what)
                found.started("sim.lasvegan.nb")
                clock.spend(seconds)
                found.ended()
            return result
        return call

    costs = Cost(0.0, 1e-4)
    monkeypatch.setattr(R, "games_cost", compiling_for("games", 20.0, Timed(costs, 100)))
    monkeypatch.setattr(R, "extra_costs", compiling_for("others", 45.0, (costs, costs, costs)))
    monkeypatch.setattr(R, "report_seconds", lambda config, clock=None: 1.0)
    monkeypatch.setattr(R, "decisions_seconds", lambda config: 1.0)
    monkeypatch.setattr("sim.sensitivity.study.plan_run_section",
                        lambda config, clock=None: {"seconds": 1.0, "rule_sets": 1, "games": 1})
    heard: list[str] = []
    with found.heard(heard.append):
        plan = R.plan_run(sim.load_config("configs/default.toml"))
    assert order == ["games", "others"]
    assert heard[0].startswith("Compiling the kernels of Las Vegan (") and "usually about" in heard[0]
    assert heard[1:] == [
        "Compiled the kernels of Las Vegan in 20.0 s.",
        "Compiling the kernels of Las Vegan's other tables (skill gap, strength profile, decisions) …",
        "Compiled the kernels of Las Vegan's other tables (skill gap, strength profile, decisions) in 45.0 s."]
    assert plan["compiled_seconds"] == pytest.approx(65.0)


def test_numba_tells_the_estimates_of_a_compilation_and_not_of_a_kernel_already_compiled():
    import numba

    from sim.estimates.compiling import compiles

    found = compiles()
    kernels, seconds = found.kernels, found.seconds

    @numba.njit(cache=False)
    def twice_nb(x):
        return 2 * x

    assert twice_nb(21) == 42
    assert found.kernels == kernels + 1 and found.seconds > seconds
    assert twice_nb(4) == 8 and found.kernels == kernels + 1


def test_a_dry_run_that_compiled_says_so_and_leaves_it_out_of_the_runs_time():
    plan = {"name": "default", "game": "lasvegan", "players": 4, "seats": ["expert"] * 4, "games": 1000,
            "skill_gap_deals": 0, "strength_games": 0, "strength_slow_games": 0, "sensitivity_rule_sets": 0,
            "parts": {"games": 1.0, "skill_gap": 0.0, "strength": 0.0, "sensitivity": 0.0, "report": 0.0,
                      "total": 1.0}, "seconds": [0.8, 1.25], "compiled_seconds": 95.0}
    text = E.run_plan_text(plan)
    assert "The dry run compiled the kernels (1.6 min); the run will load them from the cache" in text
    assert text.rstrip().endswith("About 0.8 s to 1.2 s in this process on this machine. Nothing was written.")
    assert "compiled" not in E.run_plan_text({**plan, "compiled_seconds": 0.0})


def test_every_dry_run_that_compiled_says_so_before_its_estimate():
    """The sweep's, the one-step study's and the Morris screen's dry runs time their games as the run's does, the
    compilation left out: each says what it compiled, on the line before its estimate, and nothing when it loaded."""
    from sim.sensitivity import morris, study
    from sim.sweep import load_sweep
    from sim.sweep.plan import plan_text as sweep_text

    sweep = load_sweep(Path(__file__).resolve().parents[1] / "configs" / "sweep_example.toml")
    rows = [{"cell": c.index, "label": c.label, "games": 100, "max_games": None, "done": False, "seconds": 1.0,
             "max_seconds": 1.5, "duel_seconds": 0.0} for c in sweep.cells]
    screen = {"tune": "t", "game": "lasvegan", "seed": 1, "dims": 2, "trajectories": 4, "levels": 4, "games": 100,
              "counts": [], "page": 0.0, "seconds": [1.0, 1.5]}
    one_step = {"game": "lasvegan", "games": 100, "seed": 1, "counts": [], "seconds": [1.0, 1.5]}
    texts = {"sweep": lambda compiled: sweep_text(sweep, rows, compiled=compiled),
             "study": lambda compiled: study.plan_text({**one_step, "compiled_seconds": compiled}),
             "screen": lambda compiled: morris.plan_text({**screen, "compiled_seconds": compiled})}
    for what, text in texts.items():
        said = " ".join(text(75.0).split())  # its sentences as said, wrapped at 120 columns
        line = (f"The dry run compiled the kernels (1.2 min); the {what} will load them from the cache, so that time "
                "is not in its estimate. ")
        assert said.count(line) == 1, (what, said)
        estimate = said[said.index(line) + len(line):]
        assert "about " in estimate[:30].lower() and "Nothing was" in estimate, (what, said)
        assert "compiled" not in text(0.0), what


def test_workers_slow_to_load_the_kernels_are_said_to_be_compiling(monkeypatch):
    import threading

    import sim.estimates.compiling as C
    from sim.config import default_config

    monkeypatch.setattr(C, "WORKERS_SLOW_SECONDS", 0.01)
    heard: list[str] = []
    told = threading.Event()

    class Compiling:
        where = "dask"

        def warm_up(self, config, wait=True):
            assert told.wait(60)  # loads until the notice is said

    def hear(line):
        heard.append(line)
        told.set()

    with C.said_to(hear):
        C.warm_up_said(Compiling(), default_config())
    heard = [" ".join(line.split()) for line in heard]  # as said, wrapped at 120 columns
    assert heard[0].startswith("The workers are still loading the kernels of Las Vegan after 0 s: a worker whose "
                               "kernel cache does not hold them compiles them (usually about ")
    assert heard[1].startswith("The workers loaded the kernels of Las Vegan in ") and len(heard) == 2


@pytest.mark.slow
def test_the_first_command_after_an_install_says_at_once_that_it_compiles_and_the_next_does_not(tmp_path):
    """A fresh kernel cache (NUMBA_CACHE_DIR of its own): the dry run's first line says it compiles, its plan
    that the run will load the kernels; the run then compiles nothing and says nothing of it."""
    import os
    import subprocess
    import sys

    config = tmp_path / "c.toml"
    config.write_text('game = "highcard"\n[run]\ngames = 500\nskill_gap_games = 0\nstrength_games = 0\n'
                      'strength_slow_games = 0\nsensitivity_games = 0\n', encoding="utf-8")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "kernels")}
    lvsim = [sys.executable, "-m", "sim.cli"]
    dry = subprocess.Popen([*lvsim, "run", str(config), "--dry-run"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env=env)
    first = dry.stderr.readline()
    assert dry.poll() is None  # said while the kernels compile, not after
    assert first.startswith("Compiling the kernels of High Card (the first use after an install or a change to them")
    out, err = dry.communicate(timeout=1800)
    assert dry.returncode == 0, err
    assert err.startswith("Compiled the kernels of High Card in ")
    assert "The dry run compiled the kernels (" in out and "the run will load them from the cache" in out
    played = subprocess.run([*lvsim, "run", str(config), "--out", str(tmp_path / "out")], capture_output=True,
                            text=True, env=env, timeout=1800)
    assert played.returncode == 0, played.stderr
    assert "Compil" not in played.stderr
