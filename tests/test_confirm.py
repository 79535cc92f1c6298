"""lvsim confirm: known answers at 4 players with expert, the stronger tables paired, bad input refused."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Iterator
from textwrap import dedent

import pytest
from click.testing import CliRunner

from sim.cli import main

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def tune_file(d: Path, targets: str, players: str = "[4]", policies: str = '["expert"]',
              search: str = '"rules.golden_token" = { faces = [1, 6] }') -> Path:
    path = d / "t.toml"
    search = f"[search]\n{search}" if search else ""
    path.write_text(dedent(f"""\
        base = "{(CONFIGS / 'default.toml').as_posix()}"
        {search}
        [targets]
        {targets}
        [tune]
        players = {players}
        policies = {policies}
        """), encoding="utf-8")
    return path


def confirm(*args: str) -> tuple[int, dict | str]:
    result = CliRunner().invoke(main, ["confirm", *args, "--json"])
    try:
        return result.exit_code, json.loads(result.stdout)
    except json.JSONDecodeError:
        return result.exit_code, result.output


def by_metric(found: dict) -> dict[str, dict]:
    return {t["metric"]: t for t in found["targets"]}


@pytest.fixture
def stronger(monkeypatch) -> Iterator[str]:
    """Las Vegan's stronger tables played by lookahead:2 instead of the game's lookahead:16: what these tests
    check (the stronger tables play the judged table's deals, paired, and are judged) does not depend on how
    strong that player is, and lookahead:16 costs eight times as much per game."""
    import sim.lasvegan.game as declared
    from sim.games import get_game

    assert declared.GAME.strength_slow_policy == "lookahead:16"
    monkeypatch.setattr(declared, "GAME", dataclasses.replace(declared.GAME, strength_slow_policy="lookahead:2"))
    get_game.cache_clear()  # the registry keeps each game it gave
    yield "lookahead:2"
    monkeypatch.undo()
    get_game.cache_clear()


@pytest.mark.slow("end to end")
def test_known_answers_at_four_players_with_expert(tmp_path):
    # Elimination about 50%, first-player advantage about -0.45 pp.
    path = tune_file(tmp_path, "elimination_rate = [0.40, 0.60]\nfirst_player_advantage = [-0.01, 0.01]")
    code, found = confirm(str(path), "--max-slow-games", "0", "--max-games", "400000", "--out", str(tmp_path / "a"))
    assert code == 0, found
    targets = by_metric(found)
    assert targets["elimination_rate"]["verdict"] == "met"
    assert targets["first_player_advantage"]["verdict"] == "met"
    for t in found["targets"]:
        assert t["low"] <= t["estimate"] <= t["high"]
        assert t["setting"] == "4 players, expert" and t["games"] >= 2_000
    assert found["strength"] == []
    assert json.loads((tmp_path / "a" / "confirm.json").read_text())["targets"] == found["targets"]


def test_a_target_far_off_is_missed_and_one_on_its_line_stays_undecided(tmp_path):
    path = tune_file(tmp_path, "elimination_rate = [0.70, 0.90]\ntie_rate = [0.0, 0.0]")
    code, found = confirm(str(path), "--max-slow-games", "0", "--max-games", "40000", "--out", str(tmp_path / "b"))
    assert code == 1
    targets = by_metric(found)
    assert targets["elimination_rate"]["verdict"] == "missed"
    tie = targets["tie_rate"]
    # Ties happen: a tie rate of exactly 0 can be missed, never met.
    assert tie["verdict"] in ("missed", "undecided")
    assert tie["games"] <= 40_000


def test_undecided_says_how_many_more_games_would_likely_decide_it(tmp_path):
    # The worst seat is about +0.8 pp at 4 players: 20,000 games cannot tell it from 1 pp.
    path = tune_file(tmp_path, "worst_seat_advantage = { max = 0.01 }")
    code, found = confirm(str(path), "--max-slow-games", "0", "--max-games", "20000", "--out", str(tmp_path / "c"))
    assert code == 1
    [t] = found["targets"]
    assert t["verdict"] == "undecided" and t["games"] == 20_000
    assert t["more_games"] is not None and t["more_games"] > 20_000
    assert found["stopped"] == "max-games"


@pytest.mark.slow("end to end")
def test_the_stronger_tables_play_the_same_deals_and_are_paired(tmp_path, stronger):
    path = tune_file(tmp_path, "elimination_rate = [0.10, 0.95]", players="[3]", policies='["greedy"]')
    code, found = confirm(str(path), "--max-slow-games", "1000", "--max-games", "4000",
                          "--out", str(tmp_path / "d"))
    assert code == 0, found
    [t] = found["targets"]
    assert t["stronger"]["policy"] == stronger and t["stronger"]["games"] == 1000
    metrics = {d["metric"] for d in found["strength"]}
    # Every headline metric, the ratio of sums (mean |swing| per round) too.
    assert metrics == {"elimination_rate", "first_player_advantage", "worst_seat_advantage", "mean_rounds",
                       "mean_abs_swing", "tie_rate"}
    for d in found["strength"]:
        assert d["against"] == stronger and d["games"] == 1000
        assert d["verdict"] in ("material", "immaterial", "undecided")
        assert d["low"] <= d["difference"] <= d["high"]


@pytest.mark.slow("end to end")
def test_a_config_alone_is_judged_against_stronger_players_only(tmp_path, stronger):
    code, found = confirm("--config", str(CONFIGS / "default.toml"), "--players", "3", "--max-slow-games", "1000",
                          "--max-games", "4000", "--out", str(tmp_path / "e"))
    assert found["targets"] == [] and found["strength"]
    assert {d["against"] for d in found["strength"]} == {stronger}
    assert code == 0  # no target to miss


def test_the_dry_run_plays_nothing_it_reports(tmp_path):
    path = tune_file(tmp_path, "elimination_rate = [0.40, 0.60]")
    result = CliRunner().invoke(main, ["confirm", str(path), "--dry-run", "--max-minutes", "3",
                                       "--out", str(tmp_path / "f")])
    assert result.exit_code == 0, result.output
    assert "until decided" in result.output and "At most" in result.output
    assert not (tmp_path / "f").exists()


@pytest.mark.parametrize("args,field", [
    ([], "FILE"),
    (["--config", "missing.toml"], "missing.toml"),
    (["--config", str(CONFIGS / "default.toml"), "--players", "9"], "players"),
    (["--config", str(CONFIGS / "default.toml"), "--players", "three"], "--players"),
])
def test_bad_input_is_refused_in_one_line(args, field):
    result = CliRunner().invoke(main, ["confirm", *args])
    assert result.exit_code == 2
    assert field in result.output
    assert "Traceback" not in result.output


def test_a_metric_with_no_value_in_each_game_is_refused_before_anything_plays(tmp_path):
    path = tune_file(tmp_path, "shortfall_rate = { max = 0.01 }")
    result = CliRunner().invoke(main, ["confirm", str(path), "--out", str(tmp_path / "g")])
    assert result.exit_code == 2
    assert "targets.shortfall_rate" in result.output and "mean_abs_swing" in result.output
    assert not (tmp_path / "g").exists()


def test_a_file_only_confirmed_needs_no_search_table_which_a_tune_of_it_asks_for(tmp_path):
    path = tune_file(tmp_path, "elimination_rate = [0.40, 0.60]", players="[3]", search="")
    code, found = confirm(str(path), "--dry-run")
    assert code == 0, found
    assert [t["metric"] for t in found["targets"]] == ["elimination_rate"]
    assert [s["setting"] for s in found["settings"]] == ["3 players, expert"]
    result = CliRunner().invoke(main, ["tune", str(path), "--dry-run"])
    assert result.exit_code == 2 and "search: missing" in result.output
    # A [search] the file does give is still checked, so that the same file also tunes.
    bad = tune_file(tmp_path, "elimination_rate = [0.40, 0.60]", players="[3]", search='"rules.nothing" = [1, 2]')
    code, said = confirm(str(bad), "--dry-run")
    assert code == 2 and "rules.nothing" in said


def test_a_config_of_another_game_is_refused(tmp_path):
    path = tune_file(tmp_path, "elimination_rate = [0.40, 0.60]")
    result = CliRunner().invoke(main, ["confirm", str(path), "--config", str(CONFIGS / "vegas-dice.toml")])
    assert result.exit_code == 2 and "--config" in result.output


def test_a_skill_gap_target_is_judged_deal_by_deal(tmp_path):
    # greedy beats random by far at 3 players: well above its fair share.
    path = tune_file(tmp_path, 'skill_gap_greedy_vs_random = { min = 0.05, relative = "above_fair" }', players="[3]",
                     policies='["greedy"]')
    code, found = confirm(str(path), "--max-slow-games", "0", "--max-games", "20000", "--out", str(tmp_path / "h"))
    assert code == 0, found
    [t] = found["targets"]
    assert t["verdict"] == "met" and t["games"] >= 2_000
    assert t["low"] > 0.05 and t["low"] <= t["estimate"] <= t["high"]


def test_the_sentence_compares_each_target_with_its_own_verdict_at_the_stronger_tables():
    from sim.confirm import sentence

    def target(v, stronger):
        return {"verdict": v, "stronger": None if stronger is None else {"policy": "lookahead:16", "verdict": stronger}}

    # A skill-gap target has no stronger tables: the others must not be compared with their neighbours'.
    result = {"targets": [target("met", None), target("met", "met"), target("missed", "missed")], "strength": []}
    assert "The verdicts hold at lookahead:16 tables." in sentence(result)
    result["targets"][2]["stronger"]["verdict"] = "met"
    assert "At lookahead:16 tables 2 of 2 are met." in sentence(result)
