"""Morris screening of a tune file's domains (sim.sensitivity.morris) and a second table of seats for the one-step
study (``--also-seats``): known answers first.

The levels put every jump of a value on exactly one printed step size and every sampled value in its domain; an
inert value's elementary effects are exactly zero; one more starting cabbage lowers elimination over the whole
domain as it does one step from the base rules; the same seed gives the same screen.
"""

import json
from pathlib import Path
from dataclasses import replace

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.sensitivity import morris_sentences, morris_table, morris_text
from sim.cli import main
from sim.config import Config
from sim.games import get_game
from sim.sensitivity import morris
from sim.tune.tunefile import tune_from_mapping
ROOT = Path(__file__).resolve().parents[1]
QUIET = dict(skill_gap_games=0, strength_games=0, strength_slow_games=0)


def tiny_tune(search=None, players=(4,), policy="greedy", games=300, seed=5):
    data = {"base": str(ROOT / "configs" / "default.toml"),
            "search": search or {"rules.starting_cabbages": {"range": [12, 17]},
                                 "rules.set_aside_face": ["hidden", "revealed"]},
            "targets": {"elimination_rate": [0.4, 0.6]},
            "tune": {"players": list(players), "policies": [policy], "games": games, "seed": seed}}
    return tune_from_mapping(data, name="tiny")


# --- the levels ---------------------------------------------------------------------------------


def test_levels_are_the_values_one_for_one_when_the_grid_matches_the_domain():
    assert morris.level_indices(8, 8) == ([0, 1, 2, 3, 4, 5, 6, 7], 4)
    # Six faces on eight levels: every jump is 3 faces, both ends sampled.
    assert morris.level_indices(6, 8) == ([0, 1, 1, 2, 3, 4, 4, 5], 3)
    assert morris.level_indices(2, 4) == ([0, 0, 1, 1], 1)
    assert morris.default_levels([8, 6]) == 8 and morris.default_levels([5, 2]) == 6
    assert morris.default_levels([41]) == morris.MAX_DEFAULT_LEVELS


@given(n=st.integers(2, 60), half=st.integers(1, 16))
def test_every_jump_moves_one_step_size_and_every_level_is_a_value_of_the_domain(n, half):
    index, step = morris.level_indices(n, 2 * half)
    lower, upper = index[:half], index[half:]
    assert all(0 <= i < n for i in index) and 1 <= step <= n - 1
    assert all(b - a == step for a, b in zip(lower, upper))
    assert lower == sorted(lower) and index[0] == 0 and index[-1] == n - 1


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), trajectories=st.integers(2, 6), half=st.integers(1, 5))
def test_every_morris_point_is_a_rule_set_of_the_domain(seed, trajectories, half):
    tune = tiny_tune({"rules.tokens[1]": {"faces": [-4, 3]}, "rules.golden_token": {"faces": [1, 6]},
                      "rules.reserve": ["finite", "unlimited"], "rules.starting_cabbages": {"range": [10, 15]}},
                     players=(3, 5))
    configs = morris.morris_tables(tune, games=10, seed=seed)
    dims, levels, X, values, distinct = morris.plan_points(tune, configs, trajectories, 2 * half, seed)
    assert len(values) == trajectories * (len(dims) + 1)
    domains = {d.name: d.values() for d in tune.dims}
    for v in values:
        assert all(v[k] in domains[k] for k in domains)
    for here, config in zip(distinct, configs):
        assert all(rules.players == config.players for rules in here.values())
    steps = {d["knob"]: d["step"] for d in dims}
    size = len(dims) + 1
    for t in range(trajectories):  # one value moves between consecutive points, by its step size exactly
        for a, b in zip(values[t * size:(t + 1) * size - 1], values[t * size + 1:(t + 1) * size]):
            (moved,) = [k for k in a if a[k] != b[k]]
            assert abs(domains[moved].index(a[moved]) - domains[moved].index(b[moved])) == steps[moved]


def test_a_point_the_rules_refuse_names_the_search_key():
    from sim.errors import ConfigError

    # 4 x 19 starting cabbages is more than the 75 in the box: each end alone is allowed at 3 players only.
    tune = tiny_tune({"rules.starting_cabbages": {"range": [14, 19]}, "rules.total_cabbages": {"range": [60, 75]}},
                     players=(3,))
    configs = morris.morris_tables(tune, players=[4], games=10, seed=1)
    with pytest.raises(ConfigError, match='search."rules.total_cabbages"') as err:
        morris.plan_points(tune, configs, 4, 4, 1)
    assert "no rule set at 4 players" in str(err.value)


# --- the screen ---------------------------------------------------------------------------------


