"""Generated bad input for every command and every game: a clean refusal or a correct run, nothing else.

Hypothesis garbles valid configs, sweep files, replay scripts and results
directories (cut, spliced, re-encoded, nested deep, values swapped for huge
numbers, other scripts' digits, wrong types) and draws option values, then
runs ``lvsim`` in this process. Every outcome must be exit code 0, or exit
code 2 with exactly one line on stderr and nothing half-written; never a
traceback, an internal error or a hang. Examples are derandomized, so CI
sees the same inputs every time; the whole file costs about a minute.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import tomllib
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

import sim.runner
from sim.cli import main
from sim.errors import MAX_LINE
from sim.games import GAME_IDS, all_games, get_game
from tests.conformance.conftest import hooks

FUZZ = settings(derandomize=True, deadline=None, database=None, max_examples=25,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

QUICK = """
[run]
games = 30
seed = 5
skill_gap_games = 0
strength_games = 0
strength_lookahead_games = 0
"""
# What each game's input is made of comes from its conformance module (tests/conformance/conftest.py,
# HOOKS): a game registered from any package gets the same garbling as the games shipped here.


def config_text(game_id: str) -> str:
    """A small config of the game: its ``SMALL_CONFIG`` tables after a quick ``[run]``."""
    return f'game = "{game_id}"\n' + QUICK + hooks(get_game(game_id)).SMALL_CONFIG


def sweep_text(game_id: str) -> str:
    """A sweep of the game's ``SWEEP_AXIS`` and of the games played (a few: no --games, which it refuses), and one
    explicit cell, over base.toml."""
    knob, values = hooks(get_game(game_id)).SWEEP_AXIS
    return (f'base = "base.toml"\n[sweep]\n"{knob}" = [{", ".join(map(str, values))}]\n"run.games" = [10, 20]\n'
            '[[cells]]\n"run.games" = 5\n')


def tune_text(game_id: str) -> str:
    """A two-candidate tune over base.toml: the range of the game's ``SWEEP_AXIS``, its first-player advantage
    (or first headline metric) as target, random seats (or its default player) at the small config's count."""
    game = get_game(game_id)
    knob, values = hooks(game).SWEEP_AXIS
    players = tomllib.loads(hooks(game).SMALL_CONFIG)["rules"]["players"]
    metric = "first_player_advantage" if "first_player_advantage" in game.metric else next(iter(game.headline_metrics))
    policy = "random" if "random" in game.policy_syntax else game.default_policy
    return (f'base = "base.toml"\n[search]\n"{knob}" = {{ range = [{min(values)}, {max(values)}] }}\n[targets]\n'
            f'{metric} = [-0.05, 0.05]\n[tune]\nplayers = [{players}]\npolicies = ["{policy}"]\nbudget = 2\n'
            'games = 4\nmax_games = 8\nfinalists = 1\n')


def script(game_id: str) -> str:
    """A hand-given game ``lvsim replay --game <id>`` plays: the game's ``REPLAY_SCRIPT``."""
    return hooks(get_game(game_id)).REPLAY_SCRIPT


# Every registered game, each drawing as many examples as when three games shared a test's 25.
EACH_GAME = pytest.mark.parametrize("game", GAME_IDS)
PER_GAME = settings(FUZZ, max_examples=9)

# --- what bad input is made of ------------------------------------------------------

ODD_DIGITS = "²³¹٣٤۵߁०১੨૩୪௫౬೭൮๙໑༢၃႔០᠑١٢"
ODD_TEXT = st.text(alphabet=st.sampled_from(list(ODD_DIGITS + "[]{}\"'=.,:#\n\t\\ \0é€😀-+e_x") + list("0123456789")),
                   max_size=12)
HUGE = st.sampled_from([2**63, 2**64, -(2**63) - 1, 10**30, 10**400, -1, 0, 1.5, float("inf"), float("nan"),
                        1e308, -0.0])


