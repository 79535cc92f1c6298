"""The backbone: the jitted core and the reference engine play the same games.

Both follow docs/engine.md and draw from the same per-game streams, so every
record of every game must be identical, for the rulebook game at each player
count and for rule sets that exercise the other knobs.
"""

import pytest

from sim.lasvegan.nb import play_games
from sim.lasvegan.params import Rules
from sim.lasvegan.policies import parse_seats
from sim.lasvegan.records import RECORD_FIELDS
from sim.lasvegan.rules import play_game
from tests.helpers import assert_records_match_reference

RULE_SETS = {
    "2p": (Rules(players=2), 2000),
    "3p": (Rules(players=3), 2000),
    "4p": (Rules(players=4), 2000),
    "5p": (Rules(players=5), 2000),
    "3p-unlimited-revealed-no-elim-end": (
        Rules(players=3, reserve="unlimited", end_on_elimination=False, set_aside=4, set_aside_face="revealed"),
        600,
    ),
    "4p-2rounds-seat-zero-payout-odd-tokens": (
        Rules(players=4, rounds=2, total_cabbages=60, payout_order="seat_zero", tokens=[[1, -1]], golden_token=[-2, 5]),
        600,
    ),
    "5p-short-cabbages-custom-machines": (
        Rules(players=5, starting_cabbages=5, machines=["value:7", "value:0", "suit:red"] * 4),
        600,
    ),
    "2p-1round-generous-tokens": (
        Rules(players=2, rounds=1, tokens=[[3, 2], [2, 1], [1, 0], [4, -4], [5, 5]], set_aside=2),
        600,
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(RULE_SETS))
def test_jitted_core_matches_reference_engine(name):
    rules, n = RULE_SETS[name]
    seed = 20261130
    ids, params = parse_seats("random", rules.players)
    rec = play_games(rules, seed, 0, n, ids, params)
    assert_records_match_reference(rec, lambda g: play_game(rules, seed, g), n, RECORD_FIELDS)
