"""One-step deviations and their paired effects (sim.sensitivity): known answers first.

An inert knob's effect is exactly zero, and it is zero because playing it
changes nothing; one more starting cabbage lowers Las Vegan's
elimination rate; every effect is the difference of two plain runs on
the same seed (``sim.run`` twice); the interval holds the true effect in
95% of seeds, measured by simulation.
"""

import math
from dataclasses import replace

import pytest

import sim
import sim.sensitivity.playing as effects_module
from sim.config import Config
from sim.games import get_game
from sim.overrides import rule_entry
from sim.sensitivity import effects, one_step

QUIET = dict(skill_gap_games=0, strength_games=0, strength_slow_games=0)


def lasvegan(players=4, seats="greedy", **rules):
    game = get_game("lasvegan")
    return Config(game="lasvegan", rules=game.Rules(players=players, **rules), seats=seats, **QUIET)


def steps_of(deviations, knob):
    return [(d.before, d.after) for d in deviations if d.knob == knob]


# --- the deviations, read off the declarations ------------------------------------------------


def test_an_integer_moves_one_up_and_one_down_within_its_domain():
    game = get_game("lasvegan")
    devs = one_step(game, game.Rules())
    assert steps_of(devs, "rules.starting_cabbages") == [(15, 14), (15, 16)]
    assert steps_of(devs, "rules.tokens[2][1]") == [(-3, -4), (-3, -2)]
    assert steps_of(devs, "rules.golden_token[1]") == [(4, 3), (4, 5)]
    # At the bottom of its range only one step is left; 16 x 4 > 63 cabbages is refused as a whole.
    low = one_step(game, game.Rules(starting_cabbages=1, total_cabbages=63))
    assert steps_of(low, "rules.starting_cabbages") == [(1, 2)]
    high = one_step(game, game.Rules(starting_cabbages=15, total_cabbages=60))
    assert steps_of(high, "rules.starting_cabbages") == [(15, 14)]


def test_a_choice_takes_each_other_option_and_a_sticker_each_other_kind():
    game = get_game("lasvegan")
    devs = one_step(game, game.Rules())
    assert steps_of(devs, "rules.reserve") == [("finite", "unlimited")]
    assert steps_of(devs, "rules.end_on_elimination") == [(True, False)]
    first = steps_of(devs, "rules.machines[0]")
    assert len(first) == 13 and all(before == "suit:green" for before, _ in first)
    assert {after for _, after in first} == {"suit:blue", "suit:red", "suit:purple"} | {f"value:{v}" for v in range(10)}


def test_a_seat_s_extra_cabbages_step_up_from_none_and_the_seats_beyond_the_table_are_inert():
    game = get_game("lasvegan")
    devs = [d for d in one_step(game, game.Rules(players=3)) if d.knob.startswith("rules.seat_cabbages")]
    assert [(d.knob, d.before, d.after, d.inert) for d in devs] == [
        (f"rules.seat_cabbages[{s}]", 0, 1, s >= 3) for s in range(5)]
    assert devs[0].label == "seat 0's extra cabbages"
    assert devs[0].rules.seat_starting == (16, 15, 15) and devs[3].rules.seat_starting == (15, 15, 15)
    # At 5 players the box's 75 cabbages are all dealt: one more for a seat is no rule set.
    assert not any(d.knob.startswith("rules.seat_cabbages") for d in one_step(game, game.Rules(players=5)))


def test_auto_starts_from_the_number_it_stands_for():
    game = get_game("vegas-dice")
    devs = one_step(game, game.Rules(players=4))  # the rulebook's 2 white dice at 4 players
    assert steps_of(devs, "rules.white_dice") == [(2, 1), (2, 3)]
    at_three = one_step(game, game.Rules(players=3))
    assert steps_of(at_three, "rules.white_dice_extra_at_3") == [(True, False)]


def test_the_table_size_is_no_step_and_every_path_is_one_a_sweep_accepts():
    for game_id in ("lasvegan", "vegas-dice", "fever"):
        game = get_game(game_id)
        devs = one_step(game, game.Rules())
        assert devs and all(d.knob != "rules.players" for d in devs)
        for d in devs:
            name, path = rule_entry(d.knob)
            assert name in game.knobs
            assert d.rules != game.Rules()


