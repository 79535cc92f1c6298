"""Replay: a game given by hand, through the reference engine."""

import copy
import json

import pytest

from sim.errors import ScriptError
from sim.vegasdice.params import Rules
from sim.vegasdice.replay import replay_path, replay_script, script_from_trace
from sim.vegasdice.rules import play_game, player_named

# Two players, two casinos, two dice each, no white dice. Worked out by hand.
SCRIPT = {
    "players": 2,
    "rules": {"casinos": 2, "dice_per_player": 2, "white_dice": 0, "bills": [[50000, 2], [90000, 2]]},
    "pile": [90000, 50000, 50000, 90000],
    "rounds": [
        {"turns": [
            {"seat": 0, "roll": [1, 1], "place": 1},
            {"seat": 1, "roll": [2, 1], "place": 2},
            {"seat": 1, "roll": [1], "place": 1},
        ]},
        {"turns": [
            {"seat": 1, "roll": [1, 2], "place": 1},
            {"seat": 0, "roll": [1, 2], "place": 1},
            {"seat": 1, "roll": [2], "place": 2},
            {"seat": 0, "roll": [2], "place": 2},
        ]},
    ],
}


def test_a_hand_worked_game():
    trace = replay_script(SCRIPT)
    first, second = trace["rounds"]
    assert first["casinos"] == [[90000], [50000]]
    assert first["won"] == [90000, 50000] and first["unclaimed"] == 0
    assert first["payouts"][0] == {
        "casino": 1, "bills": [90000], "dice": [2, 1], "white": 0, "removed": [],
        "paid": [{"owner": 0, "bill": 90000}], "unclaimed": [],
    }
    # Round 2: the card passed to seat 1; both casinos tied 1-1: nothing paid,
    # both bills go under the pile.
    assert second["first_player"] == 1
    assert second["casinos"] == [[50000], [90000]]
    assert second["payouts"][0]["removed"] == [0, 1]
    assert second["won"] == [0, 0] and second["unclaimed"] == 140000 and second["pile"] == 2
    assert trace["money"] == [90000, 50000] and trace["winners"] == [0] and trace["ranking"] == [0, 1]


def test_a_traced_game_replays_to_the_same_trace(tmp_path):
    for players, seats in ((3, ["random", "greedy", "montecarlo:2"]), (5, ["greedy"] * 5)):
        rules = Rules(players=players)
        _, trace = play_game(rules, 11, 4, [player_named(rules, s) for s in seats], trace=True)
        script = script_from_trace(trace, rules)
        assert replay_script(script) == trace
        path = tmp_path / f"game{players}.json"
        path.write_text(json.dumps(script))
        assert replay_path(path) == trace


def broken(change):
    script = copy.deepcopy(SCRIPT)
    change(script)
    return script


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda s: s.update(rounds=[]), "rounds: must be a non-empty list"),
        (lambda s: s.update(colour="red"), "script: unknown key 'colour'"),
        (lambda s: s.update(pile=[90000, 90000, 90000]), "pile\\[2\\]: no bill of 90000 dollars is left"),
        (lambda s: s.update(pile="90000"), "pile: must be a list of bill values"),
        (lambda s: s["rules"].update(casinos=1), "rules.casinos: must be between 2 and 12"),
        (lambda s: s["rounds"][0]["turns"][0].update(seat=1), "round 1, turn 1, seat 0: the script says seat 1"),
        (lambda s: s["rounds"][0]["turns"][0].update(roll=[1]), "round 1, turn 1, seat 0: rolls all its dice"),
        (lambda s: s["rounds"][0]["turns"][0].update(place=2), "round 1, turn 1, seat 0: places a value its dice show"),
        (lambda s: s["rounds"][0]["turns"][0].update(roll=[1, 3]), "round 1, turn 1, seat 0: a die shows 1 to 2"),
        (lambda s: s["rounds"][0]["turns"][0].pop("place"), "round 1, turn 1, seat 0: missing 'place'"),
        (lambda s: s["rounds"][0]["turns"].pop(), "round 1: turns lists 2 turns, but dice are still to be placed"),
        (lambda s: s["rounds"][0]["turns"].append({"roll": [1], "place": 1}), "every die is placed after 3"),
        (lambda s: s["rounds"][0].update(extra_white=[1, 2]), "round 1: extra_white given"),
        (lambda s: s["rules"].update(rounds=3), "the game lasts 3 rounds"),
    ],
)
def test_a_bad_script_is_one_clear_line(change, message):
    with pytest.raises(ScriptError, match=message) as err:
        replay_script(broken(change))
    assert "\n" not in str(err.value)


def test_three_players_need_the_table_white_dice():
    script = {"players": 3, "rounds": [{"turns": []}]}
    with pytest.raises(ScriptError, match="round 1: missing 'extra_white'"):
        replay_script(script)


def test_a_script_that_goes_on_when_the_pile_runs_out_is_rejected():
    # Round 2 pays both casinos out: no bill is left for round 3, and the rules end the game there.
    script = broken(lambda s: s["rules"].update(empty_pile="end"))
    script["rounds"][1]["turns"] = [{"seat": 1, "roll": [1, 1], "place": 1}, {"seat": 0, "roll": [2, 2], "place": 2}]
    script["rounds"].append({"turns": []})
    with pytest.raises(ScriptError) as err:
        replay_script(script)
    assert str(err.value) == ("round 3: the pile cannot bring every casino to 50,000 dollars and rules.empty_pile "
                              "is 'end': the game is over, but the script goes on")


@pytest.mark.parametrize("players", ["3", True, 2.5])
def test_a_player_count_of_another_type_is_named_as_one(players):
    """Not "'3' at the top but rules.players is 3": the count is not a number."""
    with pytest.raises(ScriptError, match="^players: must be an integer, got "):
        replay_script({"players": players, "rules": {"players": 3}, "rounds": [{"turns": []}]})
