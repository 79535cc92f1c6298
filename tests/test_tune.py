"""lvsim tune: a planted problem is solved, candidates are paired, a stopped tune resumes to the same result.

Budgets are tiny: a few hundred games per candidate, a handful of candidates.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sim.tune as T
from sim.cli import main

ROOT = Path(__file__).resolve().parents[1]

# At 2 players with cabbages no one can lose, every game lasts all its rounds:
# the mean number of rounds is the rules' own, so only rounds = 3 lands in [2.5, 3.5].
PLANTED_BASE = """
game = "lasvegan"
[run]
games = 200
seed = 3
skill_gap_games = 0
strength_games = 0
strength_lookahead_games = 0
[rules]
players = 2
starting_cabbages = 1000
total_cabbages = 5000
[policies]
seats = "random"
"""
PLANTED = """
base = "base.toml"
[search]
"rules.rounds" = { range = [1, 4] }
"rules.golden_token[1]" = [4, 5]
[targets]
mean_rounds = [2.5, 3.5]
[tune]
players = [2]
policies = ["random"]
budget = 8
games = 200
seed = 3
finalists = 2
"""


def write_tune(d: Path, tune: str = PLANTED, base: str = PLANTED_BASE) -> Path:
    (d / "base.toml").write_text(dedent(base), encoding="utf-8")
    path = d / "t.toml"
    path.write_text(dedent(tune), encoding="utf-8")
    return path


def comparable(out: Path) -> tuple[dict, pd.DataFrame]:
    """The tune's results without what depends on when and how fast it ran."""
    summary = json.loads((out / T.RESULT_FILE).read_text(encoding="utf-8"))
    summary.pop("timing")
    return summary, pd.read_parquet(out / T.CANDIDATES_FILE)


# --- the file -------------------------------------------------------------------------------


def test_a_knob_of_integer_pairs_is_searched_face_by_face_and_one_token_alone(tmp_path):
    tune = T.load_tune(write_tune(tmp_path, PLANTED.replace(
        '"rules.rounds" = { range = [1, 4] }', '"rules.tokens[2]" = { faces = [-4, 0] }')))
    assert [d.name for d in tune.dims] == ["rules.tokens[2][0]", "rules.tokens[2][1]", "rules.golden_token[1]"]
    assert [(d.low, d.high, d.base) for d in tune.dims[:2]] == [(-4, 0, 0), (-4, 0, -3)]
    tune = T.load_tune(write_tune(tmp_path, PLANTED.replace(
        '"rules.rounds" = { range = [1, 4] }\n"rules.golden_token[1]" = [4, 5]',
        '"rules.tokens" = { faces = [-4, 3] }')))
    assert len(tune.dims) == 8 and {(d.low, d.high) for d in tune.dims} == {(-4, 3)}


def test_the_change_from_the_base_counts_printed_values_then_how_far_they_moved(tmp_path):
    tune = T.load_tune(write_tune(tmp_path, PLANTED.replace(
        '"rules.rounds" = { range = [1, 4] }', '"rules.tokens" = { faces = [-4, 3] }')))
    base = tune.base_values()
    assert tune.change_size(base) == (0, 0)
    one_face = {**base, "rules.tokens[2][1]": -2}  # token 3: [0, -3] -> [0, -2]
    assert tune.change_size(one_face) == (1, 1)
    assert T.describe(tune, one_face) == "change token 3 from [0, \u22123] to [0, \u22122]"
    two_faces = {**base, "rules.tokens[0][0]": 3, "rules.golden_token[1]": 5}
    assert tune.change_size(two_faces) == (2, 3)
    judged = [T.Judged(i, v, 100, 1, "search") for i, v in enumerate([two_faces, one_face, base])]
    for j in judged:  # every candidate meets the target: the smallest change ranks first
        j.rows[(2, "random")] = {"mean_rounds": 3.0, "mean_rounds_lo": 2.9, "mean_rounds_hi": 3.1}
    assert [j.trial for j in sorted(judged, key=lambda j: j.rank_key(tune))] == [2, 1, 0]


