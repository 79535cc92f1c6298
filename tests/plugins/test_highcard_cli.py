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

HERE = Path(__file__).resolve().parents[2] / "examples" / "highcard"
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


@pytest.mark.slow("end to end")
def test_run_writes_its_results_and_report_and_report_writes_it_again(here):
    out = here / "run"
    config = here / "highcard.toml"  # with what moves the verdict, small
    config.write_text(config.read_text(encoding="utf-8").replace("seed = 1\n", "seed = 1\nsensitivity_games = 60\n"))
    summary = json.loads(lvsim("run", config, *TINY, "--out", out, "--json"))
    assert summary["sensitivity"]
    assert summary["game"] == "highcard" and summary["games"] == 300 and summary["players"] == 3
    assert sum(summary["win_share"]) == pytest.approx(1.0)
    assert 0 <= summary["shutout_rate"] <= 1 and 0 < summary["mean_points"] <= summary["rounds"]
    assert {p["policy"] for p in summary["strength"]["profiles"]} == {"random", "greedy"}
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.count('data-replay-match="true"') >= 1 and 'data-replay-match="false"' not in html
    numbers = html[html.index('id="games"'):]
    assert "sensitivity" not in numbers[:numbers.index("</section>")]  # it has a section of its own
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
    assert [r["leader"] for r in trace["rounds"]] == [0, 1, 2]
    assert [r["scorers"] for r in trace["rounds"]] == [[], [2], [1]]  # a tie of sixes scores nobody
    assert trace["points"] == [0, 1, 1] and trace["winners"] == [1, 2]


def test_a_shared_tie_scores_every_tied_player(here):
    script = json.loads((here / "highcard-replay.json").read_text(encoding="utf-8"))
    script["rules"]["ties"] = "shared"
    (here / "shared.json").write_text(json.dumps(script), encoding="utf-8")
    trace = json.loads(lvsim("replay", "--game", "highcard", here / "shared.json"))
    assert [r["scorers"] for r in trace["rounds"]] == [[0, 2], [2], [1]]
    assert trace["points"] == [1, 1, 2] and trace["winners"] == [2]


