"""`lvsim duel` end to end through click's runner."""

import json
from functools import partial

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.duel import duel as shared_duel
from sim.games import get_game
from sim.lasvegan.params import Rules

duel = partial(shared_duel, get_game("lasvegan"))


def lvsim(*args):
    return CliRunner().invoke(main, ["duel", *map(str, args)])


def test_json_gives_each_policy_its_seats_fair_share_and_win_share_with_interval():
    result = lvsim("--seats", "greedy,random,random,random", "--games", 200, "--seed", 3, "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["games"] == 200
    assert set(out["policies"]) == {"greedy", "random"}
    greedy = out["policies"]["greedy"]
    assert set(greedy) == {"seats", "fair_share", "win_share", "win_share_ci", "win_share_ci_reason"}
    assert greedy["win_share_ci_reason"] is None
    assert greedy["seats"] == 1 and greedy["fair_share"] == 0.25
    assert greedy["win_share_ci"][0] < greedy["win_share"] < greedy["win_share_ci"][1]
    assert out["policies"]["random"]["seats"] == 3
    # The command is one library call.
    assert out == duel(Rules(), ["greedy", "random", "random", "random"], 200, 3)


def test_the_player_count_is_the_number_of_seats_without_a_config():
    out = json.loads(lvsim("--seats", "greedy,cautious,random", "--games", 30, "--json").stdout)
    assert out["players"] == 3
    assert [p["fair_share"] for p in out["policies"].values()] == pytest.approx([1 / 3] * 3)


def test_without_seats_or_a_config_the_default_player_meets_weaker_seats():
    out = json.loads(lvsim("--games", 20, "--json").stdout)
    assert out["players"] == 4
    assert {name: row["seats"] for name, row in out["policies"].items()} == {"expert": 1, "greedy": 3}
    dice = json.loads(lvsim("--game", "vegas-dice", "--players", 3, "--games", 20, "--json").stdout)
    assert {name: row["seats"] for name, row in dice["policies"].items()} == {"greedy": 1, "random": 2}


def test_text_output_is_a_table():
    result = lvsim("--seats", "cautious,random", "--games", 50)
    assert result.exit_code == 0, result.output
    assert "50 deals x 2 seat rotations at 2 players" in result.output
    assert "fair share" in result.output and "95% CI" in result.output
    assert any(line.startswith("cautious") for line in result.output.splitlines())


def test_a_config_gives_the_rules_and_seed(tmp_path):
    config = tmp_path / "three.toml"
    config.write_text('game = "lasvegan"\n[run]\nseed = 9\n[rules]\nplayers = 3\nrounds = 2\n')
    out = json.loads(lvsim(config, "--seats", "greedy,random,random", "--games", 40, "--json").stdout)
    assert out["players"] == 3 and out["seed"] == 9
    assert out == duel(Rules(players=3, rounds=2), ["greedy", "random", "random"], 40, 9)


def test_a_one_deal_duel_has_no_interval():
    out = json.loads(lvsim("--seats", "greedy,random", "--games", 1, "--json").stdout)
    assert out["policies"]["greedy"]["win_share_ci"] == [None, None]


def test_below_four_deals_the_duel_says_too_few_deals_to_say_as_text_and_as_json():
    out = json.loads(lvsim("--seats", "greedy,random,random", "--games", 3, "--json").stdout)
    for row in out["policies"].values():
        assert row["win_share_ci"] == [None, None]
        assert row["win_share_ci_reason"] == "too few deals to say (an interval needs at least 4 deals)"
    text = lvsim("--seats", "greedy,random,random", "--games", 3).output
    rows = [line for line in text.splitlines() if line.startswith(("greedy", "random"))]
    assert len(rows) == 2 and all(line.endswith("too few deals to say") for line in rows)
    four = lvsim("--seats", "greedy,random,random", "--games", 4).output
    assert "too few" not in four and "[" in four


@pytest.mark.parametrize(
    "args,message",
    [
        (["--seats", "greedy,wizard,random"], "error: --seats[1]: unknown policy 'wizard'"),
        (["--seats", "greedy"], "error: --seats: lists 1 policy; a table of Las Vegan seats 2 to 5"),
        (["--seats", "greedy,random", "--players", 4], "error: --seats: lists 2 policies for 4 players"),
        (["--seats", "lookahead:0,random"], "error: --seats[0]: 'lookahead:0': samples per move"),
        (["--seats", " "], "error: --seats: is empty: give one policy per seat, e.g. --seats expert,greedy,greedy,greedy"),
        (["missing.toml", "--seats", "greedy,random"], "error: missing.toml: no such file"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(args, message):
    result = lvsim(*args)
    assert result.exit_code == 2
    assert result.stderr.startswith(message)
    assert len(result.stderr.strip().splitlines()) == 1


def test_every_option_has_help():
    command = main.commands["duel"]
    for param in command.params:
        if param.param_type_name == "option":
            assert param.help, param.name


@pytest.mark.parametrize("no_winner", [0.03749999999999998, 0.0125, 0.2345, 0.0004])
def test_the_games_with_no_winner_and_the_rest_add_up_to_every_game_as_printed(no_winner):
    """3.7% with no winner leaves the other 96.3%, not 96.2%: the two shares printed make up every game."""
    import re

    from sim.duel import duel_table

    result = {"games": 20, "players": 4, "seed": 1, "no_winner_share": no_winner, "policies": {
        "a": {"seats": 1, "fair_share": 0.25, "win_share": 1 - no_winner, "win_share_ci": [0.5, 1.0],
              "win_share_ci_reason": None}}}
    line = duel_table(result).splitlines()[-1]
    shares = [float(x) for x in re.findall(r"([\d.]+)%", line)]
    assert len(shares) == 2 and shares[0] + shares[1] == pytest.approx(100.0), line