def test_a_subset_of_knobs_and_a_path_that_names_none():
    game = get_game("lasvegan")
    devs = one_step(game, game.Rules(), ["rules.tokens[2]", "golden_token"])
    assert {d.knob for d in devs} == {"rules.tokens[2][0]", "rules.tokens[2][1]", "rules.golden_token[0]",
                                      "rules.golden_token[1]"}
    for bad in ("rules.cabbages", "tokens[9]", "players", "tokens[", "golden_token[0][1]"):
        with pytest.raises(ValueError):
            one_step(game, game.Rules(), [bad])


# --- the effects ----------------------------------------------------------------------------


def test_an_inert_knob_is_exactly_zero_without_playing_and_playing_it_changes_nothing(monkeypatch):
    config = lasvegan(players=4)  # 40 cards divide among 4: nothing is set aside, so its face cannot matter
    game = config.game_spec
    devs = one_step(game, config.rules, ["set_aside_face"])
    assert [d.inert for d in devs] == [True]
    played = []
    real = effects_module.block_tallies
    monkeypatch.setattr(effects_module, "block_tallies", lambda c, *a, **k: played.append(c.rules) or real(c, *a, **k))
    rows = effects(config, 200, deviations=devs)
    assert played == [config.rules]  # the base alone
    assert {r["metric"] for r in rows} == set(game.headline_metrics)
    assert all(r["delta"] == 0 and r["delta_ci"] == [0, 0] and r["value"] == r["base"] for r in rows)
    base = sim.run(replace(config, games=200), out=None).summary
    revealed = sim.run(replace(config, games=200, rules=devs[0].rules), out=None).summary
    assert all(base[m] == revealed[m] for m in game.headline_metrics)


def test_reels_ordered_is_inert_when_every_pattern_is_three_of_one_entry_and_its_games_say_so():
    from sim.config import config_from_mapping

    def config_of(paytable):
        return config_from_mapping({"game": "fever", "run": {"games": 300, "seed": 2, "skill_gap_games": 0,
                                                              "strength_games": 0, "sensitivity_games": 0},
                                    "rules": {"players": 3, "paytable": paytable}})

    alike = config_of([{"symbols": ["bell", "bell", "bell"], "points": 2},
                       {"symbols": ["bar|seven", "bar|seven", "bar|seven"], "points": 3}])
    [dev] = one_step(alike.game_spec, alike.rules, ["reels_ordered"])
    assert dev.inert
    base = sim.run(alike, out=None, progress=False, report=False).summary
    ordered = sim.run(replace(alike, rules=dev.rules), out=None, progress=False, report=False).summary
    assert all(base[m] == ordered[m] for m in alike.game_spec.headline_metrics)
    mixed = config_of([{"symbols": ["bell", "*", "bar"], "points": 2}])
    assert not one_step(mixed.game_spec, mixed.rules, ["reels_ordered"])[0].inert


def test_one_more_starting_cabbage_lowers_las_vegans_elimination():
    config = lasvegan(players=4)
    rows = effects(config, 2000, knobs=["starting_cabbages"])
    more = [r for r in rows if r["to"] == 16 and r["metric"] == "elimination_rate"][0]
    fewer = [r for r in rows if r["to"] == 14 and r["metric"] == "elimination_rate"][0]
    assert more["delta_ci"][1] < 0 < fewer["delta_ci"][0]


@pytest.mark.parametrize("game_id,seats,knobs", [
    ("lasvegan", "greedy", ["starting_cabbages", "tokens[2][1]", "machines[4]", "reserve"]),
    ("vegas-dice", "greedy", ["white_dice", "tie_break"]),
    ("fever", None, ["target", "double_up"]),
])
def test_every_effect_is_the_difference_of_two_plain_runs_on_the_same_seed(game_id, seats, knobs):
    game = get_game(game_id)
    config = Config(game=game_id, rules=game.Rules(players=3), seats=seats, games=300, seed=7, **QUIET)
    rows = effects(config, 300, knobs=knobs)
    assert rows
    base = sim.run(config, out=None).summary
    by_knob = {}
    for d in one_step(game, config.rules, knobs):
        by_knob[(d.knob, str(d.after))] = sim.run(replace(config, rules=d.rules), out=None).summary
    for r in rows:
        other = by_knob[(r["knob"], str(r["to"]))]
        assert r["base"] == base[r["metric"]]
        assert r["value"] == other[r["metric"]]
        assert r["delta"] == other[r["metric"]] - base[r["metric"]], r


