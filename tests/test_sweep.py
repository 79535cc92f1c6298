"""`lvsim sweep`: the grid of cells, strict checking, common seeds, resuming, adaptive precision, Dask."""

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from itertools import product
from pathlib import Path
from textwrap import dedent

import pandas as pd
import pytest
from click.testing import CliRunner

import sim
from analysis.sweep import TIMING_COLUMNS
from sim.cli import main
from sim.config import load_config
from sim.errors import ConfigError
from sim.atomic import locked
from sim.sweep import CELLS_DIR, LOCK_FILE, load_sweep, run_sweep
from sim.sweep.plan import plan_sweep

BASE = """
game = "lasvegan"
[run]
games = 1500
seed = 3
[rules]
players = 4
"""
GOLDEN = """
[sweep]
"rules.golden_token" = [[3, 4], [3, 5]]
"""
GRID = """
[sweep]
"rules.players" = [3, 4]
"rules.golden_token" = [[2, 3], [3, 4], [4, 5]]
"""


def make_sweep(directory: Path, body: str, base: str = BASE, name: str = "s.toml") -> Path:
    (directory / "base.toml").write_text(dedent(base))
    path = directory / name
    path.write_text('base = "base.toml"\n' + dedent(body))
    return path


def quick_base(games: int, game: str = "lasvegan", extra: str = "") -> str:
    """A base config at seed 3 with the skill gap and the strength profile off, to keep a sweep quick."""
    return (f'game = "{game}"\n[run]\ngames = {games}\nseed = 3\nskill_gap_games = 0\nstrength_games = 0\n'
            f'strength_lookahead_games = 0\n{extra}')


def lvsim_sweep(*args):
    return CliRunner().invoke(main, ["sweep", *map(str, args)])


def metrics(table: pd.DataFrame) -> pd.DataFrame:
    """The sweep table without the columns that time the run."""
    return table.drop(columns=list(TIMING_COLUMNS))


def records(out: Path, cell: int) -> pd.DataFrame:
    return pd.read_parquet(out / CELLS_DIR / f"{cell:03d}" / "records.parquet")


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --- the sweep file -------------------------------------------------------------


def test_the_cells_are_the_grid_of_the_axes_first_axis_slowest(tmp_path):
    sweep = load_sweep(make_sweep(tmp_path, GRID))
    expected = list(product([3, 4], [(2, 3), (3, 4), (4, 5)]))
    assert [(c.config.players, c.config.rules.golden_token) for c in sweep.cells] == expected
    assert [c.index for c in sweep.cells] == list(range(6))
    assert sweep.cells[4].overrides == {"rules.players": 4, "rules.golden_token": [3, 4]}
    assert sweep.cells[4].label == "rules.players=4, rules.golden_token=[3, 4]"
    assert sweep.parameters == ["rules.players", "rules.golden_token"]
    base = load_config(tmp_path / "base.toml")
    for cell in sweep.cells:  # everything else is the base config's
        assert (cell.config.games, cell.config.seed, cell.config.seats) == (1500, 3, base.seats)
        assert cell.config.rules.tokens == base.rules.tokens
        assert cell.config.rules.n_set_aside == 40 % cell.config.players  # "auto" follows the cell


def test_nested_keys_mean_the_same_as_quoted_dotted_keys(tmp_path):
    nested = load_sweep(make_sweep(tmp_path, "[sweep]\nrules.players = [3, 4]\nrun.games = [10]\n", name="n.toml"))
    quoted = load_sweep(make_sweep(tmp_path, '[sweep]\n"rules.players" = [3, 4]\n"run.games" = [10]\n'))
    assert [replace(c.config, name="") for c in nested.cells] == [replace(c.config, name="") for c in quoted.cells]
    assert [c.overrides for c in nested.cells] == [c.overrides for c in quoted.cells]
    assert nested.cells[1].config.games == 10


def test_explicit_cells_follow_the_grid_or_replace_it(tmp_path):
    both = load_sweep(make_sweep(tmp_path, GOLDEN + """
        [[cells]]
        "rules.players" = 5
        "rules.reserve" = "unlimited"
        [[cells]]
        rules.golden_token = [1, 1]
    """))
    assert [c.overrides for c in both.cells] == [
        {"rules.golden_token": [3, 4]},
        {"rules.golden_token": [3, 5]},
        {"rules.players": 5, "rules.reserve": "unlimited"},
        {"rules.golden_token": [1, 1]},
    ]
    assert both.parameters == ["rules.golden_token", "rules.players", "rules.reserve"]
    assert (both.cells[2].config.players, both.cells[2].config.rules.reserve) == (5, "unlimited")
    only = load_sweep(make_sweep(tmp_path, '[[cells]]\n"policies.seats" = "random"\n'))
    assert len(only.cells) == 1 and only.cells[0].config.seats == "random"


@pytest.mark.slow("end to end")
def test_every_cell_plays_the_same_seed_and_so_the_same_deals(tmp_path):
    sweep = load_sweep(make_sweep(tmp_path, GOLDEN), seed=9, games=500)
    assert {c.config.seed for c in sweep.cells} == {9}
    results = run_sweep(sweep, tmp_path / "out", report=False)
    a, b = records(results.out_dir, 0), records(results.out_dir, 1)
    dealt = [c for c in a.columns if c.startswith("machine_r0_") or c.startswith("round_leader_r0")]
    assert len(dealt) == 4
    pd.testing.assert_frame_equal(a[dealt], b[dealt])  # the same machines, the same leader ...
    assert (a["golden_value_r0"] != b["golden_value_r0"]).any()  # ... and a different golden token
    assert results.table["seed"].tolist() == [9, 9]


# --- checking -------------------------------------------------------------------------

BAD_SWEEPS = [
    ('base = "base.toml"\ncolour = 1\n[sweep]\n"rules.players" = [3]', "colour: unknown key"),
    ('[sweep]\n"rules.players" = [3]', "base: missing"),
    ('base = "nope.toml"\n[sweep]\n"rules.players" = [3]', "base: nope.toml: no such file"),
    ('base = "base.toml"\n[sweep]\n"rules.players" = 3', 'sweep."rules.players": must be a non-empty list'),
    ('base = "base.toml"\n[sweep]\n"rules.players" = []', 'sweep."rules.players": must be a non-empty list'),
    ('base = "base.toml"\n[sweep]\n"rules.players" = [3, 3]', 'sweep."rules.players": lists 3 more than once'),
    ('base = "base.toml"\n[sweep]\n"rules.player" = [3]', 'sweep."rules.player": unknown key'),
    ('base = "base.toml"\n[sweep]\n"run.seed" = [1, 2]', 'sweep."run.seed": cannot vary'),
    ('base = "base.toml"\nsweep = [1]', "sweep: must be a table"),
    ('base = "base.toml"\n[sweep]\n"rules.players" = [2, 3, 4, 5, 7]',
     "sweep cell 4 (rules.players=7): rules.players: must be between 2 and 5, got 7"),
    ('base = "base.toml"\n[sweep]\n"rules.players" = [3, 4]\n"rules.golden_token" = [[3, 4], [99, 1]]',
     "sweep cell 1 (rules.players=3, rules.golden_token=[99, 1]): rules.golden_token[0]: must be between"),
    ('base = "base.toml"\ncells = 3', "cells: must be an array of tables"),
    ('base = "base.toml"\n[[cells]]\n', "cells[0]: is empty"),
    ('base = "base.toml"\n[[cells]]\n"rules.reserve" = "bottomless"',
     "sweep cell 0 (rules.reserve=bottomless): rules.reserve: must be"),
    ('base = "base.toml"\n[[cells]]\n"rules.boards" = 1', 'cells[0]."rules.boards": unknown key'),
    ('base = "base.toml"', "sweep: nothing to sweep"),
    ('base = "base.toml"\n[sweep\n', "s.toml: not valid TOML"),
]