def toml_value(depth: int = 3) -> st.SearchStrategy[str]:
    """A TOML value as text: good, odd, huge, or nested deep."""
    leaf = st.one_of(
        HUGE.map(lambda x: "inf" if x == float("inf") else "nan" if x != x else repr(x) if isinstance(x, float)
                 else str(x)),
        ODD_TEXT.map(json.dumps),
        st.sampled_from(["true", "false", '"auto"', '"random"', '"lookahead:²"', '"montecarlo:٣"',
                         '"epsilon:0.5:lookahead:²"', '"greedy"', "[]", "{}", "1979-05-27", '"' + "w" * 3000 + '"',
                         "9" * 5000, "[" * 2000 + "]" * 2000]),
        st.integers(-10, 10).map(str),
    )
    return st.recursive(leaf, lambda inner: st.lists(inner, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
                        max_leaves=8)


@st.composite
def garbled(draw, text: str, value=None) -> bytes:
    """``text`` after a few cuts, splices and value swaps, in some encoding."""
    if value is None:
        value = toml_value()
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["swap", "swap", "cut", "insert", "repeat"]))
        if kind == "swap":
            # Replace what follows one '=' or ':' on a line with another value.
            lines = text.split("\n")
            spots = [i for i, line in enumerate(lines) if "=" in line or ":" in line]
            if spots:
                i = draw(st.sampled_from(spots))
                sep = "=" if "=" in lines[i] else ":"
                head = lines[i].split(sep, 1)[0]
                lines[i] = f"{head}{sep} {draw(value)}" + ("," if sep == ":" and lines[i].rstrip().endswith(",")
                                                           else "")
            text = "\n".join(lines)
        else:
            a = draw(st.integers(0, len(text)))
            b = draw(st.integers(a, min(len(text), a + 40)))
            if kind == "cut":
                text = text[:a] + text[b:]
            elif kind == "insert":
                text = text[:a] + draw(ODD_TEXT) + text[a:]
            else:
                text = text[:b] + text[a:b] * draw(st.integers(2, 5)) + text[b:]
    encoding = draw(st.sampled_from(["utf-8"] * 6 + ["utf-16", "latin-1", "utf-32", "cp1252"]))
    return text.encode(encoding, errors="replace")


# --- running and judging --------------------------------------------------------------


@contextmanager
def workdir():
    with tempfile.TemporaryDirectory() as d:
        yield Path(d)


@contextmanager
def no_html():
    """Correct runs skip their HTML report (``lvsim report`` is fuzzed on its own): keeps the suite to a minute."""
    with mock.patch.object(sim.runner.running, "write_report_or_say_how", lambda out_dir: None), \
            mock.patch("sim.sweep.REPORT_FILE", "sweep.html"), \
            mock.patch("analysis.sweep_report.sweep_report_html", lambda *a, **k: "<p>sweep</p>"):
        yield