def test_a_card_not_in_hand_is_refused_naming_the_step_and_seat(here):
    script = json.loads((here / "highcard-replay.json").read_text(encoding="utf-8"))
    script["steps"][15] = "plays 3"  # seat 2 leads round 3 and holds no 3
    (here / "bad.json").write_text(json.dumps(script), encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", "--game", "highcard", str(here / "bad.json")])
    assert result.exit_code == 2
    assert result.stderr == "error: step 16: seat 2 plays a card of its hand (1), not 3\n"


@pytest.mark.parametrize("ties,tie_rate,shutout_rate", [("nobody", 1 / 3, 1.0), ("shared", 1 / 3, 2 / 3)])
def test_one_card_each_from_two_pairs_ties_a_third_of_the_games(tmp_path, ties, tie_rate, shutout_rate):
    """Two players, one card each from {1, 1, 2, 2}: the same value (a tie) with probability 2/6."""
    games = 20_000
    config = tmp_path / "pairs.toml"
    config.write_text(f'game = "highcard"\n[run]\ngames = {games}\nseed = 2\nskill_gap_games = 0\n'
                      f'strength_games = 0\n[rules]\nplayers = 2\ntop = 2\ncopies = 2\nhand = 1\nrounds = 1\n'
                      f'ties = "{ties}"\n', encoding="utf-8")
    summary = json.loads(lvsim("run", config, "--out", tmp_path / "run", "--json"))
    tolerance = 5 * (tie_rate * (1 - tie_rate) / games) ** 0.5  # five standard errors
    assert abs(summary["tie_rate"] - tie_rate) < tolerance
    assert abs(summary["shutout_rate"] - shutout_rate) < tolerance
    assert summary["win_share"][0] == pytest.approx(0.5, abs=tolerance)


def one_more_point(monkeypatch, restricted_only: bool = False) -> None:
    """High Card's kernel made to give seat 0 a point the rules do not: numbers that look as fine as any. With
    ``restricted_only``, only at a table where a seat plays restricted (which decisions matter)."""
    import lvsim_highcard.nb
    from lvsim_highcard.policies import POLICY_RESTRICTED

    kernel = lvsim_highcard.nb.play_chunk_nb

    def played(seed, first_game, lo, hi, rules, ids, params, out):
        kernel(seed, first_game, lo, hi, rules, ids, params, out)
        if not restricted_only or POLICY_RESTRICTED in ids:
            out.points[lo:hi, 0] += 1

    monkeypatch.setattr(lvsim_highcard.nb, "play_chunk_nb", played)


def test_a_run_the_reference_engine_does_not_replay_says_its_results_may_be_wrong(tmp_path, monkeypatch):
    """A kernel that plays otherwise than the engine (a policy's illegal card, a rule only one of them has)
    gives numbers that look as fine as any: the run says so, on its first and last games, report or not."""
    config = tmp_path / "c.toml"
    config.write_text('game = "highcard"\n[run]\ngames = 40\nseed = 3\nskill_gap_games = 0\nstrength_games = 0\n'
                      'sensitivity_games = 0\n', encoding="utf-8")
    agreed = CliRunner().invoke(main, ["run", str(config), "--out", str(tmp_path / "agreed")])
    assert agreed.exit_code == 0 and "warning" not in agreed.stderr, agreed.stderr
    one_more_point(monkeypatch)
    result = CliRunner().invoke(main, ["run", str(config), "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert ("warning: the reference engine does not play games 0 and 39 of this run as the jitted core did (the "
            "report's example games say how)" in result.stderr), result.stderr
    bare = CliRunner().invoke(main, ["run", str(config), "--out", str(tmp_path / "bare"), "--no-report"])
    assert ("warning: the reference engine does not play games 0 and 39 of this run as the jitted core did: "
            in bare.stderr), bare.stderr


def test_a_sweep_the_reference_engine_does_not_replay_says_which_cells_may_be_wrong(here, tmp_path, monkeypatch):
    sweep = ["sweep", str(here / "highcard-sweep.toml"), "--games", "40", "--no-report"]
    agreed = CliRunner().invoke(main, [*sweep, "--out", str(tmp_path / "agreed")])
    assert agreed.exit_code == 0 and "warning" not in agreed.stderr, agreed.output
    one_more_point(monkeypatch)
    result = CliRunner().invoke(main, [*sweep, "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert ("warning: the reference engine does not play game 0 of cells 000 and 001 "
            "as the jitted core did" in result.stderr), result.stderr


@pytest.mark.slow("end to end")
def test_a_tune_whose_recommendation_the_reference_engine_does_not_replay_says_so(here, monkeypatch):
    """The tune's balance report is a run of the recommended rules: it says so as any run does."""
    one_more_point(monkeypatch)
    result = CliRunner().invoke(main, ["tune", str(here / "highcard-tune.toml"), "--budget", "2", "--games", "50",
                                       "--out", str(here / "tune")])
    assert result.exit_code == 0, result.output
    assert ("warning: the reference engine does not play games 0 and 49 of this run as the jitted core did (the "
            "report's example games say how)" in result.stderr), result.stderr


def test_a_confirmation_the_reference_engine_does_not_replay_says_its_verdicts_may_be_wrong(here, monkeypatch):
    confirm = ["confirm", str(here / "highcard-tune.toml"), "--max-games", "1000"]
    agreed = CliRunner().invoke(main, [*confirm, "--out", str(here / "agreed")])
    assert agreed.exit_code in (0, 1) and "warning" not in agreed.stderr, agreed.output
    one_more_point(monkeypatch)
    result = CliRunner().invoke(main, [*confirm, "--out", str(here / "out")])
    assert ("warning: the reference engine does not play game 0 of the table of 3 players with greedy as the jitted "
            "core did" in result.stderr), result.output


@pytest.mark.parametrize("command,written", [
    (["confirm", "highcard-tune.toml", "--max-games", "1000"], "confirm.json"),
    (["decisions", "highcard.toml", "--games", "40"], "decisions.json"),
])
def test_an_answer_is_written_and_shown_before_its_check_against_the_engine(here, monkeypatch, command, written):
    """The check comes after the answer: should it fail, what was played is not lost."""
    import sim.reference

    def broken(*args, **kwargs):
        raise RuntimeError("the check failed")

    monkeypatch.setattr(sim.reference, "unlike_the_kernel", broken)
    result = CliRunner().invoke(main, [command[0], str(here / command[1]), *command[2:], "--out", str(here / "out")])
    assert result.exit_code == 1 and "the check failed" in result.output, result.output
    assert (here / "out" / written).is_file()
    assert f"Written: {here / 'out' / written}" in result.output


@pytest.mark.parametrize("command", [["duel", "--seats", "greedy,random,random"], ["decisions"]])
def test_a_duel_or_decisions_the_reference_engine_does_not_replay_says_its_results_may_be_wrong(
        tmp_path, monkeypatch, command):
    config = tmp_path / "c.toml"
    config.write_text('game = "highcard"\n[run]\nseed = 3\n', encoding="utf-8")
    agreed = CliRunner().invoke(main, [*command, str(config), "--games", "40"])
    assert agreed.exit_code == 0 and "warning" not in agreed.stderr, agreed.output
    one_more_point(monkeypatch)
    result = CliRunner().invoke(main, [*command, str(config), "--games", "40"])
    assert result.exit_code == 0, result.output
    played = "this duel" if command[0] == "duel" else "this unrestricted table"
    assert (f"warning: the reference engine does not play game 0 of {played} as the jitted core did: the two "
            "disagree, so these results may be wrong" in result.stderr), result.stderr


def test_restricted_tables_the_reference_engine_does_not_replay_are_named_by_decisions_and_run(tmp_path,
                                                                                               monkeypatch):
    """The tables of which decisions matter play the restricted player's own code: checked as the table is."""
    config = tmp_path / "c.toml"
    config.write_text('game = "highcard"\n[run]\ngames = 40\nseed = 3\nskill_gap_games = 2\nstrength_games = 0\n'
                      'sensitivity_games = 0\n', encoding="utf-8")
    one_more_point(monkeypatch, restricted_only=True)
    decided = CliRunner().invoke(main, ["decisions", str(config), "--games", "40"])
    assert decided.exit_code == 0, decided.output
    assert "this unrestricted table" not in decided.stderr, decided.stderr
    assert ("warning: the reference engine does not play game 0 of the tables with play and every kind made at "
            "random as the jitted core did" in decided.stderr), decided.stderr
    run = CliRunner().invoke(main, ["run", str(config), "--out", str(tmp_path / "run"), "--no-report"])
    assert run.exit_code == 0, run.output
    assert "of this run" not in run.stderr, run.stderr
    assert "game 0 of the tables with play and every kind made at random" in run.stderr, run.stderr


def test_a_game_the_reference_engine_refuses_is_one_it_does_not_play_as_the_kernel_did(monkeypatch):
    """A policy's illegal card stops the reference engine: that game is named, as a game it plays otherwise."""
    import dataclasses

    import lvsim_highcard.state

    from sim.games import get_game
    from sim.reference import IllegalMove, unlike_the_kernel

    game = get_game("highcard")
    rules = game.Rules()
    assert unlike_the_kernel(game, rules, 3, ["greedy", "random", "random"], (0, 7)) == []

    def refused(*args):
        raise IllegalMove(1, "seat 1 plays a card of its hand (2, 5), not 9")

    monkeypatch.setattr(lvsim_highcard.state, "PLAY_LOOP",
                        dataclasses.replace(lvsim_highcard.state.PLAY_LOOP, play_out=refused))
    assert unlike_the_kernel(game, rules, 3, ["greedy", "random", "random"], (0, 7)) == [0, 7]