@pytest.mark.parametrize("text, message", BAD_SWEEPS)
def test_a_malformed_sweep_gives_one_line_and_writes_nothing(in_tmp, text, message):
    (in_tmp / "base.toml").write_text(dedent(BASE))
    (in_tmp / "s.toml").write_text(text + "\n")
    result = lvsim_sweep("s.toml")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: {message}") and result.stderr.count("\n") == 1, result.stderr
    assert sorted(p.name for p in in_tmp.iterdir()) == ["base.toml", "s.toml"]


def test_a_base_config_that_is_wrong_by_itself_is_named(in_tmp):
    make_sweep(in_tmp, GOLDEN, base='game = "lasvegan"\n[rules]\nboard = 1\n')
    result = lvsim_sweep("s.toml")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: base base.toml: rules.board: unknown key")


@pytest.mark.parametrize("options, message", [
    (["--sort-by", "niceness"], "--sort-by: unknown column 'niceness'"),
    (["--baseline", "2"], "--baseline: must be a cell between 0 and 1, got 2"),
    (["--max-games", "100"], "--max-games: only applies with --target-ci"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "--workers: give either --workers N"),
    (["--target-ci", "0.05", "--max-games", "1000"], "--max-games: must be at least the 1,500 games a cell plays"),
    (["--games", "200"], "--games: the sweep varies run.games"),
    (["--threads", "2"], "--threads: the sweep varies run.threads"),
])
def test_options_that_do_not_fit_the_sweep_are_refused_before_playing(in_tmp, options, message):
    # A sweep may vary a run's games or threads itself: then the option that sets them in every cell is refused.
    make_sweep(in_tmp, {"--games": '[sweep]\n"run.games" = [200, 400]\n',
                        "--threads": '[[cells]]\n"run.threads" = 1\n'}.get(options[0], GOLDEN))
    result = lvsim_sweep("s.toml", *options)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {message}") and result.stderr.count("\n") == 1, result.stderr
    assert sorted(p.name for p in in_tmp.iterdir()) == ["base.toml", "s.toml"]


def test_a_missing_sweep_file_is_reported(in_tmp):
    result = lvsim_sweep("nowhere.toml")
    assert (result.exit_code, result.stderr) == (2, "error: nowhere.toml: no such file\n")


# --- results ----------------------------------------------------------------------------


@pytest.mark.slow("end to end")
def test_a_sweep_writes_one_row_per_cell_and_each_cell_is_a_normal_run(in_tmp):
    make_sweep(in_tmp, GRID)
    result = lvsim_sweep("s.toml", "--games", 400, "--out", "out", "--json")
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    out = in_tmp / "out"
    assert {"sweep.parquet", "paired.parquet", "sweep.html", "sweep.json", "cells"} <= {p.name for p in out.iterdir()}
    table = pd.read_parquet(out / "sweep.parquet")
    assert table["cell"].tolist() == list(range(6))
    assert table["rules.players"].tolist() == [3, 3, 3, 4, 4, 4]
    assert table["rules.golden_token"].tolist() == ["[2, 3]", "[3, 4]", "[4, 5]"] * 2
    for column in ("win_share_s0", "win_share_s0_lo", "win_share_s0_hi", "first_player_advantage_lo",
                   "elimination_rate", "elimination_rate_lo", "elimination_rate_hi", "mean_rounds_hi",
                   "tie_rate_lo", "swing_p95", "final_cabbages_mean_s2_hi", "end_round_share_r4"):
        assert table[column].notna().all(), column
    assert table["win_share_s3"].isna().tolist() == [True] * 3 + [False] * 3  # seat 3 only at 4 players
    assert [row["cell"] for row in printed["cells"]] == list(range(6))
    assert printed["cells"][0]["elimination_rate"] == table["elimination_rate"][0]

    # A cell's directory is the results of `lvsim run` of its config.toml.
    again = CliRunner().invoke(main, ["run", "out/cells/004/config.toml", "--out", "again", "--json", "--no-report"])
    assert again.exit_code == 0, again.output
    cell_summary = json.loads((out / CELLS_DIR / "004" / "summary.json").read_text())
    # A run adds what moves the verdict to its summary; a sweep's cell leaves it out.
    drop = lambda s: {k: v for k, v in s.items() if k not in (*TIMING_COLUMNS, "sensitivity")}  # noqa: E731
    assert drop(json.loads(again.stdout)) == drop(cell_summary)
    pd.testing.assert_frame_equal(records(out, 4), pd.read_parquet(in_tmp / "again" / "records.parquet"))
    meta = json.loads((out / CELLS_DIR / "004" / "meta.json").read_text())
    assert meta["sweep"]["overrides"] == {"rules.players": 4, "rules.golden_token": [3, 4]}

    page = (out / "sweep.html").read_text()
    assert page.count("<img") >= 3 and "data:image/png;base64," in page
    assert "src='http" not in page and 'src="http' not in page  # self-contained
    assert "Paired differences" in page and "rules.golden_token &times; rules.players" in page


@pytest.mark.slow("end to end")
def test_the_text_table_is_sorted_by_the_chosen_column(in_tmp):
    make_sweep(in_tmp, GRID)
    result = lvsim_sweep("s.toml", "--no-report", "--games", 300, "--out", "out", "--sort-by=-elimination_rate")
    assert result.exit_code == 0, result.output
    table = pd.read_parquet(in_tmp / "out" / "sweep.parquet")
    expected = table.sort_values("elimination_rate", ascending=False, kind="stable")["cell"].tolist()
    lines = result.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("cell")) + 1
    assert [int(line.split()[0]) for line in lines[start:start + 6]] == expected
    assert "Paired differences of each cell from its baseline: cell 000" in result.stdout


def test_a_rate_no_game_of_which_differs_is_not_said_known_exactly():
    """Of 500 paired games none tied on either side: a rate's difference is 0 give or take a 0-of-500's width,
    the same whether paired or not, as each side's own interval says; a t interval said [0, 0]."""
    from analysis.strength import Z95
    from analysis.sweep import _difference

    none = _difference([0] * 6, 500, 1, rate=True)
    edge = Z95**2 / (500 + Z95**2)
    assert none["difference"] == 0
    assert none["difference_lo"] == pytest.approx(-edge, abs=1e-9) and none["difference_hi"] == pytest.approx(edge, abs=1e-9)
    assert none["unpaired_lo"] == pytest.approx(-edge) and none["unpaired_hi"] == pytest.approx(edge)
    assert none["tighter"] == pytest.approx(1.0)
    # 10 games tie on both sides, 3 in the cell alone, 1 in the baseline alone: differences +1 x3, -1 x1.
    some = _difference([2, 4, 13, 13, 11, 11], 500, 1, rate=True)
    assert some["difference"] == 2 / 500
    assert some["unpaired_lo"] < some["difference_lo"] < 2 / 500 < some["difference_hi"] < some["unpaired_hi"]


def test_the_sweep_page_leaves_out_a_ratio_of_widths_it_cannot_say():
    """A difference known exactly (a mean's interval of width 0) has no ratio: the page says none, not ×n/a."""
    from analysis.sweep_report import _paired_table
    from sim.games import get_game

    game = get_game("lasvegan")
    table = pd.DataFrame({"cell": [0, 1], "label": ["base", "other"]})
    paired = pd.DataFrame([{"cell": 1, "baseline": 0, "metric": m, "difference": 0.0, "difference_lo": 0.0,
                            "difference_hi": 0.0, "tighter": math.nan} for m in game.paired_metrics])
    page = _paired_table(table, paired, 0, game)
    assert "n/a" not in page and "&times;" not in page