def lvsim(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_clean(result, where: Path | None = None) -> None:
    """Exit 0, or exit 2 with one short line on stderr; no traceback, no bug report, no leftovers."""
    err = result.stderr
    event(f"exit code {result.exit_code}")
    assert "Traceback" not in err + result.stdout, err
    assert result.exit_code in (0, 2), (result.exit_code, err)
    if result.exit_code == 2:
        assert err.count("\n") == 1 and err.startswith("error: "), err
        assert len(err) <= MAX_LINE + 120, len(err)
    if where is not None:
        leftovers = [p for p in where.rglob("*") if p.name.endswith(".partial")]
        assert not leftovers, leftovers


# --- the commands ---------------------------------------------------------------------


@EACH_GAME
def test_the_inputs_garbled_below_are_valid(game):
    """Garbling starts from input every command takes: a refusal is the garbling's doing."""
    with workdir() as d, no_html():
        (d / "c.toml").write_text(config_text(game), encoding="utf-8")
        (d / "base.toml").write_text(config_text(game), encoding="utf-8")
        (d / "s.toml").write_text(sweep_text(game), encoding="utf-8")
        (d / "t.toml").write_text(tune_text(game), encoding="utf-8")
        (d / "s.json").write_text(script(game), encoding="utf-8")
        for args in (["run", "c.toml", "--games", 3, "--out", "o"], ["duel", "c.toml", "--games", 2],
                     ["sweep", "s.toml", "--out", "sw"], ["replay", "--game", game, "s.json"],
                     ["tune", "t.toml", "--no-report", "--out", "tu"]):
            cwd = Path.cwd()
            os.chdir(d)
            try:
                result = lvsim(*args)
            finally:
                os.chdir(cwd)
            assert result.exit_code == 0, (args, result.stderr)


@EACH_GAME
@PER_GAME
@given(data=st.data())
def test_run_with_a_garbled_config(game, data):
    with workdir() as d, no_html():
        (d / "c.toml").write_bytes(data.draw(garbled(config_text(game))))
        result = lvsim("run", d / "c.toml", "--games", 3, "--out", d / "out", "--json")
        assert_clean(result, d)
        if result.exit_code == 2:
            assert not (d / "out").exists()
        else:
            assert json.loads(result.stdout)["games"] == 3


@EACH_GAME
@PER_GAME
@given(data=st.data())
def test_duel_with_a_garbled_config(game, data):
    with workdir() as d:
        (d / "c.toml").write_bytes(data.draw(garbled(config_text(game))))
        assert_clean(lvsim("duel", d / "c.toml", "--games", 2, "--json"), d)


def write_one_garbled(directory, data, which: str, files: dict) -> None:
    """Write ``files`` (role: (file name, text)) into ``directory``, the one whose role is ``which`` garbled."""
    for role, (name, text) in files.items():
        (directory / name).write_bytes(data.draw(garbled(text)) if role == which else text.encode())


@EACH_GAME
@PER_GAME
@given(data=st.data(), which=st.sampled_from(["sweep", "base"]))
def test_sweep_with_a_garbled_sweep_or_base(game, data, which):
    with workdir() as d, no_html():
        write_one_garbled(d, data, which, {"sweep": ("s.toml", sweep_text(game)), "base": ("base.toml", config_text(game))})
        assert_clean(lvsim("sweep", d / "s.toml", "--out", d / "out"), d)


@EACH_GAME
@PER_GAME
@given(data=st.data(), which=st.sampled_from(["tune", "base"]))
def test_tune_with_a_garbled_tune_file_or_base(game, data, which):
    with workdir() as d:
        write_one_garbled(d, data, which, {"tune": ("t.toml", tune_text(game)), "base": ("base.toml", config_text(game))})
        result = lvsim("tune", d / "t.toml", "--no-report", "--out", d / "out")
        assert_clean(result, d)
        if result.exit_code == 2:
            assert not (d / "out").exists()


@EACH_GAME
@PER_GAME
@given(data=st.data())
def test_replay_of_a_garbled_script(game, data):
    json_value = st.recursive(
        st.one_of(HUGE.filter(lambda x: x == x and abs(x) != float("inf")).map(json.dumps), ODD_TEXT.map(json.dumps),
                  st.sampled_from(["null", "true", "{}", "[]", "7" * 5000, "[" * 20_000 + "]" * 20_000])),
        lambda inner: st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"), max_leaves=6)
    with workdir() as d:
        (d / "s.json").write_bytes(data.draw(garbled(script(game), value=json_value)))
        assert_clean(lvsim("replay", "--game", game, d / "s.json"), d)


OPTION_VALUES = st.sampled_from(["-1", "0", "1", "2", "3", "18446744073709551616", "1000000000000", "1e3", "²", "٣",
                                 "", " ", "nan", "x" * 300, "2\0"])
# Every registered game's policies (another game's among them), a policy of no game, and none.
POLICY_NAMES = list(dict.fromkeys(name for g in all_games() for name in g.policy_syntax)) + ["wizard", ""]
POLICIES = st.builds(
    lambda name, params: ":".join([name, *params]),
    st.sampled_from(POLICY_NAMES),
    st.lists(st.sampled_from(["²", "0", "1", "2", "0.5", "-1", "", "x", "٣", "9" * 30, "nan", "greedy", "win"]),
             max_size=2),
)


@EACH_GAME
@PER_GAME
@given(players=OPTION_VALUES, games=OPTION_VALUES, seed=OPTION_VALUES, policy=POLICIES)
def test_bench_options(game, players, games, seed, policy):
    # A policy that reads as one with many samples would time many games: keep those to 2 games.
    games = games if games in ("-1", "0", "", " ", "nan", "²", "٣", "1e3", "1000000000000") else "2"
    assert_clean(lvsim("bench", "--game", game, "--players", players, "--games", games, "--seed", seed,
                       "--policy", policy, "--threads", 1))


@EACH_GAME
@PER_GAME
@given(seats=st.lists(POLICIES, min_size=0, max_size=6), games=OPTION_VALUES,
       players=st.sampled_from([None, "1", "2", "3", "6", "²"]))
def test_duel_options(game, seats, games, players):
    games = games if games in ("-1", "0", "", "²", "1e3", "1000000000000") else "2"
    args = ["duel", "--game", game, "--seats", ",".join(seats), "--games", games, "--threads", 1]
    assert_clean(lvsim(*args, *(["--players", players] if players else [])))


@pytest.fixture(scope="module")
def results_dirs(tmp_path_factory) -> dict[str, Path]:
    from sim.config import config_from_mapping
    from sim.runner import run

    made = {}
    for game in GAME_IDS:
        out = tmp_path_factory.mktemp(game) / "run"
        run(config_from_mapping(tomllib.loads(config_text(game))), out=out, report=False, progress=False)
        made[game] = out
    return made


@pytest.mark.parametrize("game", GAME_IDS)
@settings(FUZZ, max_examples=7, phases=(Phase.explicit, Phase.generate))  # no shrinking: each try writes a report
@given(file=st.sampled_from(["summary.json", "meta.json", "tally.json", "config.toml"]), data=st.data())
@pytest.mark.slow("end to end")
def test_report_of_a_results_directory_with_a_garbled_file(results_dirs, game, file, data):
    json_value = st.one_of(HUGE.filter(lambda x: x == x and abs(x) != float("inf")).map(json.dumps),
                           ODD_TEXT.map(json.dumps), st.sampled_from(["null", "{}", "[]", "[[[1]]]", "7" * 5000]))
    with workdir() as d:
        run_dir = d / "run"
        shutil.copytree(results_dirs[game], run_dir)
        text = (run_dir / file).read_text(encoding="utf-8")
        (run_dir / file).write_bytes(data.draw(garbled(text, value=json_value if file.endswith(".json") else None)))
        before = sorted(p.name for p in run_dir.iterdir())
        result = lvsim("report", run_dir, "-o", d / "r.html")
        assert_clean(result, d)
        assert sorted(p.name for p in run_dir.iterdir()) == before
        assert (d / "r.html").exists() == (result.exit_code == 0)


@FUZZ
@given(out=st.one_of(ODD_TEXT, st.sampled_from([".", "", "..", "/", "/proc/x", "r" * 256, "r" * 240, "a/" * 200,
                                                "c.toml", "c.toml/x", "-", "~"])))
@pytest.mark.slow("end to end")
def test_out_directories(out):
    with workdir() as d, no_html():
        # One game stands for all: where results go is the shared runner's question.
        (d / "c.toml").write_text(config_text("lasvegan"), encoding="utf-8")
        (d / "s.toml").write_text('base = "c.toml"\n[sweep]\n"run.games" = [3, 4]\n', encoding="utf-8")
        cwd = Path.cwd()
        os.chdir(d)
        try:
            assert_clean(lvsim("run", "c.toml", "--games", 2, "--out", out), d)
            assert_clean(lvsim("sweep", "s.toml", "--out", "sw-" + out), d)
            assert_clean(lvsim("report", "nowhere", "-o", out), d)
        finally:
            os.chdir(cwd)
