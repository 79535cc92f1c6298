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
from hypothesis import given, settings
from hypothesis import strategies as st

import sim.tune as T
from sim.errors import ConfigError
from sim.cli import main

ROOT = Path(__file__).resolve().parents[1]

# At 2 players with cabbages no one can lose, every game lasts all its rounds:
# the mean number of rounds is the rules' own, so only rounds = 3 lands in [2.5, 3.5].
PLANTED_BASE = (ROOT / "tests" / "data" / "planted_tune" / "base.toml").read_text(encoding="utf-8")
PLANTED = (ROOT / "tests" / "data" / "planted_tune" / "tune.toml").read_text(encoding="utf-8")


def write_tune(d: Path, tune: str = PLANTED, base: str = PLANTED_BASE) -> Path:
    (d / "base.toml").write_text(dedent(base), encoding="utf-8")
    path = d / "t.toml"
    path.write_text(dedent(tune), encoding="utf-8")
    return path


def test_a_knob_that_moves_in_steps_is_searched_in_its_steps_from_the_base(tmp_path):
    """Las Vegas's casino minimum moves by the smallest bill: 62,474 plays as 70,000 does, and 48,250 as 50,000."""
    base = 'game = "vegas-dice"\n[run]\ngames = 100\n[rules]\ncasino_minimum = 50000\n'
    tune = ('base = "base.toml"\n[search]\n"rules.casino_minimum" = { range = [25000, 92000] }\n'
            '[targets]\ntie_rate = { max = 0.1 }\n[tune]\nplayers = [4]\nbudget = 4\n')
    [dim] = T.load_tune(write_tune(tmp_path, tune, base)).dims
    assert dim.values() == [30000, 40000, 50000, 60000, 70000, 80000, 90000] and dim.step == 10_000
    with pytest.raises(ConfigError, match=r'search."rules.casino_minimum": range = \[51000, 59000\] holds no value'):
        T.load_tune(write_tune(tmp_path, tune.replace("[25000, 92000]", "[51000, 59000]"), base))


def test_a_bills_value_is_searched_by_the_dollars_the_bills_are_counted_in_and_its_count_by_one(tmp_path):
    """The 90,000-dollar bill: its value in steps of 10,000 dollars from the base's, its count by one bill."""
    base = 'game = "vegas-dice"\n[run]\ngames = 100\n'
    tune = ('base = "base.toml"\n[search]\n"rules.bills[8][0]" = { range = [95000, 125000] }\n'
            '"rules.bills[8][1]" = { range = [4, 9] }\n'
            '[targets]\ntie_rate = { max = 0.1 }\n[tune]\nplayers = [4]\nbudget = 4\n')
    value, count = T.load_tune(write_tune(tmp_path, tune, base)).dims
    assert value.values() == [100_000, 110_000, 120_000] and value.step == 10_000
    assert count.values() == [4, 5, 6, 7, 8, 9] and count.step == 1


@pytest.mark.slow("end to end")
def test_a_tune_tries_only_the_steps_of_a_knob_that_moves_in_steps(tmp_path):
    base = 'game = "vegas-dice"\n[run]\ngames = 100\n[rules]\ncasino_minimum = 50000\n'
    tune = ('base = "base.toml"\n[search]\n"rules.casino_minimum" = { range = [25000, 92000] }\n'
            '[targets]\ntie_rate = { max = 0.1 }\n[tune]\nplayers = [4]\nbudget = 4\n')
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["tune", str(write_tune(tmp_path, tune, base)), "--out", str(out)])
    assert result.exit_code in (0, 1), result.output
    tried = pd.read_parquet(out / T.CANDIDATES_FILE)["rules.casino_minimum"]
    assert set(tried) <= set(range(30000, 90001, 10000)), sorted(set(tried))


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


def test_what_is_wanted_is_written_as_the_file_says_it_or_as_its_values_are():
    from sim.tune.text import value_ci

    band = T._target("t", "elimination_rate", [0.4, 0.6])
    assert band.spelled == "[0.4, 0.6]"
    assert band.spelled_as(lambda x: value_ci("pct", x)) == "[40.00%, 60.00%]"
    ceiling = T._target("t", "worst_seat_advantage", {"max": 0.01})
    assert ceiling.spelled_as(lambda x: value_ci("pts", x)) == "at most +1.00 pp"
    near = T._target("t", "first_player_advantage", {"near": 0.0, "within": 0.005})
    assert near.spelled_as(lambda x: value_ci("pts", x)) == "near +0.00 pp (± 0.50 pp)"


# --- the search -------------------------------------------------------------------------------


@pytest.mark.slow("end to end")
def test_a_planted_problem_is_found_with_the_smallest_change(tmp_path):
    results = T.tune(write_tune(tmp_path), out=tmp_path / "out", progress=False, report=False)
    best = results.recommendation
    assert best["values"] == {"rules.rounds": 3, "rules.golden_token[1]": 4}  # the golden token stays
    assert best["sentence"] == "change rounds from 4 to 3"
    assert best["verdict"] == {"mean_rounds": "met"}
    assert best["seed"] != results.tune.seed  # judged on a fresh seed
    # A target with a value in each game is judged on a confidence sequence, played until decided.
    decided = best["decided"]["mean_rounds"]["2 players, random"]
    assert decided["verdict"] == "met" and decided["games"] >= 1_000
    assert best["metrics"]["2 players, random"]["mean_rounds"] == [decided["estimate"], decided["low"], decided["high"]]
    assert decided["low"] <= decided["estimate"] <= decided["high"]
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