@pytest.mark.slow("end to end")
def test_paired_intervals_are_tighter_than_independent_ones_for_close_cells(tmp_path):
    results = run_sweep(load_sweep(make_sweep(tmp_path, GOLDEN), games=3000), tmp_path / "out", report=False)
    paired = results.paired.set_index("metric")
    table = results.table
    for metric in ("elimination_rate", "mean_rounds"):
        d = paired.loc[metric]
        assert d["cell"] == 1 and d["baseline"] == 0 and d["games"] == 3000
        # On the same games, the mean of the differences is the difference of the means.
        assert d["difference"] == pytest.approx(table[metric][1] - table[metric][0], abs=1e-12)
        assert d["difference_hi"] - d["difference_lo"] < (d["unpaired_hi"] - d["unpaired_lo"]) / 1.5
        assert d["tighter"] > 1.5
    first = paired.loc["first_player_advantage"]
    assert first["difference_hi"] - first["difference_lo"] < first["unpaired_hi"] - first["unpaired_lo"]


# --- resuming ----------------------------------------------------------------------------


def _descendants(pid: int) -> list[int]:
    """The processes ``pid`` started, and theirs (a local cluster's nannies and workers)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
        for child in children:
            found += [child, *_descendants(child)]
    return found


@pytest.mark.slow
@pytest.mark.parametrize("workers", [None, 2], ids=["in-process", "2 workers"])
def test_a_sweep_killed_mid_way_resumes_to_the_table_of_an_uninterrupted_one(tmp_path, workers):
    """kill -9 while cells play (on workers: several at once, each staged): the same command, or this
    process, ends with the table of an uninterrupted sweep. Greedy and random seats: each cell's 30,000 games
    play in a fraction of a second, on the kernel every test loads."""
    path = make_sweep(tmp_path, '[sweep]\n"rules.golden_token" = [[2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 8]]\n',
                      base=quick_base(1500, extra='[policies]\nseats = ["greedy", "random", "greedy", "random"]\n'))
    killed = tmp_path / "killed"
    command = [sys.executable, "-m", "sim.cli", "sweep", str(path), "--games", "30000", "--out", str(killed), "--no-report"]
    if workers is not None:
        command += ["--workers", str(workers)]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    started: list[int] = []
    try:
        deadline = time.monotonic() + 300  # the first cell may wait for the kernels to compile
        while not (killed / CELLS_DIR / "001").exists():
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "no cell finished"
            time.sleep(0.005)
        started = _descendants(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
        for pid in started:  # the killed sweep's workers, by their ids
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert not (killed / "sweep.parquet").exists(), "the sweep ended before it could be killed"
    done = sorted(p.name for p in (killed / CELLS_DIR).iterdir())
    assert "005" not in done

    sweep = load_sweep(path, games=30000)
    resumed = run_sweep(sweep, killed, report=False)
    # Every cell found complete is kept, whichever finished first (on workers the cells play together).
    assert 1 in resumed.resumed and set(resumed.resumed) == {int(name) for name in done if name.isdigit()}
    if workers is None:  # in this process they play one after another
        assert set(resumed.resumed) >= {0, 1}
    assert not list((killed / CELLS_DIR).glob(".*")), "a staging directory was left behind"
    whole = run_sweep(sweep, tmp_path / "whole", report=False)
    pd.testing.assert_frame_equal(metrics(pd.read_parquet(killed / "sweep.parquet")),
                                  metrics(pd.read_parquet(tmp_path / "whole" / "sweep.parquet")), check_exact=True)
    pd.testing.assert_frame_equal(pd.read_parquet(killed / "paired.parquet"),
                                  pd.read_parquet(tmp_path / "whole" / "paired.parquet"), check_exact=True)
    assert whole.resumed == ()
    for cell in range(6):
        pd.testing.assert_frame_equal(records(killed, cell), records(tmp_path / "whole", cell))


def test_a_sweep_without_its_report_draws_it_when_run_again_playing_nothing(in_tmp):
    make_sweep(in_tmp, GOLDEN, base=quick_base(300))
    first = lvsim_sweep("s.toml", "--out", "out", "--no-report")
    assert first.exit_code == 0, first.output
    assert not (in_tmp / "out" / "sweep.html").exists()
    assert "(sweep.parquet, paired.parquet, sweep.json, cells/)" in first.output
    # The list is the directory's whole content (but its hidden lock).
    assert sorted(p.name for p in (in_tmp / "out").iterdir() if not p.name.startswith(".")) == [
        "cells", "paired.parquet", "sweep.json", "sweep.parquet"]
    assert "No sweep.html written (--no-report): the same command with --out " in first.output
    played_at = [(in_tmp / "out" / CELLS_DIR / c / "records.parquet").stat().st_mtime_ns for c in ("000", "001")]
    dry = lvsim_sweep("s.toml", "--no-report", "--dry-run")
    assert dry.exit_code == 0 and "for the report" not in dry.output, dry.output
    again = lvsim_sweep("s.toml", "--out", "out")
    assert again.exit_code == 0, again.output
    assert (in_tmp / "out" / "sweep.html").is_file() and "2 cells were already played" in again.output
    assert [(in_tmp / "out" / CELLS_DIR / c / "records.parquet").stat().st_mtime_ns for c in ("000", "001")] == played_at


def test_cells_stored_under_the_earlier_name_of_a_run_key_are_kept(tmp_path):
    """A sweep played before run.strength_lookahead_games became run.strength_slow_games still resumes."""
    sweep = load_sweep(make_sweep(tmp_path, GOLDEN), games=300)
    out = tmp_path / "out"
    run_sweep(sweep, out, report=False)
    meta_path = out / CELLS_DIR / "001" / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    run = meta["sweep"]["plan"]["config"]["run"]
    run["strength_lookahead_games"] = run.pop("strength_slow_games")
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    assert run_sweep(sweep, out, report=False).resumed == (0, 1)


def test_running_again_keeps_finished_cells_and_cleans_up_leftovers(tmp_path):
    sweep = load_sweep(make_sweep(tmp_path, GOLDEN), games=300)
    out = tmp_path / "out"
    first = run_sweep(sweep, out, report=False)
    played_at = [(out / CELLS_DIR / c / "records.parquet").stat().st_mtime_ns for c in ("000", "001")]
    # What a sweep killed while staging a cell or a table leaves behind.
    (out / CELLS_DIR / ".001.dead.partial").mkdir()
    (out / CELLS_DIR / ".001.dead.partial" / "records.parquet").write_text("half a file")
    (out / ".sweep.parquet.dead.partial").write_text("half a table")
    again = run_sweep(sweep, out, report=False)
    assert again.resumed == (0, 1)
    assert [(out / CELLS_DIR / c / "records.parquet").stat().st_mtime_ns for c in ("000", "001")] == played_at
    assert sorted(p.name for p in (out / CELLS_DIR).iterdir()) == ["000", "001"]
    assert not list(out.glob(".*.partial"))
    pd.testing.assert_frame_equal(metrics(again.table), metrics(first.table), check_exact=True)
    # An empty cell directory (what a sweep killed as it put a cell in place once left) is no cell played: the
    # dry run lists it to play, and the sweep plays it again.
    shutil.rmtree(out / CELLS_DIR / "001")
    (out / CELLS_DIR / "001").mkdir()
    assert [row["done"] for row in plan_sweep(sweep, out, calibrate=False)] == [True, False]
    third = run_sweep(sweep, out, report=False)
    assert third.resumed == (0,) and (out / CELLS_DIR / "001" / "meta.json").is_file()
    pd.testing.assert_frame_equal(metrics(third.table), metrics(first.table), check_exact=True)


@pytest.mark.slow("end to end")
def test_resuming_with_a_different_config_is_refused(in_tmp):
    make_sweep(in_tmp, GOLDEN)
    assert lvsim_sweep("s.toml", "--games", 200, "--out", "out").exit_code == 0
    before = sorted(str(p) for p in (in_tmp / "out").rglob("*"))
    result = lvsim_sweep("s.toml", "--games", 300, "--out", "out")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: --out: out/cells/000 was played with run.games = 200, this sweep has run.games = 300; "
        "resume with the same sweep and options, or choose a new directory\n"
    )
    result = lvsim_sweep("s.toml", "--games", 200, "--out", "out", "--target-ci", "0.1")
    assert result.exit_code == 2 and "target_ci = none, this sweep has target_ci = 0.1" in result.stderr
    assert sorted(str(p) for p in (in_tmp / "out").rglob("*")) == before


def test_a_sweep_stopped_before_it_wrote_its_definition_begins_again_in_its_directory(tmp_path):
    """Stopped (kill -9 included) before it wrote sweep.json, a sweep leaves its lock, an empty cells directory and
    perhaps a half-written sweep.json: no cell was played, and the same command runs there as in a new directory."""
    sweep = load_sweep(make_sweep(tmp_path, GOLDEN), games=300)
    out = tmp_path / "out"
    (out / CELLS_DIR).mkdir(parents=True)
    (out / LOCK_FILE).touch()
    (out / ".sweep.json.0badc0de.partial").write_text("{")
    results = run_sweep(sweep, out, report=False)
    assert results.resumed == () and sorted(p.name for p in (out / CELLS_DIR).iterdir()) == ["000", "001"]


def test_a_directory_holding_something_else_is_refused(in_tmp):
    make_sweep(in_tmp, GOLDEN)
    (in_tmp / "out").mkdir()
    (in_tmp / "out" / "notes.txt").write_text("mine")
    result = lvsim_sweep("s.toml", "--games", 100, "--out", "out")
    assert result.exit_code == 2 and "holds no sweep" in result.stderr
    assert [p.name for p in (in_tmp / "out").iterdir()] == ["notes.txt"]


@pytest.mark.slow("end to end")
def test_two_sweeps_never_write_the_same_directory_at_once(in_tmp):
    make_sweep(in_tmp, GOLDEN)
    assert lvsim_sweep("s.toml", "--games", 100, "--out", "out").exit_code == 0
    with locked(in_tmp / "out" / LOCK_FILE, "sweep"):
        result = lvsim_sweep("s.toml", "--games", 100, "--out", "out")
    assert result.exit_code == 2 and result.stderr == "error: --out: out is in use by another lvsim sweep\n"


# --- dry run --------------------------------------------------------------------------------


@pytest.mark.slow("end to end")
def test_a_dry_run_lists_the_cells_and_the_time_and_writes_nothing(in_tmp):
    make_sweep(in_tmp, GRID)
    result = lvsim_sweep("s.toml", "--dry-run")
    assert result.exit_code == 0, result.output
    for cell in load_sweep(in_tmp / "s.toml").cells:
        assert f"{cell.name}   {cell.label}" in result.stdout
    assert "6 cells to play: about " in result.stdout and "Nothing was written." in " ".join(result.stdout.split())
    assert max(map(len, result.stdout.splitlines())) <= 120, result.stdout
    # The estimate counts the skill-gap duels, the strength profiles and the report, not only the games.
    said = " ".join(result.stdout.split())
    assert "of skill-gap duels and strength profiles and " in said and " for the report included" in said
    assert sorted(p.name for p in in_tmp.iterdir()) == ["base.toml", "s.toml"]

    plan = json.loads(lvsim_sweep("s.toml", "--dry-run", "--json", "--target-ci", "0.01").stdout)
    assert [c["games"] for c in plan["cells"]] == [1500] * 6
    assert [c["max_games"] for c in plan["cells"]] == [15000] * 6
    for c in plan["cells"]:
        assert 0 < c["seconds"] < c["max_seconds"] and 0 < c["duel_seconds"] < c["seconds"]
    assert plan["report_seconds"] > 0
    assert sorted(p.name for p in in_tmp.iterdir()) == ["base.toml", "s.toml"]


@pytest.mark.slow("end to end")
def test_a_dry_run_on_an_interrupted_sweep_shows_what_is_left(in_tmp):
    make_sweep(in_tmp, GOLDEN)
    assert lvsim_sweep("s.toml", "--games", 100, "--out", "out").exit_code == 0
    (in_tmp / "out" / "sweep.parquet").unlink()
    import shutil

    shutil.rmtree(in_tmp / "out" / CELLS_DIR / "001")
    plan = json.loads(lvsim_sweep("s.toml", "--games", 100, "--out", "out", "--dry-run", "--json").stdout)
    assert [c["done"] for c in plan["cells"]] == [True, False]
    assert plan["cells"][0]["seconds"] is None and plan["cells"][1]["seconds"] > 0
    assert not (in_tmp / "out" / CELLS_DIR / "001").exists()


# --- adaptive precision -------------------------------------------------------------------------


def half_width(summary):
    low, high = summary["first_player_advantage_ci"]
    return (high - low) / 2


@pytest.mark.slow("end to end")
def test_target_ci_adds_games_until_the_interval_is_narrow_enough(tmp_path):
    sweep = load_sweep(make_sweep(tmp_path, GOLDEN), games=400)
    results = run_sweep(sweep, tmp_path / "out", target_ci=0.03, report=False)
    for cell in sweep.cells:
        summary = json.loads((results.cell_dir(cell.index) / "summary.json").read_text())
        meta = json.loads((results.cell_dir(cell.index) / "meta.json").read_text())
        assert summary["games"] > 400 and half_width(summary) <= 0.03
        assert meta["sweep"]["target_met"] is True and meta["games"] == summary["games"]
        # More games continue the game indices: the cell is one run of its total.
        config = load_config(results.cell_dir(cell.index) / "config.toml")
        assert config.games == summary["games"]
        single = sim.run(config, out=None)
        assert {k: v for k, v in single.summary.items() if k not in TIMING_COLUMNS} == {
            k: v for k, v in summary.items() if k not in TIMING_COLUMNS}
        pd.testing.assert_frame_equal(single.to_pandas(), records(results.out_dir, cell.index))
    assert results.table["games"].tolist() == [json.loads((results.cell_dir(i) / "summary.json").read_text())["games"]
                                               for i in range(2)]


def test_target_ci_stops_at_the_cap(tmp_path):
    sweep = load_sweep(make_sweep(tmp_path, GOLDEN), games=400)
    results = run_sweep(sweep, tmp_path / "out", target_ci=0.001, max_games=900, report=False)
    assert results.table["games"].tolist() == [900, 900]
    for i in range(2):
        meta = json.loads((results.cell_dir(i) / "meta.json").read_text())
        assert meta["sweep"]["target_met"] is False
        assert half_width(json.loads((results.cell_dir(i) / "summary.json").read_text())) > 0.001


# --- Dask ------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2, 3])
def test_a_local_dask_cluster_gives_bit_identical_results(in_tmp, workers):
    """Every cell's chunks handed to the workers at once: the records, the table and the paired differences
    of one process, bit for bit, on any number of workers. The client plays the skill gap and the strength
    profile (not the workers): they are on at 2 workers only."""
    # At 2 workers, the skill gap and the strength profile are on, small.
    base = quick_base(1500) if workers != 2 else (
        'game = "lasvegan"\n[run]\ngames = 1500\nseed = 3\nskill_gap_games = 4\nstrength_games = 300\n'
        'strength_lookahead_games = 8\n')
    make_sweep(in_tmp, GRID, base=base)
    here = run_sweep(load_sweep("s.toml", games=5000), "here", report=False)
    result = lvsim_sweep("s.toml", "--no-report", "--games", 5000, "--out", "there", "--workers", workers, "--json")
    assert result.exit_code == 0, result.output
    there = pd.read_parquet(in_tmp / "there" / "sweep.parquet")
    pd.testing.assert_frame_equal(metrics(there), metrics(here.table), check_exact=True)
    pd.testing.assert_frame_equal(pd.read_parquet(in_tmp / "there" / "paired.parquet"), here.paired, check_exact=True)
    for cell in range(6):
        pd.testing.assert_frame_equal(records(in_tmp / "there", cell), records(in_tmp / "here", cell))
        meta = json.loads((in_tmp / "there" / CELLS_DIR / f"{cell:03d}" / "meta.json").read_text())
        assert meta["played"] == f"dask LocalCluster ({workers} worker{'s' if workers > 1 else ''})"
        # Four chunks per worker over the whole sweep: one per cell on one worker, several per cell on more.
        assert meta["chunk_games"] == {1: 5000, 2: 3750, 3: 2500}[workers]

    # One run, chunk by chunk on the cluster.
    result = CliRunner().invoke(main, ["run", "here/cells/004/config.toml", "--no-report", "--workers", str(workers),
                                       "--out", "run", "--json"])
    assert result.exit_code == 0, result.output
    # A run adds what moves the verdict to its summary; a sweep's cell leaves it out.
    drop = lambda s: {k: v for k, v in s.items() if k not in (*TIMING_COLUMNS, "sensitivity")}  # noqa: E731
    cell_summary = json.loads((in_tmp / "here" / CELLS_DIR / "004" / "summary.json").read_text())
    assert drop(json.loads(result.stdout)) == drop(cell_summary)
    pd.testing.assert_frame_equal(pd.read_parquet(in_tmp / "run" / "records.parquet"), records(in_tmp / "here", 4))


def test_chunks_are_sized_from_the_batch_the_workers_and_their_threads():
    from sim.cluster import MIN_CHUNK_GAMES, chunk_size

    assert chunk_size([3000] * 12, 3) == 3000  # four chunks per worker: one cell each
    assert chunk_size([3000] * 12, 9) == 1000
    assert chunk_size([100_000], 4, threads=2) == 6250
    # Never fewer games than a few hundred per thread of the worker playing them, nor more than the job has.
    assert chunk_size([10_000], 8, threads=4) == 4 * MIN_CHUNK_GAMES
    assert chunk_size([700, 700], 8, threads=4) == 700
    assert chunk_size([], 3) == chunk_size([0], 3) > 0


def test_a_worker_imports_the_kernels_and_not_the_runners_files():
    """What a worker unpickles to play a chunk imports neither pandas nor Arrow: a fresh worker starts sooner."""
    code = ("import sys, sim.chunk; "
            "print(sorted(m for m in ('pandas', 'pyarrow', 'distributed', 'sim.runner') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_an_unreachable_scheduler_is_one_line():
    from sim.cluster import open_cluster

    with pytest.raises(ConfigError, match="^--scheduler: cannot connect to tcp://127.0.0.1:9: "):
        with open_cluster(scheduler="tcp://127.0.0.1:9", timeout="0.5s"):
            pass


@pytest.mark.slow("end to end")
def test_the_skill_gap_is_a_sweep_column_and_sorts(tmp_path):
    from sim.sweep import load_sweep, run_sweep

    base = tmp_path / "base.toml"
    base.write_text('game = "lasvegan"\n[run]\ngames = 200\nseed = 3\nskill_gap_games = 4\n')
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text('base = "base.toml"\n[sweep]\n"rules.players" = [3, 4]\n')
    out = tmp_path / "out"
    run_sweep(load_sweep(sweep_file), out=out, progress=False, sort_by="-skill_gap_greedy_vs_random")
    table = pd.read_parquet(out / "sweep.parquet")
    for duel in ("lookahead_vs_greedy", "greedy_vs_random"):
        col = f"skill_gap_{duel}"
        assert ((table[col + "_lo"] <= table[col]) & (table[col] <= table[col + "_hi"])).all()
    assert "skill: greedy vs random (%)" in (out / "sweep.html").read_text()


@pytest.mark.parametrize("game", ["lasvegan", "vegas-dice"])
def test_skill_gap_columns_stay_in_the_table_empty_when_the_duels_are_skipped(tmp_path, game):
    from sim.games import get_game
    from sim.sweep import load_sweep, run_sweep

    base = tmp_path / "base.toml"
    base.write_text(quick_base(40, game))
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text('base = "base.toml"\n[sweep]\n"rules.players" = [3, 4]\n')
    run_sweep(load_sweep(sweep_file), out=tmp_path / "out", progress=False)
    table = pd.read_parquet(tmp_path / "out" / "sweep.parquet")
    for duel in get_game(game).skill_gap_duels:
        for end in ("", "_lo", "_hi"):
            assert table[f"skill_gap_{duel.name}{end}"].isna().all()
    html = (tmp_path / "out" / "sweep.html").read_text()
    assert "skill:" not in html and "<a href='cells/" not in html


def test_each_player_count_has_its_own_baseline(tmp_path):
    """Paired differences are taken at the same player count, from the cell with the baseline's other values."""
    from sim.sweep import baselines, load_sweep, run_sweep

    base = tmp_path / "base.toml"
    base.write_text(quick_base(60))
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text('base = "base.toml"\n[sweep]\n"rules.players" = [3, 4]\n'
                          '"rules.golden_token" = [[3, 4], [4, 5]]\n')
    sweep = load_sweep(sweep_file)
    # cells: 0 = (3, [3, 4]), 1 = (3, [4, 5]), 2 = (4, [3, 4]), 3 = (4, [4, 5])
    assert baselines(sweep, 0) == {0: 0, 1: 0, 2: 2, 3: 2}
    assert baselines(sweep, 1) == {0: 1, 1: 1, 2: 3, 3: 3}
    results = run_sweep(sweep, out=tmp_path / "out", progress=False)
    pairs = results.paired.drop_duplicates("cell").set_index("cell")["baseline"].to_dict()
    assert pairs == {1: 0, 3: 2}
    page = (tmp_path / "out" / "sweep.html").read_text()
    assert "every cell plays the same deals" not in page
    assert "cells of the same player count play the same deals" in page


