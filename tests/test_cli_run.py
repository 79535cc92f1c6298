"""`lvsim run` end to end through click's runner, and `sim.run` from Python."""

import json
import math
import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sim
import sim.lasvegan.nb
import sim.runner
from sim.cli import main
from sim.config import load_config

SUMMARY_KEYS = {
    "game", "players", "games", "seed", "seconds", "games_per_second", "win_share", "win_share_ci",
    "first_player_advantage", "first_player_advantage_ci", "elimination_rate", "elimination_rate_ci",
    "end_round_share", "mean_rounds", "swing", "final_cabbages_mean", "tie_rate", "shortfall_rate",
}
RESULT_FILES = {"records.parquet", "config.toml", "meta.json", "summary.json", "tally.json"}
# A run that plays a skill gap also says which decisions matter.
WITH_DECISIONS = RESULT_FILES | {"decisions.json"}
TIMING_KEYS = ("seconds", "games_per_second")


def lvsim(*args):
    return CliRunner().invoke(main, ["run", *map(str, args)])


def run_json(*args) -> dict:
    result = lvsim(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def without_timing(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in TIMING_KEYS}


def contains(interval, value) -> bool:
    low, high = interval
    return low <= value <= high


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Run in an empty directory, so default results land (only) there."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def unwrapped(lines) -> str:
    """Lines as one text, a wrapped sentence's continued lines (indented by two) joined to the line before."""
    return " ".join(line.strip() for line in lines)


@pytest.mark.slow("end to end")
def test_default_run_prints_the_table_and_writes_results_under_reports(in_tmp):
    result = lvsim("--games", 300)
    assert result.exit_code == 0, result.output
    out = result.stdout
    for phrase in ("Las Vegan, 4 players, expert policy, seed 1", "seat 0 (leads round 1)", "seat 3",
                   "first-player advantage", "elimination rate", "ended after round", "swing", "final",
                   "tie rate", "reserve shortfall rate", "Played 300 games in", " s wall time in all ("):
        assert phrase in out, phrase
    [run_dir] = (in_tmp / "reports").iterdir()
    assert run_dir.name.startswith("default-")
    assert {p.name for p in run_dir.iterdir()} >= RESULT_FILES
    assert f"Results in {run_dir.relative_to(in_tmp)}/" in out
    # No progress bar when stderr is not a terminal: said there are the kernels' compilation, if this test compiles
    # them, and the win shares as soon as the run's own games are played, as the table then gives them.
    said = [line for line in result.stderr.splitlines()
            if line and not line.startswith(("Compiling the kernels of ", "Compiled the kernels of "))]
    played = next(i for i, line in enumerate(said) if line.startswith("Played 300 games in "))
    assert unwrapped(said[played:]).endswith(
        "; the skill gap, the strength profile, which decisions matter and the report follow …"), result.stderr
    assert max(map(len, said)) <= 120 and max(map(len, out.splitlines()[:-2])) <= 120  # but the paths at the end
    assert "(the games, the skill-gap duels, the strength profile, which decisions matter and the report)" in unwrapped(
        out.splitlines())
    assert "seat 0 (leads round 1)" in result.stderr and all(line in out for line in said[:played]), result.stderr


@pytest.mark.slow("end to end")
def test_the_first_and_last_lines_name_what_moves_the_verdict_and_which_decisions_matter_when_the_run_plays_them(
        tmp_path):
    result = lvsim("--games", 3000, "--out", tmp_path / "o")
    assert result.exit_code == 0, result.output
    assert ("; the skill gap, the strength profile, what moves the verdict, which decisions matter and the report "
            "follow …") in unwrapped(result.stderr.splitlines())
    assert ("(the games, the skill-gap duels, the strength profile, what moves the verdict, which decisions matter "
            "and the report)") in unwrapped(result.stdout.splitlines())
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["sensitivity"] and "decisions" in json.loads((tmp_path / "o" / "decisions.json").read_text())


@pytest.mark.slow("end to end")
def test_a_run_without_its_report_says_so_and_lvsim_report_writes_it(tmp_path):
    out = tmp_path / "o"
    result = lvsim("--games", 1000, "--out", out, "--no-report")
    assert result.exit_code == 0, result.output
    assert {p.name for p in out.iterdir()} == WITH_DECISIONS
    assert "the report" not in result.output.replace("No report written", "")
    assert "which decisions matter)" in result.stdout and "which decisions matter follow …" in result.stderr
    assert f"No report written (--no-report): lvsim report {out} writes it" in result.stdout
    written = CliRunner().invoke(main, ["report", str(out)])
    assert written.exit_code == 0, written.output
    assert (out / "report.html").is_file()


def test_the_last_line_names_only_what_the_run_played():
    from analysis.common import played_line

    summary = {"games": 10, "seconds": 1.0, "games_per_second": 10.0, "wall_seconds": 2.0}
    assert played_line(summary).endswith("(the games)")
    assert played_line({**summary, "report_written": True}).endswith("(the games and the report)")
    whole = played_line({**summary, "games": 1_000_000, "wall_seconds": 1234.5, "skill_gap": {"x": 1},
                         "strength": {"x": 1}, "sensitivity": {"x": 1}, "decisions_played": True, "report_written": True})
    assert max(map(len, whole.splitlines())) <= 120 and whole.splitlines()[1].startswith("  ")  # wrapped, not cut
    assert " ".join(line.strip() for line in whole.splitlines()).endswith(
        "(the games, the skill-gap duels, the strength profile, what moves the verdict, which decisions matter and the "
        "report)")
    assert "decisions" not in played_line({**summary, "decisions_played": False})


@pytest.mark.slow("end to end")
def test_json_summary_has_the_documented_shape_and_consistent_values(tmp_path):
    s = run_json("--no-report", "--games", 3000, "--seed", 7, "--out", tmp_path / "o")
    assert SUMMARY_KEYS <= set(s)
    assert (s["game"], s["players"], s["games"], s["seed"]) == ("lasvegan", 4, 3000, 7)
    assert len(s["win_share"]) == len(s["win_share_ci"]) == len(s["final_cabbages_mean"]) == 4
    assert sum(s["win_share"]) == pytest.approx(1.0, abs=1e-12)
    for share, ci in zip(s["win_share"], s["win_share_ci"]):
        assert contains(ci, share)
    assert s["first_player_advantage"] == pytest.approx(s["win_share"][0] - 1 / 4, abs=1e-15)
    assert contains(s["first_player_advantage_ci"], s["first_player_advantage"])
    assert contains(s["elimination_rate_ci"], s["elimination_rate"])
    assert len(s["end_round_share"]) == 4 and sum(s["end_round_share"]) == pytest.approx(1.0, abs=1e-12)
    assert s["mean_rounds"] == pytest.approx(sum((r + 1) * x for r, x in enumerate(s["end_round_share"])))
    assert s["swing"]["p05"] <= s["swing"]["p50"] <= s["swing"]["p95"]
    assert s["swing"]["sd"] > 0
    for rate in ("elimination_rate", "tie_rate", "shortfall_rate"):
        assert 0 <= s[rate] <= 1
    assert s["games_per_second"] == pytest.approx(s["games"] / s["seconds"])


@pytest.mark.slow("end to end")
def test_written_files_read_back_and_agree_with_the_summary(tmp_path):
    out = tmp_path / "run"
    s = run_json("--no-report", "--games", 2000, "--seed", 3, "--out", out)
    assert {p.name for p in out.iterdir()} >= RESULT_FILES

    df = pd.read_parquet(out / "records.parquet")
    assert len(df) == 2000 and df["game"].tolist() == list(range(2000))
    win = df[[f"win_share_s{s}" for s in range(4)]].to_numpy()
    assert s["win_share"] == pytest.approx(win.mean(axis=0), rel=1e-12)
    assert s["elimination_rate"] == np.mean(df["elim_round"] > 0)
    assert s["end_round_share"] == [np.mean(df["rounds_played"] == r + 1) for r in range(4)]
    final = df[[f"final_cabbages_s{s}" for s in range(4)]].to_numpy()
    assert s["final_cabbages_mean"] == pytest.approx(final.mean(axis=0), rel=1e-12)
    swings = np.concatenate(
        [df.loc[df["rounds_played"] > r, [f"delta_r{r}_s{p}" for p in range(4)]].to_numpy().ravel() for r in range(4)]
    )
    assert s["swing"]["p05"] == np.percentile(swings, 5)
    assert s["swing"]["mean"] == pytest.approx(swings.mean(), rel=1e-12)

    assert json.loads((out / "summary.json").read_text()) == s
    meta = json.loads((out / "meta.json").read_text())
    assert (meta["seed"], meta["games"], meta["players"], meta["seats"]) == (3, 2000, 4, ["expert"] * 4)
    assert meta["versions"]["lvsim"] == sim.__version__
    assert load_config(out / "config.toml").with_overrides() == load_config(out / "config.toml")
    assert load_config(out / "config.toml").seed == 3


@pytest.mark.slow("end to end")
def test_the_written_config_reproduces_the_run(tmp_path):
    first = run_json("--no-report", "--games", 500, "--seed", 11, "--players", 3, "--out", tmp_path / "a")
    again = run_json("--no-report", tmp_path / "a" / "config.toml", "--out", tmp_path / "b")
    assert without_timing(again) == without_timing(first)
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "a" / "records.parquet"), pd.read_parquet(tmp_path / "b" / "records.parquet")
    )