def test_a_tune_stored_under_the_earlier_name_of_a_run_key_resumes(tmp_path):
    """A tune begun before run.strength_lookahead_games became run.strength_slow_games is found and continued."""
    tune = T.load_tune(write_tune(tmp_path))
    out = tmp_path / "stopped"
    T.tune(tune, out=out, progress=False, report=False)
    (out / T.RESULT_FILE).unlink()  # as if stopped before the end
    stored_path = out / T.STATE_DIR / T.DEFINITION_FILE
    stored = json.loads(stored_path.read_text(encoding="utf-8"))
    stored["base"]["run"]["strength_lookahead_games"] = stored["base"]["run"].pop("strength_slow_games")
    stored_path.write_text(json.dumps(stored), encoding="utf-8")
    resumed = T.tune(tune, out=out, progress=False, report=False)
    assert resumed.summary["timing"]["games_played_now"] == 0


def stopping_at(n: int, stop):
    """``evaluate_many`` that calls ``stop()`` as the ``n``-th evaluation is played, before it is kept."""
    real, played = T.evaluation.evaluate_many, []

    def evaluate_many(*args, **kwargs):
        for item in real(*args, **kwargs):
            played.append(1)
            if len(played) == n:
                stop()
            yield item

    return evaluate_many


def interrupt():
    raise KeyboardInterrupt


def test_a_stopped_tune_resumes_to_the_result_of_an_uninterrupted_one(tmp_path, monkeypatch):
    path = write_tune(tmp_path)
    T.tune(T.load_tune(path, threads=1), out=tmp_path / "whole", progress=False, report=False)

    real = T.evaluation.evaluate_many
    monkeypatch.setattr(T.evaluation, "evaluate_many", stopping_at(5, interrupt))
    with pytest.raises(KeyboardInterrupt):
        T.tune(path, out=tmp_path / "stopped", progress=False, report=False)
    assert not (tmp_path / "stopped" / T.RESULT_FILE).exists()  # nothing half-written
    assert not (tmp_path / "stopped" / T.CANDIDATES_FILE).exists()
    # As if killed while it appended to the search's journal: its last line half-written.
    journal = tmp_path / "stopped" / T.STATE_DIR / T.JOURNAL_FILE
    journal.write_bytes(journal.read_bytes()[:-20])
    monkeypatch.setattr(T.evaluation, "evaluate_many", real)
    resumed = T.tune(path, out=tmp_path / "stopped", progress=False, report=False)
    assert resumed.summary["timing"]["evaluations_reused"] >= 4
    _equal(comparable(tmp_path / "stopped"), comparable(tmp_path / "whole"))


def _equal(a, b) -> bool:
    assert a[0] == b[0]
    pd.testing.assert_frame_equal(a[1], b[1])
    return True


@pytest.mark.slow
@pytest.mark.parametrize("workers", [None, 2], ids=["in-process", "2 workers"])
def test_a_tune_killed_outright_resumes_to_the_same_result(tmp_path, workers):
    """kill -9 in the middle of a batch of candidates: the same command continues and ends where an
    uninterrupted tune does (in this process), whether the batch was played here or on workers."""
    path = write_tune(tmp_path)
    T.tune(path, out=tmp_path / "whole", progress=False, report=False)
    pids = tmp_path / "worker-pids"
    killer = dedent(f"""
        import os, signal, sim.tune as T
        from sim.cluster import open_cluster
        real, played = T.evaluation.evaluate_many, []
        def evaluate_many(*args, **kwargs):
            for item in real(*args, **kwargs):
                played.append(1)
                if len(played) == 7:  # the search's first batch is of 8 candidates
                    os.kill(os.getpid(), signal.SIGKILL)
                yield item
        T.evaluation.evaluate_many = evaluate_many
        with open_cluster(workers={workers!r}) as cluster:
            if {workers!r} is not None:
                open({str(pids)!r}, "w").write(" ".join(str(p) for p in cluster.client.run(os.getpid).values()))
            T.tune({str(path)!r}, out={str(tmp_path / "killed")!r}, progress=False, report=False, cluster=cluster)
    """)
    try:
        done = subprocess.run([sys.executable, "-c", killer], cwd=ROOT, capture_output=True, text=True)
    finally:
        # The killed client's worker processes, by the ids it wrote down.
        for pid in pids.read_text().split() if pids.exists() else []:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert not (tmp_path / "killed" / T.RESULT_FILE).exists()
    resumed = T.tune(path, out=tmp_path / "killed", progress=False, report=False)
    assert resumed.summary["timing"]["evaluations_reused"] >= 6  # the batch's first evaluations were kept
    _equal(comparable(tmp_path / "killed"), comparable(tmp_path / "whole"))


def test_a_tune_stopped_before_it_wrote_its_definition_begins_again_in_its_directory(tmp_path):
    """Stopped (kill -9 included) between making its state directory and writing its definition, a tune leaves a
    directory holding that state directory alone, at most with its lock: nothing was played, and the same command
    runs there as in a new directory."""
    path = write_tune(tmp_path, PLANTED.replace("budget = 8", "budget = 2"))
    state = tmp_path / "out" / T.STATE_DIR
    state.mkdir(parents=True)
    (state / T.LOCK_FILE).touch()
    (state / f".{T.DEFINITION_FILE}.0badc0de.partial").write_text("{")
    T.tune(path, out=tmp_path / "out", progress=False, report=False)
    assert (tmp_path / "out" / T.RESULT_FILE).is_file()


