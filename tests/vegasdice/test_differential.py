"""The backbone: the jitted core and the reference engine play the same games.

Both follow docs/engine.md (section "Las Vegas") and draw from the same
per-game streams, so every record of every game must be identical, at every
player count, with and without white dice, under every policy.
"""

import pytest

from sim.vegasdice.nb import play_games
from sim.vegasdice.params import Rules
from sim.vegasdice.policies import parse_seats
from tests.helpers import assert_kernel_plays_as_reference

MIXED = ["random", "greedy", "montecarlo:2", "greedy", "random"]

RULE_SETS = {
    "2p": (Rules(players=2), ["random"] * 2, 800),
    "3p": (Rules(players=3), ["random"] * 3, 800),
    "4p": (Rules(players=4), ["random"] * 4, 800),
    "5p": (Rules(players=5), ["random"] * 5, 800),
    "2p-greedy": (Rules(players=2), ["greedy"] * 2, 300),
    "4p-greedy-random": (Rules(players=4), ["greedy", "random", "greedy", "random"], 300),
    "3p-no-white": (Rules(players=3, white_dice=0), ["random", "greedy", "random"], 300),
    "3p-white-no-extra": (Rules(players=3, white_dice_extra_at_3=False), ["greedy", "random", "random"], 300),
    "4p-no-white": (Rules(players=4, white_dice=0), ["random"] * 4, 300),
    "5p-white": (Rules(players=5, white_dice=3), ["greedy", "random", "greedy", "random", "random"], 300),
    "2p-count-long": (Rules(players=2, rounds=9, tie_break="count"), ["random", "greedy"], 200),
    "5p-pile-ends-game": (Rules(players=5, rounds=10, empty_pile="end"), ["greedy"] * 5, 200),
    "2p-short-pile-no-tie-break": (
        Rules(players=2, rounds=10, bills=[[10000, 3], [50000, 6]], tie_break="none"), ["random", "greedy"], 200
    ),
    "4p-small-table": (Rules(players=4, casinos=4, dice_per_player=5, casino_minimum=90000), ["random"] * 4, 300),
    "3p-mixed": (Rules(players=3), MIXED[:3], 60),
    "4p-mixed": (Rules(players=4), MIXED[:4], 40),
    "5p-mixed-no-white": (Rules(players=5, white_dice=0), MIXED, 30),
    "2p-mixed": (Rules(players=2), ["montecarlo:3", "greedy"], 60),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(RULE_SETS))
def test_jitted_core_matches_reference_engine(name):
    assert_kernel_plays_as_reference("vegas-dice", *RULE_SETS[name])


def test_the_rule_sets_exercise_what_they_are_named_for():
    """The knobs above do change games: short casinos, early ends, shared wins happen."""
    def run(name, n=300):
        rules, seats, _ = RULE_SETS[name]
        ids, params = parse_seats(seats, rules.players)
        return play_games(rules, 1, 0, n, ids, params)

    assert (run("2p-short-pile-no-tie-break")["short_casinos"] > 0).any()
    ended = run("5p-pile-ends-game")["rounds_played"]
    assert (ended < 10).any() and (ended >= 1).all()
    assert (run("4p-no-white")["white_won"] == 0).all()
    assert (run("3p")["white_won"] > 0).any()
