"""lvsim confirm: known answers at 4 players with expert, the stronger tables paired, bad input refused."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Iterator
from textwrap import dedent

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.confirm import confirm_text
from sim.games import get_game

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def tune_file(d: Path, targets: str, players: str = "[4]", policies: str = '["expert"]',
              search: str = '"rules.golden_token" = { faces = [1, 6] }') -> Path:
    path = d / "t.toml"
    search = f"[search]\n{search}" if search else ""
    path.write_text(dedent(f"""\
        base = "{(CONFIGS / 'default.toml').as_posix()}"
        {search}
        [targets]
        {targets}
        [tune]
        players = {players}
        policies = {policies}
        """), encoding="utf-8")
    return path


def confirm(*args: str) -> tuple[int, dict | str]:
    result = CliRunner().invoke(main, ["confirm", *args, "--json"])
    try:
        return result.exit_code, json.loads(result.stdout)
    except json.JSONDecodeError:
        return result.exit_code, result.output


def by_metric(found: dict) -> dict[str, dict]:
    return {t["metric"]: t for t in found["targets"]}


@pytest.fixture
def stronger(monkeypatch) -> Iterator[str]:
    """Las Vegan's stronger tables played by lookahead:2 instead of the game's lookahead:16: what these tests
    check (the stronger tables play the judged table's deals, paired, and are judged) does not depend on how
    strong that player is, and lookahead:16 costs eight times as much per game."""
    import sim.lasvegan.game as declared
    from sim.games import get_game

    assert declared.GAME.strength_slow_policy == "lookahead:16"
    monkeypatch.setattr(declared, "GAME", dataclasses.replace(declared.GAME, strength_slow_policy="lookahead:2"))
    get_game.cache_clear()  # the registry keeps each game it gave
    yield "lookahead:2"
    monkeypatch.undo()
    get_game.cache_clear()


@pytest.mark.slow("end to end")
def test_known_answers_at_four_players_with_expert(tmp_path):
    # Elimination about 50%, first-player advantage about -0.45 pp.
    path = tune_file(tmp_path, "elimination_rate = [0.40, 0.60]\nfirst_player_advantage = [-0.01, 0.01]")
    code, found = confirm(str(path), "--max-slow-games", "0", "--max-games", "400000", "--out", str(tmp_path / "a"))
    assert code == 0, found
    targets = by_metric(found)
    assert targets["elimination_rate"]["verdict"] == "met"
    assert targets["first_player_advantage"]["verdict"] == "met"
    for t in found["targets"]:
        assert t["low"] <= t["estimate"] <= t["high"]
        assert t["setting"] == "4 players, expert" and t["games"] >= 2_000
    assert found["strength"] == []
    assert json.loads((tmp_path / "a" / "confirm.json").read_text())["targets"] == found["targets"]
    # Each heading writes what is wanted as the values beneath it are written.
    text = confirm_text(found, get_game("lasvegan")).splitlines()
    band = text.index("elimination_rate [40.00%, 60.00%]")
    assert text[band + 1].split()[4].endswith("%")
    line = text.index("first_player_advantage [-1.00 pp, +1.00 pp]")
    assert " pp [" in text[line + 1]


def test_a_target_far_off_is_missed_and_one_on_its_line_stays_undecided(tmp_path):
    path = tune_file(tmp_path, "elimination_rate = [0.70, 0.90]\ntie_rate = [0.0, 0.0]")
    code, found = confirm(str(path), "--max-slow-games", "0", "--max-games", "40000", "--out", str(tmp_path / "b"))
    assert code == 1
    targets = by_metric(found)
    assert targets["elimination_rate"]["verdict"] == "missed"
    tie = targets["tie_rate"]
    # Ties happen: a tie rate of exactly 0 can be missed, never met.
    assert tie["verdict"] in ("missed", "undecided")
    assert tie["games"] <= 40_000


def test_undecided_says_how_many_more_games_would_likely_decide_it(tmp_path):
    # The worst seat is about +0.8 pp at 4 players: 20,000 games cannot tell it from 1 pp.
    path = tune_file(tmp_path, "worst_seat_advantage = { max = 0.01 }")
    code, found = confirm(str(path), "--max-slow-games", "0", "--max-games", "20000", "--out", str(tmp_path / "c"))
    assert code == 1
    [t] = found["targets"]
    assert t["verdict"] == "undecided" and t["games"] == 20_000
    assert t["more_games"] is not None and t["more_games"] > 20_000
    assert found["stopped"] == "max-games"


@pytest.mark.slow("end to end")
def test_the_stronger_tables_play_the_same_deals_and_are_paired(tmp_path, stronger):
    path = tune_file(tmp_path, "elimination_rate = [0.10, 0.95]", players="[3]", policies='["greedy"]')
    code, found = confirm(str(path), "--max-slow-games", "1000", "--max-games", "4000",
                          "--out", str(tmp_path / "d"))
    assert code == 0, found
    [t] = found["targets"]
    assert t["stronger"]["policy"] == stronger and t["stronger"]["games"] == 1000
    metrics = {d["metric"] for d in found["strength"]}
    # Every headline metric, the ratio of sums (mean |swing| per round) too.
    assert metrics == {"elimination_rate", "first_player_advantage", "worst_seat_advantage", "mean_rounds",
                       "mean_abs_swing", "tie_rate"}
    for d in found["strength"]:
        assert d["against"] == stronger and d["games"] == 1000
        assert d["verdict"] in ("material", "immaterial", "undecided")
        assert d["low"] <= d["difference"] <= d["high"]


@pytest.mark.slow("end to end")
def test_a_config_alone_is_judged_against_stronger_players_only(tmp_path, stronger):
    code, found = confirm("--config", str(CONFIGS / "default.toml"), "--players", "3", "--max-slow-games", "1000",
                          "--max-games", "4000", "--out", str(tmp_path / "e"))
    assert found["targets"] == [] and found["strength"]
    assert {d["against"] for d in found["strength"]} == {stronger}
    # No target to miss: the exit code says whether every comparison is decided.
    assert code == (0 if found["all_decided"] else 1)
    assert found["all_decided"] == all(d["verdict"] != "undecided" for d in found["strength"])
    # The text words each comparison's verdict as confirm.json does.
    text = confirm_text(found, get_game("lasvegan"))
    words = {"material": "material (it moves)", "immaterial": "immaterial (it holds)", "undecided": "undecided"}
    for d in found["strength"]:
        [line] = [ln for ln in text.splitlines() if ln.lstrip().startswith(d["setting"]) and d["label"] in ln]
        assert f" {words[d['verdict']]} (material: " in line, line


@pytest.mark.slow("end to end")
def test_a_config_alone_exits_1_while_a_comparison_is_undecided(tmp_path, stronger):
    # 1,000 games of the stronger tables, the first look: too few to decide every comparison.
    args = ["confirm", "--config", str(CONFIGS / "default.toml"), "--players", "3", "--max-slow-games", "1000",
            "--max-games", "1000", "--out", str(tmp_path / "e"), "--json"]
    result = CliRunner().invoke(main, args)
    found = json.loads(result.stdout)
    undecided = [d for d in found["strength"] if d["verdict"] == "undecided"]
    assert undecided and found["all_decided"] is False
    assert result.exit_code == 1, result.output


def unwrapped(text: str) -> str:
    """Printed lines as one text, a wrapped sentence's continued (indented) lines joined to the line before."""
    return " ".join(line.strip() for line in text.splitlines())


def test_the_dry_run_plays_nothing_it_reports(tmp_path):
    path = tune_file(tmp_path, "elimination_rate = [0.40, 0.60]")
    result = CliRunner().invoke(main, ["confirm", str(path), "--dry-run", "--max-minutes", "3",
                                       "--out", str(tmp_path / "f")])
    assert result.exit_code == 0, result.output
    assert "until decided" in result.output and "At most" in result.output
    assert not (tmp_path / "f").exists()
    # The stronger tables pair on the judged table's deals: never more of them than it plays.
    small = CliRunner().invoke(main, ["confirm", str(path), "--dry-run", "--max-games", "3000"])
    said = unwrapped(small.output)
    assert "expert up to 3,000 games" in said and "on the same deals up to 3,000" in said, small.output
    assert max(map(len, small.output.splitlines())) <= 120, small.output


def test_the_help_of_max_games_says_the_cap_the_dry_run_plans_with_a_config_alone():
    from sim.confirm.running import DEFAULT_MAX_GAMES, DEFAULT_MAX_SLOW_GAMES

    plan = CliRunner().invoke(main, ["confirm", "--config", str(CONFIGS / "default.toml"), "--players", "4",
                                     "--dry-run", "--json"])
    assert plan.exit_code == 0, plan.output
    [line] = [x for x in json.loads(plan.stdout)["text"].splitlines() if x.startswith("  4 players")]
    assert f"up to {DEFAULT_MAX_SLOW_GAMES:,} games" in line and f"{DEFAULT_MAX_GAMES:,}" not in line
    help_text = " ".join(CliRunner().invoke(main, ["confirm", "--help"]).output.split())
    max_games = help_text[help_text.index("--max-games"):help_text.index("--max-slow-games INTEGER")]
    assert f"default {DEFAULT_MAX_GAMES:,}" in max_games
    assert "With --config alone it plays only the stronger tables' deals: at most --max-slow-games" in max_games


@pytest.mark.parametrize("args,field", [
    ([], "FILE"),
    (["--config", "missing.toml"], "missing.toml"),
    (["--config", str(CONFIGS / "default.toml"), "--players", "9"], "players"),
    (["--config", str(CONFIGS / "default.toml"), "--players", "three"], "--players"),
])
def test_bad_input_is_refused_in_one_line(args, field):
    result = CliRunner().invoke(main, ["confirm", *args])
    assert result.exit_code == 2
    assert field in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("args,field", [
    (["--max-minutes", "nan"], "--max-minutes"),
    (["--max-minutes", "inf"], "--max-minutes"),
    (["--max-minutes", "x"], "--max-minutes"),
    (["--max-minutes", "1e-9"], "--max-minutes"),
    (["--max-minutes", "1e-9", "--dry-run"], "--max-minutes"),
    (["--max-minutes", "1e308", "--dry-run"], "--max-minutes"),
    (["--players", "3,3"], "--players"),
    (["--max-games", "999"], "--max-games"),
    (["--max-slow-games", "10"], "--max-slow-games"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1", "--dry-run"], "--workers"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "--workers"),
])
def test_bad_options_are_refused_in_one_line_by_the_dry_run_and_the_run_alike(tmp_path, args, field):
    result = CliRunner().invoke(main, ["confirm", "--config", str(CONFIGS / "default.toml"), "--max-games", "1000",
                                       "--max-slow-games", "1000", "--out", str(tmp_path / "o"), *args])
    assert result.exit_code == 2, result.output
    [line] = result.output.strip().splitlines()
    assert field in line and "Traceback" not in line
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("dry_run", [[], ["--dry-run"]])
def test_options_that_leave_nothing_to_judge_are_refused_before_anything_plays(tmp_path, dry_run):
    out = tmp_path / "x"
    result = CliRunner().invoke(main, ["confirm", "--config", str(CONFIGS / "default.toml"), "--max-slow-games", "0",
                                       "--max-games", "1000", "--out", str(out), *dry_run])
    assert result.exit_code == 2, result.output
    [line] = result.output.strip().splitlines()
    assert "--max-slow-games" in line and "--config" in line and "everything decided" not in line
    assert not out.exists()
    # Seats that already play the stronger policy leave nothing to compare either.
    strong = tmp_path / "strong.toml"
    strong.write_text((CONFIGS / "default.toml").read_text(encoding="utf-8").replace(
        'seats = "expert"', 'seats = "lookahead:16"'), encoding="utf-8")
    result = CliRunner().invoke(main, ["confirm", "--config", str(strong), "--out", str(out), *dry_run])
    assert result.exit_code == 2 and result.output.startswith("error: --config:"), result.output
    assert not out.exists()


def test_an_out_directory_that_is_not_empty_or_not_a_directory_is_refused(tmp_path):
    used = tmp_path / "used"
    used.mkdir()
    (used / "confirm.json").write_text("earlier\n", encoding="utf-8")
    (tmp_path / "somefile").write_text("", encoding="utf-8")
    for out in (used, tmp_path / "somefile" / "x"):
        for dry_run in ([], ["--dry-run"]) if out == used else ([],):
            result = CliRunner().invoke(main, ["confirm", "--config", str(CONFIGS / "default.toml"), "--max-games",
                                               "1000", "--max-slow-games", "1000", "--out", str(out), *dry_run])
            assert result.exit_code == 2, result.output
            [line] = result.output.strip().splitlines()
            assert line.startswith("error: --out: ") and str(out) in line
    assert (used / "confirm.json").read_text(encoding="utf-8") == "earlier\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["somefile", "used"]


def test_below_the_first_look_it_says_too_few_games_not_an_estimate(tmp_path):
    """A budget below the first look is refused by the command, but a confirmation the clock stops early (or a
    tune's, on a few thousand games) can end there: it then says so, and gives no estimate of the games left."""
    from sim.confirm import confirm as play, load_confirmation

    spec = load_confirmation(str(tune_file(tmp_path, "first_player_advantage = [-0.01, 0.01]")), None, None)
    found = play(spec, seed=5, max_games=500, max_slow_games=0)
    text = unwrapped(confirm_text(found, spec.game))
    assert "500 games; too few games to judge yet (the first look is at 1,000)" in text
    assert "would likely decide" not in text
    [t] = found["targets"]
    assert t["verdict"] == "undecided" and t["games"] == 500 and t["more_games"] is None
    # The command refuses that budget before anything plays: it could never decide.
    result = CliRunner().invoke(main, ["confirm", str(tmp_path / "t.toml"), "--max-slow-games", "0", "--max-games",
                                       "500", "--out", str(tmp_path / "a")])
    assert result.exit_code == 2 and "can never decide" in result.output, result.output
    assert not (tmp_path / "a").exists()


def test_the_games_played_count_the_skill_gap_duels_and_their_deals(tmp_path):
    path = tune_file(tmp_path, 'skill_gap_greedy_vs_random = { min = 0.05, relative = "above_fair" }', players="[3]",
                     policies='["greedy"]')
    args = [str(path), "--max-slow-games", "0", "--max-games", "2000"]
    plan = CliRunner().invoke(main, ["confirm", *args, "--dry-run"])
    assert "the skill-gap duel greedy against random up to 2,000 deals, each played 3 times" in unwrapped(plan.output)
    result = CliRunner().invoke(main, ["confirm", *args, "--out", str(tmp_path / "h")])
    assert result.exit_code == 0, result.output
    found = json.loads((tmp_path / "h" / "confirm.json").read_text())
    [t] = found["targets"]
    [g] = found["games"].values()
    assert t["games_per_deal"] == 3 and g["duel_deals"] == t["games"] and g["duel_games"] == 3 * t["games"]
    said = unwrapped(result.output)
    assert f"{t['games']:,} deals, each played 3 times (once per seat)" in said
    total = g["judged"] + g["stronger"] + g["duel_games"]
    assert f"Played {total:,} games in " in said and f"({t['games']:,} deals, each played once per seat)" in said
    assert max(map(len, result.output.splitlines()[:-1])) <= 120, result.output  # but the path written to


def test_a_skill_gap_duels_kernel_is_compiled_before_the_time_budget_starts(tmp_path, monkeypatch):
    """Compiling is not playing: a duel's mixed table (the kernel of every policy, 45 s into an empty cache) plays
    a deal before the clock of --max-minutes starts, as the judged and stronger tables' warm-ups do."""
    import sim.confirm.running as R
    from sim.confirm import confirm as play, load_confirmation

    events = []
    duel_values = R.duel_values

    def dueled(*args):
        events.append("duel")
        return duel_values(*args)

    def clock():
        events.append("clock")
        return 0.0  # the budget never runs out: only the max games end it

    monkeypatch.setattr(R, "duel_values", dueled)
    path = tune_file(tmp_path, 'skill_gap_greedy_vs_random = { min = 0.05, relative = "above_fair" }', players="[3]",
                     policies='["greedy"]')
    play(load_confirmation(str(path), None, None), seed=5, max_games=1000, max_slow_games=0, clock=clock)
    assert events[0] == "duel" and "clock" in events, events


def test_a_long_label_widens_its_column_rather_than_pushing_the_numbers_out():
    from sim.confirm import confirm_text
    from sim.games import get_game

    def compared(label: str, difference: float) -> dict:
        return {"metric": "tie_rate", "label": label, "setting": "4 players, expert", "against": "lookahead:16",
                "material": 0.03, "difference": difference, "low": difference - 0.01, "high": difference + 0.01,
                "games": 5_000, "verdict": "undecided", "more_games": 9_000}

    result = {"name": "t", "rules": "default.toml", "seed": 1, "confidence": 0.95, "targets": [], "seconds": 1.0,
              "strength": [compared("tie rate", 0.001), compared("casino payouts cancelled by ties", -0.052)],
              "stopped": "max-games", "games": {"4 players, expert": {"judged": 5_000, "stronger": 5_000}}}
    text = confirm_text(result, get_game("lasvegan"))
    rows = [line for line in text.splitlines() if " pp [" in line]
    assert len(rows) == 2
    assert len({row.index(" pp [") for row in rows}) == 1, rows
    assert len({row.index("undecided") for row in rows}) == 1, rows


def test_every_line_fits_120_columns_with_the_table_columns_kept_and_long_last_cells_wrapped():
    """Stronger tables stopped below the first look say so under each target and in every comparison's row: those
    lines ran to 175 columns. Each now wraps at 120, its first line keeping the table's columns."""
    from sim.confirm import confirm_text
    from sim.games import get_game

    too_few = {"games": 620, "verdict": "undecided", "more_games": None}
    compared = {"metric": "first_player_advantage", "label": "first-player advantage", "setting": "4 players, expert",
                "against": "lookahead:16", "material": 0.02, "difference": -0.0137, "low": None, "high": None,
                **too_few}
    target = {"metric": "worst_seat_advantage", "label": "worst_seat_advantage", "setting": "4 players, expert",
              "low_bound": None, "high_bound": 0.01, "estimate": 0.0087, "low": 0.0062, "high": 0.0113,
              "games": 421_081, "verdict": "undecided", "more_games": 1_310_943,
              "stronger": {"policy": "lookahead:16", "estimate": 0.0142, "low": None, "high": None, **too_few}}
    result = {"name": "t", "rules": "default.toml", "seed": 1, "confidence": 0.95, "targets": [target],
              "seconds": 1.0, "strength": [compared, {**compared, "label": "tie rate", "metric": "tie_rate"}],
              "stopped": "max-minutes", "games": {"4 players, expert": {"judged": 421_081, "stronger": 620}}}
    text = confirm_text(result, get_game("lasvegan"))
    assert max(map(len, text.splitlines())) <= 120, text
    said = unwrapped(text)
    assert said.count("620 games); too few games to judge yet (the first look is at 1,000)") == 1, text
    assert said.count("620 games; too few games to judge yet (the first look is at 1,000)") == 2, text
    assert "421,081 games; about 1,310,943 more games would likely decide it" in said
    rows = [line for line in text.splitlines() if "[not yet: too few games]" in line and "undecided (material" in line]
    assert len(rows) == 2 and len({row.index("undecided (material") for row in rows}) == 1, text


def test_the_stop_names_the_option_that_bound_what_is_undecided():
    from sim.confirm import confirm_text
    from sim.games import get_game

    compared = {"metric": "tie_rate", "label": "tie rate", "setting": "4 players, expert", "against": "lookahead:16",
                "material": 0.03, "difference": 0.001, "low": -0.009, "high": 0.011, "games": 100,
                "verdict": "undecided", "more_games": None}
    result = {"name": "t", "rules": "default.toml", "seed": 1, "confidence": 0.95, "targets": [], "seconds": 1.0,
              "strength": [compared], "stopped": "max-games",
              "games": {"4 players, expert": {"judged": 100, "stronger": 100}}}
    # Only the stronger tables are undecided: --max-slow-games bound them, not --max-games.
    last = unwrapped(confirm_text(result, get_game("lasvegan")).split("\n\n")[-1])
    assert last.endswith("stopped: the most games allowed (--max-slow-games)."), last


def test_a_metric_with_no_value_in_each_game_is_refused_before_anything_plays(tmp_path):
    path = tune_file(tmp_path, "shortfall_rate = { max = 0.01 }")
    result = CliRunner().invoke(main, ["confirm", str(path), "--out", str(tmp_path / "g")])
    assert result.exit_code == 2
    assert "targets.shortfall_rate" in result.output and "mean_abs_swing" in result.output
    assert not (tmp_path / "g").exists()


@pytest.mark.slow("end to end")
def test_a_file_only_confirmed_needs_no_search_table_which_a_tune_of_it_asks_for(tmp_path):
    path = tune_file(tmp_path, "elimination_rate = [0.40, 0.60]", players="[3]", search="")
    code, found = confirm(str(path), "--dry-run")
    assert code == 0, found
    assert [t["metric"] for t in found["targets"]] == ["elimination_rate"]
    assert [s["setting"] for s in found["settings"]] == ["3 players, expert"]
    result = CliRunner().invoke(main, ["tune", str(path), "--dry-run"])
    assert result.exit_code == 2 and "search: missing" in result.output
    # A [search] the file does give is still checked, so that the same file also tunes.
    bad = tune_file(tmp_path, "elimination_rate = [0.40, 0.60]", players="[3]", search='"rules.nothing" = [1, 2]')
    code, said = confirm(str(bad), "--dry-run")
    assert code == 2 and "rules.nothing" in said


def test_a_config_of_another_game_is_refused(tmp_path):
    path = tune_file(tmp_path, "elimination_rate = [0.40, 0.60]")
    result = CliRunner().invoke(main, ["confirm", str(path), "--config", str(CONFIGS / "vegas-dice.toml")])
    assert result.exit_code == 2 and "--config" in result.output


def test_a_skill_gap_target_is_judged_deal_by_deal(tmp_path):
    # greedy beats random by far at 3 players: well above its fair share.
    path = tune_file(tmp_path, 'skill_gap_greedy_vs_random = { min = 0.05, relative = "above_fair" }', players="[3]",
                     policies='["greedy"]')
    code, found = confirm(str(path), "--max-slow-games", "0", "--max-games", "20000", "--out", str(tmp_path / "h"))
    assert code == 0, found
    [t] = found["targets"]
    assert t["verdict"] == "met" and t["games"] >= 2_000
    assert t["low"] > 0.05 and t["low"] <= t["estimate"] <= t["high"]


def test_a_skill_gap_target_is_judged_once_at_each_player_count_whatever_the_policies_judged(tmp_path):
    """The duel plays the rules at a player count, the same for every policy of the [tune] table."""
    path = tune_file(tmp_path, 'skill_gap_greedy_vs_random = { min = 0.05, relative = "above_fair" }\n'
                               'mean_rounds = [2.5, 4.5]', players="[3]", policies='["greedy", "random"]')
    code, found = confirm(str(path), "--max-slow-games", "0", "--max-games", "2000")
    assert code == 0, found
    duels = [t for t in found["targets"] if t["metric"].startswith("skill_gap")]
    assert [(t["setting"], t["policy"]) for t in duels] == [("3 players", None)]
    assert sorted(t["setting"] for t in found["targets"] if t not in duels) == ["3 players, greedy",
                                                                                  "3 players, random"]
    assert sum(g["duel_deals"] for g in found["games"].values()) == duels[0]["games"]


def test_the_sentence_compares_each_target_with_its_own_verdict_at_the_stronger_tables():
    from sim.confirm import sentence

    def target(v, stronger):
        return {"verdict": v, "stronger": None if stronger is None else {"policy": "lookahead:16", "verdict": stronger}}

    # A skill-gap target has no stronger tables: the others must not be compared with their neighbours'.
    result = {"targets": [target("met", None), target("met", "met"), target("missed", "missed")], "strength": []}
    assert "The verdicts hold at lookahead:16 tables." in sentence(result)
    result["targets"][2]["stronger"]["verdict"] = "met"
    assert "At lookahead:16 tables 2 of 2 are met." in sentence(result)


def test_undecided_beside_undecided_is_not_a_verdict_that_holds():
    from sim.confirm import sentence

    result = {"targets": [{"verdict": "undecided", "stronger": {"policy": "lookahead:16", "verdict": "undecided"}}],
              "strength": []}
    said = sentence(result)
    assert "hold" not in said
    assert "Not confirmed: of 1 target and setting, 1 undecided." in said
    assert "At lookahead:16 tables 0 of 1 are met, 1 undecided." in said
    # A judged verdict beside an undecided one at the stronger tables does not hold either.
    result["targets"][0]["verdict"] = "met"
    assert "hold" not in sentence(result)


@pytest.mark.parametrize("style, x, lo, hi", [("num", 9.3471, 9.30449, 9.39), ("pct", 0.84561, 0.83064, 0.86049),
                                              ("pts", 0.01204, -0.00404, 0.02804)])
def test_confirm_writes_a_value_and_its_interval_as_run_and_tune_do(style, x, lo, hi):
    """One metric, one spelling: ``lvsim confirm`` once wrote a mean to 3 decimals where run and tune write 2."""
    from analysis.common import num, num_ci, pct, pct_ci, pts, pts_ci
    from sim.confirm.text import interval, value
    from sim.tune import value_ci

    shown, ends = {"num": (num, num_ci), "pct": (pct, pct_ci), "pts": (pts, pts_ci)}[style]
    assert value(style, x) == shown(x) and interval(style, lo, hi) == ends([lo, hi])
    assert f"{value(style, x)} {interval(style, lo, hi)}" == value_ci(style, x, lo, hi)
    assert interval(style, None, hi) == "[not yet: too few games]"


@pytest.mark.slow("end to end")
def test_a_time_budget_holds_even_when_a_stronger_tables_first_batch_would_not_fit(tmp_path, monkeypatch, stronger):
    """Each game costs a known time on a clock the confirmation reads: a stronger table at 0.05 s a game once
    played its first 2,000 games before it knew its speed, 100 s of a 60 s budget. It now measures its speed on
    a few games first and sizes every batch to end within the budget."""
    import sim.confirm.running as running
    from sim.confirm import confirm as play, load_confirmation
    from sim.runner import IN_PROCESS

    now = [0.0]

    class Timed:  # plays in this process, and moves the clock by what the games would cost
        def __getattr__(self, name):
            return getattr(IN_PROCESS, name)

        def play(self, config, first, n):
            for rec, tally in IN_PROCESS.play(config, first, n):
                now[0] += len(rec["win_share"]) * (0.05 if "lookahead" in str(config.seats) else 0.001)
                yield rec, tally

    monkeypatch.setattr(running.time, "perf_counter", lambda: now[0])
    spec = load_confirmation(str(tune_file(tmp_path, "elimination_rate = [0.10, 0.11]", players="[3]")), None, None)
    found = play(spec, seed=5, max_minutes=1.0, cluster=Timed(), clock=lambda: now[0])
    assert found["stopped"] == "max-minutes"
    assert found["seconds"] <= 60.0, found["seconds"]
    [g] = found["games"].values()
    assert 0 < g["stronger"] < 2000 and g["judged"] >= g["stronger"], g