@pytest.mark.slow("end to end")
def test_cells_that_differ_only_in_their_seats_are_paired_on_the_same_deals(tmp_path):
    """A policy draws from a stream of its own, so game i is the same deal whoever plays it: cells that
    change the seats are compared game by game with the baseline of their player count, as a rule change is."""
    from sim.sweep import baselines

    base = tmp_path / "base.toml"
    base.write_text(quick_base(400))
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text('base = "base.toml"\n[sweep]\n"policies.seats" = ["greedy", "random"]\n'
                          '"rules.players" = [3, 4]\n')
    # cells: 0 = (greedy, 3), 1 = (greedy, 4), 2 = (random, 3), 3 = (random, 4)
    assert baselines(load_sweep(sweep_file), 0) == {0: 0, 1: 1, 2: 0, 3: 1}
    assert baselines(load_sweep(sweep_file), 3) == {0: 2, 1: 3, 2: 2, 3: 3}
    out = tmp_path / "out"
    result = lvsim_sweep(sweep_file, "--out", out)
    assert result.exit_code == 0, result.output
    assert "no cell has a baseline" not in result.output and "No paired differences" not in result.output
    paired = pd.read_parquet(out / "paired.parquet")
    assert paired.drop_duplicates("cell").set_index("cell")["baseline"].to_dict() == {2: 0, 3: 1}
    # The same deals: every game's first round has the same machines and golden token in both cells.
    dealt = [c for c in records(out, 0).columns if c.startswith(("machine_r0_m", "golden_value_r0"))]
    for cell, other in ((2, 0), (3, 1)):
        assert records(out, cell)[dealt].equals(records(out, other)[dealt])
    assert records(out, 0)["machine_r0_m0"].nunique() > 1
    # Paired on the same games, the mean difference is the difference of the two cells' means.
    table = pd.read_parquet(out / "sweep.parquet").set_index("cell")
    for _, d in paired.iterrows():
        here, there = table.loc[d["cell"]], table.loc[d["baseline"]]
        assert d["games"] == 400
        assert d["difference"] == pytest.approx(here[d["metric"]] - there[d["metric"]], abs=1e-12)
        assert d["difference_lo"] <= d["difference"] <= d["difference_hi"]
    # The deals set how long a game lasts: paired, its interval is narrower than independent runs'.
    rounds = paired[paired["metric"] == "mean_rounds"]
    assert (rounds["tighter"] > 1).all()
    assert ((rounds["difference_hi"] - rounds["difference_lo"]) < (rounds["unpaired_hi"] - rounds["unpaired_lo"])).all()
    assert "whatever the seats" in result.stdout
    page = (out / "sweep.html").read_text()
    assert "<h2>Paired differences</h2>" in page and "policies.seats=random" in page
    # Two cells of one player count but other seats are not a rule hole's baseline.
    assert "Rule holes (shortfall_rate, seven_no_slot_rate) are not compared: no two cells have the same player " \
           "count and seats" in result.stdout.replace("\n  ", " ")