@pytest.mark.slow("end to end")
def test_overrides_change_the_run_and_the_resolved_config(tmp_path):
    out = tmp_path / "o"
    s = run_json("--no-report", "--games", 400, "--seed", 5, "--players", 3, "--threads", 1, "--out", out)
    assert (s["players"], s["games"], s["seed"], len(s["win_share"])) == (3, 400, 5, 3)
    config = load_config(out / "config.toml")
    assert (config.games, config.seed, config.threads, config.players) == (400, 5, 1, 3)
    assert config.rules.n_set_aside == 1  # "auto" followed the new player count
    df = pd.read_parquet(out / "records.parquet")
    assert "final_cabbages_s2" in df and "final_cabbages_s3" not in df


@pytest.mark.slow("end to end")
def test_overrides_apply_to_a_given_config_file(tmp_path):
    path = tmp_path / "five.toml"
    path.write_text('game = "lasvegan"\n[run]\ngames = 50\nseed = 2\n[rules]\nplayers = 5\n')
    s = run_json("--no-report", path, "--seed", 4, "--out", tmp_path / "o")
    assert (s["players"], s["games"], s["seed"]) == (5, 50, 4)


@pytest.mark.slow("end to end")
def test_thread_count_and_chunking_do_not_change_the_results(tmp_path, monkeypatch):
    one = run_json("--no-report", "--games", 700, "--threads", 1, "--out", tmp_path / "one")
    monkeypatch.setattr(sim.runner.chunks, "CHUNK_GAMES", 128)
    chunked = run_json("--no-report", "--games", 700, "--threads", 2, "--out", tmp_path / "chunked")
    assert without_timing(chunked) == without_timing(one)
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "one" / "records.parquet"),
        pd.read_parquet(tmp_path / "chunked" / "records.parquet"),
    )


