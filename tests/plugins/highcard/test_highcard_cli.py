"""High Card, installed from its own package, through every command of lvsim on tiny sizes.

The game is found under the entry-point group ``lvsim.games`` like the
games shipped with lvsim; nothing outside its package names it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import main

HERE = Path(__file__).resolve().parent
TINY = ["--games", "300", "--seed", "4"]


def lvsim(*args) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.stdout


@pytest.fixture
def here(tmp_path: Path) -> Path:
    """The package's config, sweep, tune and replay files, copied beside each other."""
    for name in ("highcard.toml", "highcard-sweep.toml", "highcard-tune.toml", "highcard-replay.json"):
        shutil.copy(HERE / name, tmp_path / name)
    return tmp_path


def test_games_lists_high_card_with_its_knobs_and_policies():
    listed = json.loads(lvsim("games", "--game", "highcard", "--json"))["highcard"]
    assert listed["title"] == "High Card" and listed["players"] == [2, 5]
    assert list(listed["knobs"]) == ["players", "top", "copies", "hand", "rounds", "ties"]
    assert set(listed["policies"]) == {"random", "greedy"}


def test_run_writes_its_results_and_report_and_report_writes_it_again(here):
    out = here / "run"
    summary = json.loads(lvsim("run", here / "highcard.toml", *TINY, "--out", out, "--json"))
    assert summary["game"] == "highcard" and summary["games"] == 300 and summary["players"] == 3
    assert sum(summary["win_share"]) == pytest.approx(1.0)
    assert 0 <= summary["shutout_rate"] <= 1 and 0 < summary["mean_points"] <= summary["rounds"]
    assert {p["policy"] for p in summary["strength"]["profiles"]} == {"random", "greedy"}
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.count('data-replay-match="true"') >= 1 and 'data-replay-match="false"' not in html
    again = here / "again.html"
    lvsim("report", out, "-o", again)
    assert "High Card balance report" in again.read_text(encoding="utf-8")


def test_duel_plays_greedy_against_random():
    duel = json.loads(lvsim("duel", "--game", "highcard", "--seats", "greedy,random,random", "--games", "200",
                            "--json"))
    assert duel["game"] == "highcard"


def test_sweep_over_one_knob_plays_each_value(here):
    out = here / "sweep"
    lvsim("sweep", here / "highcard-sweep.toml", "--games", "200", "--out", out)
    assert sorted(p.name for p in (out / "cells").iterdir()) == ["000", "001"]
    assert (out / "sweep.html").is_file()


def test_tune_of_the_rounds_says_what_it_recommends(here):
    out = here / "tune"
    answer = json.loads(lvsim("tune", here / "highcard-tune.toml", "--budget", "2", "--games", "50",
                              "--no-report", "--out", out, "--json"))
    assert answer["game"] == "highcard" and answer["candidates_tried"] >= 1
    assert set(answer["recommendation"]["verdict"]) == {"first_player_advantage", "shutout_rate"}
    assert "rules.rounds" in answer["recommendation"]["values"]


def test_replay_plays_the_script_through_the_reference_engine(here):
    trace = json.loads(lvsim("replay", "--game", "highcard", here / "highcard-replay.json"))
    assert [r["scorers"] for r in trace["rounds"]] == [[], [2], [1]]  # a tie of sixes scores nobody
    assert trace["points"] == [0, 1, 1] and trace["winners"] == [1, 2]
