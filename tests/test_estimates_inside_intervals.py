"""Every estimate a run, duel, sweep, tune or sensitivity study writes lies inside the interval written beside it.

Small real runs of every game, with their skill gap, strength profile and
what moves the verdict, at the edges of the intervals: one game (none), 3
(too few), 4 (the fewest with one) and 16, where many counts are 0. Each
output is walked by ``tests.helpers.estimates_outside_intervals``; the
statistics themselves are checked on any counts in
``tests/analysis/test_estimates_inside_intervals.py``.
"""

from __future__ import annotations

import inspect
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import sim
from analysis.sweep import summary_row
from sim.cli import main
from sim.config import load_config
from sim.duel import duel
from tests.helpers import assert_estimates_inside_intervals

ROOT = Path(__file__).resolve().parents[1]
HIGHCARD = ROOT / "examples" / "highcard"
TABLES = {"lasvegan": "sim.lasvegan.tables", "vegas-dice": "sim.vegasdice.tables",
          "fever": "sim.fever.tables"}


def _report_tables(game: str, tally) -> dict[str, pd.DataFrame]:
    """Every table of the game's report that is drawn from its tally alone."""
    from importlib import import_module

    if game not in TABLES:
        return {}
    module = import_module(TABLES[game])
    out = {}
    for name, fn in inspect.getmembers(module, inspect.isfunction):
        needed = [p for p in inspect.signature(fn).parameters.values() if p.default is inspect.Parameter.empty]
        if fn.__module__ == module.__name__ and not name.startswith("_") and [p.name for p in needed] == ["source"]:
            table = fn(tally)
            if isinstance(table, pd.DataFrame):
                out[name] = table
    return out


@pytest.mark.parametrize("games", [1, 3, 4, 16])
@pytest.mark.parametrize("path, players, sensitivity", [
    ("configs/default.toml", None, True),
    ("configs/default.toml", 2, False),
    ("configs/vegas-dice.toml", None, False),  # its one-step study plays many rule sets: covered by the others
    ("configs/fever.toml", None, True),
    ("configs/fever.toml", 1, False),  # a race alone: no seat advantage
    ("examples/highcard/highcard.toml", None, True),
])
def test_a_small_run_of_every_game_writes_every_estimate_inside_its_interval(path, players, sensitivity, games):
    config = replace(load_config(ROOT / path, players=players), games=games, skill_gap_games=4,
                     strength_games=games, strength_slow_games=2 if games > 3 else 0,
                     sensitivity_games=games if sensitivity else 0)
    results = sim.run(config, out=None, progress=False)
    summary = results.summary
    # One seat alone duels no other: a race alone has no skill gap.
    assert "strength" in summary and ("skill_gap" in summary) == (config.players > 1)
    assert "sensitivity" in summary or not sensitivity or games < 4
    assert_estimates_inside_intervals(summary, "summary")
    assert_estimates_inside_intervals(summary_row(summary), "sweep row")
    for name, table in _report_tables(config.game, results.tally).items():
        assert_estimates_inside_intervals(table, name)


def test_a_policy_at_every_seat_of_games_that_end_without_a_winner_has_its_share_inside_its_interval():
    """Every $ Fever game ended by a turn cap of 3 has no winner: the policy at every seat takes no win."""
    config = load_config(ROOT / "configs" / "fever.toml")
    result = duel(config.game_spec, replace(config.rules, turn_cap=3), ["greedy"] * config.players, 16, 3)
    entry = result["policies"]["greedy"]
    assert entry["win_share"] == 0.0 and entry["win_share_ci"][0] == 0.0 < entry["win_share_ci"][1] < 1
    assert_estimates_inside_intervals(result)
    few = duel(config.game_spec, replace(config.rules, turn_cap=3), ["greedy"] * config.players, 2, 3)
    assert few["policies"]["greedy"]["win_share_ci"] == [None, None]
    assert few["policies"]["greedy"]["win_share_ci_reason"]


def test_a_policy_at_every_seat_of_games_that_always_have_a_winner_takes_every_win_for_certain():
    config = load_config(ROOT / "configs" / "default.toml", players=5)
    entry = duel(config.game_spec, config.rules, ["greedy"] * 5, 16, 3)["policies"]["greedy"]
    assert (entry["win_share"], entry["win_share_ci"], entry["win_share_ci_reason"]) == (1.0, [1.0, 1.0], None)


def lvsim(*args) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.stdout


@pytest.fixture
def highcard(tmp_path: Path) -> Path:
    """High Card's config, sweep and tune, and a tune with a target on the worst seat's advantage."""
    for name in ("highcard.toml", "highcard-sweep.toml", "highcard-tune.toml"):
        shutil.copy(HIGHCARD / name, tmp_path / name)
    tune = (tmp_path / "highcard-tune.toml").read_text(encoding="utf-8")
    (tmp_path / "worst-tune.toml").write_text(
        tune.replace("shutout_rate = [0.0, 0.5]", "worst_seat_advantage = { max = 0.05 }"), encoding="utf-8")
    return tmp_path


def test_a_sweep_writes_every_estimate_inside_its_interval(highcard):
    out = highcard / "sweep"
    assert_estimates_inside_intervals(json.loads(lvsim("sweep", highcard / "highcard-sweep.toml", "--games", "16",
                                                       "--out", out, "--json")), "sweep --json")
    for name in ("sweep.parquet", "paired.parquet"):
        table = pd.read_parquet(out / name)
        assert len(table)
        assert_estimates_inside_intervals(table, name)


@pytest.mark.parametrize("tune", ["highcard-tune.toml", "worst-tune.toml"])
def test_a_tune_writes_every_estimate_inside_its_interval(highcard, tune):
    out = highcard / "tune"
    answer = json.loads(lvsim("tune", highcard / tune, "--budget", "2", "--games", "16", "--no-report", "--out", out,
                              "--json"))
    assert answer["recommendation"]["metrics"]
    assert_estimates_inside_intervals(answer, "tune --json")
    assert_estimates_inside_intervals(json.loads((out / "tune.json").read_text(encoding="utf-8")), "tune.json")
    assert_estimates_inside_intervals(pd.read_parquet(out / "candidates.parquet"), "candidates.parquet")


@pytest.mark.parametrize("method", ["one-step", pytest.param("morris", marks=pytest.mark.slow("end to end"))])
def test_a_sensitivity_study_writes_every_effect_inside_its_interval(highcard, method):
    out = highcard / method
    if method == "morris":
        study = lvsim("sensitivity", highcard / "highcard-tune.toml", "--method", "morris", "--games", "40",
                      "--out", out, "--json")
    else:
        study = lvsim("sensitivity", highcard / "highcard.toml", "--games", "40", "--out", out, "--json")
    assert_estimates_inside_intervals(json.loads(study), f"sensitivity {method}")
    for table in out.glob("*.parquet"):
        assert_estimates_inside_intervals(pd.read_parquet(table), table.name)
