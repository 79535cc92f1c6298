"""Rule knobs: defaults are the rulebook's, and every bad value names its key."""

import pytest

from sim.errors import ConfigError
from sim.vegasdice.params import KNOBS, Rules


def test_the_defaults_are_the_box():
    rules = Rules()
    assert len(rules.pile) == 54 and rules.total_money == 2_500_000
    assert rules.bill_values[0] == 90000 and rules.casinos == 6 and rules.dice_per_player == 8
    assert [Rules(players=p).n_white for p in (2, 3, 4, 5)] == [4, 2, 2, 0]
    assert set(KNOBS) == set(Rules.__dataclass_fields__)
    assert Rules.from_mapping({}) == Rules()
    assert Rules.from_mapping(Rules(players=3, tie_break="count").to_dict()) == Rules(players=3, tie_break="count")
    assert Rules(players=3, white_dice=0).differences() == {"white_dice": 0}


@pytest.mark.parametrize(
    "table,key,message",
    [
        ({"players": 1}, "players", "between 2 and 5, got 1"),
        ({"players": 6}, "players", "between 2 and 5, got 6"),
        ({"players": "4"}, "players", "must be an integer"),
        ({"rounds": 0}, "rounds", "between 1 and 10"),
        ({"rounds": True}, "rounds", "must be an integer"),
        ({"dice_per_player": 0}, "dice_per_player", "between 1 and 16"),
        ({"dice_per_player": 17}, "dice_per_player", "between 1 and 16"),
        ({"casinos": 1}, "casinos", "between 2 and 12"),
        ({"casinos": 13}, "casinos", "between 2 and 12"),
        ({"casino_minimum": 0}, "casino_minimum", "between 1 and"),
        ({"white_dice": 9}, "white_dice", "between 0 and 8"),
        ({"white_dice": "some"}, "white_dice", "a number or 'auto'"),
        ({"white_dice_extra_at_3": 2}, "white_dice_extra_at_3", "true, false or 'auto'"),
        ({"white_dice_extra_at_3": True, "players": 4}, "white_dice_extra_at_3", "3-player rule"),
        ({"tie_break": "money"}, "tie_break", "'bills', 'count' or 'none'"),
        ({"empty_pile": "reshuffle"}, "empty_pile", "'short' or 'end'"),
        ({"bills": 5}, "bills", "list of \\[value, count\\] integer pairs"),
        ({"bills": [[10000]]}, "bills\\[0\\]", "a \\[value, count\\] integer pair, got \\[10000\\]"),
        ({"bills": [[0, 5]]}, "bills\\[0\\]\\[0\\]", "between 1 and"),
        ({"bills": [[10000, -1], [50000, 10]]}, "bills\\[0\\]\\[1\\]", "between 0 and"),
        ({"bills": [[50000, 10], [50000, 2]]}, "bills\\[1\\]", "lists the value 50000 again"),
        ({"bills": [[50000, 0]]}, "bills", "between 1 and 32 values"),
        ({"bills": [[50000, 5]]}, "bills", "can never all be filled"),
        ({"bills": [[10_000_000, 300]]}, "bills", "at most 2,147,483,647"),
        ({"bills": [[1, 500], [10_000_000, 10]]}, "bills", "steps of the values' common divisor"),
        ({"casino_minimum": 200_000}, "casino_minimum", "20 bills on one casino"),
        ({"colours": 5}, "colours", "unknown key"),
    ],
)
def test_a_bad_knob_is_a_config_error_naming_the_key(table, key, message):
    with pytest.raises(ConfigError, match=f"^rules\\.{key}: .*{message}"):
        Rules.from_mapping(table)


def test_enough_bills_for_one_round_is_accepted():
    # 6 casinos x 50 000 exactly: the pile can fill round 1 (later rounds may run short).
    rules = Rules(bills=[[50000, 6]])
    assert rules.total_money == 300000