@pytest.mark.slow("end to end")
def test_morris_ranks_the_starting_cabbages_first_and_an_inert_value_is_exactly_zero():
    tune = tiny_tune()  # at 4 players nothing is set aside, so the set-aside cards' face cannot matter
    result = morris.screen(tune, trajectories=3, progress=False)
    rows = {(r["knob"], r["metric"]): r for r in result["knobs"]}
    game = tune.game
    for metric in game.headline_metrics:
        ranks = sorted(rows[(d.name, metric)]["rank"] for d in tune.dims)
        assert ranks == [1, 2]
        inert = rows[("rules.set_aside_face", metric)]
        assert inert["inert"] and not rows[("rules.starting_cabbages", metric)]["inert"]
        if inert["mu_star"] is not None:
            assert inert["mu_star"] == 0 and inert["sigma"] == 0 and not inert["clear"]
        # Said inert, not noise, and its zero effects not counted among those corrected for.
        sentences = " ".join(morris_sentences(result, game.metric[metric], 4))
        assert "set-aside cards' face cannot change a game under any rule set screened (inert)" in sentences.lower()
        assert "inert" in morris_table(result, game.metric[metric], 4)
    cabbages = rows[("rules.starting_cabbages", "elimination_rate")]
    assert cabbages["rank"] == 1 and cabbages["clear"] and cabbages["mu"] < 0
    assert cabbages["one_step"]["delta"] is not None and cabbages["one_step"]["changes"] == 2
    # SALib's mu* (rescaled to a printed step) is the mean absolute elementary effect taken from the points.
    for r in result["knobs"]:
        if r["mu_star"] is not None:
            assert abs(r["mu"]) <= r["mu_star"] + 1e-12 and r["mu_star_conf"] >= 0
    again = morris.screen(tune, trajectories=3, progress=False)
    assert json.dumps(again) == json.dumps(result)
    other = morris.screen(replace(tune, seed=6), trajectories=3, progress=False, games=20)
    assert other["seed"] == 6 and other["knobs"] != result["knobs"]


def test_the_elementary_effects_are_salibs_per_printed_step():
    import numpy as np

    tune = tiny_tune(games=40)
    configs = morris.morris_tables(tune, games=40, seed=tune.seed)
    dims, levels, X, values, distinct = morris.plan_points(tune, configs, 4, None, tune.seed)
    # A made-up metric: 0.02 a cabbage, so every elementary effect of the cabbages is 0.02 a step.
    played = {morris._key(v): {"m": [0.02 * v["rules.starting_cabbages"]] * 11} for v in values}
    ees = morris.elementary_effects(dims, values, played, "m", 4)
    assert [round(e[0], 12) for e in ees["rules.starting_cabbages"]] == [0.02] * 4
    assert [e[0] for e in ees["rules.set_aside_face"]] == [0.0] * 4
    Y = np.array([played[morris._key(v)]["m"][0] for v in values])
    stats = morris.analyse(dims, X, Y, levels, tune.seed)
    assert stats["mu_star"][0] == pytest.approx(0.02) and stats["mu"][0] == pytest.approx(0.02)
    assert stats["mu_star"][1] == 0


def test_the_morris_dry_run_pays_every_distinct_point_and_one_step_change(monkeypatch):
    import sim.estimates as E
    from tests.test_estimates import FakeClock

    clock = FakeClock()

    def play(config, n, blocks):
        clock.spend(0.02 + n * 1e-4)
        return ["tallies"] * blocks

    monkeypatch.setattr(morris, "block_tallies", play)
    monkeypatch.setattr(morris, "metric_values", lambda config, tallies: clock.spend(0.1))
    tune = tiny_tune(players=(3, 4))
    plan = morris.plan_screen(tune, trajectories=3, games=1000, clock=clock)
    for c in plan["counts"]:
        # 3 trajectories of 3 points; the base rules and the one-step changes: cabbages +-1, the face's other option,
        # which is inert at 4 players (nothing is set aside) and not played.
        assert c["points"] == 9 and c["one_step"] == 3 and c["inert"] == (c["players"] == 4)
        assert c["rule_sets"] == c["distinct_points"] + 1 + c["one_step"] - c["inert"]
        assert c["seconds"] == pytest.approx(c["rule_sets"] * (0.12 + 1000 * 1e-4))
    assert plan["seconds"] == pytest.approx(list(E.band(sum(c["seconds"] for c in plan["counts"]))))
    assert "(each rule set 0.12 s + 0.10 ms a game)" in morris.plan_text(plan)


