"""Bad input, command by command: every reproducer of a crash, hang or wasted run, and its refusal.

Each case runs ``lvsim`` in this process and asserts what every refusal
must be: exit code 2, exactly one line on stderr starting ``error:``, no
traceback, a line short enough to read, and nothing left behind.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from pathlib import Path
from textwrap import dedent

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.errors import MAX_LINE
from sim.games import GAME_IDS, get_game
from tests.conformance.conftest import hooks
from tests.helpers import games_declared_for, other_players, own_players, seats_of, weak_policy
from tests.test_badinput_fuzz import script

FAST_RUN = """
[run]
games = 40
seed = 3
skill_gap_games = 0
strength_games = 0
strength_lookahead_games = 0
"""
LASVEGAN = 'game = "lasvegan"\n' + FAST_RUN
DICE = 'game = "vegas-dice"\n' + FAST_RUN
# Every registered game, whichever package it comes from; what a case needs of a game comes from its
# declaration (sim.games.get_game) or its conformance module (tests/conformance/conftest.py, HOOKS), and
# its tables seat the game's own player counts (tests/helpers.py, own_players), never a fixed 2 or 4.
EVERY_GAME = pytest.mark.parametrize("game", GAME_IDS)


def lvsim(*args, **kwargs):
    return CliRunner().invoke(main, [str(a) for a in args], **kwargs)


def refused(result, *phrases: str) -> str:
    """Assert a clean one-line refusal mentioning ``phrases``; return the line."""
    err = result.stderr
    assert "Traceback" not in err and "Traceback" not in result.stdout, err
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2, (result.exit_code, err, result.stdout)
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("error: "), err
    assert len(err) <= MAX_LINE + 120, len(err)
    for phrase in phrases:
        assert phrase in err, (phrase, err)
    return err


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(dedent(text), encoding="utf-8")
    return path


def config(tmp_path: Path, game: str, extra: str = "", name: str = "c.toml") -> Path:
    """A quick run of ``game`` at its default rules, then ``extra``."""
    return write(tmp_path / name, f'game = "{game}"\n' + FAST_RUN + dedent(extra))


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def policy_with_a_parameter(game: str) -> str:
    """The game's slow policy (its parameter a number of samples or a depth); else its default player, which a
    parameter makes a policy it does not know just the same."""
    g = get_game(game)
    return (g.slow_policies or (g.default_policy,))[0].split(":")[0]


# --- unicode digits in policy parameters, at every entry point ----------------------


@EVERY_GAME
@pytest.mark.parametrize("digits", ["²", "١٢", "9" * 5000])
def test_policy_parameters_with_other_digits_are_refused_in_a_config(tmp_path, game, digits):
    path = config(tmp_path, game, f'[policies]\nseats = "{policy_with_a_parameter(game)}:{digits}"\n')
    refused(lvsim("run", path, "--out", tmp_path / "o"), "policies.seats")
    assert not (tmp_path / "o").exists()


def test_epsilon_over_a_policy_with_other_digits_is_refused(tmp_path):  # only Las Vegan has epsilon
    path = config(tmp_path, "lasvegan", '[policies]\nseats = "epsilon:0.5:lookahead:²"\n')
    refused(lvsim("run", path, "--out", tmp_path / "o"), "policies.seats")


@EVERY_GAME
def test_policy_parameters_with_other_digits_are_refused_by_duel_bench_and_sweep(tmp_path, game):
    other_digits_are_refused_by_duel_bench_and_sweep(tmp_path, game)


def other_digits_are_refused_by_duel_bench_and_sweep(tmp_path, game):
    g = get_game(game)
    bad = f"{policy_with_a_parameter(game)}:²"
    refused(lvsim("duel", "--game", game, "--seats", ",".join(seats_of(g, bad))), "--seats[0]")
    refused(lvsim("bench", "--game", game, "--policy", bad, "--games", 10), "--policy")
    base = config(tmp_path, game)
    sweep = write(tmp_path / "s.toml", f'base = "{base.name}"\n[sweep]\n"policies.seats" = ["{weak_policy(g)}", "{bad}"]\n')
    refused(lvsim("sweep", sweep, "--out", tmp_path / "o"), "sweep cell 1", "policies.seats")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("command", [["sensitivity", "configs/default.toml", "--seats", "greedy", "--games", "20"],
                                     ["confirm", "--config", "configs/default.toml"]])
@pytest.mark.parametrize("players", ["²", "٤", "3,²", "٣,4"])
def test_player_counts_in_other_digits_are_refused(command, players):
    refused(lvsim(*command, "--players", players, "--dry-run"), "--players", "player counts separated by commas")


# --- deep nesting -------------------------------------------------------------------


@pytest.mark.parametrize("depth", [100, 1000, 100_000])
def test_deeply_nested_toml_is_refused_by_run_and_duel(tmp_path, depth):
    path = write(tmp_path / "deep.toml", f'game = "lasvegan"\na = {nested(depth)}\n')
    refused(lvsim("run", path, "--out", tmp_path / "o"), "deep.toml")
    refused(lvsim("duel", path, "--seats", "random,random"), "deep.toml")


def test_deeply_nested_sweep_and_base_files_are_refused(tmp_path):
    sweep = write(tmp_path / "s.toml", f'base = "b.toml"\n[sweep]\n"run.games" = {nested(1000)}\n')
    write(tmp_path / "b.toml", LASVEGAN)
    refused(lvsim("sweep", sweep, "--out", tmp_path / "o"), "s.toml", "nested too deeply")
    write(tmp_path / "b.toml", f"a = {nested(1000)}\n")
    write(sweep, 'base = "b.toml"\n[sweep]\n"run.games" = [10, 20]\n')
    refused(lvsim("sweep", sweep, "--out", tmp_path / "o"), "base", "nested too deeply")


@EVERY_GAME
@pytest.mark.parametrize("depth", [100, 10_000, 1_000_000])
def test_a_deeply_nested_replay_file_is_refused(tmp_path, game, depth):
    script = write(tmp_path / "deep.json", '{"rounds": ' + nested(depth) + "}")
    refused(lvsim("replay", "--game", game, script), "deep.json")


# --- bench and duel: seeds and sizes ------------------------------------------------


@pytest.mark.parametrize("seed", ["-1", "18446744073709551616", "1e3", "²"])
def test_bench_and_duel_check_the_seed(seed):
    refused(lvsim("bench", "--seed", seed, "--games", 10), "--seed")
    refused(lvsim("duel", "--seats", "random,random", "--seed", seed, "--games", 10), "--seed")


@EVERY_GAME
def test_more_games_than_memory_holds_are_refused_before_playing(game):
    spec = get_game(game)
    played = []

    def play_games(*args, **kwargs):
        played.append(args[3])  # n_games
        raise AssertionError("a game was played before the number of games was refused")

    original = spec.play_games
    object.__setattr__(spec, "play_games", play_games)  # the registered Game is frozen: the one instance every command gets
    try:
        more_games_than_memory_holds_are_refused(game)
    finally:
        object.__setattr__(spec, "play_games", original)
    assert played == []


def more_games_than_memory_holds_are_refused(game):
    refused(lvsim("bench", "--game", game, "--games", 10**12), "--games")
    refused(lvsim("duel", "--game", game, "--seats", ",".join(seats_of(get_game(game))), "--games", 10**12), "--games")


@EVERY_GAME
def test_bench_times_a_slow_policy_on_fewer_games_by_default(monkeypatch, game):
    """Every policy of the game, in its cheap forms (the conformance module's POLICY_FORMS): 1,000 games for the
    game's slow policies, a million for the others."""
    import sim.bench

    timed = []

    def bench_core(game, rules, *, policy, games, threads, seed):
        timed.append(games)
        return {"games": games, "threads": 1, "seconds": 1.0, "games_per_second": float(games)}

    monkeypatch.setattr(sim.bench, "bench_core", bench_core)
    specs = get_game(game).policies.specs
    # A policy only the reference engine plays is refused by bench (tests/openspiel/test_policy.py).
    forms = [form for name, forms in hooks(get_game(game)).POLICY_FORMS.items() if not specs[name].reference_only
             for form in forms]
    expected = [1_000 if form.split(":")[0] in get_game(game).slow_policies else 1_000_000 for form in forms]
    for form in forms:
        assert lvsim("bench", "--game", game, "--policy", form).exit_code == 0, form
    assert timed == expected
    reference_only = {name for name, spec in specs.items() if spec.reference_only}
    assert set(get_game(game).slow_policies) - reference_only <= {form.split(":")[0] for form in forms}


def test_duel_of_a_config_for_another_player_count_carries_its_one_policy_over_and_asks_for_two(tmp_path):
    path = config(tmp_path, "lasvegan", '[policies]\nseats = "random"\n')
    line = refused(lvsim("duel", path, "--players", 3, "--games", 20, "--json"), "every seat plays random")
    assert line.startswith("error: policies.seats: "), line


@pytest.mark.parametrize("how", ["config", "--seats", "one seat"])
def test_a_duel_of_one_policy_is_refused_naming_the_seats_and_how_to_give_two(tmp_path, how):
    """Every seat one policy: its win share is its fair share whatever it plays; the duel answers nothing."""
    args = {"config": [config(tmp_path, "lasvegan")], "--seats": ["--seats", "greedy,greedy"],
            "one seat": ["--game", "fever", "--seats", "random"]}[how]
    line = refused(lvsim("duel", *args, "--games", 50), "every seat plays", "at least two different policies",
                   "--seats ")
    assert line.startswith(f"error: {'policies.seats' if how == 'config' else '--seats'}: "), line


def test_a_run_of_more_games_than_memory_holds_at_once_plays_them_chunk_by_chunk(tmp_path, monkeypatch):
    import sim.runner

    played = []

    def play_records(config, first_game, n_games, threads=None):
        if n_games > 1:  # not the warm-up game
            played.append((first_game, n_games))
        if len(played) == 3:
            raise OSError(28, "No space left on device")  # stops the run after its third chunk
        return real(config, first_game, n_games, threads)

    real = sim.runner.chunks.play_records
    monkeypatch.setattr(sim.runner.chunks, "CHUNK_GAMES", 1_000)
    monkeypatch.setattr(sim.runner.chunks, "play_records", play_records)
    path = config(tmp_path, "lasvegan")
    refused(lvsim("run", path, "--games", 10**13, "--out", tmp_path / "o"), "No space left")
    assert played == [(0, 1_000), (1_000, 1_000), (2_000, 1_000)]
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("command,option,value", [
    ("run", "--seed", 2**63), ("run", "--games", 2**63),
    ("sweep", "--seed", 2**63), ("sweep", "--games", 2**63), ("sweep", "--max-games", 2**63),
    ("tune", "--seed", 2**63), ("tune", "--games", 10**10), ("tune", "--budget", 10**6),
])
def test_an_option_beyond_its_range_is_named_by_the_option_not_the_files_key(tmp_path, command, option, value):
    base = config(tmp_path, "lasvegan", name="b.toml")
    path = {"run": base,
            "sweep": write(tmp_path / "s.toml", 'base = "b.toml"\n[sweep]\n"run.games" = [10, 20]\n'),
            "tune": write(tmp_path / "t.toml", TUNE)}[command]
    line = refused(lvsim(command, path, option, value, "--out", tmp_path / "o"), option)
    assert "run.seed" not in line and "run.games" not in line and "tune." not in line, line


@pytest.mark.parametrize("command", ["run", "confirm", "decisions"])
@pytest.mark.parametrize("where", ["under a file", "not empty", "/proc"])
def test_a_dry_run_refuses_the_out_directory_the_run_would(tmp_path, command, where):
    (tmp_path / "file.txt").write_text("mine")
    out = {"under a file": tmp_path / "file.txt" / "r", "not empty": tmp_path, "/proc": "/proc/lvsim-out"}[where]
    path = config(tmp_path, "lasvegan")
    refused(lvsim(command, *(["--config"] if command == "confirm" else []), path, "--dry-run", "--out", out), "--out")
    assert (tmp_path / "file.txt").read_text() == "mine"


@pytest.mark.parametrize("command", ["sweep", "tune"])
def test_a_sweeps_or_tunes_dry_run_refuses_an_out_directory_that_could_never_be_made(tmp_path, command):
    """A sweep or tune may resume into a directory of its own, so its dry run takes one that is not empty; a file,
    or a path under one, never holds its results."""
    config(tmp_path, "lasvegan", name="b.toml")
    path = {"sweep": write(tmp_path / "s.toml", 'base = "b.toml"\n[sweep]\n"rules.end_on_elimination" = [true, false]\n'),
            "tune": write(tmp_path / "t.toml", TUNE)}[command]
    (tmp_path / "file.txt").write_text("mine")
    for out in (tmp_path / "file.txt" / "r", tmp_path / "file.txt", "/proc/lvsim-out"):
        refused(lvsim(command, path, "--dry-run", "--out", out), "--out")
    assert (tmp_path / "file.txt").read_text() == "mine"
    assert lvsim(command, path, "--dry-run", "--out", tmp_path / "new").exit_code == 0


@pytest.mark.parametrize("command", ["run", "duel", "decisions", "bench", "confirm", "sensitivity"])
def test_every_command_takes_the_seeds_a_config_can_hold_and_no_more(tmp_path, command):
    """A seed of a duel, a bench or a decision census is the run's seed: the same range, that of a TOML integer."""
    path = config(tmp_path, "lasvegan")
    where = {"bench": [], "confirm": ["--config", path]}.get(command, [path])
    refused(lvsim(command, *where, "--seed", 2**63), "--seed", str(2**63 - 1))
    assert not (tmp_path / "o").exists()


def test_a_config_of_more_games_than_its_file_can_hold_is_refused(tmp_path):
    path = write(tmp_path / "c.toml", LASVEGAN.replace("games = 40", f"games = {2**63}"))
    refused(lvsim("run", path, "--out", tmp_path / "o"), "run.games", "at most")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("command,options,option", [
    ("run", ["--out", "full"], "--out"),
    ("sweep", ["--out", "full"], "--out"),
    ("tune", ["--out", "full"], "--out"),
    ("sweep", ["--dry-run", "--baseline", 5], "--baseline"),
    ("sweep", ["--dry-run", "--sort-by", "nope"], "--sort-by"),
    ("sweep", ["--dry-run", "--max-games", 10], "--max-games"),
    ("sweep", ["--dry-run", "--target-ci", "nan"], "--target-ci"),
    ("sweep", ["--dry-run", "--target-metric", "nope", "--target-ci", 0.01], "--target-metric"),
    ("run", ["--workers", 2, "--scheduler", "tcp://127.0.0.1:1"], "--workers"),
    ("run", ["--workers", 2, "--scheduler", "tcp://127.0.0.1:1", "--dry-run"], "--workers"),
    ("run", ["--scheduler", "nowhere"], "--scheduler"),
])
def test_a_refused_option_is_named_as_it_is_typed(tmp_path, command, options, option):
    base = config(tmp_path, "lasvegan", name="b.toml")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    path = {"run": base,
            "sweep": write(tmp_path / "s.toml", 'base = "b.toml"\n[sweep]\n"run.games" = [10, 20]\n'),
            "tune": write(tmp_path / "t.toml", TUNE)}[command]
    options = [tmp_path / o if o == "full" else o for o in options]
    line = refused(lvsim(command, path, *options))
    assert line.startswith(f"error: {option}: "), line
    assert (tmp_path / "full" / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("command", ["run", "sweep", "tune", "confirm"])
@pytest.mark.parametrize("dry_run", [False, True])
def test_more_local_workers_than_memory_holds_are_refused_before_one_starts(tmp_path, command, dry_run):
    """Each local worker is a process that loads the kernels: a million of them would never start."""
    base = config(tmp_path, "lasvegan", name="b.toml")
    path = {"run": base,
            "sweep": write(tmp_path / "s.toml", 'base = "b.toml"\n[sweep]\n"run.games" = [10, 20]\n'),
            "tune": write(tmp_path / "t.toml", TUNE),
            "confirm": write(tmp_path / "t.toml", TUNE)}[command]
    line = refused(lvsim(command, path, "--workers", 10**6, "--out", tmp_path / "o", *(["--dry-run"] if dry_run else [])),
                   "--workers: 1,000,000 local worker processes", "at most about")
    assert line.startswith("error: --workers: "), line
    assert not (tmp_path / "o").exists()


def test_report_of_a_sweep_or_tune_directory_says_what_it_is_and_where_its_report_is(tmp_path):
    write(tmp_path / "b.toml", LASVEGAN)
    sweep = write(tmp_path / "s.toml", 'base = "b.toml"\n[sweep]\n"run.games" = [10, 20]\n')
    assert lvsim("sweep", sweep, "--out", tmp_path / "sw").exit_code == 0
    refused(lvsim("report", tmp_path / "sw"), "directory of a sweep", "sweep.html", str(tmp_path / "sw" / "cells" / "000"))
    tune = write(tmp_path / "t.toml", TUNE)
    assert lvsim("tune", tune, "--no-report", "--out", tmp_path / "tu").exit_code == 0
    refused(lvsim("report", tmp_path / "tu"), "directory of a tune", "tune.html")
    (tmp_path / "run").mkdir()
    refused(lvsim("report", tmp_path / "run"), "not the results directory of a run", "records.parquet")


@EVERY_GAME
@pytest.mark.parametrize("given", [None, *GAME_IDS])
def test_a_replay_given_the_wrong_game_says_which_game_the_script_is_of(tmp_path, game, given):
    path = write(tmp_path / "g.json", script(game))
    if (given or "lasvegan") == game:  # lasvegan: replay's default game
        assert lvsim("replay", *(["--game", given] if given else []), path).exit_code == 0
        return
    refused(lvsim("replay", *(["--game", given] if given else []), path), f"script of {get_game(game).title}",
            f"--game {game}")


@EVERY_GAME
@pytest.mark.parametrize("text, kind", [("[]", "a list"), ('"rounds"', "a string"), ("3", "a number"),
                                        ("null", "null")])
def test_a_replay_file_that_is_not_a_json_object_is_refused_naming_the_file(tmp_path, game, text, kind):
    refused(lvsim("replay", "--game", game, write(tmp_path / "s.json", text)), "s.json: a script is a JSON object",
            f"not {kind}")


@pytest.mark.parametrize("text", ["{}", '{"players": 3}', '{"rules": {}}'])
def test_a_script_of_no_game_s_own_key_is_not_said_to_be_another_games(tmp_path, text):
    """$ Fever takes a script without turns (a game not yet begun), but such a script is of no game in
    particular: the refusal is Las Vegan's, without 'it is a script of $ Fever'."""
    line = refused(lvsim("replay", write(tmp_path / "s.json", text)), "rounds")
    assert "script of" not in line, line


def test_one_of_a_thing_is_said_in_the_singular(tmp_path):
    refused(lvsim("duel", "--seats", "greedy"), "lists 1 policy;")
    path = config(tmp_path, "lasvegan", '[policies]\nseats = ["greedy"]\n')
    refused(lvsim("run", path, "--out", tmp_path / "o"), "lists 1 policy for 4 players")
    duel = lvsim("duel", "--game", "fever", "--seats", "random,greedy", "--games", 1)
    assert duel.exit_code == 0 and "1 deal x 2 seat rotations at 2 players" in duel.stdout, duel.stdout
    path = write(tmp_path / "f.toml", 'game = "fever"\n' + FAST_RUN + "[rules]\nplayers = 1\ndeck = { cherry = 1, lemon = 1 }\n")
    refused(lvsim("run", path, "--out", tmp_path / "o"), "holds 2 cards, too few to deal 3 to each of 1 player and")
    bench = lvsim("bench", "--game", "fever", "--players", 1, "--games", 1)
    assert bench.exit_code == 0 and "1 game at 1 player " in bench.stdout, bench.stdout


@EVERY_GAME
@pytest.mark.slow("end to end")
def test_utf8_files_that_start_with_a_byte_order_mark_are_read(tmp_path, game):
    bom = "\ufeff".encode()
    path = write(tmp_path / "c.toml", bom + f'game = "{game}"\n{FAST_RUN}'.encode())
    assert lvsim("run", path, "--json", "--out", tmp_path / "o").exit_code == 0
    assert lvsim("duel", path, "--seats", ",".join(seats_of(get_game(game), get_game(game).default_policy)),
                 "--games", 5, "--json").exit_code == 0
    write(tmp_path / "s.toml", bom + b'base = "c.toml"\n[sweep]\n"run.games" = [10, 20]\n')
    assert lvsim("sweep", tmp_path / "s.toml", "--dry-run").exit_code == 0
    path = write(tmp_path / "g.json", bom + script(game).encode())
    assert lvsim("replay", "--game", game, path).exit_code == 0


# --- sweep ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "axes",
    [
        '"run.games" = [{}]\n"run.threads" = [{}]\n'.format(
            ", ".join(map(str, range(1, 1001))), ", ".join(map(str, range(1, 1001)))),
        '"run.games" = [{}]\n'.format(", ".join(map(str, range(1, 20_001)))),
    ],
    ids=["grid of a million cells", "axis of 20,000 values"],
)
def test_a_sweep_too_big_is_refused_before_its_grid_is_built(tmp_path, axes):
    write(tmp_path / "b.toml", LASVEGAN)
    sweep = write(tmp_path / "s.toml", 'base = "b.toml"\n[sweep]\n' + axes)
    started = time.perf_counter()
    refused(lvsim("sweep", sweep, "--out", tmp_path / "o", "--dry-run"), "sweep", "at most 1,000")
    assert time.perf_counter() - started < 10
    assert not (tmp_path / "o").exists()


def test_too_many_explicit_cells_are_refused(tmp_path):
    write(tmp_path / "b.toml", LASVEGAN)
    sweep = write(tmp_path / "s.toml", 'base = "b.toml"\n' + '[[cells]]\n"run.games" = 5\n' * 1001)
    refused(lvsim("sweep", sweep, "--dry-run"), "cells", "at most 1,000")


@pytest.mark.parametrize(
    "base,phrase",
    [
        ('"b\\u0000.toml"', "base"),
        (json.dumps("x" * 256 + ".toml"), "too long"),
        ('"/proc/self/mem"', "cannot be read"),  # a file no one can read, even as root
        ('"."', "is a directory"),
        ('"b.toml/c.toml"', "base"),
    ],
)
def test_an_unusable_base_path_is_refused(tmp_path, base, phrase):
    if base == '"/proc/self/mem"' and not Path("/proc/self/mem").exists():
        pytest.skip("no /proc")
    write(tmp_path / "b.toml", LASVEGAN)
    sweep = write(tmp_path / "s.toml", f'base = {base}\n[sweep]\n"run.games" = [10, 20]\n')
    refused(lvsim("sweep", sweep, "--out", tmp_path / "o"), phrase)
    assert not (tmp_path / "o").exists()


def test_an_unknown_sort_column_is_named_in_a_short_line(tmp_path):
    write(tmp_path / "b.toml", LASVEGAN)
    sweep = write(tmp_path / "s.toml", 'base = "b.toml"\n[sweep]\n"run.games" = [10, 20]\n')
    line = refused(lvsim("sweep", sweep, "--sort-by", "elimination_rat", "--dry-run"), "sort-by", "elimination_rate")
    assert len(line) < 300


# --- replay -------------------------------------------------------------------------


@pytest.mark.parametrize("sticker", ["value:²", "value:٥", "value:05", "value:"])
def test_a_replay_machine_sticker_is_spelled_as_in_rules_machines(tmp_path, sticker):
    data = json.loads(Path("tests/data/replay_example.json").read_text(encoding="utf-8"))
    data["rounds"][0]["machines"][1] = sticker  # value:5 in the example
    path = write(tmp_path / "s.json", json.dumps(data))
    refused(lvsim("replay", path), "round 1: machines[1]: unknown machine sticker")


@EVERY_GAME
@pytest.mark.parametrize("encoding", ["latin-1", "utf-16", "utf-32"])
def test_a_replay_file_that_is_not_utf8_is_refused(tmp_path, game, encoding):
    script = write(tmp_path / "s.json", '{"players": 4, "rules": {"x": "Café é"}, "rounds": []}'.encode(encoding))
    refused(lvsim("replay", "--game", game, script), "s.json", "UTF-8")


@EVERY_GAME
def test_a_replay_file_with_a_huge_integer_is_refused(tmp_path, game):
    script = write(tmp_path / "s.json", '{"players": ' + "7" * 5000 + ', "rounds": [{}]}')
    refused(lvsim("replay", "--game", game, script), "s.json")
    script = write(tmp_path / "s.json", '{"players": 1' + "0" * 400 + ', "rounds": [{}]}')
    refused(lvsim("replay", "--game", game, script), "players")


@EVERY_GAME
@pytest.mark.parametrize("players,said", [(10**400, "an integer of about 400 digits"), (9, "9")])
def test_a_replay_of_too_many_players_names_its_players_key_and_quotes_the_count_short(tmp_path, game, players, said):
    given = {**json.loads(hooks(get_game(game)).REPLAY_SCRIPT), "players": players}
    given.get("rules", {}).pop("players", None)
    line = refused(lvsim("replay", "--game", game, write(tmp_path / "s.json", json.dumps(given))), said)
    assert line.startswith("error: players: ") and "0" * 201 not in line, line


@EVERY_GAME
@pytest.mark.parametrize("path", ["missing.json", ".", "a\0b.json", "x" * 300 + ".json"])
def test_an_unusable_replay_path_is_refused(tmp_path, game, path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    refused(lvsim("replay", "--game", game, path))


# --- report -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory) -> Path:
    from sim.config import config_from_mapping
    from sim.runner import run

    import tomllib

    out = tmp_path_factory.mktemp("results") / "run"
    run(config_from_mapping(tomllib.loads(LASVEGAN)), out=out, report=False, progress=False)
    return out


@pytest.fixture
def results(results_dir, tmp_path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(results_dir, copy)
    return copy


def edit_json(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


EDITS = {
    "summary without seed": lambda d: edit_json(d / "summary.json", lambda s: s.pop("seed")),
    "summary games a string": lambda d: edit_json(d / "summary.json", lambda s: s.update(games="many")),
    "summary win_share a number": lambda d: edit_json(d / "summary.json", lambda s: s.update(win_share=1)),
    "summary first_player_advantage a string": lambda d: edit_json(
        d / "summary.json", lambda s: s.update(first_player_advantage="")),
    "summary a list": lambda d: write(d / "summary.json", "[1, 2]"),
    "summary nested deep": lambda d: write(d / "summary.json", '{"a": ' + nested(100_000) + "}"),
    "summary in latin-1": lambda d: write(d / "summary.json", '{"a": "é"}'.encode("latin-1")),
    "summary unreadable": lambda d: (d / "summary.json").unlink() or (d / "summary.json").symlink_to("/proc/self/mem"),
    "summary a directory": lambda d: (d / "summary.json").unlink() or (d / "summary.json").mkdir(),
    "meta not json": lambda d: write(d / "meta.json", "{"),
    "meta config_name a list": lambda d: edit_json(d / "meta.json", lambda m: m.update(config_name=[1])),
    "config fewer rounds": lambda d: write(d / "config.toml", (d / "config.toml").read_text().replace(
        "rounds = 4", "rounds = 2")),
    "config fewer rounds, no tally": lambda d: (d / "tally.json").unlink() or write(
        d / "config.toml", (d / "config.toml").read_text().replace("rounds = 4", "rounds = 2")),
    "config more players": lambda d: write(d / "config.toml", (d / "config.toml").read_text().replace(
        "players = 4", "players = 5")),
    "config in utf-16": lambda d: write(d / "config.toml", (d / "config.toml").read_text().encode("utf-16")),
    "tally garbled": lambda d: write(d / "tally.json", '{"games": "x"}'),
    "tally a list": lambda d: write(d / "tally.json", "[]"),
    "records garbled, no tally": lambda d: (d / "tally.json").unlink() or write(d / "records.parquet", b"PAR1xx"),
    # The tally alone gives every table: the records file is read first for the report's example games.
    "records garbled, tally kept": lambda d: write(d / "records.parquet", "x"),
    "records of fewer games, tally kept": lambda d: write(d / "records.parquet", _first_rows(d / "records.parquet", 5)),
}


def _first_rows(path: Path, n: int) -> bytes:
    import io

    import pyarrow.parquet as pq

    out = io.BytesIO()
    pq.write_table(pq.read_table(path).slice(0, n), out)
    return out.getvalue()


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_results_directory_with_edited_or_unreadable_files_is_refused(results, edit):
    if "unreadable" in edit and not Path("/proc/self/mem").exists():
        pytest.skip("no /proc")
    EDITS[edit](results)
    refused(lvsim("report", results))
    assert not (results / "report.html").exists()
    assert not [p for p in results.iterdir() if p.name.endswith(".partial")]


DECISIONS_ROW = '{"games": 10, "census_games": 10, "near_free": 0.02, "sentence": "s.", "seats": ["expert"], ' \
    '"decisions": [{"kind": "lead", "cost": "x"}]}'


@pytest.mark.parametrize("edit, said", [
    (lambda d: edit_json(d / "summary.json", lambda s: s.pop("players")), "summary.json: has no 'players'"),
    (lambda d: write(d / "decisions.json", '{"a": 1}'), "decisions.json: has no 'games'"),
    (lambda d: write(d / "decisions.json", DECISIONS_ROW), "decisions.json: decisions[0].cost is 'x'"),
    (lambda d: write(d / "decisions.json", '{"skipped": 3}'), "decisions.json: skipped is 3"),
], ids=["summary without players", "decisions without its table", "decisions cost a string", "skipped a number"])
def test_an_edited_summary_or_decisions_file_is_refused_naming_the_key(results, edit, said):
    """Not a report whose section calls the edited file a bug in lvsim, nor a player count of None."""
    edit(results)
    refused(lvsim("report", results), said)
    assert not (results / "report.html").exists()


@pytest.mark.parametrize("target", ["a directory", "under a file", "a fifo", "no such directory", "/proc", "empty"])
def test_a_report_file_that_cannot_be_written_is_refused(results, tmp_path, target):
    if target == "/proc" and not Path("/proc/version").exists():
        pytest.skip("no /proc")
    (tmp_path / "file.txt").write_text("mine")
    os.mkfifo(tmp_path / "fifo")
    out = {
        "a directory": tmp_path,
        "under a file": tmp_path / "file.txt" / "r.html",
        "a fifo": tmp_path / "fifo",
        "no such directory": tmp_path / "nowhere" / "r.html",
        "/proc": "/proc/r.html",
        "empty": "",
    }[target]
    refused(lvsim("report", results, "-o", out), "-o" if target != "/proc" else "r.html")
    assert (tmp_path / "file.txt").read_text() == "mine"
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".partial")]


def test_a_report_nothing_can_be_written_for_is_refused_before_it_is_built(results, monkeypatch):
    """A place the checks cannot see is unwritable (/proc, a read-only disk) is found by the first write, made
    before the report is built: the designer is not kept waiting for a report that will not be written."""
    import analysis.report

    if not Path("/proc/version").exists():
        pytest.skip("no /proc")
    monkeypatch.setattr(analysis.report, "figures_drawn_together", lambda: pytest.fail("the report was built"))
    refused(lvsim("report", results, "-o", "/proc/r.html"), "cannot write /proc/r.html")


@pytest.mark.parametrize("name", ["summary.json", "config.toml", "records.parquet", "meta.json", "tally.json"])
def test_a_report_over_one_of_the_runs_own_files_is_refused_and_leaves_it_alone(results, name):
    before = (results / name).read_bytes()
    refused(lvsim("report", results, "-o", results / name), "-o", "one of the run's results")
    refused(lvsim("report", results, "-o", results / "." / name), "-o", "one of the run's results")
    assert (results / name).read_bytes() == before


@pytest.mark.parametrize("name", ["base.toml", "notes.txt", "game.json", "README"])
def test_a_report_over_a_file_that_is_not_a_page_is_refused_and_leaves_it_alone(results, tmp_path, name):
    (tmp_path / name).write_text("mine")
    refused(lvsim("report", results, "-o", tmp_path / name), "-o", "not an HTML page")
    assert (tmp_path / name).read_text() == "mine"


@pytest.mark.slow("end to end")
def test_a_report_may_replace_an_earlier_page(results, tmp_path):
    for name in ("old.html", "OLD.HTM"):
        (tmp_path / name).write_text("an earlier report")
        assert lvsim("report", results, "-o", tmp_path / name).exit_code == 0
        assert (tmp_path / name).read_text().lstrip().lower().startswith("<!doctype html")


def test_a_report_to_a_device_is_refused_and_leaves_the_device_alone(results, tmp_path):
    # As root, a device of our own (the twin of /dev/full): a regression must not replace the real one.
    if os.geteuid() == 0:
        device = tmp_path / "full"
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    elif Path("/dev/full").exists():
        device = Path("/dev/full")
    else:
        pytest.skip("no /dev/full")
    refused(lvsim("report", results, "-o", device), "-o", str(device))
    assert device.is_char_device()


# --- run: the results directory -------------------------------------------------------


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_out_dot_in_an_empty_folder_is_used(in_tmp):
    config(in_tmp.parent, "lasvegan", name=f"{in_tmp.name}.toml")
    result = lvsim("run", in_tmp.parent / f"{in_tmp.name}.toml", "--out", ".", "--json", "--no-report")
    assert result.exit_code == 0, result.stderr
    assert {"config.toml", "summary.json", "records.parquet", "tally.json", "meta.json"} <= {
        p.name for p in in_tmp.iterdir()}
    assert not [p for p in in_tmp.iterdir() if p.name.endswith(".partial")]


@pytest.mark.parametrize("out", ["", " "])
def test_an_empty_out_is_refused_before_playing(in_tmp, out):
    path = config(in_tmp, "lasvegan")
    refused(lvsim("run", path, "--out", out), "out", "empty")
    assert [p.name for p in in_tmp.iterdir()] == ["c.toml"]


def test_out_dot_in_a_folder_that_is_not_empty_is_refused_before_playing(in_tmp, monkeypatch):
    import sim.runner

    def no_games(*args, **kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(sim.runner.running, "_play", no_games)
    path = config(in_tmp, "lasvegan")
    refused(lvsim("run", path, "--out", "."), "out", "not empty")


@pytest.mark.parametrize("failing", ["records", "summary"])
def test_a_full_disk_names_the_results_directory_and_leaves_nothing(in_tmp, monkeypatch, failing):
    import errno

    import sim.runner.parquet
    import sim.runner.running

    def records_full(self, tables):  # as Parquet's writer says it: with the errno, and no file named
        raise OSError(errno.ENOSPC, "Error writing bytes to file. Detail: [errno 28] No space left on device")

    def summary_full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    if failing == "records":
        monkeypatch.setattr(sim.runner.parquet.ParquetRecords, "_write_group", records_full)
    else:
        monkeypatch.setattr(sim.runner.running, "write_json", summary_full)
    path = config(in_tmp, "lasvegan")
    line = refused(lvsim("run", path, "--json", "--no-report", "--out", "small/r"), "--out", "small/r",
                   "No space left on device")
    assert ".partial" not in line and "Error writing bytes" not in line, line
    assert [p.name for p in in_tmp.iterdir()] == ["c.toml"]


@pytest.mark.parametrize("length", [238, 255])
def test_out_names_up_to_255_bytes_are_used(in_tmp, length):
    path = config(in_tmp, "lasvegan")
    result = lvsim("run", path, "--out", "r" * length, "--json", "--no-report")
    assert result.exit_code == 0, result.stderr
    assert (in_tmp / ("r" * length) / "summary.json").is_file()


@pytest.mark.parametrize("out", ["r" * 256, "é" * 128, "a\0b", "sub/" + "r" * 300 + "/x"])
def test_out_names_the_file_system_cannot_take_are_refused(in_tmp, out):
    path = config(in_tmp, "lasvegan")
    named = "NUL" if "\0" in out else "out"
    refused(lvsim("run", path, "--out", out), named)
    refused(lvsim("sweep", write(in_tmp / "s.toml", 'base = "c.toml"\n[sweep]\n"run.games" = [5, 6]\n'),
                  "--out", out), named)
    assert sorted(p.name for p in in_tmp.iterdir()) == ["c.toml", "s.toml"]


@pytest.mark.slow("end to end")
def test_a_default_out_name_is_cut_to_fit(in_tmp):
    path = config(in_tmp, "lasvegan", name="c" * 250 + ".toml")
    result = lvsim("run", path, "--json")
    assert result.exit_code == 0, result.stderr
    [made] = (in_tmp / "reports").iterdir()
    assert len(made.name) <= 255


# --- messages -------------------------------------------------------------------------


LONG_LIST = "[" + ", ".join(['[1, "x"]'] * 10_000) + "]"


@pytest.mark.parametrize(
    "key,value",
    [("rules.tokens", LONG_LIST), ("rules.machines", LONG_LIST), ("rules.players", LONG_LIST),
     ("policies.seats", json.dumps("w" * 50_000)), ("policies.seats", "[" + ", ".join(["[1]"] * 4) + "]")],
)
def test_a_long_bad_value_is_quoted_short(tmp_path, key, value):
    table, name = key.split(".")
    path = config(tmp_path, "lasvegan", f"[{table}]\n{name} = {value}\n")
    line = refused(lvsim("run", path, "--out", tmp_path / "o"), key)
    assert len(line) < 400
    # A list of bad entries names its first, quoted alone.
    assert len(value) < 100 or "characters" in line or f"{key}[0]: " in line


@pytest.mark.parametrize("value,said", [("true", "got true"), ("[1, false]", "got [1, false]"),
                                        ("1979-05-27", "got 1979-05-27"), ("07:32:00", "got 07:32:00")])
def test_a_bad_value_is_quoted_as_the_file_spells_it(tmp_path, value, said):
    """TOML's true, false and dates, not Python's True, False and datetime.date(...)."""
    line = refused(lvsim("run", config(tmp_path, "lasvegan", f"[rules]\nplayers = {value}\n"), "--out", tmp_path / "o"),
                   "rules.players")
    assert line.rstrip().endswith(said), line


def test_a_sweep_cell_of_a_date_is_refused_in_one_line(in_tmp):
    """A date, which no key takes, was an internal error when the cell's label was spelled."""
    config(in_tmp, "lasvegan", "")
    (in_tmp / "s.toml").write_text('base = "c.toml"\n[sweep]\n"rules.rounds" = [1, 2]\n[[cells]]\n'
                                   '"run.games" = 1979-05-27\n')
    refused(lvsim("sweep", "s.toml", "--out", "o"), "sweep cell 2", "run.games: must be an integer, got 1979-05-27")


def test_a_file_name_with_a_line_break_stays_on_one_line(in_tmp):
    refused(lvsim("run", "no\nsuch.toml"), "no\\nsuch.toml")


def test_an_unexpected_error_is_one_line_naming_the_traceback_file(monkeypatch, tmp_path_factory):
    import re

    import sim.games
    from tests.conftest import SYSTEM_TMP

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(sim.games, "all_games", broken)
    monkeypatch.delenv("LVSIM_TRACEBACK", raising=False)
    result = lvsim("games")
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and "bug" in result.stderr and "Traceback" not in result.stderr
    saved = Path(re.search(r"its traceback is in (.+?); please report it", result.stderr).group(1))
    assert saved.name.startswith("lvsim-traceback-") and saved.name.endswith(".txt")
    assert "ZeroDivisionError: a bug" in saved.read_text()
    # In the session's temporary directory (tests/conftest.py), not the system's: the tests leave nothing there.
    assert saved.parent != SYSTEM_TMP and saved.is_relative_to(tmp_path_factory.getbasetemp())


@pytest.mark.parametrize("command", ["", "run", "sweep", "duel", "replay", "report", "bench", "games"])
def test_help_still_works(command):
    result = lvsim(*([command] if command else []), "--help")
    assert result.exit_code == 0 and "Usage:" in result.stdout


@pytest.mark.parametrize("command,option", [
    ("duel", "--seats"), ("run", "--out"), ("bench", "--policy"), ("sweep", "--sort-by"), ("replay", "--game"),
])
def test_an_option_without_its_value_points_at_its_commands_help(command, option):
    refused(lvsim(command, option), option, f"'main {command} --help'")


@pytest.mark.parametrize("value", ["x", "1.5", "1e3"])
def test_a_number_that_is_not_whole_is_refused_as_not_an_integer(value):
    line = refused(lvsim("run", "--games", value), "--games", f"{value!r} is not a valid integer.")
    assert "range" not in line, line
    assert "--games INTEGER " in lvsim("run", "--help").stdout


def test_a_fraction_that_is_not_a_number_is_refused_as_not_a_number():
    line = refused(lvsim("sweep", "s.toml", "--target-ci", "x"), "--target-ci", "'x' is not a valid number.")
    assert "range" not in line, line


@pytest.mark.parametrize("seats", ["", " "])
@pytest.mark.parametrize("with_config", [False, True])
def test_an_empty_seat_list_is_refused_as_empty(tmp_path, seats, with_config):
    path = [config(tmp_path, "lasvegan")] if with_config else []
    refused(lvsim("duel", *path, "--seats", seats, "--players", 2), "--seats", "is empty")


@pytest.mark.parametrize("args,name", [
    (["run", ""], "CONFIG"), (["run", " ", "--dry-run"], "CONFIG"), (["duel", "", "--games", 10], "CONFIG"),
    (["decisions", "", "--dry-run"], "CONFIG"), (["sensitivity", "", "--dry-run"], "CONFIG"),
    (["sweep", "", "--dry-run"], "SWEEP"), (["tune", "", "--dry-run"], "TUNE"), (["confirm", "", "--dry-run"], "FILE"),
    (["confirm", "--config", "", "--dry-run"], "--config"), (["replay", ""], "SCRIPT"), (["report", ""], "RESULTS_DIR"),
])
def test_an_empty_path_is_refused_as_empty_not_read_as_none_or_this_directory(in_tmp, args, name):
    refused(lvsim(*args), f"{name}: is empty")
    assert not list(in_tmp.iterdir())


@EVERY_GAME
def test_run_at_another_player_count_than_the_configs_seat_list_names_players(tmp_path, game):
    if other_players(get_game(game)) is None:
        pytest.skip(f"{game} is played at one player count only")
    run_at_another_player_count_names_players(tmp_path, game)


def run_at_another_player_count_names_players(tmp_path, game):
    g = get_game(game)
    players, other = own_players(g), other_players(g)

    def config_listing(seats: int, name: str) -> Path:
        """A config of ``players`` players whose seat list names ``seats`` policies."""
        listed = json.dumps(seats_of(g, g.default_policy, seats))
        return config(tmp_path, game, f"[rules]\nplayers = {players}\n[policies]\nseats = {listed}\n", name)

    path = config_listing(players, "c.toml")  # one policy a seat
    refused(lvsim("run", path, "--players", other, "--out", tmp_path / "o"), "--players", f"for {players} players",
            f"a list of {other}")
    assert not (tmp_path / "o").exists()
    short = next(n for n in (2, 5, 1) if n not in (players, other))
    path = config_listing(short, "bad.toml")
    refused(lvsim("run", path, "--players", other, "--out", tmp_path / "o"), "policies.seats")


def test_the_cases_of_every_game_seat_tables_of_its_own_player_counts(tmp_path):
    """A game for 3 or more players meets the cases above for what they test, not refused for a table of 2: every
    game here, declared so (its rules unchanged), goes through the cases that seat a table."""
    with games_declared_for(lambda g: (3, g.max_players)):
        for game in GAME_IDS:
            assert get_game(game).min_players == 3
            for case in (other_digits_are_refused_by_duel_bench_and_sweep, run_at_another_player_count_names_players):
                here = tmp_path / game / case.__name__
                here.mkdir(parents=True)
                case(here, game)
            more_games_than_memory_holds_are_refused(game)


def test_the_programs_help_names_every_game():
    from sim.games import all_games

    text = " ".join(lvsim("--help").stdout.split())
    for g in all_games():
        assert g.title in text and f'game = "{g.id}"' in text, g.id


def test_help_of_bench_says_it_times_the_game_given():
    text = " ".join(lvsim("bench", "--help").stdout.split())
    assert "--game" in text.split("Options:")[0]
    assert "rulebook game" not in text


@EVERY_GAME
def test_bench_times_the_rulebook_player_count_of_its_game(monkeypatch, game):
    import sim.bench

    timed = []

    def bench_core(game, rules, *, policy, games, threads, seed):
        timed.append(rules.players)
        return {"games": games, "threads": 1, "seconds": 1.0, "games_per_second": float(games)}

    monkeypatch.setattr(sim.bench, "bench_core", bench_core)
    result = lvsim("bench", "--game", game, "--games", 10)
    assert result.exit_code == 0, result.output
    players = get_game(game).Rules().players
    assert timed == [players] and f"at {players} players" in result.stdout
    assert "rulebook's of --game" in " ".join(lvsim("bench", "--help").stdout.split())


def test_bench_says_it_played_on_fewer_threads_than_asked(monkeypatch):
    import sim.bench

    def bench_core(game, rules, *, policy, games, threads, seed):
        return {"games": games, "threads": 2, "seconds": 1.0, "games_per_second": float(games)}

    monkeypatch.setattr(sim.bench, "bench_core", bench_core)
    assert ", 2 threads (8 asked: at most one a core of this machine):" in lvsim("bench", "--threads", 8).stdout
    assert ", 2 threads:" in lvsim("bench", "--threads", 2).stdout
    assert "more than the machine's cores are not used" in " ".join(lvsim("bench", "--help").stdout.split())


@pytest.mark.parametrize("command,default", [
    ("games", "every game"), ("bench", "lasvegan"), ("duel", "lasvegan"), ("replay", "lasvegan"),
])
def test_the_default_of_game_in_help_is_what_no_game_does(command, default):
    text = " ".join(lvsim(command, "--help").stdout.split())
    assert f"(default: {default}" in text, text


# --- lvsim tune -------------------------------------------------------------------------

TUNE = """
base = "b.toml"
[search]
"rules.tokens[2]" = { faces = [-4, 0] }
[targets]
elimination_rate = [0.40, 0.60]
[tune]
players = [3]
policies = ["random"]
budget = 2
games = 20
"""


@pytest.mark.parametrize(
    "change,phrases",
    [
        (("elimination_rate = [0.40, 0.60]", "elimnation_rate = [0.40, 0.60]"),
         ["targets.elimnation_rate", "unknown metric", "did you mean elimination_rate"]),
        (('"rules.tokens[2]"', '"rules.cabbage_tax"'), ['search."rules.cabbage_tax"', "not a knob of Las Vegan"]),
        (('"rules.tokens[2]"', '"run.games"'), ['search."run.games"', "not a knob"]),
        (('"rules.tokens[2]"', '"rules.tokens[9]"'), ['search."rules.tokens[9]"', "no such entry"]),
        (("faces = [-4, 0]", "faces = [0, -4]"), ['search."rules.tokens[2]"', "is empty"]),
        (("{ faces = [-4, 0] }", "[]"), ['search."rules.tokens[2]"', "empty domain"]),
        (("faces = [-4, 0]", "faces = [-40, 0]"), ['search."rules.tokens[2]"', "impossible", "-40"]),
        (("budget = 2", "budget = 0"), ["tune.budget", "between 1"]),
        (("[0.40, 0.60]", "[0.60, 0.40]"), ["targets.elimination_rate", "empty range"]),
        (("[0.40, 0.60]", "{ at_least = 0.4 }"), ["targets.elimination_rate.at_least", "unknown key"]),
        (("[0.40, 0.60]", "{ near = 0.5, scale = 0 }"), ["targets.elimination_rate.scale", "above 0, got 0"]),
        (("[0.40, 0.60]", "{ near = 0.5, scale = -1 }"), ["targets.elimination_rate.scale", "above 0, got -1"]),
        (("[0.40, 0.60]", "{ min = 0.4, scale = 0 }"), ["targets.elimination_rate.scale", "above 0, got 0"]),
        (('policies = ["random"]', 'policies = ["randoom"]'), ["tune.policies", "randoom"]),
        (("players = [3]", "players = [7]"), ["tune.players", "between 2 and 5"]),
    ],
    ids=["unknown metric", "not a knob", "not a rule", "no such token", "empty range", "no choices",
         "impossible faces", "budget 0", "empty target", "unknown target key", "near scale 0", "near scale below 0",
         "min scale 0", "unknown policy", "player count"],
)
def test_bad_tune_files_are_refused_naming_the_key_before_anything_is_played(tmp_path, change, phrases):
    write(tmp_path / "b.toml", LASVEGAN)
    tune = write(tmp_path / "t.toml", TUNE.replace(*change))
    refused(lvsim("tune", tune, "--out", tmp_path / "o"), *phrases)
    assert not (tmp_path / "o").exists()
    refused(lvsim("tune", tune, "--dry-run"), *phrases)


@pytest.mark.parametrize("key", ["rules.tokens[١]", "rules.tokens[²]", "rules.tokens[٢][0]"])
def test_an_entry_of_a_knob_is_indexed_in_ascii_digits_by_sensitivity_sweep_and_tune(tmp_path, key):
    base = write(tmp_path / "b.toml", LASVEGAN)
    refused(lvsim("sensitivity", base, "--seats", "greedy", "--knobs", key, "--dry-run"), "--knobs", "rules.tokens[")
    quoted = json.dumps(key)
    sweep = write(tmp_path / "s.toml", f'base = "b.toml"\n[sweep]\n{quoted} = [[1, 2], [2, 3]]\n')
    refused(lvsim("sweep", sweep, "--dry-run"), "sweep.", "unknown key")
    tune = write(tmp_path / "t.toml", TUNE.replace('"rules.tokens[2]"', quoted))
    refused(lvsim("tune", tune, "--dry-run"), "search.", "not a knob of Las Vegan")


def test_a_tune_of_the_dice_game_names_a_knob_of_the_dice_game(tmp_path):
    write(tmp_path / "b.toml", DICE)
    tune = write(tmp_path / "t.toml", TUNE)
    refused(lvsim("tune", tune, "--out", tmp_path / "o"), 'search."rules.tokens[2]"', "not a knob of Las Vegas")
    assert not (tmp_path / "o").exists()


def test_games_on_the_command_line_above_the_files_max_games_say_so(tmp_path):
    write(tmp_path / "b.toml", LASVEGAN)
    tune = write(tmp_path / "t.toml", TUNE + "max_games = 40\n")
    refused(lvsim("tune", tune, "--games", 100, "--dry-run"), "tune.max_games", "--games")


def test_a_budget_of_0_on_the_command_line_is_refused(tmp_path):
    write(tmp_path / "b.toml", LASVEGAN)
    tune = write(tmp_path / "t.toml", TUNE)
    refused(lvsim("tune", tune, "--budget", 0, "--out", tmp_path / "o"), "--budget")
    assert not (tmp_path / "o").exists()


# --- bad [rules] tables, every game's --------------------------------------------------------


def toml_value(value) -> str:
    """A TOML literal on one line: JSON spells the scalars and arrays the same way; tables inline."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(value)


@EVERY_GAME
def test_every_bad_rules_table_of_the_game_is_one_line_naming_its_key_before_playing(tmp_path, game):
    """The conformance module's BAD_RULES through run, duel and sweep: refused naming the key, nothing written."""
    for i, (table, key) in enumerate(hooks(get_game(game)).BAD_RULES):
        here = tmp_path / str(i)
        here.mkdir()
        path = config(here, game, "[rules]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in table.items()))
        refused(lvsim("run", path, "--out", here / "o"), f"rules.{key}")
        refused(lvsim("duel", path, "--games", 2), f"rules.{key}")
        sweep = write(here / "s.toml", 'base = "c.toml"\n[sweep]\n"run.games" = [5, 6]\n')
        refused(lvsim("sweep", sweep, "--out", here / "so"), f"rules.{key}")
        assert sorted(p.name for p in here.iterdir()) == ["c.toml", "s.toml"], table


# --- $ Fever: a pay table or deck that cannot be played ----------------------------------------

FEVER = 'game = "fever"\n' + FAST_RUN


@pytest.mark.parametrize("rules,key,phrase", [
    ('paytable = [{ symbols = ["cherry", "kiwi", "*"], points = 2 }]', "rules.paytable[0].symbols", "'kiwi'"),
    ('paytable = [{ symbols = ["bar|double_barr", "*", "*"], points = 2 }]', "rules.paytable[0].symbols",
     "double_barr"),
    ('paytable = [{ symbols = ["seven", "seven", "seven"], points = -6 }]', "rules.paytable[0].points", "-6"),
    ("deck = { cherry = 6, seven = 2 }\nplayers = 3", "rules.deck", "too few to deal"),
    ("target = 0", "rules.target", "got 0"),
])
def test_a_fever_config_that_cannot_be_played_is_one_line_naming_the_key(tmp_path, rules, key, phrase):
    path = write(tmp_path / "f.toml", FEVER + "[rules]\n" + rules + "\n")
    out = tmp_path / "o"
    refused(lvsim("run", path, "--out", out), key, phrase)
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["f.toml"]
    refused(lvsim("duel", path, "--seats", "greedy,random,random,random"), key)
    sweep = write(tmp_path / "s.toml", 'base = "f.toml"\n[sweep]\n"rules.turn_cap" = [50, 100]\n')
    refused(lvsim("sweep", sweep, "--out", tmp_path / "so"), key)
    assert not (tmp_path / "so").exists()


def test_a_fever_replay_with_a_bad_pay_table_names_the_key(tmp_path):
    script = write(tmp_path / "r.json", json.dumps({"rules": {"paytable": [{"symbols": ["x", "x", "x"], "points": 1}]},
                                                    "turns": []}))
    refused(lvsim("replay", script, "--game", "fever"), "rules.paytable[0].symbols")


@pytest.mark.parametrize("command", [["tune"], ["confirm"], ["sweep"]])
def test_a_config_given_where_a_tune_or_sweep_file_is_wanted_says_which_it_is(tmp_path, command):
    config = write(tmp_path / "b.toml", LASVEGAN)
    file = "sweep file" if command == ["sweep"] else "tune file"
    refused(lvsim(*command, config, "--dry-run"), "base: missing: this file is a config (it has",
            f"not a {file}, which names the config it starts from in base")


@pytest.mark.slow("end to end")
def test_a_tune_of_one_value_and_one_target_says_them_in_the_singular(tmp_path):
    write(tmp_path / "b.toml", LASVEGAN)
    tune = write(tmp_path / "t.toml", TUNE.replace('"rules.tokens[2]" = { faces = [-4, 0] }',
                                                   '"rules.starting_cabbages" = { range = [10, 12] }'))
    plan = lvsim("tune", tune, "--dry-run")
    assert plan.exit_code == 0, plan.output
    assert ": Las Vegan, 1 value searched, 1 target, seed" in plan.stdout, plan.stdout
    screen = lvsim("sensitivity", tune, "--method", "morris", "--dry-run")
    assert screen.exit_code == 0, screen.output
    assert "\n  1 searched value, " in screen.stdout, screen.stdout  # the screen's size, under its tune and seed


def test_a_number_too_long_to_read_in_a_config_says_so_in_the_products_words(tmp_path):
    path = write(tmp_path / "c.toml", f'game = "lasvegan"\n[run]\ngames = {"9" * 5000}\n')
    line = refused(lvsim("run", path, "--dry-run"),
                   "not usable TOML: it holds a number too long to read (more than 4,300 digits)")
    assert "sys." not in line