def test_a_directory_of_another_tune_is_refused(tmp_path):
    path = write_tune(tmp_path)
    T.tune(path, out=tmp_path / "out", progress=False, report=False)
    with pytest.raises(T.ConfigError, match="another definition"):
        T.tune(T.load_tune(path, seed=4), out=tmp_path / "out", progress=False, report=False)


@pytest.mark.slow("end to end")
def test_the_command_writes_every_result_and_the_report_links_the_balance_report(tmp_path):
    path = write_tune(tmp_path, PLANTED.replace("budget = 8", "budget = 3"))
    result = CliRunner().invoke(main, ["tune", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Recommendation: ")
    out = tmp_path / "out"
    assert {p.name for p in out.iterdir()} >= {"best.toml", "tune.json", "tune.html", "candidates.parquet", "best"}
    html = (out / "tune.html").read_text(encoding="utf-8")
    assert 'href="best/2p-random/report.html"' in html and (out / "best" / "2p-random" / "report.html").is_file()
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


@pytest.mark.slow("end to end")
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
    link = page.eval_on_selector("a[href='best/2p-random/report.html']", "a => a.href")
    assert Path(link.removeprefix("file://")).is_file()
    # A narrow window scrolls the wide table instead of the page.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    page.close()


def test_the_same_command_without_out_continues_the_stopped_tune_under_reports(tmp_path, monkeypatch):
    path = write_tune(tmp_path)
    monkeypatch.chdir(tmp_path)
    real = T.evaluation.evaluate_many
    monkeypatch.setattr(T.evaluation, "evaluate_many", stopping_at(3, interrupt))
    with pytest.raises(KeyboardInterrupt):
        T.tune(path, progress=False, report=False)
    monkeypatch.setattr(T.evaluation, "evaluate_many", real)
    [stopped] = (tmp_path / "reports").iterdir()
    resumed = T.tune(path, progress=False, report=False)
    assert resumed.out_dir == Path("reports") / stopped.name and resumed.summary["timing"]["evaluations_reused"] >= 2
    # Finished, it is not resumed again: the next tune is a new one.
    again = T.tune(path, progress=False, report=False)
    assert again.out_dir != resumed.out_dir


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2, 3])
def test_workers_give_the_same_answer_as_this_process(tmp_path, workers):
    """The search's batches, the simplification played ahead, the halving and the final replay played
    together on the workers: the same tune, candidate for candidate, as in this process."""
    from sim.cluster import open_cluster

    path = write_tune(tmp_path, PLANTED.replace("budget = 8", "budget = 10").replace(
        '"rules.golden_token[1]" = [4, 5]', '"rules.golden_token" = { faces = [1, 6] }'))
    T.tune(path, out=tmp_path / "here", progress=False, report=False)
    with open_cluster(workers=workers) as cluster:
        T.tune(path, out=tmp_path / "workers", progress=False, report=False, cluster=cluster)
    here = comparable(tmp_path / "here")
    assert here[0]["simplified"] > 0 and len(set(here[1]["stage"])) >= 4  # every step of the tune was played
    _equal(comparable(tmp_path / "workers"), here)


def test_the_answer_does_not_depend_on_how_fast_this_machine_plays(tmp_path, monkeypatch):
    """What the tune says before its search is timed on this machine; what it writes is not: a timing that
    stops at the first sample (a slow machine) gives the same tune.json, resolution included."""
    import sim.estimates.tunes as estimates

    path = write_tune(tmp_path, PLANTED.replace("mean_rounds = [2.5, 3.5]",
                                                "mean_rounds = [2.5, 3.5]\nfirst_player_advantage = [-0.2, 0.2]"))
    said_here: list[str] = []
    T.tune(path, out=tmp_path / "here", progress=False, report=False, say=said_here.append)
    timed = estimates.calibrate
    monkeypatch.setattr(estimates, "_EVALUATION_COSTS", {})
    monkeypatch.setattr(estimates, "calibrate", lambda work, cap, **kw: timed(work, cap, **{**kw, "enough": 0.0}))
    said_slow: list[str] = []
    T.tune(path, out=tmp_path / "slow", progress=False, report=False, say=said_slow.append)
    here = comparable(tmp_path / "here")
    assert here[0]["resolution"] and said_here and said_slow
    _equal(comparable(tmp_path / "slow"), here)


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
    # Played ahead on a cluster, every move of a pass at once: the same simplification, trial for trial.
    ahead = T._Evaluations(tune, tmp_path / "evals-ahead", TwoSlots())
    again = T._simplify(tune, [ahead.judge(0, many, tune.games, tune.seed, "search")], ahead, 1, None)
    assert [(j.trial, j.values, j.rows) for j in again] == [(j.trial, j.values, j.rows) for j in simplified]
    assert ahead.played_games > evals.played_games  # some moves were played that the pass never reached


class TwoSlots(type(T.IN_PROCESS)):
    """This process, said to play two chunks at once: what a cluster of two workers looks like to a tune."""

    slots = 2


# --- what the tune says ------------------------------------------------------------------------