MALFORMED = [
    ('game = "lasvegas"', "game"),
    ('[run]\ngames = 5', "game"),
    ('game = "lasvegan"\nspeed = 3', "speed"),
    ('game = "lasvegan"\n[run]\ngames = 0', "run.games"),
    ('game = "lasvegan"\n[run]\ngames = 10.5', "run.games"),
    ('game = "lasvegan"\n[run]\nseed = "one"', "run.seed"),
    ('game = "lasvegan"\n[run]\nthreads = -2', "run.threads"),
    ('game = "lasvegan"\n[rules]\nplayers = 7', "rules.players"),
    ('game = "lasvegan"\n[rules]\nrounds = 5', "rules.rounds"),
    ('game = "lasvegan"\n[rules]\nreserve = "bottomless"', "rules.reserve"),
    ('game = "lasvegan"\n[rules]\nend_on_elimination = "yes"', "rules.end_on_elimination"),
    ('game = "lasvegan"\n[rules]\nplayers = 3\nset_aside = 2', "rules.set_aside"),
    ('game = "lasvegan"\n[rules]\nmachines = ["suit:green", "value:7"]', "rules.machines"),
    ('game = "lasvegan"\n[rules]\ngolden_token = [3]', "rules.golden_token"),
    ('game = "lasvegan"\n[rules]\nboard = 1', "rules.board"),
    ('game = "lasvegan"\n[policies]\nseats = "clever"', "policies.seats"),
    ('game = "lasvegan"\n[policies]\nseats = ["random", "random", "random"]', "policies.seats"),
    ('game = "lasvegan"\n[extras]\nx = 1', "extras"),
    ('game = "lasvegan"\n[run\ngames = 5', "bad.toml"),
]