def test_rule_holes_are_compared_at_the_same_seats_when_the_baseline_has_others():
    """A rate that rises when other policies play is the players', not a hole: a cell whose baseline has other
    seats is compared for rule holes with the cell of its seats and its baseline's other values."""
    from analysis.sweep import hole_baselines, hole_uncompared_cells, rule_hole_flags, rule_hole_lines
    from sim.games import get_game

    game = get_game("lasvegan")
    # 4 players; cells 0, 1 greedy, 2, 3 random; cells 0 and 2 on reserve 10, 1 and 3 on reserve 40.
    table = pd.DataFrame({"cell": [0, 1, 2, 3], "policies.seats": ["greedy", "greedy", "random", "random"],
                          "rules.reserve": [10, 40, 10, 40], "label": ["a", "b", "c", "d"], "players": [4] * 4,
                          "policy_s0": ["greedy", "greedy", "random", "random"],
                          "policy_s1": ["greedy", "greedy", "random", "random"],
                          "shortfall_rate": [0.0, 0.0, 0.2, 0.5], "seven_no_slot_rate": [0.0, 0.0, 0.0, 0.0]})
    paired = pd.DataFrame({"cell": [1, 2, 3], "baseline": [0, 0, 0]})
    assert hole_baselines(table, paired) == {0: 0, 1: 0, 2: 2, 3: 2}
    assert hole_uncompared_cells(table, paired) == []
    # Random seats fall short far more than greedy ones (cell 2): not flagged. Cell 3 against cell 2 is.
    flags = rule_hole_flags(table, paired, game)
    assert [(f["cell"], f["baseline"], f["paired_baseline"]) for f in flags] == [(3, 2, 0)]
    assert "in cell 002, its baseline with the same seats" in rule_hole_lines(flags, game)[0]
    # The cell of the random seats' other reserve as well: the first cell with those seats.
    swapped = table.assign(**{"rules.reserve": [10, 40, 40, 20]})
    assert hole_baselines(swapped, paired) == {0: 0, 1: 0, 2: 2, 3: 2}
    # Alone with its seats, a cell's rule holes are not compared.
    alone = table[table["cell"] != 3]
    assert hole_baselines(alone, paired[paired["cell"] != 3]) == {0: 0, 1: 0, 2: None}
    assert hole_uncompared_cells(alone, paired[paired["cell"] != 3]) == [2]


