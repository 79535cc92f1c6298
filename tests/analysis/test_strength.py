"""Verdicts against player strength: the profile, the comparison and its sentence."""

import pytest

import sim
from analysis.lasvegan.report import build_report
from analysis.results import load_results
from analysis.strength import moves, verdict
from sim.lasvegan.game import GAME
from sim.config import Config, config_from_mapping
from sim.errors import ConfigError


METRICS = GAME.strength_metrics


def verdict_of(strength, run_policy):
    return verdict(strength, run_policy, METRICS, GAME.strength_order)


def entry(policy, games=10_000, **metrics):
    base = {m: [0.5, 0.49, 0.51] for m in METRICS}
    base.update(metrics)
    return {"policy": policy, "games": games, "metrics": base}


def test_a_metric_moves_only_when_the_difference_is_clear_and_material():
    assert moves(METRICS["elimination_rate"].material, [0.85, 0.84, 0.86], [0.50, 0.49, 0.51])
    # Clear but too small to change a decision.
    assert not moves(METRICS["elimination_rate"].material, [0.500, 0.498, 0.502], [0.510, 0.508, 0.512])
    # Large but not clear: the intervals are too wide.
    assert not moves(METRICS["elimination_rate"].material, [0.80, 0.60, 1.00], [0.70, 0.50, 0.90])
    assert not moves(METRICS["mean_rounds"].material, [3.0, None, None], [3.5, 3.4, 3.6])


def test_the_verdict_names_what_moves_from_the_runs_policy_to_expert():
    strength = {"profiles": [
        entry("random", elimination_rate=[0.88, 0.87, 0.89]),
        entry("greedy"),
        entry("expert", elimination_rate=[0.50, 0.49, 0.51]),
    ]}
    v = verdict_of(strength, "random")
    assert v["from"] == "random" and v["to"] == "expert" and v["moved"] == ["elimination_rate"]
    assert "changes with player strength" in v["sentence"] and "88.0% → 50.0%" in v["sentence"]
    same = verdict_of({"profiles": [entry("random"), entry("greedy"), entry("expert")]}, "greedy")
    assert same["from"] == "greedy" and same["moved"] == []
    assert same["sentence"].startswith("The verdict holds for stronger players")


def test_a_run_of_the_strongest_fast_policy_is_compared_up_to_lookahead_and_down_to_the_next_weaker():
    # expert seats (the default): the stronger table is lookahead's subsample, the weaker greedy's.
    strength = {"profiles": [
        entry("random"), entry("greedy", elimination_rate=[0.84, 0.83, 0.85]), entry("expert"),
        entry("lookahead:16", games=50, elimination_rate=[0.30, 0.20, 0.40]),
    ]}
    v = verdict_of(strength, "expert")
    assert v["from"] == "expert" and v["to"] == "lookahead:16" and v["moved"] == ["elimination_rate"]
    assert "Stronger lookahead:16 seats (50 games) change the verdict" in v["sentence"]
    assert "so expert is not yet the strongest table" in v["sentence"]
    assert "Weaker greedy seats would change it: elimination rate 50.0% → 84.0%" in v["sentence"]
    # Never the run's own policy compared with a weaker one as if it were stronger.
    assert "from expert to greedy" not in v["sentence"]
    holds = verdict_of({"profiles": [entry("random"), entry("greedy"), entry("expert"),
                                     entry("lookahead:16", games=50, elimination_rate=[0.5, 0.4, 0.6])]}, "expert")
    assert holds["moved"] == [] and holds["sentence"].startswith("The verdict holds for stronger players: lookahead:16")
    assert "Weaker greedy seats would not change it" in holds["sentence"]


def test_a_run_with_mixed_seats_is_compared_from_random():
    strength = {"profiles": [entry("random"), entry("expert")]}
    assert verdict_of(strength, None)["from"] == "random"


def test_the_profile_plays_the_same_deals_as_a_run_of_each_policy():
    config = Config(name="t", games=400, seed=8, seats="random", skill_gap_games=0,
                    strength_games=300, strength_lookahead_games=4)
    summary = sim.run(config, out=None, keep_records=False, progress=False).summary
    profiles = {p["policy"]: p for p in summary["strength"]["profiles"]}
    assert list(profiles) == ["random", "greedy", "expert", "lookahead:16"]
    assert [p["games"] for p in profiles.values()] == [300, 300, 300, 4]
    alone = sim.run(Config(name="t", games=300, seed=8, seats="greedy", skill_gap_games=0, strength_games=0,
                           strength_lookahead_games=0), out=None, keep_records=False, progress=False).summary
    assert profiles["greedy"]["metrics"]["elimination_rate"] == [alone["elimination_rate"],
                                                                 *alone["elimination_rate_ci"]]
    assert profiles["greedy"]["metrics"]["mean_rounds"][0] == alone["mean_rounds"]
    assert summary["strength"]["verdict"]["from"] == "random"


def test_zero_turns_the_profile_off_and_the_report_says_so(tmp_path):
    config = Config(name="t", games=200, seed=3, skill_gap_games=0, strength_games=0, strength_lookahead_games=0)
    results = sim.run(config, out=tmp_path / "r", progress=False, report=False)
    assert "strength" not in results.summary
    text = build_report(load_results(tmp_path / "r"))
    assert "skipped the strength profile" in text


@pytest.mark.parametrize("key", ["strength_games", "strength_lookahead_games"])
@pytest.mark.parametrize("value, problem", [(-1, "between 0 and"), ("lots", "a number or 'auto'"), (1.5, "an integer")])
def test_the_profile_sizes_are_checked(key, value, problem):
    with pytest.raises(ConfigError, match=f"run.{key}") as err:
        config_from_mapping({"game": "lasvegan", "run": {key: value}})
    assert problem in str(err.value)


def test_auto_sizes_grow_with_the_run_within_bounds():
    assert Config(games=100).strength_sizes == (1_000, 16)
    assert Config(games=100_000).strength_sizes == (10_000, 50)
    assert Config(games=10**8).strength_sizes == (10_000, 50)