@pytest.mark.parametrize("text, key", MALFORMED)
def test_a_malformed_config_gives_one_line_naming_the_key_and_writes_nothing(in_tmp, text, key):
    path = in_tmp / "bad.toml"
    path.write_text(text + "\n")
    result = lvsim(path.name, "--games", 10)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: {key}: ") and result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.output
    assert [p.name for p in in_tmp.iterdir()] == ["bad.toml"]


def test_an_override_that_breaks_the_rules_is_a_config_error(in_tmp):
    path = in_tmp / "fixed.toml"
    path.write_text('game = "lasvegan"\n[rules]\nset_aside = 0\n')
    result = lvsim(path, "--players", 3)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: rules.set_aside: ")
    assert [p.name for p in in_tmp.iterdir()] == ["fixed.toml"]


def test_players_given_on_the_command_line_are_the_count_the_file_is_checked_at(tmp_path):
    # 17 cards cannot deal 3 to 5 players and 3 to the reels, but can at 4.
    path = tmp_path / "small.toml"
    path.write_text('game = "fever"\n[rules]\nplayers = 5\ndeck = { cherry = 10, lemon = 7 }\n'
                    'paytable = [{ symbols = ["cherry", "cherry", "cherry"], points = 1 }]\n')
    s = run_json("--no-report", path, "--players", 4, "--games", 40, "--out", tmp_path / "four")
    assert (s["players"], s["games"]) == (4, 40)
    result = lvsim("--no-report", path, "--players", 9, "--out", tmp_path / "nine")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --players: ") and not (tmp_path / "nine").exists()


def test_a_missing_config_file_is_reported(in_tmp):
    result = lvsim("nowhere.toml")
    assert result.exit_code == 2
    assert result.stderr == "error: nowhere.toml: no such file\n"
    assert list(in_tmp.iterdir()) == []


@pytest.mark.parametrize("option", [["--games", "0"], ["--players", "6"], ["--seed", "-1"], ["--threads", "0"]])
def test_out_of_range_options_are_usage_errors(in_tmp, option):
    result = lvsim(*option)
    assert result.exit_code == 2
    assert option[0] in result.stderr
    assert list(in_tmp.iterdir()) == []


def test_a_non_empty_out_directory_is_never_overwritten(tmp_path):
    out = tmp_path / "taken"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    result = lvsim("--games", 10, "--out", out)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --out: ") and "not empty" in result.stderr
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["taken"]


def test_an_out_directory_that_cannot_be_made_is_reported(tmp_path):
    (tmp_path / "file.txt").write_text("not a directory")
    result = lvsim("--games", 10, "--out", tmp_path / "file.txt" / "run")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --out: cannot create ")
    assert [p.name for p in tmp_path.iterdir()] == ["file.txt"]


@pytest.mark.slow("end to end")
def test_an_empty_out_directory_is_used(tmp_path):
    (tmp_path / "empty").mkdir()
    run_json("--no-report", "--games", 10, "--out", tmp_path / "empty")
    assert {p.name for p in (tmp_path / "empty").iterdir()} >= RESULT_FILES


def test_a_results_directory_appears_whole_and_is_never_made_empty_first(tmp_path, monkeypatch):
    """Killed outright at any moment, a run (or a sweep's cell) leaves its directory whole or absent: nothing makes
    it, empty, before the staged files are renamed into it (a sweep could not resume a cell left so)."""
    from sim.runner.staging import staged_directory

    made, real_mkdir = [], Path.mkdir
    monkeypatch.setattr(Path, "mkdir", lambda self, *args, **kwargs: made.append(self) or real_mkdir(self, *args, **kwargs))
    out = tmp_path / "sweep" / "cells" / "001"
    with staged_directory(out) as staging:
        (staging / "meta.json").write_text("{}")
    assert out not in made and out.parent in made
    assert [p.name for p in out.iterdir()] == ["meta.json"]


@pytest.mark.parametrize("failure", [KeyboardInterrupt, RuntimeError])
def test_an_interrupted_run_leaves_nothing_behind(tmp_path, monkeypatch, failure):
    real_play_games = sim.lasvegan.nb.play_games
    calls = []

    def play_games_then_fail(*args, **kwargs):
        calls.append(1)
        if len(calls) == 4:  # the warm-up game, two chunks, then the failure
            raise failure()
        return real_play_games(*args, **kwargs)

    monkeypatch.setattr(sim.lasvegan.nb, "play_games", play_games_then_fail)
    monkeypatch.setattr(sim.runner.chunks, "CHUNK_GAMES", 50)
    result = lvsim("--games", 500, "--out", tmp_path / "deep" / "run")
    assert result.exit_code != 0
    assert len(calls) == 4
    assert list(tmp_path.iterdir()) == []  # neither the results, nor a staging directory, nor "deep"


