"""Replay: a game given by hand, as a function and as ``lvsim replay``."""

import copy
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.errors import ScriptError
from sim.lasvegan import enums as E
from sim.lasvegan.params import Rules, machine_name
from sim.lasvegan.replay import replay_path, replay_script
from sim.lasvegan.rules import card_name, deal_round, play_game, shuffled_pile
from sim.rng import Stream

EXAMPLE = Path(__file__).parent.parent / "data" / "replay_example.json"


def tricks(leaders_and_cards):
    return [{"leader": leader, "cards": cards.split(), "winner": winner} for leader, cards, winner in leaders_and_cards]


# Worked out by hand. Each seat holds one whole suit, so only the leader can
# follow suit and an off-suit 0 is the only way to take a trick from it.
# Machines: suit:red with token 2 (-3), value:5 with token 0 (+1), value:9 with
# token 3 (-1); golden token 4 on MIN.
EXPECTED_TRACE = {
    "rounds": [
        {
            "leader": 0,
            "tricks": tricks([
                (0, "G9 B9 R9 P9", 0),
                (0, "G8 B8 R8 P8", 0),
                (0, "G7 B7 R7 P7", 0),  # four 7s: seat 0 places all four tokens
                (0, "G6 B0 R0 P6", 2),  # two off-suit zeros: the last one wins
                (2, "R6 P0 G5 B6", 3),
                (3, "P5 G4 B5 R5", 3),
                (3, "P4 G0 B4 R4", 0),
                (0, "G3 B3 R3 P3", 0),
                (0, "G2 B2 R2 P2", 0),
                (0, "G1 B1 R1 P1", 0),
            ]),
            "placements": [
                {"seat": 0, "token": 2, "machine": 0, "value": -3},
                {"seat": 0, "token": 0, "machine": 1, "value": 1},
                {"seat": 0, "token": 3, "machine": 2, "value": -1},
                {"seat": 0, "golden": "min", "value": 4},
            ],
            "tricks_won": [7, 0, 1, 2],
            "machine_amounts": [
                [-6, 0, 0, 0],  # seat 0 won 7 reds: two groups of three
                [0, 0, 0, 4],  # seat 3 won G5 B5 R5 P5
                [-4, 0, 0, 0],  # seat 0 won all four 9s
                [0, -4, 0, 0],  # seat 1 won the fewest tricks (none)
            ],
            "net": [-10, -4, 0, 4],
            "cabbages": [5, 11, 15, 19],
            "reserve": 25,  # 15 + 10 + 4 paid in, 4 paid out
            "shortfall": 0,
            "game_over": True,
        }
    ],
    "winners": [3],
}


def example() -> dict:
    return json.loads(EXAMPLE.read_text())


def test_the_example_script_gives_the_trace_worked_out_by_hand():
    assert replay_path(EXAMPLE) == EXPECTED_TRACE