def test_one_entry_of_a_list_and_zipped_keys_are_swept(tmp_path):
    from sim.sweep import load_sweep

    base = tmp_path / "base.toml"
    base.write_text('game = "lasvegan"\n[run]\ngames = 60\nseed = 3\n')
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text('base = "base.toml"\n[sweep]\n"rules.tokens[2]" = [[0, -3], [0, -2]]\n'
                          '"rules.golden_token[1]" = [4, 5]\n'
                          '"rules.players, rules.starting_cabbages" = [[3, 20], [5, 12]]\n')
    sweep = load_sweep(sweep_file)
    assert len(sweep.cells) == 2 * 2 * 2
    assert sweep.parameters == ["rules.tokens[2]", "rules.golden_token[1]", "rules.players",
                                "rules.starting_cabbages"]
    last = sweep.cells[-1].config.rules
    assert last.tokens == ((1, -1), (1, -2), (0, -2), (-1, -2)) and last.golden_token == (3, 5)
    assert (last.players, last.starting_cabbages) == (5, 12)
    assert sweep.column("rules.tokens[2]")[:2] == ["[0, -3]", "[0, -3]"]
    assert sweep.column("rules.players") == [3, 5] * 4


@pytest.mark.parametrize(
    "axis,phrase",
    [
        ('"rules.tokens[7]" = [[0, -3]]', "no such entry"),
        ('"rules.players, rules.rounds" = [[3, 2], [4]]', "each value is a list of 2"),
        ('"rules.players, rules.players" = [[3, 3]]', "more than once"),
        ('"rules.cabbage_tax[0]" = [1]', "unknown key"),
    ],
)
def test_bad_entry_and_zipped_keys_are_refused(tmp_path, axis, phrase):
    from sim.sweep import load_sweep

    (tmp_path / "base.toml").write_text('game = "lasvegan"\n')
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text(f'base = "base.toml"\n[sweep]\n{axis}\n')
    with pytest.raises(ConfigError, match=phrase):
        load_sweep(sweep_file)


def test_target_ci_can_narrow_the_worst_seat(tmp_path):
    sweep = load_sweep(make_sweep(tmp_path, GOLDEN), games=400)
    results = run_sweep(sweep, tmp_path / "out", target_ci=0.02, target_metric="worst_seat_advantage", report=False)
    for cell in sweep.cells:
        summary = json.loads((results.cell_dir(cell.index) / "summary.json").read_text())
        meta = json.loads((results.cell_dir(cell.index) / "meta.json").read_text())
        low, high = summary["worst_seat_advantage_ci"]
        assert summary["games"] > 400
        assert meta["sweep"]["target_met"] == ((high - low) / 2 <= 0.02)
        assert meta["sweep"]["target_met"] or summary["games"] == 4000
    with pytest.raises(ConfigError, match="target-metric"):
        run_sweep(sweep, tmp_path / "other", target_ci=0.04, target_metric="swing", report=False)
    with pytest.raises(ConfigError, match="only applies with --target-ci"):
        run_sweep(sweep, tmp_path / "other", target_metric="worst_seat_advantage", report=False)