def test_a_report_is_written_when_the_report_module_exists(tmp_path, monkeypatch):
    def write_report(out_dir):
        (out_dir / "report.html").write_text(f"<p>{json.loads((out_dir / 'summary.json').read_text())['games']}</p>")

    monkeypatch.setitem(sys.modules, "analysis.report", types.SimpleNamespace(write_report=write_report))
    result = lvsim("--games", 20, "--out", tmp_path / "o")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "o" / "report.html").read_text() == "<p>20</p>"
    assert "report.html" in result.stdout


# --- from Python -----------------------------------------------------------


@pytest.mark.slow("end to end")
def test_sim_run_in_memory_writes_nothing_and_matches_the_command(in_tmp):
    config = load_config(sim.config.DEFAULT_CONFIG_PATH).with_overrides(games=600, seed=21)
    results = sim.run(config, out=None)
    assert list(in_tmp.iterdir()) == []
    assert results.out_dir is None and results.records_path is None
    df = results.to_pandas()
    assert len(df) == 600
    from_cli = run_json("--no-report", "--games", 600, "--seed", 21, "--out", in_tmp / "o")
    assert without_timing(results.summary) == without_timing(from_cli)
    pd.testing.assert_frame_equal(df, pd.read_parquet(in_tmp / "o" / "records.parquet"))


@pytest.mark.slow("end to end")
def test_sim_run_takes_a_config_path_and_reads_its_records_back(in_tmp):
    path = in_tmp / "small.toml"
    path.write_text('game = "lasvegan"\n[run]\ngames = 300\n')
    results = sim.run(path)
    [run_dir] = (in_tmp / "reports").iterdir()
    assert run_dir.name.startswith("small-") and results.out_dir == run_dir.relative_to(in_tmp)
    assert results.records is None  # on disk, not in memory
    assert results.records_path == results.out_dir / "records.parquet"
    df = results.to_pandas()
    assert len(df) == 300 and results.summary["games"] == 300


def test_sim_run_without_records_says_so():
    config = sim.Config(games=5)
    results = sim.run(config, out=None, keep_records=False)
    assert results.summary["games"] == 5 and not math.isnan(results.summary["win_share"][0])
    with pytest.raises(ValueError, match="kept no records"):
        results.to_pandas()


def test_a_failing_report_keeps_the_results(tmp_path, monkeypatch, capsys):
    import analysis.report
    from sim.config import Config
    from sim.runner import run

    def broken(out_dir, out_file=None):
        (out_dir / "report.html").write_text("<html>half")
        raise RuntimeError("figure failed")

    monkeypatch.setattr(analysis.report, "write_report", broken)
    out = tmp_path / "kept"
    results = run(Config(games=50, skill_gap_games=0), out=out, progress=False)
    assert sorted(p.name for p in out.iterdir()) == sorted(RESULT_FILES)
    assert results.summary["games"] == 50
    err = capsys.readouterr().err
    assert "could not be written: internal error, a bug in lvsim (RuntimeError: figure failed)" in err
    assert f"run 'lvsim report {out}' to write it" in err