def test_a_dry_run_that_writes_the_page_pays_its_first_plot_and_every_other_at_the_second_ones_cost(monkeypatch):
    import analysis.sensitivity as A
    import sim.estimates as E
    from tests.test_estimates import FakeClock

    clock = FakeClock()
    monkeypatch.setattr(morris, "block_tallies", lambda config, n, blocks: clock.spend(0.01) or ["t"] * blocks)
    monkeypatch.setattr(morris, "metric_values", lambda config, tallies: None)
    drawn = []
    monkeypatch.setattr(A, "figure", lambda fig, alt, caption="": drawn.append(fig) or clock.spend(2.0 if len(drawn) == 1
                                                                                                   else 0.5))
    tune = tiny_tune(players=(3, 4))
    quiet = morris.plan_screen(tune, trajectories=3, games=1000, clock=clock)
    paged = morris.plan_screen(tune, trajectories=3, games=1000, page=True, clock=clock)
    plots = 2 * len(tune.game.headline_metrics)  # one a headline metric at each count
    assert quiet["page"] == 0 and len(drawn) == 2
    assert paged["page"] == pytest.approx(2.0 + (plots - 1) * 0.5)
    played = sum(c["seconds"] for c in paged["counts"])
    assert paged["seconds"] == pytest.approx(list(E.band(played + paged["page"])))
    assert "the page (morris.html, its plots drawn)" in morris.plan_text(paged)
    assert "the page" not in morris.plan_text(quiet)