def test_values_too_long_for_an_axis_are_numbered_in_the_sweeps_order():
    from analysis.sweep_report import LONG_TICK, _ticks

    assert _ticks(["1", "[0, -3]"], "rules.x") == (["1", "[0, -3]"], "rules.x")
    tables = ["[{symbols = ['seven', 'seven', 'seven'], points = 6}]", "[{symbols = ['bar', '*', '*'], points = 1}]"]
    assert len(tables[0]) > LONG_TICK
    ticks, label = _ticks(tables, "rules.paytable")
    assert ticks == ["#1", "#2"] and label.startswith("rules.paytable") and "order" in label


def two_cells(game, differences: dict[str, float], tighter: float = 1.5) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A sweep of ``game`` over rules.reserve, cell 1 against cell 0: its table and its paired differences, each
    metric's interval 0.02 either side of its difference (in the metric's own unit)."""
    metrics = {m: 0.5 for m in game.sweep_plotted} | {m: 0.0 for m in game.rule_holes}
    table = pd.DataFrame([{"cell": c, "rules.reserve": r, "label": f"rules.reserve={r}", "games": 2000, "seed": 1,
                           "players": 4, **{f"{m}{end}": v for m, v in metrics.items() for end in ("", "_lo", "_hi")}}
                          for c, r in ((0, 10), (1, 40))])
    paired = pd.DataFrame([{"cell": 1, "baseline": 0, "metric": m, "games": 2000, "difference": d,
                            "difference_lo": d - 0.02, "difference_hi": d + 0.02, "unpaired_lo": d - 0.02 * tighter,
                            "unpaired_hi": d + 0.02 * tighter, "tighter": tighter}
                           for m, d in ({m: 0.01 for m in game.paired_metrics} | differences).items()])
    return table, paired


def test_the_printed_paired_table_shows_or_names_every_metric_the_page_pairs():
    """Rounds played is paired but not in percentage points: it is shown in rounds, or named as left out."""
    from analysis.sweep import sweep_text
    from sim.games import get_game

    game = get_game("lasvegan")
    table, paired = two_cells(game, {"mean_rounds": -0.17})
    text = sweep_text(table, paired, ["rules.reserve"], game=game, baseline=0)
    assert max(map(len, text.splitlines())) <= 120
    paired_text = text.split("Paired differences")[1].replace("\n  ", " ")
    header = next(line for line in paired_text.splitlines() if line.startswith("cell  "))
    left_out = paired_text[paired_text.index("Left out to fit"):] if "Left out to fit" in paired_text else ""
    for m in game.sweep_plotted:
        if m in game.paired_metrics:
            assert game.paired_metrics[m] in header or game.paired_metrics[m] in left_out, m
    assert "rounds played" in header and "rounds played (pp)" not in paired_text
    assert "-0.17 [-0.19, -0.15]" in paired_text


@pytest.mark.parametrize("tighter, shown", [(0.975, "0.97"), (0.9999, "0.99"), (1.0, "1.00"), (1.547, "1.55")])
def test_a_paired_interval_pairing_did_not_tighten_never_reads_as_tighter(tighter, shown):
    """A ratio of widths below 1 is printed below 1, on the page and in the text, which say what it means."""
    from analysis.sweep import sweep_text
    from analysis.sweep_report import _paired_table
    from sim.games import get_game

    game = get_game("lasvegan")
    table, paired = two_cells(game, {}, tighter)
    text = sweep_text(table, paired, ["rules.reserve"], game=game, baseline=0).split("Paired differences")[1]
    assert f"+1.00 [-1.00, +3.00] x{shown}" in text
    assert "below 1, pairing did not tighten it" in text.replace("\n  ", " ")
    page = _paired_table(table, paired, 0, game)
    assert f"[-1.00, +3.00] &times;{shown}" in page and "below 1, pairing did not narrow it" in page


def test_the_page_lists_only_what_a_cell_changes_from_its_own_baseline():
    """White dice on and off at 2 and 3 players, against cell 001 (on, 3 players): cell 002 (off, 2 players) is
    compared with cell 000 (on, 2 players), so it changes the white dice alone."""
    from analysis.sweep_report import _paired_table
    from sim.games import get_game

    game = get_game("vegas-dice")
    cells = [(0, "auto", 2), (1, "auto", 3), (2, "0", 2), (3, "0", 3)]
    table = pd.DataFrame([{"cell": c, "rules.white_dice": w, "rules.players": n,
                           "label": f"rules.white_dice={w}, rules.players={n}"} for c, w, n in cells])
    paired = pd.DataFrame([{"cell": c, "baseline": b, "metric": m, "difference": 0.01, "difference_lo": 0.0,
                            "difference_hi": 0.02, "tighter": 1.5} for c, b in ((2, 0), (3, 1))
                           for m in game.paired_metrics])
    page = _paired_table(table, paired, 1, game, parameters=["rules.white_dice", "rules.players"])
    rows = {row.split("</td>")[0].rsplit(">", 1)[1]: row for row in page.split("<tr>")[2:]}
    for cell, base in (("002", "000"), ("003", "001")):
        assert f"<td class='text'>rules.white_dice=0</td><td class='text'>{base}</td>" in rows[cell]
        assert "rules.players" not in rows[cell]


def test_the_page_says_cells_of_other_player_counts_play_other_deals():
    """The same seed deals 3 and 5 hands differently: a sweep over the player count does not say every cell plays
    the same deals."""
    from analysis.sweep_report import same_deals_text

    mixed = same_deals_text(pd.DataFrame({"cell": [0, 1, 2], "players": [3, 4, 4]}))
    assert "every cell plays the same deals" not in mixed
    assert mixed.startswith("cells of the same player count play the same deals")
    assert same_deals_text(pd.DataFrame({"cell": [0, 1], "players": [4, 4]})).startswith(
        "every cell plays the same deals")


def test_a_rule_hole_rate_well_above_the_baseline_is_flagged():
    import pandas as pd

    from analysis.sweep import rule_hole_flags, rule_hole_lines
    from sim.games import get_game

    game = get_game("lasvegan")
    table = pd.DataFrame({"cell": [0, 1, 2, 3], "players": [4] * 4, "shortfall_rate": [0.01, 0.05, 0.019, 0.0],
                          "seven_no_slot_rate": [0.0, 0.0, 0.0, 0.3]})
    paired = pd.DataFrame({"cell": [1, 2, 3], "baseline": [0, 0, 0]})
    flags = rule_hole_flags(table, paired, game)
    # Cell 1: 5% against 1%. Cell 2: under a point above. Cell 3: 7s with no slot in 30% of games against none.
    assert [(f["cell"], f["metric"], f["baseline"]) for f in flags] == [
        (1, "shortfall_rate", 0), (3, "seven_no_slot_rate", 0)]
    assert ("cell 001 (4 players) has shortfall_rate 5.00% against 1.00% in cell 000, its baseline"
            in rule_hole_lines(flags, game)[0])
    assert "no cell rises" in rule_hole_lines([], game)[0]
    assert rule_hole_lines([], get_game("vegas-dice")) == []


def test_rule_holes_are_compared_with_the_baseline_of_the_same_player_count_only():
    """A cell is compared with its own baseline, never with a cell of another player count."""
    from analysis.sweep import rule_hole_flags, rule_hole_lines, uncompared_cells
    from sim.games import get_game

    game = get_game("lasvegan")
    # Cells 0, 1 at 3 players (1 against 0); cells 2, 3 at 5 players (3 against 2); cell 4 alone at 4 players.
    table = pd.DataFrame({"cell": [0, 1, 2, 3, 4], "players": [3, 3, 5, 5, 4],
                          "shortfall_rate": [0.0, 0.0, 0.06, 0.07, 0.2], "seven_no_slot_rate": [0.0] * 5})
    paired = pd.DataFrame({"cell": [1, 1, 3, 3], "baseline": [0, 0, 2, 2], "metric": ["a", "b", "a", "b"]})
    # Cell 2 is the 5-player baseline and cell 4 has none: neither is compared with cell 0, though their
    # shortfall is far above its 0%; cell 3's 7% is not twice its baseline's 6%.
    assert rule_hole_flags(table, paired, game) == []
    assert uncompared_cells(table, paired) == [4]
    lines = rule_hole_lines([], game, [4], len(table))
    assert "no cell rises well above its baseline" in lines[0]
    assert "cell 004 are not compared: no other cell has its player count and seats" in lines[1]
    assert "not compared: no two cells" in rule_hole_lines([], game, [0, 1], 2)[0]


@pytest.mark.slow("end to end")
def test_a_cell_alone_at_its_player_count_is_said_to_have_no_baseline(tmp_path):
    """The printed sweep and the report say which cells have no baseline, instead of comparing across counts."""
    base = tmp_path / "base.toml"
    base.write_text(quick_base(300, extra='[policies]\nseats = "greedy"\n'))
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text('base = "base.toml"\n[[cells]]\n"rules.players" = 3\n[[cells]]\n"rules.players" = 3\n'
                          '"rules.golden_token" = [4, 5]\n[[cells]]\n"rules.players" = 5\n'
                          '"rules.starting_cabbages" = 6\n')
    result = lvsim_sweep(sweep_file, "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    paired = pd.read_parquet(tmp_path / "out" / "paired.parquet")
    assert set(paired["cell"]) == {1} and set(paired["baseline"]) == {0}
    assert "No paired differences for cell 002: no other cell has its player count." in result.stdout
    assert "Rule holes of cell 002 are not compared" in result.stdout
    assert "in cell 000" not in result.stdout.replace("\n  ", " ").split("Rule hole")[-1]
    page = (tmp_path / "out" / "sweep.html").read_text()
    assert "Rule holes of cell 002 are not compared" in page and "it has no baseline" in page


# --- the printed table and the report's figures ----------------------------------------------

SWEEP_CONFIGS = sorted((Path(sim.__file__).resolve().parent.parent / "configs").glob("sweep_*.toml"))
QUICK = {"skill_gap_games": 0, "strength_games": 0, "strength_lookahead_games": 0}


def quick(sweep):
    """The sweep's cells with their games alone: no skill-gap duels or strength profile."""
    return replace(sweep, cells=tuple(replace(c, config=replace(c.config, **QUICK)) for c in sweep.cells))