@pytest.mark.slow("end to end")
def test_ctrl_c_during_the_report_keeps_the_results_and_says_how_to_finish(tmp_path, monkeypatch):
    import analysis.report

    real_write_report = analysis.report.write_report

    def interrupted(out_dir, out_file=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(analysis.report, "write_report", interrupted)
    out = tmp_path / "kept"
    result = lvsim("--games", 300, "--out", out)
    assert result.exit_code != 0
    assert sorted(p.name for p in out.iterdir()) == sorted(WITH_DECISIONS)
    assert "the HTML report was not written" in result.stderr and f"lvsim report {out}" in result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["kept"]  # no staging directory left
    monkeypatch.setattr(analysis.report, "write_report", real_write_report)
    finished = CliRunner().invoke(main, ["report", str(out)])
    assert finished.exit_code == 0, finished.output
    assert (out / "report.html").is_file()


KILLED_IN_REPORT = """
import pathlib, sys, time
import analysis.report
from sim.cli import main

marker, out, config = sys.argv[1:4]

def stuck_report(out_dir, out_file=None):
    pathlib.Path(marker).write_text("in the report")
    time.sleep(600)

analysis.report.write_report = stuck_report
sys.argv = ["lvsim", "run", config, "--games", "3000", "--out", out]
main()
"""


@pytest.mark.slow("end to end")
def test_a_run_killed_during_its_report_keeps_its_records_and_summary(tmp_path):
    import os
    import signal
    import subprocess
    import time

    marker, out, config = tmp_path / "marker", tmp_path / "results", tmp_path / "quick.toml"
    config.write_text('game = "lasvegan"\n[run]\nskill_gap_games = 0\n')
    child = subprocess.Popen([sys.executable, "-c", KILLED_IN_REPORT, str(marker), str(out), str(config)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # A fresh process may compile the kernels first, when no earlier one left them cached.
        deadline = time.monotonic() + 900
        while not marker.exists():
            assert child.poll() is None, "the run ended before its report"
            assert time.monotonic() < deadline, "the run never reached its report"
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.wait()
    assert {p.name for p in out.iterdir()} == RESULT_FILES
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == 3000 and len(pd.read_parquet(out / "records.parquet")) == 3000
    finished = CliRunner().invoke(main, ["report", str(out)])
    assert finished.exit_code == 0, finished.output
    assert (out / "report.html").is_file()


@pytest.mark.slow("end to end")
def test_a_run_into_an_out_directory_an_earlier_killed_run_left_says_so(tmp_path):
    leftover = tmp_path / ".results.0badf00d.partial"
    leftover.mkdir()
    (leftover / "records.parquet").write_bytes(b"half")
    result = lvsim("--no-report", "--games", 50, "--out", tmp_path / "results")
    assert result.exit_code == 0, result.output
    assert f"left its partial results in {leftover}" in result.stderr
    assert leftover.is_dir()  # it is the user's to remove


def test_summary_carries_the_skill_gap():
    from sim.config import Config
    from sim.runner import run

    summary = run(Config(games=100, skill_gap_games=4), out=None, progress=False).summary
    gap = summary["skill_gap"]
    assert set(gap) == {"lookahead_vs_greedy", "greedy_vs_random", "expert_vs_greedy", "lookahead16_vs_expert"}
    for entry in gap.values():
        low, high = entry["win_share_ci"]
        assert low <= entry["win_share"] <= high
        assert entry["fair_share"] == 0.25
    assert "skill_gap" not in run(Config(games=100, skill_gap_games=0), out=None, progress=False).summary


@pytest.mark.parametrize(
    "value,message",
    [(-1, "must be between 0 and 100000, got -1"), ("lots", "must be a number or 'auto', got 'lots'")],
)
def test_skill_gap_games_is_checked(tmp_path, value, message):
    from sim.config import config_from_mapping
    from sim.errors import ConfigError

    with pytest.raises(ConfigError, match="run.skill_gap_games: " + message):
        config_from_mapping({"game": "lasvegan", "run": {"skill_gap_games": value}})


@pytest.mark.slow("end to end")
def test_sigterm_cleans_up_like_ctrl_c(tmp_path):
    import os
    import signal
    import subprocess
    import time

    out = tmp_path / "results"
    lvsim_command = [sys.executable, "-c", "from sim.cli import main; main()", "run", "--games", "100000000",
                     "--out", str(out)]
    child = subprocess.Popen(lvsim_command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        # Wait until the games are playing: the staging directory holds the first chunk's records.
        deadline = time.monotonic() + 900
        while not any(p.name.endswith(".partial") and (p / "records.parquet").exists() for p in tmp_path.iterdir()):
            assert child.poll() is None, child.stderr.read()
            assert time.monotonic() < deadline, "the run never started playing"
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGTERM)
        child.wait(timeout=120)
    finally:
        child.kill()
        child.wait()
    assert child.returncode != 0
    assert list(tmp_path.iterdir()) == []
    assert "nothing was written" in child.stderr.read()


def test_every_result_file_a_run_writes_is_one_a_failed_run_into_its_directory_removes():
    from sim.runner.staging import RESULT_NAMES

    assert RESULT_NAMES == WITH_DECISIONS