def test_an_effect_is_clear_only_beyond_a_bonferroni_correction_over_the_changes_tried():
    from analysis.sensitivity import sentence
    from analysis.stats import t95, t_quantile
    from sim.sensitivity.playing import is_clear

    se, blocks = 1.0, 10
    just_95 = 1.01 * t95(blocks)  # its 95% interval misses 0 ...
    assert is_clear(just_95, se, blocks, tried=1)
    assert not is_clear(just_95, se, blocks, tried=30)  # ... but not its 1 - 0.05/30 one
    beyond = 1.01 * t_quantile(1 - 0.05 / 60, blocks - 1)
    assert is_clear(-beyond, se, blocks, tried=30) and not is_clear(None, se, blocks, 1)
    # A study's rows: clear ones have 95% intervals away from 0 (the stricter interval is wider), and the
    # sentence names a clear one or none.
    config = lasvegan(players=4)
    rows = effects(config, 400, knobs=["starting_cabbages", "tokens[2]", "set_aside_face"])
    assert all(isinstance(r["clear"], bool) for r in rows)
    assert all(r["delta_ci"][0] > 0 or r["delta_ci"][1] < 0 for r in rows if r["clear"])
    assert not any(r["clear"] for r in rows if r["inert"])
    for metric in config.game_spec.headline_metrics.values():
        text = sentence(rows, metric, 4)
        named = [r for r in rows if r["metric"] == metric.name and r["clear"]]
        said = f"clearly moves the {metric.label} most is" in text or f"that clearly move the {metric.label}," in text
        assert said == bool(named), text
        assert "))" not in text


SEEDS = 100
LONG_GAMES = 40_000
LONG_SEED = 999_999_937  # deals of their own: no short study's seed


@pytest.mark.slow
def test_the_interval_holds_the_true_effect_in_95_percent_of_seeds():
    """Coverage by simulation: a long pair of runs gives the true effect of one more starting cabbage; then
    a study per seed on a few hundred games gives an interval, and the share of seeds whose interval holds
    the truth must be at least 95% less three standard errors (binomial over the seeds)."""
    config = lasvegan(players=4, seats="random")
    more = [d for d in one_step(config.game_spec, config.rules, ["starting_cabbages"]) if d.after == 16]
    metrics = ("elimination_rate", "first_player_advantage", "mean_abs_swing", "mean_rounds")
    long = replace(config, seed=LONG_SEED, games=LONG_GAMES)
    a = sim.run(long, out=None).summary
    b = sim.run(replace(long, rules=more[0].rules), out=None).summary
    truth = {m: b[m] - a[m] for m in metrics}
    held = {m: 0 for m in metrics}
    for seed in range(1, SEEDS + 1):
        for r in effects(replace(config, seed=seed), 400, deviations=more):
            if r["metric"] in held:
                low, high = r["delta_ci"]
                held[r["metric"]] += low <= truth[r["metric"]] <= high
    floor = 0.95 - 3 * math.sqrt(0.95 * 0.05 / SEEDS)
    for m in metrics:
        assert held[m] / SEEDS >= floor, f"{m}: {held[m]} of {SEEDS} intervals hold the true {truth[m]:+.4f}"


# --- the command and the report -------------------------------------------------------------