def test_lvsim_replay_prints_the_trace_as_json():
    result = CliRunner().invoke(main, ["replay", str(EXAMPLE)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == EXPECTED_TRACE


def test_a_simulated_game_replays_to_the_same_trace():
    # Rebuild the script of a random game from its deals and its trace: the
    # replay must reproduce the trace, elimination and all.
    # chosen to cover: four full rounds with a hidden 7 set aside (3 players),
    # elimination in the last round (4), in round 2 (5), in round 3 (2)
    for players, starting, game in [(3, 15, 3), (4, 15, 7), (5, 10, 5), (2, 8, 7)]:
        rules = Rules(players=players, starting_cabbages=starting)
        _, trace = play_game(rules, 2024, game, trace=True)
        table = Stream(2024, game, E.STREAM_TABLE)
        pile = shuffled_pile(rules, table)
        rounds = []
        for r, played in enumerate(trace["rounds"]):
            deal = deal_round(rules, table, pile, r)
            rounds.append({
                "machines": [machine_name(code) for code in deal.machines],
                "token_faces": list(deal.token_faces),
                "golden_face": deal.golden_face,
                "hands": [[card_name(c) for c in hand] for hand in deal.hands],
                "set_aside": [card_name(c) for c in deal.set_aside],
                "plays": [card for trick in played["tricks"] for card in trick["cards"]],
                "placements": [
                    {"golden": p["golden"]} if "golden" in p else {"token": p["token"], "machine": p["machine"]}
                    for p in played["placements"]
                ],
            })
        script = {"rules": rules.to_dict(), "rounds": rounds}
        assert replay_script(script) == trace


# --- illegal and inconsistent scripts ------------------------------------------------


def swap_cards(script, a, b):
    hands = script["rounds"][0]["hands"]
    for hand in hands:
        for i, card in enumerate(hand):
            hand[i] = {a: b, b: a}.get(card, card)


def not_following_suit(s):
    swap_cards(s, "G1", "B1")  # seat 1 now holds a green card but throws B9 on G9


def card_not_in_hand(s):
    s["rounds"][0]["plays"][1] = "R9"


def missing_placement(s):
    s["rounds"][0]["placements"].pop()


def extra_placement(s):
    s["rounds"][0]["placements"].append({"golden": "max"})


def machine_taken(s):
    s["rounds"][0]["placements"][1] = {"token": 0, "machine": 0}


def too_few_hands(s):
    s["rounds"][0]["hands"].pop()


def too_few_plays(s):
    s["rounds"][0]["plays"].pop()


def not_a_card(s):
    s["rounds"][0]["plays"][0] = "X9"


def unknown_rule(s):
    s["rules"]["colour"] = 1


def bad_player_count(s):
    s["players"] = 7


def game_not_finished(s):
    s["rules"]["rounds"] = 2


def machine_not_in_the_box(s):
    s["rounds"][0]["machines"][1] = "value:7"


def malformed_placement(s):
    s["rounds"][0]["placements"][0] = {"token": 2}


def golden_face_out_of_range(s):
    s["rounds"][0]["golden_face"] = 7


def token_face_not_a_face(s):
    s["rounds"][0]["token_faces"][2] = True


@pytest.mark.parametrize(
    "break_script, message",
    [
        (not_following_suit, "round 1, trick 1, seat 1: must follow suit (holds green, played B9)"),
        (card_not_in_hand, "round 1, trick 1, seat 1: card R9 is not in the hand"),
        (missing_placement, "round 1, trick 3, seat 0: a placement is owed for each 7 won (placements lists only 3)"),
        (extra_placement, "round 1: placements lists 5 placements, but only 4 were owed"),
        (machine_taken, "round 1, trick 3, seat 0: machine 0 already holds a token"),
        (too_few_hands, "round 1: 3 hands dealt for 4 players"),
        (too_few_plays, "round 1, trick 10, seat 3: plays lists 39 cards, the round needs 40"),
        (not_a_card, "round 1, trick 1, seat 0: 'X9' is not a card"),
        (unknown_rule, "rules.colour: unknown key"),
        (bad_player_count, "players: must be between 2 and 5, got 7"),  # the script's own key
        (game_not_finished, "the game lasts 2 rounds (rules.rounds), but the script gives 1"),
        (machine_not_in_the_box, "round 1: machine value:7 is not left in the pile"),
        (malformed_placement, 'round 1, trick 3, seat 0: a placement is {"token": t, "machine": 0-2}'),
        (golden_face_out_of_range, "round 1: golden_face: a token face is 0 (first listed) or 1 (second), got 7"),
        (token_face_not_a_face, "round 1: token_faces[2]: a token face is 0 (first listed) or 1 (second), got true"),
    ],
)
def test_an_illegal_script_names_round_trick_seat_and_rule(break_script, message, tmp_path):
    script = copy.deepcopy(example())
    break_script(script)
    with pytest.raises(ScriptError) as err:
        replay_script(script)
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)

    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: {message}")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_malformed_json_exits_2_with_one_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"rounds": [')
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 2
    assert "not valid JSON" in result.stderr and result.stderr.count("\n") == 1


def test_a_missing_file_exits_2(tmp_path):
    result = CliRunner().invoke(main, ["replay", str(tmp_path / "nowhere.json")])
    assert result.exit_code == 2
    assert result.stderr == f"error: {tmp_path / 'nowhere.json'}: no such file\n"
    with pytest.raises(ScriptError, match="nowhere.json: no such file"):
        replay_path(tmp_path / "nowhere.json")


def test_a_script_that_goes_on_after_elimination_is_rejected():
    script = example()
    script["rules"] = {"starting_cabbages": 4, "rounds": 2}
    script["rounds"].append(copy.deepcopy(script["rounds"][0]))
    with pytest.raises(ScriptError, match=r"round 2: the game ended after round 1 \(a seat has 0 cabbages\)"):
        replay_script(script)