def columns_of(header: str) -> dict[str, int]:
    """Each heading of a printed table and where its column starts."""
    import re

    return {m.group(): m.start() for m in re.finditer(r"\S+(?: \S+)*", header)}


@pytest.mark.parametrize("path", SWEEP_CONFIGS, ids=lambda p: p.stem)
def test_the_printed_sweep_fits_120_columns_and_shows_the_column_it_is_sorted_by(tmp_path, path):
    from analysis.sweep import sweep_text

    sweep = quick(load_sweep(path, games=30))
    results = run_sweep(sweep, tmp_path / "out", report=False, progress=False)
    game, table = sweep.game, results.table
    metrics = list(game.sweep_plotted)
    sorts = ["cell", f"-{metrics[0]}", metrics[-1], f"-{metrics[0]}_hi", "-win_share_s0", "games_per_second",
             *game.rule_holes, "label", *sweep.parameters]
    for sort_by in sorts:
        text = sweep_text(table, results.paired, sweep.parameters, game=game, baseline=0, sort_by=sort_by)
        lines = text.splitlines()
        assert max(map(len, lines)) <= 120, (sort_by, max(lines, key=len))
        start = next(i for i, line in enumerate(lines) if line.startswith("cell  "))
        header, rows = lines[start], lines[start + 1:start + 1 + len(table)]
        column = sort_by.removeprefix("-")
        names = {column, f"{column} (pp)", column.removeprefix("rules.").removeprefix("policies."),
                 game.paired_metrics.get(column, ""), game.paired_metrics.get(column, "") + " (pp)",
                 game.sweep_plotted.get(column, ("",))[0]}
        shown = [h for h in columns_of(header) if h in names]
        assert shown, (sort_by, header)
        numbers = column in table.columns and pd.api.types.is_numeric_dtype(table[column]) and not \
            pd.api.types.is_bool_dtype(table[column])
        if numbers and column != "cell":
            # The rows are in the column's order, as printed.
            at = columns_of(header)[shown[0]]
            printed = [float(row[at:].split()[0].rstrip("%").replace(",", "")) for row in rows]
            assert printed == sorted(printed, reverse=sort_by.startswith("-")), (sort_by, printed)


@pytest.mark.slow("end to end")
def test_a_figure_over_keys_varied_together_labels_every_value(tmp_path, monkeypatch):
    import analysis.sweep_report as report
    from tests.analysis.figure_text import cut_texts

    figures = []
    draw = report._img
    monkeypatch.setattr(report, "_img", lambda fig: (figures.append(fig), draw(fig))[1])
    base = tmp_path / "base.toml"
    base.write_text(quick_base(60, extra='[policies]\nseats = "greedy"\n'))
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text('base = "base.toml"\n[sweep]\n"rules.golden_token[1]" = [4, 5]\n'
                          '"rules.players, rules.starting_cabbages" = [[3, 20], [4, 16], [5, 12]]\n')
    run_sweep(load_sweep(sweep_file), tmp_path / "out", progress=False)
    page = (tmp_path / "out" / "sweep.html").read_text()
    together = "rules.players, rules.starting_cabbages"
    assert f"<h2>Against {together}</h2>" in page
    values = ["[3, 20]", "[4, 16]", "[5, 12]"]
    lines = next(f for f in figures if f._suptitle is not None and together in f._suptitle.get_text())
    for ax in lines.axes:
        assert [t.get_text() for t in ax.get_xticklabels()] == values
        assert ax.get_xlabel() == together
    # The other axis's figure names each line by both keys' values.
    other = next(f for f in figures if f._suptitle is not None and "golden_token[1] (" in f._suptitle.get_text())
    names = other.legends[0].get_texts()
    assert [t.get_text() for t in names] == [f"rules.players={p}, rules.starting_cabbages={c}"
                                             for p, c in ((3, 20), (4, 16), (5, 12))]
    # And the heat map crosses the two axes.
    heat = next(f for f in figures if f._suptitle is None)
    assert [t.get_text() for t in heat.axes[0].get_yticklabels()] == values
    assert heat.axes[0].get_ylabel().replace("\n", " ") == together
    assert [problem for fig in figures for problem in cut_texts(fig)] == []


def test_the_report_shows_the_column_it_is_sorted_by_and_names_what_every_cell_shares(tmp_path):
    path = make_sweep(tmp_path, GOLDEN + '"run.skill_gap_games" = [0]\n"run.strength_games" = [0]\n'
                                        '"run.strength_lookahead_games" = [0]\n')
    run_sweep(load_sweep(path, games=200), tmp_path / "out", sort_by="-shortfall_rate", progress=False)
    page = (tmp_path / "out" / "sweep.html").read_text()
    cells = page[page.index("<h2>Cells</h2>"):page.index("</table>")]
    header = cells[cells.index("<tr>"):cells.index("</tr>")]
    assert "<th>shortfall_rate (%)</th>" in header and "rules.golden_token" in header
    assert "run.skill_gap_games" not in header
    assert "Every cell has <code>run.skill_gap_games = 0</code>" in cells