def test_the_command_prints_one_json_object_and_writes_its_files(tmp_path):
    import json

    import pandas as pd
    from click.testing import CliRunner

    from sim.cli import main

    out = tmp_path / "study"
    result = CliRunner().invoke(main, ["sensitivity", "configs/default.toml", "--games", "60", "--players", "3,4",
                                       "--seats", "greedy", "--knobs", "rules.tokens[2][1],set_aside_face",
                                       "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    study = json.loads(result.stdout)
    assert set(study) == {"game", "players", "seats", "games", "seed", "effects"}
    assert study["players"] == [3, 4] and study["games"] == 60
    keys = {"knob", "from", "to", "metric", "base", "value", "delta", "delta_ci"}
    assert all(keys <= set(r) for r in study["effects"])
    faces = {(r["players"], r["from"], r["to"]) for r in study["effects"] if r["knob"] == "rules.tokens[2][1]"}
    assert faces == {(n, -3, t) for n in (3, 4) for t in (-4, -2)}
    # Something is set aside at 3 players (40 mod 3), so its face matters there and not at 4.
    inert = {r["players"]: r["inert"] for r in study["effects"] if r["knob"] == "rules.set_aside_face"}
    assert inert == {3: False, 4: True}
    table = pd.read_parquet(out / "sensitivity.parquet")
    assert len(table) == len(study["effects"])
    assert "What moves the verdict" in (out / "sensitivity.html").read_text()


@pytest.mark.parametrize("dry_run", [False, True])
@pytest.mark.parametrize("where", ["/proc", "not empty"])
def test_an_out_the_study_could_not_write_is_refused_before_playing_by_the_run_and_its_dry_run(tmp_path, monkeypatch,
                                                                                             dry_run, where):
    from click.testing import CliRunner

    import sim.sensitivity.study
    from sim.cli import main

    def no_study(*args, **kwargs):
        raise AssertionError("the study was played")

    monkeypatch.setattr(sim.sensitivity.study, "study", no_study)
    (tmp_path / "notes.txt").write_text("mine")
    out = {"/proc": "/proc/lvsim-study", "not empty": str(tmp_path)}[where]
    result = CliRunner().invoke(main, ["sensitivity", "configs/default.toml", "--games", "60", "--knobs", "rules.rounds",
                                       "--out", out, *(["--dry-run"] if dry_run else [])])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: --out: ") and result.stderr.count("\n") == 1, result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_a_page_the_disk_has_no_room_for_leaves_no_partial_file(tmp_path, monkeypatch):
    import errno
    from pathlib import Path

    from click.testing import CliRunner

    from sim.cli import main

    write_text = Path.write_text

    def full_disk(path, text, *args, **kwargs):
        if not path.name.endswith(".partial"):
            return write_text(path, text, *args, **kwargs)
        write_text(path, text[:100], *args, **kwargs)  # the start of the page, then no more room
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(Path, "write_text", full_disk)
    out = tmp_path / "study"
    result = CliRunner().invoke(main, ["sensitivity", "configs/default.toml", "--games", "60", "--seats", "greedy",
                                       "--knobs", "rules.rounds", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "sensitivity.html could not be written" in result.stderr and "No space left" in result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["sensitivity.parquet"]


# A study small enough to play, were it not refused.
FEW = ["--games", "20", "--knobs", "rules.rounds"]


@pytest.mark.parametrize("args,option", [
    (["--players", "3,x"], "--players"), (["--players", "9"], "--players"), (["--players", "4,4"], "--players"),
    (["--seats", "nobody"], "--seats"),
    (["--knobs", "rules.cabbages"], "--knobs"), (["--knobs", "players"], "--knobs"), (["--games", "0"], "--games"),
    (["--also-seats", "expert", *FEW], "--also-seats"), (["--also-seats", "expert", *FEW, "--dry-run"], "--also-seats"),
    (["--also-seats", "expert,expert,expert,expert", *FEW], "--also-seats"),
    (["--seats", "greedy", "--also-seats", "greedy", "--players", "3,4", "--dry-run"], "--also-seats"),
])
def test_bad_input_is_one_line_naming_the_option(args, option):
    from click.testing import CliRunner

    from sim.cli import main

    result = CliRunner().invoke(main, ["sensitivity", "configs/default.toml", *args])
    assert result.exit_code == 2
    assert option in result.output and "Traceback" not in result.output


def test_the_dry_run_pays_each_rule_set_its_fixed_part_and_its_games(monkeypatch):
    """On a fake clock: a kernel call and the blocks' tallies cost 0.02 s, a game 0.1 ms, the jackknife's
    summaries 0.1 s whatever the games; the plan is that cost paid by every rule set played."""
    import sim.estimates as E
    import sim.sensitivity.study as S
    from tests.test_estimates import FakeClock

    clock = FakeClock()

    def play(config, n, blocks):
        clock.spend(0.02 + n * 1e-4)
        return ["tallies"] * blocks

    def summarise(config, tallies):
        assert len(tallies) == S.BLOCKS
        clock.spend(0.1)

    cost = S.rule_set_cost(lambda n: play(None, n, S.BLOCKS), lambda t: summarise(None, t), 10_000, clock=clock)
    assert cost.fixed == pytest.approx(0.12) and cost.per_game == pytest.approx(1e-4)
    monkeypatch.setattr(S, "block_tallies", play)
    monkeypatch.setattr(S, "metric_values", summarise)
    config = lasvegan(players=4)
    plan = S.plan_study(config, 2000, players=[3, 4], knobs=["tokens[2]", "set_aside_face"], clock=clock)
    # Token 3's two faces, one up and one down: 4 deviations a count; the set-aside face is inert at 4 players.
    assert [(c["players"], c["rule_sets"], c["inert"]) for c in plan["counts"]] == [(3, 6, 0), (4, 5, 1)]
    for c in plan["counts"]:
        assert c["seconds"] == pytest.approx(c["rule_sets"] * (0.12 + 2000 * 1e-4))
    total = sum(c["seconds"] for c in plan["counts"])
    assert plan["seconds"] == pytest.approx(list(E.band(total)))
    assert "(each rule set 0.12 s + 0.10 ms a game)" in S.plan_text(plan)


def test_the_first_play_of_a_process_is_paid_once_a_table_beyond_its_games(monkeypatch):
    """Loading the compiled core makes the first call slow; the dry run, a fresh process as the study's is, pays it."""
    import sim.estimates as E
    import sim.sensitivity.study as S
    from tests.test_estimates import FakeClock

    clock = FakeClock()
    calls = []

    def play(config, n, blocks):
        calls.append(n)
        clock.spend((1.5 if len(calls) == 1 else 0.0) + 0.02 + n * 1e-4)  # the first call
        return ["tallies"] * blocks

    monkeypatch.setattr(S, "block_tallies", play)
    monkeypatch.setattr(S, "metric_values", lambda config, tallies: clock.spend(0.1))
    cost = S.rule_set_cost(lambda n: play(None, n, S.BLOCKS), lambda t: None, 10_000, clock=clock)
    assert cost.start == pytest.approx(1.5) and cost.fixed == pytest.approx(0.02)
    calls.clear()
    plan = S.plan_study(lasvegan(players=4), 2000, players=[3], knobs=["tokens[2]"], clock=clock)
    (count,) = plan["counts"]
    assert count["seconds"] == pytest.approx(1.5 + count["rule_sets"] * (0.12 + 2000 * 1e-4))
    assert plan["seconds"] == pytest.approx(list(E.band(count["seconds"])))


def test_auto_costs_at_most_the_runs_games_again_and_zero_turns_it_off():
    from sim.sensitivity.deviations import run_games
    from sim.sensitivity.study import run_sensitivity

    config = replace(lasvegan(players=4), games=20_000)
    devs = one_step(config.game_spec, config.rules, swaps=False)
    assert devs and not any(d.knob.startswith("rules.machines") for d in devs)  # the stickers: the full study's
    each = run_games(config, devs)
    assert each == run_games(config) and 50 <= each
    assert each * (1 + sum(not d.inert for d in devs)) <= config.games
    assert run_games(replace(config, games=1000), devs) == 0  # too few games a rule set: none
    assert run_sensitivity(replace(config, sensitivity_games=0)) is None
    with pytest.raises(Exception, match="run.sensitivity_games"):
        replace(config, sensitivity_games="lots")


@pytest.mark.slow("end to end")
def test_a_run_reports_what_moves_the_verdict(tmp_path):
    from analysis.sensitivity import TITLE

    config = replace(lasvegan(players=3), games=400, sensitivity_games=40)
    results = sim.run(config, out=tmp_path / "run", progress=False)
    found = results.summary["sensitivity"]
    assert found["games"] == 40 and found["players"] == [3]
    assert found["swaps_left"] == {"machine stickers": 12 * 13}
    assert not any(r["knob"].startswith("rules.machines") for r in found["effects"])
    assert {r["metric"] for r in found["effects"]} == set(config.game_spec.headline_metrics)
    page = (tmp_path / "run" / "report.html").read_text()
    assert TITLE in page and page.count('class="sensitivity"') == 1
    assert page.count("data-players=\"3\"") == len(config.game_spec.headline_metrics)


def test_the_change_that_moves_a_metric_most_is_named_so_only_when_the_games_tell_it_from_the_others():
    """Over 151 games, one token's face moves the mean |swing| by −0.30 (−0.38 to −0.23) and another's by +0.28
    (+0.17 to +0.38): both clear, not told apart. The sentence names both and calls neither the most; once the
    second's interval lies below the first's, the first is the most."""
    from analysis.sensitivity import sentence

    metric = get_game("lasvegan").headline_metrics["mean_abs_swing"]
    row = {"metric": metric.name, "players": 4, "games": 151, "clear": True, "inert": False, "knob": "rules.tokens",
           "from": -1}
    rows = [{**row, "label": "token 1, face 2", "to": 0, "delta": -0.303, "delta_ci": [-0.377, -0.229]},
            {**row, "label": "token 1, face 2", "to": -2, "delta": 0.277, "delta_ci": [0.172, 0.383]},
            {**row, "label": "token 3, face 1", "to": 0, "delta": 0.01, "delta_ci": [-0.05, 0.07], "clear": False}]
    text = sentence(rows, metric, 4)
    assert "most is" not in text, text
    assert text.startswith("Of the one-step changes that clearly move the mean |swing| per round, token 1, face 2 "
                           "from −1 to 0 has the largest estimate: −0.30 (95% interval −0.38 to −0.23), but 151 games "
                           "do not tell it apart from token 1, face 2 from −1 to −2: +0.28 (95% interval +0.17 to "
                           "+0.38) (the sizes' 95% intervals overlap); 1 other one-step change moves it clearly too"), text
    rows[1].update(delta=0.12, delta_ci=[0.05, 0.19])
    assert sentence(rows, metric, 4).startswith("The one-step change that clearly moves the mean |swing| per round "
                                                "most is token 1, face 2 from −1 to 0: −0.30")
    # A larger effect without an interval (too few games measure it) is told apart from none.
    rows.append({**row, "label": "token 2, face 2", "to": 0, "delta": -0.5, "delta_ci": None, "clear": False})
    assert "(that change has no 95% interval)" in sentence(rows, metric, 4)


def test_a_change_that_was_never_played_is_not_said_to_be_within_the_noise():
    """An inert change is not played: the sentence says so, and counts the played ones apart."""
    from analysis.sensitivity import sentence

    metric = get_game("lasvegan").headline_metrics["elimination_rate"]
    row = {"metric": metric.name, "players": 4, "games": 200, "delta": 0.0, "delta_ci": [0.0, 0.0], "clear": False,
           "knob": "rules.set_aside_face", "label": "set-aside face", "from": "hidden", "to": "revealed"}
    alone = sentence([{**row, "inert": True}], metric, 4)
    assert "noise" not in alone and "none was played" in alone, alone
    played = {**row, "knob": "rules.starting_cabbages", "delta": 0.01, "delta_ci": [-0.02, 0.04], "inert": False}
    both = sentence([{**row, "inert": True}, played], metric, 4)
    assert "no one-step change of the 1 played is clear once corrected for trying 2" in both, both
    assert "1 inert change counted in" in both, both


def test_a_change_that_leaves_a_metric_without_a_value_is_named_and_the_counts_agree():
    """$ Fever without reshuffling the discards finishes no game: its first-player advantage has no value. The
    metric's sentence names that change and counts the others; the note above says its correction is over them."""
    from analysis.sensitivity import body, sentence

    game = get_game("fever")
    changes = [("rules.target", "target", 10, 9), ("rules.reshuffle_discards", "reshuffle the discards", True, False)]
    rows = [{"metric": m, "players": 4, "games": 153, "delta": 0.01, "delta_ci": [-0.02, 0.04], "clear": False,
             "inert": False, "knob": knob, "label": label, "from": before, "to": after}
            for knob, label, before, after in changes for m in game.headline_metrics]
    for r in rows:
        if r["metric"] == "first_player_advantage" and r["knob"] == "rules.reshuffle_discards":
            r.update(delta=None, delta_ci=None)
    advantage = game.headline_metrics["first_player_advantage"]
    text = sentence(rows, advantage, 4)
    assert "no one-step change of the 1 played is clear once corrected for trying 1 (Bonferroni)" in text, text
    assert ("Under reshuffle the discards from true to false, too few games measure the first-player advantage"
            in text), text
    other = sentence(rows, game.headline_metrics["unfinished_rate"], 4)
    assert "trying 2" in other and "too few games" not in other, other
    page = body(rows, game, [4])
    assert "corrected for the 2 changes tried (its interval at 1 − 0.05/2 holds 0, Bonferroni; 1 − 0.05/1 for " \
           "the first-player advantage:" in page, page
    assert "The first-player advantage: the 1 largest one-step changes" in page


def test_a_knob_with_a_declared_step_moves_by_it():
    """Las Vegas's casino minimum moves by the smallest bill: a dollar more fills a casino no differently."""
    game = get_game("vegas-dice")
    for rules in (game.Rules(), game.Rules(bills=[[5000, 10], [20000, 20], [90000, 5]], casino_minimum=60_000)):
        steps = sorted(d.after for d in one_step(game, rules, ["casino_minimum"]))
        low = min(rules.bill_values)
        assert steps == [rules.casino_minimum - low, rules.casino_minimum + low]


def test_a_bills_value_moves_by_the_dollars_the_bills_are_counted_in_and_its_count_by_one_bill():
    """Las Vegas's bills of 10,000 to 90,000 dollars: a value one dollar off is no printed change. A value moves by
    10,000, where it takes no other bill's value (90,000 to 100,000 alone); a count by one bill, both ways."""
    game = get_game("vegas-dice")
    moved = {d.knob: [] for d in one_step(game, game.Rules(), ["bills"])}
    for d in one_step(game, game.Rules(), ["bills"]):
        moved[d.knob].append(d.after)
    assert moved.pop("rules.bills[8][0]") == [100_000]
    assert all(knob.endswith("[1]") for knob in moved), sorted(moved)
    assert {knob: sorted(after) for knob, after in moved.items()} == {
        f"rules.bills[{i}][1]": [count - 1, count + 1] for i, (_, count) in enumerate(game.Rules().bills)}
    rules = game.Rules(bills=[[5000, 10], [20000, 20], [90000, 5]], casino_minimum=60_000)
    values = {d.knob: sorted(x.after for x in one_step(game, rules, [d.knob])) for d in one_step(game, rules, ["bills"])
              if d.knob.endswith("[0]")}
    assert values == {"rules.bills[0][0]": [10_000], "rules.bills[1][0]": [15_000, 25_000],
                      "rules.bills[2][0]": [85_000, 95_000]}


@pytest.mark.parametrize("games, sensitivity_games, said", [
    (200, "auto", "leave fewer than 50 each"),
    (100_000, 0, "run.sensitivity_games = 0"),
])
def test_a_report_without_the_section_says_why_it_was_not_played(games, sensitivity_games, said):
    """A small run under "auto" plays none, as does 0: the report names the one that held, and what to change."""
    from types import SimpleNamespace

    from analysis.sensitivity import report_section
    from sim.config import config_from_mapping

    config = config_from_mapping({"game": "lasvegan", "run": {"games": games, "sensitivity_games": sensitivity_games}})
    html = report_section(SimpleNamespace(config=config, summary={}))
    assert said in html and "lvsim sensitivity CONFIG" in html
    assert ("= 0</code>" in html) == (sensitivity_games == 0)


def test_the_printed_study_keeps_to_120_columns_one_sentence_a_metric():
    from click.testing import CliRunner

    from sim.cli import main

    result = CliRunner().invoke(main, ["sensitivity", "configs/default.toml", "--games", "60", "--seats", "greedy",
                                       "--knobs", "rules.rounds", "--knobs", "rules.starting_cabbages"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(map(len, lines)) <= 120, result.stdout
    # Each headline metric's sentence starts a bullet; its wrapped lines are indented under its words.
    bullets = [line for line in lines if line.startswith("- ")]
    assert len(bullets) == len(get_game("lasvegan").headline_metrics)
    assert all(line.startswith(("- ", "  ")) for line in lines[lines.index("4 players") + 1:] if line)