def test_the_command_prints_the_screen_and_writes_its_files(tmp_path):
    import pandas as pd

    tune_file = tmp_path / "tiny.toml"
    tune_file.write_text(f'base = "{ROOT / "configs" / "default.toml"}"\n'
                         '[search]\n"rules.starting_cabbages" = { range = [13, 16] }\n'
                         '"rules.golden_token[1]" = { faces = [3, 6] }\n'
                         '[targets]\nelimination_rate = [0.4, 0.6]\n'
                         '[tune]\nplayers = [3]\npolicies = ["greedy"]\ngames = 60\nseed = 2\n')
    out = tmp_path / "screen"
    result = CliRunner().invoke(main, ["sensitivity", str(tune_file), "--method", "morris", "--trajectories", "2",
                                       "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    screen = json.loads(result.stdout)
    assert screen["method"] == "morris" and screen["trajectories"] == 2 and screen["levels"] == 4
    keys = {"knob", "metric", "mu_star", "mu", "sigma", "mu_star_conf", "rank", "clear", "interacting",
            "one_step", "misjudged"}
    assert all(keys <= set(r) for r in screen["knobs"])
    assert len(pd.read_parquet(out / "morris.parquet")) == len(screen["knobs"])
    page = (out / "morris.html").read_text()
    assert "Morris screening" in page and page.count('class="morris"') == len(get_game("lasvegan").headline_metrics)


@pytest.mark.parametrize("args,option", [
    (["configs/default.toml", "--method", "morris"], "--method"),
    (["configs/tune_tokens.toml", "--method", "sobol"], "--method"),
    (["configs/tune_tokens.toml", "--method", "morris", "--trajectories", "0"], "--trajectories"),
    (["configs/tune_tokens.toml", "--method", "morris", "--levels", "5"], "--levels"),
    (["configs/tune_tokens.toml", "--method", "morris", "--knobs", "rules.tokens"], "--knobs"),
    (["configs/tune_tokens.toml", "--method", "morris", "--also-seats", "greedy"], "--also-seats"),
    (["configs/default.toml", "--trajectories", "4"], "--trajectories"),
    (["configs/default.toml", "--also-seats", "nobody"], "--also-seats"),
    (["configs/default.toml", "--also-seats", "greedy,greedy", "--players", "4"], "--also-seats"),
])
def test_bad_input_is_one_line_naming_the_option(args, option):
    result = CliRunner().invoke(main, ["sensitivity", *args, "--dry-run"])
    assert result.exit_code == 2, result.output
    assert option in result.output and "Traceback" not in result.output


# --- a second table of seats --------------------------------------------------------------------


def test_also_seats_plays_a_second_table_whose_first_is_the_plain_study():
    from analysis.sensitivity import holds, holds_sentence, paired_tables
    from sim.sensitivity.study import study

    game = get_game("lasvegan")
    config = Config(game="lasvegan", rules=game.Rules(players=4), seats="greedy", games=200, seed=4, **QUIET)
    knobs = ["starting_cabbages", "rounds"]
    plain = study(config, 200, knobs=knobs, progress=False)
    both = study(config, 200, knobs=knobs, also_seats="random", progress=False)
    also = both.pop("also")
    assert both == plain
    assert also["seats"] == [["random"] * 4]
    assert [(r["knob"], r["to"], r["metric"]) for r in also["effects"]] == \
        [(r["knob"], r["to"], r["metric"]) for r in plain["effects"]]
    assert also["effects"] != plain["effects"]  # other players, other games
    both["also"] = also
    pairs = paired_tables(both, 4)
    assert len(pairs) == len(plain["effects"])
    # Three rounds instead of four lowers elimination with any players: it holds under both tables.
    fewer = [p for p in pairs if p[0]["knob"] == "rules.rounds" and p[0]["to"] == 3
             and p[0]["metric"] == "elimination_rate"]
    assert fewer and holds(*fewer[0])
    text = holds_sentence(both, game.headline_metrics["elimination_rate"], 4)
    assert "rounds from 4 to 3" in text and "with greedy and with random" in text


def test_a_value_is_misjudged_when_its_reading_its_slope_or_its_rank_differs():
    def row(knob, mu_star, conf, clear, delta, half, step_clear):
        return {"knob": knob, "metric": "m", "mu_star": mu_star, "mu_star_conf": conf, "clear": clear,
                "interacting": False, "one_step": {"delta": delta, "delta_ci": [delta - half, delta + half],
                                                   "clear": step_clear, "changes": 2}}

    rows = [row("steep", 0.03, 0.01, True, -0.10, 0.01, True),  # one step far steeper than the domain's mean
            row("same", 0.05, 0.01, True, 0.05, 0.01, True),
            row("off", 0.04, 0.01, True, 0.001, 0.01, False),  # clear over the domain only
            row("quiet", 0.001, 0.001, False, 0.002, 0.01, False)]
    morris._rank_and_compare(rows)
    why = {r["knob"]: r["why"] for r in rows}
    assert [r["rank"] for r in rows] == [3, 1, 2, 4] and [r["one_step"]["rank"] for r in rows] == [1, 2, 4, 3]
    assert why["steep"] == ["steeper at the base rules", "rank"]
    assert why["same"] == [] and why["quiet"] == []
    assert why["off"] == ["off the base rules", "rank"]
    assert {r["knob"] for r in rows if r["misjudged"]} == {"steep", "off"}


def test_a_value_is_said_to_move_a_metric_most_only_when_its_mu_star_interval_is_above_every_others():
    """Two clear values whose mu* 95% intervals overlap are not ranked in words: the sentence gives the larger
    mean effect and names the value the screen does not tell it from; apart, the larger is the one that moves
    the metric most."""
    metric = get_game("lasvegan").metric["elimination_rate"]

    def row(knob, mu_star, conf, clear=True):
        return {"players": 4, "knob": knob, "label": knob.replace("_", " "), "metric": metric.name, "games": 2000,
                "effects": 10, "mu_star": mu_star, "mu": -mu_star, "sigma": mu_star / 2, "mu_star_conf": conf,
                "noise": 0.001, "clear": clear, "interacting": False, "inert": False, "rank": 0, "why": [],
                "one_step": {"delta": None, "delta_ci": None, "clear": False, "rank": 0, "changes": 2}}

    def first_sentence(*rows):
        for rank, r in enumerate(rows, 1):
            r["rank"] = rank
        result = {"knobs": list(rows), "dims": [{"knob": r["knob"], "step": 1} for r in rows], "games": 2000,
                  "rank_move": 2}
        return morris_sentences(result, metric, 4)[0]

    apart = first_sentence(row("token_a", 0.070, 0.005), row("token_b", 0.050, 0.005), row("quiet", 0.004, 0.002, False))
    assert apart.startswith("Over the searched domains, what moves the elimination rate most is token a: 7.0 points")
    close = first_sentence(row("token_a", 0.070, 0.012), row("token_b", 0.060, 0.005), row("quiet", 0.004, 0.002, False))
    assert "most is" not in close
    assert ("of the values that move the elimination rate clearly, token a has the largest mean effect: 7.0 points"
            in close)
    assert "does not tell it apart from token b: mu* 6.0 ± 0.5 (the 95% intervals of mu* overlap)" in close
    # A value not clear itself, but whose mu* may be as large (noise inflates it), keeps "most" out too.
    noisy = first_sentence(row("token_a", 0.070, 0.005), row("loud", 0.068, 0.030, False))
    assert "most is" not in noisy and "apart from loud: mu* 6.8 ± 3.0" in noisy
    # Printed, each sentence is a bullet wrapped at 120 columns.
    rows = [row("token_a", 0.070, 0.012), row("token_b", 0.060, 0.005)]
    for rank, r in enumerate(rows, 1):
        r["rank"] = rank
    result = {"knobs": rows, "dims": [{"knob": r["knob"], "step": 1} for r in rows], "games": 2000, "rank_move": 2,
              "tune": "t", "trajectories": 10, "levels": 8, "seed": 1, "players": [4], "seats": [["expert"] * 4]}
    game = get_game("lasvegan")
    lines = morris_text(result, game).splitlines()
    assert max(map(len, lines)) <= 120 and sum(line.startswith("- ") for line in lines) == 2 * len(
        game.headline_metrics), lines
    assert all(line.startswith(("- ", "  ")) for line in lines[lines.index("4 players, expert") + 1:])