def _tune_of(tmp_path, targets="mean_rounds = [2.5, 3.5]\nfirst_player_advantage = [-0.01, 0.01]",
             players="[2]", policies='["random"]'):
    text = (PLANTED.replace("mean_rounds = [2.5, 3.5]", targets).replace("players = [2]", f"players = {players}")
            .replace('policies = ["random"]', f"policies = {policies}"))
    return T.load_tune(write_tune(tmp_path, text))


def _judged(tune, values, rows, trial=0, games=2000):
    """A candidate with made-up evaluations: ``rows`` maps (players, policy) to {metric: (x, lo, hi)}."""
    judged = T.Judged(trial, dict(values), games, tune.final_seed, "final")
    for key, metrics in rows.items():
        row = {"games": games}
        for metric, measured in metrics.items():
            for end, v in zip(("", "_lo", "_hi"), measured):
                if v is not None:
                    row[f"{metric}{end}"] = v
        judged.rows[key] = row
    return judged


MET = {"mean_rounds": (3.0, 2.9, 3.1), "first_player_advantage": (0.0, -0.005, 0.005)}
UNDECIDED = {"mean_rounds": (3.0, 2.9, 3.1), "first_player_advantage": (0.0, -0.02, 0.02)}
MISSED = {"mean_rounds": (4.0, 3.9, 4.1), "first_player_advantage": (0.0, -0.005, 0.005)}


def test_the_base_rules_are_said_to_meet_the_targets_only_when_every_one_is_met(tmp_path):
    tune = _tune_of(tmp_path)
    base = tune.base_values()
    assert T.describe(tune, base) == "keep the base rules"  # the change alone makes no claim
    met = _judged(tune, base, {(2, "random"): MET})
    assert T.headline(tune, met) == "Recommendation: keep the base rules. They meet every target on a fresh seed."
    undecided = _judged(tune, base, {(2, "random"): UNDECIDED})
    words = T.headline(tune, undecided)
    assert not words.startswith("Recommendation") and "they meet" not in words.lower()
    assert words == ("No candidate tried meets every target on a fresh seed. Closest: keep the base rules. "
                     "Short of the targets: first_player_advantage undecided (2 players, random).")
    changed = _judged(tune, {**base, "rules.rounds": 3}, {(2, "random"): MET}, trial=5)
    assert T.headline(tune, changed) == ("Recommendation: change rounds from 4 to 3. Every target is met on a "
                                         "fresh seed.")


def test_a_runner_up_is_never_said_to_meet_the_targets_it_misses(tmp_path):
    tune = _tune_of(tmp_path)
    base = tune.base_values()
    best = _judged(tune, {**base, "rules.rounds": 3}, {(2, "random"): MET}, trial=5)
    missed = _judged(tune, base, {(2, "random"): MISSED})
    summary = {"final_seed": tune.final_seed, "candidates_tried": 2, **T.answer(tune, [best, missed], missed)}
    text = T.tune_text(T.TuneResults(tune, tmp_path, summary, None))
    [runner_up] = [line for line in text.splitlines() if line.startswith("  #0")]
    assert runner_up == "  #0: keep the base rules \u2014 mean_rounds missed (2 players, random)"
    assert summary["runners_up"][0]["status"] == "mean_rounds missed (2 players, random)"
    assert text.splitlines()[0] == summary["verdict"]["headline"]


def test_the_terminal_counts_the_candidates_tried_as_the_page_does(tmp_path):
    """The last lines of a tune count the candidates the search and the simplification tried, as the report's
    heading does (4 and 41 here, not the search's 4 alone); its sentences keep within 120 columns."""
    from analysis.tune_report import tried_text

    tune = _tune_of(tmp_path)
    best = _judged(tune, {**tune.base_values(), "rules.rounds": 3}, {(2, "random"): MET}, trial=5)
    summary = {"final_seed": tune.final_seed, "budget": 4, "candidates_tried": 4, "simplified": 41, "games": 2000,
               "timing": {"games_played_now": 1_234_567, "seconds": 5432.1, "evaluations_reused": 12},
               **T.answer(tune, [best], best)}
    lines = T.tune_text(T.TuneResults(tune, tmp_path, summary, None)).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Played "))
    said = " ".join(line.strip() for line in lines[start:start + 2])
    assert said.startswith(f"Played 1,234,567 games now in 5432.1 s wall time: {tried_text(summary)}; 12 evaluations")
    assert "45 candidates tried at 2,000 games each (4 in the search, 41 simplifying)" in said
    assert lines[start + 1].startswith("  ")  # wrapped, as every sentence but the files' path and a command is
    assert max(len(line) for line in lines if not line.startswith(("Results in ", "To play "))) <= 120


