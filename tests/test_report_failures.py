"""A report never costs the results it shows.

The answer of a tune, a sweep's tables and a sensitivity study's table are
written, and printed, before their page is drawn. A figure or section that
fails stands on its page as one line saying why; a page that fails as a
whole is one line on stderr saying why and where the traceback is; the
command still ends 0 with its answer. The same guard serves every game's
run report.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from textwrap import dedent

import numpy as np
import pytest
from click.testing import CliRunner

import analysis.sensitivity
import analysis.sweep_report
import analysis.tune_report
import sim
import sim.tune as T
import sim.tune.running
from analysis import figure_style
from analysis import report_html as H
from sim.cli import main

ROOT = Path(__file__).resolve().parents[1]
PLANTED = ROOT / "tests" / "data" / "planted_tune"


def broken(*args, **kwargs):
    raise RuntimeError("a figure that cannot be drawn")


def small_figure(title: str):
    with figure_style.styled():
        fig, (ax,) = figure_style.figure(1.5)
        ax.bar(np.arange(3), np.arange(3) + 1, color=figure_style.MAIN)
        ax.set_title(title)
    return fig


def not_drawn(page: str) -> list[str]:
    return re.findall(r'data-not-drawn="[a-z]+">([^<]*)<', page)


def traceback_file(line: str) -> Path:
    """The file a line about an internal error says the traceback is in (it must exist)."""
    path = Path(re.search(r"its traceback is in (\S+?);", line).group(1))
    assert path.is_file() and "RuntimeError" in path.read_text(encoding="utf-8")
    return path


# --- the guard ------------------------------------------------------------------------------------


def test_a_figure_that_fails_is_one_line_saying_why_in_its_place():
    page = H.figure(broken, "the broken figure") + H.figure(lambda: small_figure("fine"), "a fine figure")
    [line] = not_drawn(page)
    assert line.startswith("This figure could not be drawn: internal error, a bug in lvsim (RuntimeError: a figure "
                           "that cannot be drawn); its traceback is in ")
    traceback_file(line)
    assert page.count("<img") == 1 and 'alt="a fine figure"' in page


@pytest.mark.parametrize("cores", [1, 2])
def test_a_figure_that_fails_when_drawn_with_the_page_costs_that_figure_alone(monkeypatch, cores):
    monkeypatch.setattr(figure_style, "_cores", lambda: cores)
    draw = figure_style.png_bytes

    def fails_for_the_second(fig):
        if fig.axes[0].get_title(loc="left") == "figure 1":
            raise RuntimeError("a figure that cannot be drawn")
        return draw(fig)

    monkeypatch.setattr(figure_style, "png_bytes", fails_for_the_second)
    with H.figures_drawn_together() as batch:
        parts = [H.figure(small_figure(f"figure {k}"), f"figure {k}") for k in range(3)]
    page = batch.fill("<p>between</p>".join(parts))
    assert page.count("<img") == 2 and 'alt="figure 0"' in page and 'alt="figure 2"' in page
    assert [line.split(":")[0] for line in not_drawn(page)] == ["This figure could not be drawn"]
    assert page.index('alt="figure 0"') < page.index("could not be drawn") < page.index('alt="figure 2"')


def test_a_section_that_fails_keeps_its_heading_and_says_why():
    html = H.guarded_section("broken", "A broken section", broken)
    assert '<section id="broken">' in html and "<h2>A broken section</h2>" in html
    assert not_drawn(html)[0].startswith("This section could not be written: internal error, a bug in lvsim")


def test_a_page_that_cannot_be_made_is_one_line_and_no_file(tmp_path):
    said = []
    assert H.write_page(tmp_path / "page.html", broken, kept="the results are in results.parquet",
                        say=said.append) is None
    [line] = said
    assert line.startswith(f"warning: {tmp_path / 'page.html'} could not be written: internal error, a bug in lvsim "
                           "(RuntimeError: a figure that cannot be drawn); its traceback is in ")
    assert line.endswith("; the results are in results.parquet")
    traceback_file(line)
    assert list(tmp_path.iterdir()) == []  # nothing half-written either


def test_a_page_written_without_a_figure_says_so_once(tmp_path):
    said = []
    seconds = H.write_page(tmp_path / "page.html",
                           lambda: H.figure(broken, "the broken figure") + H.figure(lambda: small_figure("f"), "f"),
                           kept="", say=said.append)
    assert seconds is not None and (tmp_path / "page.html").is_file()
    [line] = said
    assert line.startswith(f"warning: {tmp_path / 'page.html'} is written without 1 part that could not be drawn")
    assert "figure 'the broken figure': internal error" in line


# --- the tune ---------------------------------------------------------------------------------------


def write_tune(d: Path) -> Path:
    (d / "base.toml").write_text((PLANTED / "base.toml").read_text(encoding="utf-8"), encoding="utf-8")
    path = d / "t.toml"
    path.write_text((PLANTED / "tune.toml").read_text(encoding="utf-8").replace("budget = 8", "budget = 3"),
                    encoding="utf-8")
    return path


def test_the_answer_is_written_and_told_before_the_reports_are_drawn(tmp_path, monkeypatch):
    events = []
    out = tmp_path / "out"
    draw = analysis.tune_report._target_plot

    def target_plot(*args, **kwargs):
        events.append(("figure", (out / T.RESULT_FILE).is_file(), (out / T.BEST_FILE).is_file(),
                       (out / T.CANDIDATES_FILE).is_file()))
        return draw(*args, **kwargs)

    monkeypatch.setattr(analysis.tune_report, "_target_plot", target_plot)
    monkeypatch.setattr(sim.tune.running, "_best_reports", lambda *args: None)  # tune.html alone
    results = T.tune(write_tune(tmp_path), out=out, progress=False,
                     answered=lambda r: events.append(("answered", json.loads((out / T.RESULT_FILE).read_text()))))
    assert [e[0] for e in events] == ["answered", "figure"]
    answered = events[0][1]
    assert answered["recommendation"] == results.summary["recommendation"] and "report" not in answered
    assert events[1][1:] == (True, True, True)
    final = json.loads((out / T.RESULT_FILE).read_text())
    assert final["report_page"] == "tune.html" and final["timing"]["report_seconds"] > 0


@pytest.mark.slow("end to end")
def test_a_tune_whose_figure_fails_ends_0_with_its_verdict_tune_json_and_the_page(tmp_path, monkeypatch):
    monkeypatch.setattr(analysis.tune_report, "_target_plot", broken)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["tune", str(write_tune(tmp_path)), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Recommendation: ")
    assert f"Reports: {out / 'tune.html'}; balance reports of these rules" in " ".join(result.stdout.split())
    summary = json.loads((out / "tune.json").read_text())
    assert summary["recommendation"]["sentence"] and summary["report_page"] == "tune.html"
    page = (out / "tune.html").read_text()
    assert [line.split(":")[0] for line in not_drawn(page)] == ["This figure could not be drawn"]
    assert page.count("<img") == 2  # the search's convergence and the trade-off are still drawn
    [warning] = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert "is written without 1 part that could not be drawn" in warning
    assert (out / "best" / "2p-random" / "report.html").is_file()


def test_a_tune_whose_page_fails_ends_0_with_its_verdict_and_tune_json(tmp_path, monkeypatch):
    monkeypatch.setattr(analysis.tune_report, "tune_report_html", broken)
    monkeypatch.setattr(sim.tune.running, "_best_reports", lambda *args: None)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["tune", str(write_tune(tmp_path)), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Recommendation: ")
    assert f"No report could be written (see why above); the answer is in {out / 'tune.json'}." in result.stdout
    assert json.loads((out / "tune.json").read_text())["report_page"] is None
    assert (out / "best.toml").is_file() and (out / "candidates.parquet").is_file()
    assert not (out / "tune.html").exists() and not list(out.glob(".*partial"))
    [warning] = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warning.startswith(f"warning: {out / 'tune.html'} could not be written: internal error, a bug in lvsim")
    assert warning.endswith(f"; the answer is in {out / 'tune.json'}")
    traceback_file(warning)


# --- the sweep --------------------------------------------------------------------------------------

SWEEP_BASE = """
game = "lasvegan"
[run]
games = 60
seed = 3
skill_gap_games = 0
strength_games = 0
strength_lookahead_games = 0
[policies]
seats = "random"
"""


def write_sweep(d: Path) -> Path:
    (d / "base.toml").write_text(dedent(SWEEP_BASE), encoding="utf-8")
    path = d / "s.toml"
    path.write_text('base = "base.toml"\n[sweep]\n"rules.players" = [3, 4]\n'
                    '"rules.golden_token" = [[3, 4], [3, 5]]\n', encoding="utf-8")
    return path


@pytest.mark.slow("end to end")
def test_a_sweep_whose_heatmap_fails_ends_0_with_its_tables_and_the_page(tmp_path, monkeypatch):
    monkeypatch.setattr(analysis.sweep_report, "_heatmap_figure", broken)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["sweep", str(write_sweep(tmp_path)), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"Results in {out}/ (sweep.html, sweep.parquet, paired.parquet, sweep.json, cells/)" in result.stdout
    page = (out / "sweep.html").read_text()
    assert [line.split(":")[0] for line in not_drawn(page)] == ["This figure could not be drawn"]
    assert page.count("<img") == 2  # the line figures against each parameter


def test_a_sweep_whose_page_fails_ends_0_with_its_tables(tmp_path, monkeypatch):
    monkeypatch.setattr(analysis.sweep_report, "sweep_report_html", broken)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["sweep", str(write_sweep(tmp_path)), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "cell" in result.stdout and f"Results in {out}/ (sweep.parquet, paired.parquet, sweep.json, cells/)" in result.stdout
    assert (out / "sweep.parquet").is_file() and (out / "paired.parquet").is_file()
    assert not (out / "sweep.html").exists()
    [warning] = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warning.startswith(f"warning: {out / 'sweep.html'} could not be written: internal error")
    traceback_file(warning)


# --- the sensitivity study --------------------------------------------------------------------------

STUDY = ["sensitivity", str(ROOT / "configs" / "default.toml"), "--games", "40", "--players", "3", "--seats", "random",
         "--knobs", "rules.tokens[2][1]"]


def test_a_study_whose_tornado_fails_ends_0_with_its_table_and_the_page(tmp_path, monkeypatch):
    monkeypatch.setattr(analysis.sensitivity, "tornado", broken)
    out = tmp_path / "study"
    result = CliRunner().invoke(main, [*STUDY, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Las Vegan: one-step changes")
    assert f"Results in {out}/ (sensitivity.parquet, sensitivity.html)" in result.stdout
    page = (out / "sensitivity.html").read_text()
    assert len(not_drawn(page)) == page.count("data-moved-metric") > 0  # every tornado, none else


def test_a_study_whose_page_fails_ends_0_with_its_table(tmp_path, monkeypatch):
    monkeypatch.setattr(analysis.sensitivity, "study_page", broken)
    out = tmp_path / "study"
    result = CliRunner().invoke(main, [*STUDY, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Las Vegan: one-step changes")
    assert f"Results in {out}/ (sensitivity.parquet)" in result.stdout
    assert (out / "sensitivity.parquet").is_file() and not (out / "sensitivity.html").exists()
    [warning] = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warning.endswith(f"; the results are in {out / 'sensitivity.parquet'}")
    traceback_file(warning)


# --- every game's run report ------------------------------------------------------------------------

# Each game's report module and one of its figures.
GAME_FIGURES = {"lasvegan": ("sim.lasvegan.figures", "swing_figure"),
                "vegas-dice": ("sim.vegasdice.figures", "money_figure"),
                "fever": ("sim.fever.figures", "seats_figure")}


@pytest.mark.parametrize("game", list(GAME_FIGURES))
def test_a_run_report_whose_figure_fails_is_written_with_the_line_in_its_place(tmp_path, monkeypatch, game):
    import importlib

    from sim.config import Config

    module, name = GAME_FIGURES[game]
    monkeypatch.setattr(importlib.import_module(module), name, broken)
    config = Config(game=game, games=200, seed=3, seats="random", skill_gap_games=0, strength_games=0,
                    strength_slow_games=0, sensitivity_games=0)
    sim.run(config, out=tmp_path / "run", progress=False)
    page = (tmp_path / "run" / "report.html").read_text()
    assert [line.split(":")[0] for line in not_drawn(page)] == ["This figure could not be drawn"]
    assert page.count("<img") >= 1


@pytest.mark.parametrize("failure", ["full disk", "bug"])
def test_a_run_whose_report_fails_says_why_in_words_not_an_exception_class(tmp_path, monkeypatch, failure):
    import analysis.report
    from sim.errors import ConfigError

    def full_disk(out_dir, *args, **kwargs):
        raise ConfigError(f"{out_dir}/report.html", "No space left on device")

    monkeypatch.setattr(analysis.report, "write_report", full_disk if failure == "full disk" else broken)
    out = tmp_path / "run"
    config = tmp_path / "c.toml"
    config.write_text('game = "lasvegan"\n[run]\ngames = 40\nskill_gap_games = 0\nstrength_games = 0\nstrength_slow_games = 0\n'
                      'sensitivity_games = 0\n')
    result = CliRunner().invoke(main, ["run", str(config), "--json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    [warning] = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    if failure == "full disk":  # the problem in words; an exception's class is for a bug's line alone
        assert f"could not be written: {out}/report.html: No space left on device;" in warning, warning
        assert "ConfigError" not in warning, warning
    else:
        assert "could not be written: internal error, a bug in lvsim" in warning, warning
        traceback_file(warning)
    assert warning.endswith(f"run 'lvsim report {out}' to write it"), warning
    assert (out / "summary.json").is_file() and not (out / "report.html").exists()