def test_targets_measure_shortfall_in_their_own_range_and_judge_intervals():
    band = T._target("t", "elimination_rate", [0.4, 0.6])
    assert band.shortfall(0.5) == 0 and band.shortfall(0.35) == pytest.approx(0.25)
    assert band.verdict(0.5, 0.45, 0.55) == "met"
    assert band.verdict(0.3, 0.25, 0.35) == "missed"
    assert band.verdict(0.41, 0.38, 0.44) == "undecided"
    floor = T._target("t", "skill_gap_greedy_vs_random", {"min": 0.45})
    assert floor.shortfall(0.9) == 0 and floor.shortfall(0.405) == pytest.approx(1.0)
    near = T._target("t", "mean_rounds", {"near": 3.4, "within": 0.1})
    assert near.verdict(3.42, 3.38, 3.46) == "met" and near.distance(3.5) == pytest.approx(1.0)


# --- the search -------------------------------------------------------------------------------


def test_a_planted_problem_is_found_with_the_smallest_change(tmp_path):
    results = T.tune(write_tune(tmp_path), out=tmp_path / "out", progress=False, report=False)
    best = results.recommendation
    assert best["values"] == {"rules.rounds": 3, "rules.golden_token[1]": 4}  # the golden token stays
    assert best["sentence"] == "change rounds from 4 to 3"
    assert best["verdict"] == {"mean_rounds": "met"}
    assert best["seed"] != results.tune.seed  # judged on a fresh seed
    assert results.summary["base_rules"]["verdict"] == {"mean_rounds": "missed"}
    table = pd.read_parquet(tmp_path / "out" / T.CANDIDATES_FILE)
    assert set(table["stage"]) >= {"search", "final"}
    assert len(table[table["stage"] == "search"].drop_duplicates(["rules.rounds", "rules.golden_token[1]"])) == 8
    # best.toml is a config `lvsim run` takes, with the recommended rules.
    run = CliRunner().invoke(main, ["run", str(tmp_path / "out" / T.BEST_FILE), "--games", "20", "--out",
                                    str(tmp_path / "best-run"), "--json"])
    assert run.exit_code == 0, run.output
    assert json.loads(run.stdout)["rounds"] == 3


def test_candidates_are_compared_on_the_same_deals(tmp_path):
    """The difference between two candidates wobbles less over seeds when both play the same deals."""
    tune = T.load_tune(write_tune(tmp_path, PLANTED.replace(
        '"rules.rounds" = { range = [1, 4] }\n"rules.golden_token[1]" = [4, 5]',
        '"rules.tokens[2]" = { faces = [-4, 0] }').replace("mean_rounds = [2.5, 3.5]",
                                                           "elimination_rate = [0.4, 0.6]").replace(
        "players = [2]", "players = [4]"), base=PLANTED_BASE.replace("players = 2\nstarting_cabbages = 1000\n"
                                                                      "total_cabbages = 5000\n", "players = 4\n")))
    a = tune.base_values()
    b = {**a, "rules.tokens[2][1]": -2}

    def rate(values, seed):
        return T.evaluate(tune, values, 4, "random", 300, seed)["elimination_rate"]

    seeds = range(1, 9)
    paired = [rate(b, s) - rate(a, s) for s in seeds]
    independent = [rate(b, s + 100) - rate(a, s) for s in seeds]
    assert np.var(paired, ddof=1) < np.var(independent, ddof=1)


def test_a_stopped_tune_resumes_to_the_result_of_an_uninterrupted_one(tmp_path, monkeypatch):
    path = write_tune(tmp_path)
    T.tune(T.load_tune(path, threads=1), out=tmp_path / "whole", progress=False, report=False)

    real, calls = T.evaluate, []

    def stop_at_the_fifth(*args, **kwargs):
        calls.append(1)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(T, "evaluate", stop_at_the_fifth)
    with pytest.raises(KeyboardInterrupt):
        T.tune(path, out=tmp_path / "stopped", progress=False, report=False)
    assert not (tmp_path / "stopped" / T.RESULT_FILE).exists()  # nothing half-written
    assert not (tmp_path / "stopped" / T.CANDIDATES_FILE).exists()
    monkeypatch.setattr(T, "evaluate", real)
    resumed = T.tune(path, out=tmp_path / "stopped", progress=False, report=False)
    assert resumed.summary["timing"]["evaluations_reused"] >= 4
    _equal(comparable(tmp_path / "stopped"), comparable(tmp_path / "whole"))