def test_the_rule_holes_of_recommended_base_rules_are_said_once(tmp_path):
    """Recommended base rules are one evaluation: the terminal and the page give each rule hole once, not the
    same interval twice as "these rules; the base rules". Changed rules are shown beside the base rules."""
    from analysis.tune_report import _side_effects

    tune = _tune_of(tmp_path)
    holes = {"shortfall_rate": (0.03, 0.02, 0.04), "seven_no_slot_rate": (0.0, 0.0, 0.001)}
    base = _judged(tune, tune.base_values(), {(2, "random"): {**MET, **holes}})
    changed = _judged(tune, {**tune.base_values(), "rules.rounds": 3}, {(2, "random"): {**MET, **holes}}, trial=5)
    for best, kept in ((base, True), (changed, False)):
        summary = {"final_seed": tune.final_seed, **T.answer(tune, [best], base)}
        lines = T.tune_text(T.TuneResults(tune, tmp_path, summary, None)).splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("Rule holes"))
        shown = lines[start + 1:start + 3]
        assert all(line.count(" on 2,000 games") == (1 if kept else 2) for line in shown), shown
        assert lines[start].startswith("Rule holes on the fresh seed (the base rules)" if kept else
                                       "Rule holes on the fresh seed (these rules; the base rules)")
        # Both columns once ran to 123 columns: the names' columns are as wide as the names, the rest wraps.
        assert max(len(line) for line in lines if not line.startswith(("Results in ", "To play "))) <= 120, lines
        page = _side_effects(summary)
        assert page.count("these rules</span>") == (0 if kept else 2) and page.count("base rules</span>") == 2
        assert ("with the base rules (the recommended rules), on 2,000 games" in page) == kept


NOTHING_MEETS = PLANTED.replace("mean_rounds = [2.5, 3.5]", "mean_rounds = [5.5, 6.5]").replace(
    "budget = 8", "budget = 3")


