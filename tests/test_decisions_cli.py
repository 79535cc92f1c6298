"""`lvsim decisions` end to end through click's runner."""

import json

import pytest
from click.testing import CliRunner

from sim.cli import main


def lvsim(*args):
    return CliRunner().invoke(main, ["decisions", *map(str, args)])


def test_json_gives_each_kind_its_cost_interval_and_choice_rate(tmp_path):
    result = lvsim("configs/default.toml", "--players", 3, "--games", 60, "--seed", 2, "--json", "--out", tmp_path)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert [row["kind"] for row in out["decisions"]] == ["lead", "follow", "token", "golden"]
    for row in out["decisions"]:
        assert {"kind", "cost", "low", "high", "choice_rate", "agreement", "asked"} <= set(row)
        assert row["low"] <= row["cost"] <= row["high"]
        assert 0.0 <= row["choice_rate"] <= 1.0
    assert out["games"] == 60 and out["players"] == 3
    assert json.loads((tmp_path / "decisions.json").read_text()) == out


def test_the_table_ends_with_the_sentence():
    result = lvsim("configs/default.toml", "--players", 3, "--games", 40)
    assert result.exit_code == 0, result.output
    assert "choice rate" in result.output and "lead" in result.output
    assert result.output.strip().splitlines()[-1].endswith(".")
    assert max(map(len, result.output.splitlines())) <= 120  # the sentence wrapped, not one line of 200 columns


def test_a_printed_dry_run_keeps_to_120_columns():
    result = lvsim("configs/default.toml", "--games", 100, "--dry-run")
    assert result.exit_code == 0, result.output
    assert max(map(len, result.stdout.splitlines())) <= 120 and "Nothing was written." in result.stdout, result.stdout


def test_a_dry_run_plays_nothing_and_says_what_it_would():
    result = lvsim("configs/default.toml", "--games", 100, "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert plan["tables"] == 1 + 4 * 5 and plan["total_games"] == 100 * 21 + 100 * 4
    low, high = plan["seconds"]
    assert 0 < low <= high
    assert "decisions" not in plan


def test_a_dry_run_says_about_how_long_the_command_takes_and_writes_nothing(tmp_path):
    result = lvsim("configs/default.toml", "--games", 100, "--dry-run", "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "About " in result.stdout and "Nothing was written." in result.stdout
    assert not (tmp_path / "out").exists()


def test_bad_players_name_the_option():
    result = lvsim("configs/default.toml", "--players", 9, "--games", 10)
    assert result.exit_code == 2
    assert "--players" in result.output and "Traceback" not in result.output


def test_an_unknown_policy_names_seats():
    result = lvsim("configs/default.toml", "--seats", "expert,bluffer", "--games", 10)
    assert result.exit_code == 2
    assert "--seats" in result.output and "Traceback" not in result.output


def test_zero_games_is_refused():
    result = lvsim("configs/default.toml", "--games", 0)
    assert result.exit_code == 2 and "--games" in result.output


def test_too_few_deals_keep_every_column_in_its_place():
    """Below the deals an interval needs, the interval is left blank and the verdict says why, within its column."""
    lines = lvsim("configs/default.toml", "--games", 3).output.splitlines()
    header = next(line for line in lines if line.startswith("decision"))
    rows = [line for line in lines if line.split(" ")[0] in ("lead", "follow", "token", "golden")]
    assert len(rows) == 4
    for row in rows:
        assert row[header.index("95% CI"):header.index("verdict")].strip() == "-"
        assert row[header.index("verdict"):header.index("choice rate")].strip() == "too few deals"


def test_the_rules_are_checked_at_the_players_given_as_run_checks_them(tmp_path):
    """A deck of 9 cards deals 2 players (3 each and 3 to the reels), not the config's 4: --players 2 plays."""
    path = tmp_path / "small.toml"
    path.write_text('game = "fever"\n[rules]\ndeck = { cherry = 9 }\n'
                    'paytable = [{ symbols = ["cherry", "cherry", "cherry"], points = 1 }]\n')
    assert lvsim(path, "--games", 4).exit_code == 2
    result = lvsim(path, "--players", 2, "--games", 4, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["players"] == 2


def test_out_never_writes_over_a_runs_own_decisions(tmp_path):
    """A run's results directory holds the decisions its report shows: another study is refused there, before
    any deal is played, and the dry run says so too."""
    (tmp_path / "decisions.json").write_text('{"mine": true}')
    for extra in ([], ["--dry-run"]):
        result = lvsim("configs/default.toml", "--games", 20, "--out", tmp_path, *extra)
        assert result.exit_code == 2 and result.stderr.startswith("error: --out: "), result.output
    assert (tmp_path / "decisions.json").read_text() == '{"mine": true}'


@pytest.mark.slow("end to end")
def test_lvsim_report_refuses_a_garbled_decisions_file_and_says_why_a_missing_one_is_missing(small_run, tmp_path):
    import shutil

    run_dir = tmp_path / "run"
    shutil.copytree(small_run.directory, run_dir)
    decisions = run_dir / "decisions.json"
    decisions.write_text(decisions.read_text(encoding="utf-8")[:500], encoding="utf-8")
    result = CliRunner().invoke(main, ["report", str(run_dir), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 2 and "decisions.json" in result.output, result.output
    assert not (tmp_path / "r.html").exists()

    decisions.unlink()
    result = CliRunner().invoke(main, ["report", str(run_dir), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    section = page[page.index('id="decisions"'):]
    assert "holds no <code>decisions.json</code>" in section[:section.index("</section>")]
    assert "plays no skill gap" not in section[:section.index("</section>")]


def test_a_game_of_one_player_plays_no_skill_gap_and_says_why_it_has_no_decisions():
    from analysis.decisions_section import not_measured
    from sim.config import config_from_mapping

    alone = config_from_mapping({"game": "fever", "rules": {"players": 1}, "run": {"skill_gap_games": 64}})
    assert alone.skill_gap_deals == 0
    assert "1 player" in not_measured(alone)


def test_a_dry_run_that_compiles_says_so_once(monkeypatch):
    """Every command says on stderr what compiles; the dry run once said it a second time itself."""
    import sim.decisions
    from sim.estimates.compiling import compiles

    timed = sim.decisions.seconds_of

    def compiling(*args, **kwargs):  # as a first use after an install is heard
        compiles().tell("Compiling the kernels of Las Vegan …")
        return timed(*args, **kwargs)

    monkeypatch.setattr(sim.decisions, "seconds_of", compiling)
    result = lvsim("configs/default.toml", "--games", 100, "--dry-run")
    assert result.exit_code == 0, result.output
    assert result.stderr.count("Compiling the kernels of Las Vegan") == 1, result.stderr