def _equal(a, b) -> bool:
    assert a[0] == b[0]
    pd.testing.assert_frame_equal(a[1], b[1])
    return True


def test_a_tune_killed_outright_resumes_to_the_same_result(tmp_path):
    """kill -9 in the middle of a candidate: the same command continues and ends where an uninterrupted tune does."""
    path = write_tune(tmp_path)
    T.tune(path, out=tmp_path / "whole", progress=False, report=False)
    killer = dedent(f"""
        import os, signal, sim.tune as T
        real, calls = T.evaluate, []
        def evaluate(*args, **kwargs):
            calls.append(1)
            if len(calls) == 7:
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*args, **kwargs)
        T.evaluate = evaluate
        T.tune({str(path)!r}, out={str(tmp_path / "killed")!r}, progress=False, report=False)
    """)
    done = subprocess.run([sys.executable, "-c", killer], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert not (tmp_path / "killed" / T.RESULT_FILE).exists()
    T.tune(path, out=tmp_path / "killed", progress=False, report=False)
    _equal(comparable(tmp_path / "killed"), comparable(tmp_path / "whole"))


def test_a_directory_of_another_tune_is_refused(tmp_path):
    path = write_tune(tmp_path)
    T.tune(path, out=tmp_path / "out", progress=False, report=False)
    with pytest.raises(T.ConfigError, match="another definition"):
        T.tune(T.load_tune(path, seed=4), out=tmp_path / "out", progress=False, report=False)


def test_the_command_writes_every_result_and_the_report_links_the_balance_report(tmp_path):
    path = write_tune(tmp_path, PLANTED.replace("budget = 8", "budget = 3"))
    result = CliRunner().invoke(main, ["tune", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Recommendation: ")
    out = tmp_path / "out"
    assert {p.name for p in out.iterdir()} >= {"best.toml", "tune.json", "tune.html", "candidates.parquet", "best"}
    html = (out / "tune.html").read_text(encoding="utf-8")
    assert 'href="best/report.html"' in html and (out / "best" / "report.html").is_file()
    assert not list(out.rglob("*.partial"))
    dry = CliRunner().invoke(main, ["tune", str(path), "--dry-run"])
    assert dry.exit_code == 0 and "Nothing was written" in dry.stdout


def test_the_dice_game_is_tuned_through_the_same_contract(tmp_path):
    base = (ROOT / "configs" / "vegas-dice.toml").read_text(encoding="utf-8")
    tune = """
    base = "base.toml"
    [search]
    "rules.dice_per_player" = { range = [6, 9] }
    [targets]
    first_player_advantage = [-0.02, 0.02]
    [tune]
    players = [3]
    policies = ["greedy"]
    budget = 3
    games = 100
    max_games = 300
    """
    results = T.tune(write_tune(tmp_path, tune, base), out=tmp_path / "out", progress=False, report=False)
    assert set(results.recommendation["verdict"]) == {"first_player_advantage"}
    assert results.candidates["policy"].eq("greedy").all()


from tests.analysis.test_report_browser import browser  # noqa: E402,F401  (the fixture)


def test_the_tune_report_loads_cleanly_in_a_browser_and_says_the_recommendation(browser, tmp_path):  # noqa: F811
    path = write_tune(tmp_path, PLANTED.replace("budget = 8", "budget = 4"))
    results = T.tune(path, out=tmp_path / "out", progress=False, report=True)
    page = browser.new_page(viewport={"width": 560, "height": 900})
    problems, requests = [], []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type in ("error", "warning") else None)
    page.on("pageerror", lambda err: problems.append(str(err)))
    page.on("request", lambda request: requests.append(request.url))
    page.goto((tmp_path / "out" / "tune.html").resolve().as_uri(), wait_until="load")
    assert problems == []
    assert all(url.startswith(("file:", "data:")) for url in requests), requests
    images = page.eval_on_selector_all("img", "imgs => imgs.map(i => i.complete && i.naturalWidth > 0)")
    assert len(images) >= 2 and all(images)
    [(value, text)] = page.eval_on_selector_all("[data-metric=recommendation]",
                                                "els => els.map(e => [e.dataset.value, e.innerText])")
    assert json.loads(value) == results.recommendation["rules"]
    assert text.lower() == results.recommendation["sentence"]
    link = page.eval_on_selector("a[href='best/report.html']", "a => a.href")
    assert Path(link.removeprefix("file://")).is_file()
    # A narrow window scrolls the wide table instead of the page.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    page.close()


def test_the_same_command_without_out_continues_the_stopped_tune_under_reports(tmp_path, monkeypatch):
    path = write_tune(tmp_path)
    monkeypatch.chdir(tmp_path)
    real, calls = T.evaluate, []

    def stop_at_the_third(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(T, "evaluate", stop_at_the_third)
    with pytest.raises(KeyboardInterrupt):
        T.tune(path, progress=False, report=False)
    monkeypatch.setattr(T, "evaluate", real)
    [stopped] = (tmp_path / "reports").iterdir()
    resumed = T.tune(path, progress=False, report=False)
    assert resumed.out_dir == Path("reports") / stopped.name and resumed.summary["timing"]["evaluations_reused"] >= 2
    # Finished, it is not resumed again: the next tune is a new one.
    again = T.tune(path, progress=False, report=False)
    assert again.out_dir != resumed.out_dir


def test_workers_give_the_same_answer_as_this_process(tmp_path):
    from sim.cluster import open_cluster

    path = write_tune(tmp_path, PLANTED.replace("budget = 8", "budget = 3"))
    T.tune(path, out=tmp_path / "here", progress=False, report=False)
    with open_cluster(workers=2) as cluster:
        T.tune(path, out=tmp_path / "workers", progress=False, report=False, cluster=cluster)
    _equal(comparable(tmp_path / "workers"), comparable(tmp_path / "here"))


def test_a_skill_gap_target_plays_only_the_duel_it_names(tmp_path, monkeypatch):
    import sim.duel

    played, real = [], sim.duel.duel
    monkeypatch.setattr(sim.duel, "duel", lambda game, rules, seats, *a, **k: played.append(seats[0]) or real(
        game, rules, seats, *a, **k))
    tune = PLANTED.replace("mean_rounds = [2.5, 3.5]", "skill_gap_greedy_vs_random = { min = 0.5 }").replace(
        "budget = 8", "budget = 2").replace("games = 200", "games = 40\nmax_games = 80")
    results = T.tune(write_tune(tmp_path, tune), out=tmp_path / "out", progress=False, report=False)
    assert set(played) == {"greedy"}  # never the slow lookahead duel
    low, x, high = (results.recommendation["metrics"]["2 players, random"]["skill_gap_greedy_vs_random"][i]
                    for i in (1, 0, 2))
    assert 0.5 < low <= x <= high  # greedy beats random at 2 players, far above half


def test_a_candidate_meeting_the_targets_is_simplified_back_towards_the_base(tmp_path):
    tune = T.load_tune(write_tune(tmp_path, PLANTED.replace(
        '"rules.golden_token[1]" = [4, 5]', '"rules.golden_token" = { faces = [1, 6] }')))
    evals = T._Evaluations(tune, tmp_path / "evals", T.IN_PROCESS)
    many = {"rules.rounds": 3, "rules.golden_token[0]": 1, "rules.golden_token[1]": 6}  # base: 4, [3, 4]
    start = evals.judge(0, many, tune.games, tune.seed, "search")
    assert start.met(tune) and tune.change_size(many) == (3, 5)
    simplified = T._simplify(tune, [start], evals, 1, None)
    best = min(simplified, key=lambda j: j.rank_key(tune))
    assert best.values == {"rules.rounds": 3, "rules.golden_token[0]": 3, "rules.golden_token[1]": 4}
    assert [j.trial for j in simplified] == list(range(1, len(simplified) + 1))