@pytest.mark.slow("end to end")
def test_when_nothing_meets_the_targets_every_output_says_so_in_the_same_words(browser, tmp_path):  # noqa: F811
    path = write_tune(tmp_path, NOTHING_MEETS)
    result = CliRunner().invoke(main, ["tune", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    wrapped_to = next(k for k in range(1, len(lines)) if not lines[k].startswith("  "))
    first = " ".join(line.strip() for line in lines[:wrapped_to])  # the headline, wrapped at 120 columns
    assert "Recommendation" not in result.stdout and "they meet" not in result.stdout.lower()
    assert first.startswith("No candidate tried meets every target on a fresh seed. Closest: ")
    assert "mean_rounds missed (2 players, random)" in first
    summary = json.loads((tmp_path / "out" / T.RESULT_FILE).read_text(encoding="utf-8"))
    assert summary["verdict"]["headline"] == first and summary["verdict"]["all_met"] is False
    assert (tmp_path / "out" / T.BEST_FILE).read_text(encoding="utf-8").startswith(
        "# No candidate `lvsim tune ")
    page = browser.new_page()
    page.goto((tmp_path / "out" / "tune.html").resolve().as_uri(), wait_until="load")
    assert page.inner_text("p.lead") == first
    # The finalists' tables call the first one the closest, never "recommended".
    tables = page.inner_text("body")
    assert "closest" in tables and "recommended" not in tables.lower()
    page.close()


@pytest.mark.slow("end to end")
def test_the_balance_report_and_best_toml_are_of_the_tuned_player_counts_and_policy(tmp_path):
    from sim.config import config_from_mapping
    from sim.inputs import read_toml

    tune = PLANTED.replace("players = [2]", "players = [2, 3]").replace('policies = ["random"]',
                                                                         'policies = ["greedy"]').replace(
        "budget = 8", "budget = 2").replace("games = 200", "games = 60\nmax_games = 120")
    results = T.tune(write_tune(tmp_path, tune), out=tmp_path / "out", progress=False, report=True,
                     report_games=40)
    out = tmp_path / "out"
    reports = results.summary["report"]["settings"]
    assert [r["setting"] for r in reports] == ["2 players, greedy", "3 players, greedy"]
    for r, players in zip(reports, (2, 3)):
        played = config_from_mapping(read_toml(out / r["dir"] / "config.toml", ValueError))
        assert played.players == players and set(played.seat_policies) == {"greedy"}
        assert (out / r["report"]).is_file() and set(r["rule_holes"]) == set(results.tune.game.rule_holes)
    best = (out / T.BEST_FILE).read_text(encoding="utf-8")
    config = config_from_mapping(read_toml(out / T.BEST_FILE, ValueError))
    assert set(config.seat_policies) == {"greedy"} and config.players == 2  # the base config's count, tuned
    assert "# Tuned at 2 and 3 players with greedy at every seat; this file plays 2 players" in best
    holes = results.summary["rule_holes"]
    assert {(h["metric"], h["setting"]) for h in holes} == {
        (m, s) for m in results.tune.game.rule_holes for s in ("2 players, greedy", "3 players, greedy")}
    html = (out / T.REPORT_FILE).read_text(encoding="utf-8")
    assert all(f'href="{r["report"]}"' in html for r in reports) and "shortfall_rate" in html


def test_untargeted_metrics_that_got_much_worse_are_listed_with_their_intervals(tmp_path):
    tune = _tune_of(tmp_path, targets="mean_rounds = [2.5, 3.5]")
    base_values = tune.base_values()
    rows = {"mean_rounds": (3.0, 2.9, 3.1), "seven_no_slot_rate": (0.011, None, None)}
    best = _judged(tune, {**base_values, "rules.rounds": 3}, {(2, "random"): {
        **rows, "shortfall_rate": (0.098, None, None), "first_player_advantage": (0.05, 0.03, 0.07)}})
    base = _judged(tune, base_values, {(2, "random"): {
        **rows, "shortfall_rate": (0.004, None, None), "first_player_advantage": (0.0, -0.02, 0.02)}})
    effects = {e["metric"]: e for e in T.side_effects(tune, best, base)}
    assert set(effects) == {"shortfall_rate", "first_player_advantage"}  # not seven_no_slot_rate: as before
    low, high = effects["shortfall_rate"]["value"][1:]
    assert low < 0.098 < high and low > effects["shortfall_rate"]["base"][2]
    words = T.side_effect_words(tune, list(effects.values()))
    # Written as lvsim run writes a rate, with the games each value rests on.
    assert "shortfall_rate (rounds in which the reserve could not pay every gain): 9.80% [" in words
    assert "on 2,000 games against 0.40% [" in words and "on 2,000 games at 2 players, random" in words
    # A targeted metric is the targets' business, not a side effect.
    targeted = _tune_of(tmp_path, targets="mean_rounds = [2.5, 3.5]\nfirst_player_advantage = [-0.1, 0.1]")
    assert "first_player_advantage" not in {e["metric"] for e in T.side_effects(targeted, best, base)}
    assert "no untargeted metric watched" in T.side_effect_words(tune, [])


def test_policies_that_pull_apart_under_the_recommended_rules_are_said_to(tmp_path):
    tune = _tune_of(tmp_path, targets="elimination_rate = [0.4, 0.6]", policies='["greedy", "expert"]')
    apart = _judged(tune, tune.base_values(), {(2, "greedy"): {"elimination_rate": (0.45, 0.43, 0.47)},
                                               (2, "expert"): {"elimination_rate": (0.12, 0.11, 0.13)}})
    [entry] = T.policies_apart(tune, apart)
    assert (entry["high"], entry["low"], entry["players"]) == ("greedy", "expert", 2)
    words = T.policies_apart_words([entry])
    # Written as lvsim run writes a rate, with the games each value rests on.
    assert words.startswith("The policies pull apart") and "45.00% [43.00%, 47.00%] on 2,000 games with greedy" in words
    assert "12.00% [11.00%, 13.00%] on 2,000 games with expert at 2 players" in words
    together = _judged(tune, tune.base_values(), {(2, "greedy"): {"elimination_rate": (0.45, 0.43, 0.47)},
                                                  (2, "expert"): {"elimination_rate": (0.42, 0.40, 0.44)}})
    assert T.policies_apart(tune, together) == [] and T.policies_apart_words([]) == ""


def test_a_skill_target_can_be_stated_against_the_fair_share_of_each_player_count(tmp_path):
    above = T._target("t", "skill_gap_expert_vs_greedy", {"min": 0.1, "relative": "above_fair"})
    row = {"skill_gap_expert_vs_greedy": 0.45, "skill_gap_expert_vs_greedy_lo": 0.44,
           "skill_gap_expert_vs_greedy_hi": 0.46}
    assert above.measure(row, 3) == pytest.approx((0.45 - 1 / 3, 0.44 - 1 / 3, 0.46 - 1 / 3))
    assert above.verdict(*above.measure(row, 3)) == "met" and above.verdict(*above.measure(row, 2)) == "missed"
    times = T._target("t", "skill_gap_expert_vs_greedy", {"min": 1.5, "relative": "times_fair"})
    assert times.measure(row, 4)[0] == pytest.approx(1.8) and times.label == "skill_gap_expert_vs_greedy \u00d7 players"
    with pytest.raises(T.ConfigError, match=r"targets.skill_gap_expert_vs_greedy.relative: must be \"above_fair\""):
        T._target("targets.skill_gap_expert_vs_greedy", "skill_gap_expert_vs_greedy", {"min": 0.1, "relative": "half"})
    with pytest.raises(T.ConfigError, match="targets.elimination_rate.relative: only a skill-gap target"):
        T._target("targets.elimination_rate", "elimination_rate", {"min": 0.1, "relative": "above_fair"})
    bad = PLANTED.replace("mean_rounds = [2.5, 3.5]", 'skill_gap_expert_vs_greedy = { min = 0.1, relative = 1 }')
    result = CliRunner().invoke(main, ["tune", str(write_tune(tmp_path, bad)), "--dry-run"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "targets.skill_gap_expert_vs_greedy.relative: must be" in result.output


def test_a_relative_skill_target_plays_its_duel_and_judges_each_count_against_its_own_fair_share(tmp_path):
    tune = PLANTED.replace("mean_rounds = [2.5, 3.5]",
                           'skill_gap_expert_vs_greedy = { min = 0.0, relative = "above_fair" }').replace(
        "players = [2]", "players = [2, 3]").replace("budget = 8", "budget = 1").replace(
        "games = 200", "games = 60\nmax_games = 60")
    results = T.tune(write_tune(tmp_path, tune), out=tmp_path / "out", progress=False, report=False)
    final = results.candidates[results.candidates["stage"] == "final"]
    for players in (2, 3):
        raw = final[final["players"] == players]["skill_gap_expert_vs_greedy"].iloc[0]
        shown = results.recommendation["metrics"][f"{players} players, random"]["skill_gap_expert_vs_greedy"][0]
        assert shown == pytest.approx(raw - 1 / players)


def test_the_skill_gap_climbs_every_step_of_skill():
    from sim.lasvegan.game import GAME

    duels = {d.name: (d.policy, d.against) for d in GAME.skill_gap_duels}
    assert duels["greedy_vs_random"] == ("greedy", "random")
    assert duels["expert_vs_greedy"] == ("expert", "greedy")
    assert duels["lookahead16_vs_expert"] == ("lookahead:16", "expert")
    assert GAME.skill_gap_duels[0].policy.startswith("lookahead")  # the one sim.lasvegan.duel may swap


# --- the worst seat's advantage -----------------------------------------------------------------


def _fair_tables(rng, games: int, players: int, tables: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-seat win shares and their standard errors of ``tables`` runs of ``games`` games with fair seats:
    each game won by one seat at random, or (one game in five) tied by two."""
    shares = np.zeros((tables, games, players))
    winners = rng.integers(players, size=(tables, games))
    tied = rng.random((tables, games)) < 0.2
    other = (winners + rng.integers(1, players, size=(tables, games))) % players
    t, g = np.indices((tables, games))
    shares[t, g, winners] = np.where(tied, 0.5, 1.0)
    shares[t, g, other] += np.where(tied, 0.5, 0.0)
    return shares.mean(axis=1), shares.std(axis=1, ddof=1) / np.sqrt(games)


def _corrected(win: np.ndarray, se: np.ndarray, games: int, fair: float, clamped: bool = True) -> np.ndarray:
    """The bias-corrected worst seat's advantage of each table as a summary gives it: kept inside the range the
    seats' Student t intervals give (``clamped``), or the correction alone."""
    from analysis.common import worst_seat_advantage, worst_seat_advantage_corrected
    from analysis.stats import t95

    out = []
    for w, s in zip(win, se):
        _, within = worst_seat_advantage(list(w), [[x - t95(games) * e, x + t95(games) * e] for x, e in zip(w, s)],
                                         fair)
        out.append(worst_seat_advantage_corrected(w, s, fair, within if clamped else [np.nan, np.nan]))
    return np.array(out)


@pytest.mark.parametrize("players,games", [(2, 2000), (3, 300), (4, 200), (5, 2000)])
def test_the_corrected_worst_seat_advantage_is_biased_upward_far_less_than_the_plain_maximum(players, games):
    rng = np.random.default_rng(players * 1000 + games)
    tables = 400
    win, se = _fair_tables(rng, games, players, tables)
    fair = 1 / players
    naive = np.abs(win - fair).max(axis=1)
    corrected, unclamped = _corrected(win, se, games, fair), _corrected(win, se, games, fair, clamped=False)
    seat_se = float(np.mean(se))

    def noise(x):  # three standard errors of a mean over the tables
        return 3 * x.std(ddof=1) / np.sqrt(tables)

    # As the docstring says: 0.24 to 0.33 seat standard errors above 0 (raised to the range's low end, mostly 0,
    # in about half the tables); the correction alone within 0.1 of 0; the plain maximum 0.8 to 1.5 above it.
    assert 0.2 * seat_se - noise(corrected) < corrected.mean() < 0.4 * seat_se + noise(corrected)
    assert abs(unclamped.mean()) < 0.1 * seat_se + noise(unclamped)
    assert 0.3 < np.mean(corrected > unclamped) < 0.7
    assert naive.mean() > corrected.mean() + 0.4 * seat_se + noise(naive)
    # Closer to the truth (0 here) on the whole: a smaller root-mean-square error.
    assert np.mean(corrected ** 2) < np.mean(unclamped ** 2)


@pytest.mark.parametrize("ahead,bias", [(2, -0.8), (4, -0.37), (10, 0.0)])
def test_the_corrected_worst_seat_advantage_reads_low_near_fair_and_is_unbiased_far_from_it(ahead, bias):
    rng = np.random.default_rng(7)
    players, games, tables = 4, 2000, 300
    win, se = _fair_tables(rng, games, players, tables)
    seat_se = float(np.mean(se))
    tilt = np.array([ahead] + [-ahead / 3] * 3) * seat_se  # seat 0 ``ahead`` standard errors ahead
    corrected = _corrected(win + tilt, se, games, 1 / players)
    tolerance = 3 * corrected.std(ddof=1) / np.sqrt(tables) + 0.1 * seat_se
    assert abs(corrected.mean() - tilt[0] - bias * seat_se) < tolerance


def test_a_corrected_worst_seat_advantage_below_its_range_is_raised_to_its_low_end():
    from analysis.common import win_share_metrics, worst_seat_advantage_corrected

    # 16 games at 4 players, each seat winning 4: every seat exactly fair. The correction alone reads below 0.
    unit = 12
    m = win_share_metrics([4 * unit] * 4, [4 * unit * unit] * 4, unit, 16, 0)
    se = [m["win_share_ci"][0][1] - 0.25] * 4  # any positive spread: the correction subtracts a positive bias
    assert worst_seat_advantage_corrected(m["win_share"], se, 0.25, [np.nan, np.nan]) < 0
    low, high = m["worst_seat_advantage_corrected_ci"]
    assert m["worst_seat_advantage_corrected"] == low == 0.0 < high


@settings(deadline=None)
@given(st.one_of(st.none(), st.floats(-1, 1)), st.one_of(st.none(), st.floats(-1, 1)),
       st.lists(st.floats(-1.5, 1.5), min_size=3, max_size=3))
def test_a_target_judged_on_the_interval_and_ranked_on_the_estimate_agrees_when_the_estimate_is_inside(low, high,
                                                                                                        measured):
    """Met on the interval means no shortfall of the estimate, missed means some: true whenever the estimate
    lies inside its interval, which every summary keeps (the worst seat's corrected estimate is clamped into it)."""
    if low is None and high is None or low is not None and high is not None and low > high:
        return
    target = T.Target("worst_seat_advantage", low, high, 0.01)
    lo, x, hi = sorted(measured)
    verdict = target.verdict(x, lo, hi)
    if verdict == "met":
        assert target.shortfall(x) == 0
    elif verdict == "missed":
        assert target.shortfall(x) > 0


def test_the_page_counts_the_candidates_the_search_and_the_simplification_tried():
    """A budget of 4 whose search tried 4 distinct candidates and whose simplification tried 41 more, every one at
    2,000 games: 45 were tried, not the budget's 4; a domain of 3 candidates under a budget of 8 tried 3."""
    from sim.tune.text import tried_text

    assert tried_text({"budget": 4, "candidates_tried": 4, "simplified": 41, "games": 2000}) == (
        "45 candidates tried at 2,000 games each (4 in the search, 41 simplifying)")
    assert tried_text({"budget": 8, "candidates_tried": 3, "simplified": 0, "games": 200}) == (
        "3 candidates tried at 200 games each")


def test_a_target_on_the_worst_seat_reads_the_corrected_estimate(tmp_path):
    tune = _tune_of(tmp_path, targets="worst_seat_advantage = { max = 0.02 }")
    [target] = tune.targets
    assert target.column == "worst_seat_advantage_corrected" and target.label.endswith("(bias-corrected)")
    row = T.evaluate(tune, tune.base_values(), 2, "random", 200, 3)
    assert target.measure(row, 2)[0] == row["worst_seat_advantage_corrected"] != row["worst_seat_advantage"]


@pytest.mark.slow("end to end")
def test_the_finalists_read_without_scrolling_sideways_and_changes_keep_to_their_lines(browser, tmp_path,  # noqa: F811
                                                                                    monkeypatch):
    from analysis.tune_report import tune_report_html
    from tests.analysis.figure_text import catch_figures, cut_texts

    tune = PLANTED.replace('"rules.rounds" = { range = [1, 4] }\n"rules.golden_token[1]" = [4, 5]',
                           '"rules.tokens" = { faces = [-4, 3] }').replace(
        "mean_rounds = [2.5, 3.5]", "elimination_rate = [0.4, 0.6]\n"
                                    'skill_gap_expert_vs_greedy = { min = 0.1, relative = "above_fair" }').replace(
        "players = [2]", "players = [3, 4, 5]").replace('policies = ["random"]', 'policies = ["random", "greedy"]').replace(
        "budget = 8", "budget = 3").replace("games = 200", "games = 40\nmax_games = 40")
    base = PLANTED_BASE.replace("players = 2\nstarting_cabbages = 1000\ntotal_cabbages = 5000\n", "players = 4\n")
    results = T.tune(write_tune(tmp_path, tune, base), out=tmp_path / "out", progress=False, report=False)
    assert any(len(e["changes"]) >= 3 for e in [results.recommendation, *results.summary["runners_up"]])
    page_file = tmp_path / "tune.html"
    caught = catch_figures(monkeypatch)
    page_file.write_text(tune_report_html(results.summary, results.candidates, game=results.tune.game),
                         encoding="utf-8")
    assert len(caught) >= 2 + len(results.tune.targets)
    assert [problem for fig in caught for problem in cut_texts(fig)] == []  # no title or label cut
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(page_file.resolve().as_uri(), wait_until="load")
    lines = page.eval_on_selector_all("td.change span", """spans => spans.map(s => {
        const style = getComputedStyle(s);
        return [s.getBoundingClientRect().height, parseFloat(style.fontSize), s.scrollWidth, s.parentElement.clientWidth];
    })""")
    assert lines and all(height < 2 * size for height, size, _, _ in lines)  # each change on one line
    assert all(width <= cell for _, _, width, cell in lines)
    scrolls = page.eval_on_selector_all("#finalists .table-scroll", "ds => ds.map(d => [d.scrollWidth, d.clientWidth])")
    assert len(scrolls) == 1 + len(results.tune.targets) and all(w <= c + 1 for w, c in scrolls)
    figures = page.eval_on_selector_all("#finalists img", "imgs => imgs.map(i => i.getBoundingClientRect().right)")
    assert len(figures) == len(results.tune.targets) and max(figures) <= 1280
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    page.screenshot(path=str(tmp_path / "tune.png"), full_page=True)
    page.close()


def test_a_duel_of_too_few_deals_to_say_leaves_its_target_undecided(tmp_path):
    tune = _tune_of(tmp_path, targets="skill_gap_greedy_vs_random = { min = 0.5 }")
    [target] = tune.targets
    too_few = {"skill_gap_greedy_vs_random": 0.9, "skill_gap_greedy_vs_random_lo": float("nan"),
               "skill_gap_greedy_vs_random_hi": float("nan")}
    assert target.judge(too_few, 2) == "undecided"  # not met on a point estimate of a deal or two
    assert target.judge({**too_few, "skill_gap_greedy_vs_random_lo": 0.8, "skill_gap_greedy_vs_random_hi": 1.0},
                        2) == "met"
    rate = T._target("t", "shortfall_rate", {"max": 0.05})
    # A rate the summary gives no interval is judged on a Wilson interval over the games.
    assert rate.judge({"shortfall_rate": 0.01, "games": 2000}, 2) == "met"
    assert rate.judge({"shortfall_rate": 0.01, "games": 20}, 2) == "undecided"
