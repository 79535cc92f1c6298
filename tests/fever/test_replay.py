"""Replays: a hand-scripted game gives its trace; a played game's trace replays to the same game."""

import json

import pytest

from sim.errors import ScriptError
from sim.fever.params import Rules
from sim.fever.replay import replay_path, replay_script, script_from_trace
from sim.fever.rules import play_game, player_named

SCRIPT = {
    "players": 2,
    "rules": {"target": 1},
    "deck": ["cherry", "lemon", "cherry", "lemon", "bell", "seven", "cherry", "bell", "lemon"],
    "turns": [{"seat": 0, "play": {"symbol": "cherry", "reels": [2, 3]}}],
}


def test_a_scripted_game_is_won_on_its_first_turn():
    trace = replay_script(SCRIPT)
    assert trace["finished"] and trace["winner"] == 0
    turn = trace["turns"][0]
    assert turn["hand"] == ["cherry", "cherry", "bell"]
    assert turn["covered"] == ["bell", "lemon"]
    assert turn["machine"] == ["cherry", "cherry", "cherry"]
    assert turn["scored"]["points"] == 1 and turn["could_score"]


def test_the_policies_of_seats_finish_a_script(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({**SCRIPT, "rules": {"target": 3}, "seats": ["greedy", "random"]}))
    trace = replay_path(path)
    assert len(trace["turns"]) > 1
    assert trace["finished"] == (max(trace["scores"]) >= 3)


@pytest.mark.parametrize("change,words", [
    ({"turns": [{"play": {"symbol": "cherry", "reels": [1, 2, 3]}}]}, "turn 1, seat 0: plays at most 2"),
    ({"turns": [{"play": {"symbol": "kiwi", "reels": [1]}}]}, "kiwi"),
    ({"turns": [{"seat": 1, "play": {"symbol": "cherry", "reels": [1]}}]}, "seat 0 plays"),
    ({"turns": [{"double": True, "play": {"symbol": "cherry", "reels": [1]}}]}, "scored combination"),
    ({"deck": ["seven", "seven", "seven", "seven"]}, "deck[2]: no seven card is left"),
    ({"rules": {"target": 0}}, "rules.target"),
    ({"turns": [{"play": {"symbol": "cherry", "reels": [2, 3]}}, {"play": None}]}, "the game ended after turn 1"),
    ({"colour": 1}, "unknown key"),
])
def test_a_bad_script_names_where_and_the_rule(change, words):
    with pytest.raises(ScriptError) as err:
        replay_script({**SCRIPT, **change})
    assert words in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_a_played_game_replays_move_for_move(players):
    rules = Rules(players=players, reshuffle_discards=False, turn_cap=120)
    seats = (["greedy", "random:0.5", "montecarlo:2"] * 2)[:players]
    for game in range(12):
        records, trace = play_game(rules, 4, game, [player_named(rules, s) for s in seats], trace=True)
        again = replay_script(json.loads(json.dumps(script_from_trace(trace, rules))))
        assert again == trace


WINNING_DOUBLE = {
    "players": 2,
    "rules": {"target": 5, "deck": {"a": 9, "b": 9, "c": 9, "d": 9, "e": 9}, "paytable": [
        {"symbols": ["a", "a", "a"], "points": 1}, {"symbols": ["b", "b", "b"], "points": 2},
        {"symbols": ["c", "c", "c"], "points": 3}]},
    "deck": ["a", "d", "a", "d", "b", "e", "d", "a", "e", "b", "b", "d", "b", "c", "d", "c", "c", "e", "c", "e", "c",
             "a", "a", "e", "e", "d", "e"],
    "turns": [
        {"seat": 0, "play": {"symbol": "a", "reels": [1, 3]}},
        {"seat": 1, "play": {"symbol": "e", "reels": [3]}},
        {"seat": 0, "play": {"symbol": "b", "reels": [3]}},
        {"seat": 1, "play": {"symbol": "d", "reels": [3]}},
        {"seat": 0, "double": True, "play": {"symbol": "c", "reels": [1, 2, 3]}},
    ],
}


def test_a_double_that_reaches_the_target_wins_before_anything_is_kept():
    trace = replay_script(WINNING_DOUBLE)
    assert trace["finished"] and trace["winner"] == 0 and trace["turns"][-1]["double"]
    with_keep = json.loads(json.dumps(WINNING_DOUBLE))
    with_keep["turns"][-1]["keep"] = ["a", "a"]
    with pytest.raises(ScriptError, match="turn 5, seat 0: keep is given, but the seat reached the target and won"):
        replay_script(with_keep)
