"""The backbone: the jitted core and the reference engine play the same games.

Both follow docs/engine.md (section "$ Fever") and draw from the same
per-game streams, so every record of every game must be identical, at every
player count, with and without doubling, under every policy and rule knob.
"""

import pytest

from sim.fever.nb import play_games
from sim.fever.params import Rules
from sim.fever.policies import parse_seats
from tests.helpers import assert_kernel_plays_as_reference

MIXED = ["random", "greedy", "montecarlo:2", "random:0.5", "greedy:4"]
WIDE_TABLE = [
    {"symbols": ["bar|double_bar", "bar|double_bar", "bar|double_bar"], "points": 3},
    {"symbols": ["cherry", "cherry", "*"], "points": 1},
    {"symbols": ["seven", "*", "*"], "points": 2},
    {"symbols": ["bell", "bell", "bell"], "points": 3},
]

RULE_SETS = {
    **{f"{p}p": (Rules(players=p), ["random"] * p, 200) for p in range(1, 6)},
    **{f"{p}p-no-double": (Rules(players=p, double_up=False), ["random"] * p, 200) for p in range(1, 6)},
    **{f"{p}p-greedy": (Rules(players=p), ["greedy"] * p, 150) for p in range(1, 6)},
    **{f"{p}p-mixed": (Rules(players=p), MIXED[:p], 25) for p in range(1, 6)},
    "3p-doubling-often": (Rules(players=3, double_extra_cards=6, double_max_cards=2), ["random:0.9"] * 3, 200),
    "2p-wide-table-ordered": (Rules(players=2, paytable=WIDE_TABLE, reels_ordered=True), ["greedy", "random"], 200),
    "4p-wide-table": (Rules(players=4, paytable=WIDE_TABLE), ["greedy", "random:0.5"] * 2, 200),
    "5p-no-refill-no-reshuffle": (Rules(players=5, refill_after_scoring=False, reshuffle_discards=False),
                                  ["random", "greedy"] * 2 + ["random"], 200),
    "1p-small-deck": (Rules(players=1, deck={"cherry": 4, "lemon": 3},
                            paytable=[{"symbols": ["cherry"] * 3, "points": 2}], target=6), ["random:0.5"], 300),
    "3p-redeal-wide-table": (Rules(players=3, paytable=WIDE_TABLE, dealt_combination="redeal"),
                             ["greedy", "random:0.5", "random"], 200),
    "2p-mixed-no-double": (Rules(players=2, double_up=False), ["montecarlo:3", "greedy"], 60),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(RULE_SETS))
def test_jitted_core_matches_reference_engine(name):
    assert_kernel_plays_as_reference("fever", *RULE_SETS[name])


def test_the_rule_sets_exercise_what_they_are_named_for():
    """The differential runs above are not vacuous: doubles, reshuffles, droughts and wins all happen."""
    rules, seats, n = RULE_SETS["3p-doubling-often"]
    ids, params = parse_seats(seats, rules.players)
    rec = play_games(rules, 3, 0, 200, ids, params)
    assert rec["doubles"].sum() > 0 and rec["reshuffles"].sum() > 0 and rec["drought_rounds"].sum() > 0
    rules, seats, n = RULE_SETS["4p-greedy"]
    rec = play_games(rules, 3, 0, 200, *parse_seats(seats, 4))
    assert (rec["winner"] >= 0).any() and (rec["winner"] < 0).any()
    rules, seats, n = RULE_SETS["5p-no-refill-no-reshuffle"]
    rec = play_games(rules, 3, 0, 200, *parse_seats(seats, 5))
    assert rec["passes"].sum() > 0 and rec["reshuffles"].sum() == 0
