"""The lookahead policy decides exactly as the recorded one did.

``tests/data/lookahead_decisions.json`` (written by
``tests/data/pin_lookahead.py`` before the policy was made faster) holds
situations with the decisions lookahead made in them and the records of a
few games with lookahead seats. Any change to how lookahead computes must
leave every one of them as it was.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from sim.lasvegan.nb import play_games
from sim.lasvegan.params import Rules
from sim.lasvegan.policies import parse_policy, parse_seats
from sim.lasvegan.records import RECORD_FIELDS
from tests.lasvegan.pinned import pinned_decision

PINS = json.loads((Path(__file__).parents[1] / "data" / "lookahead_decisions.json").read_text())


def test_the_pins_cover_cards_placements_and_every_player_count():
    rows = PINS["situations"]
    assert sum(r["placing"] for r in rows) >= 10 and sum(not r["placing"] for r in rows) >= 100
    assert {r["pub"][0] for r in rows} == {2, 3, 4, 5}


@pytest.mark.parametrize("policy", ["lookahead:8", "lookahead:5:win", "lookahead:24"])
def test_lookahead_makes_the_recorded_decisions(policy):
    policy_id, params = parse_policy(policy)
    differ = []
    for k, row in enumerate(PINS["situations"]):
        got = pinned_decision(policy_id, params, row, PINS["stream_seed"])
        if got != row["decisions"][policy]:
            differ.append((k, got, row["decisions"][policy]))
    assert not differ, f"{len(differ)} decisions differ, first: {differ[:5]}"


@pytest.mark.parametrize("entry", PINS["games"], ids=lambda e: f"{e['players']}p")
def test_games_with_lookahead_seats_are_the_recorded_ones(entry):
    ids, params = parse_seats(entry["seats"], entry["players"])
    rec = play_games(Rules(players=entry["players"]), entry["seed"], 0, entry["games"], ids, params)
    for field in RECORD_FIELDS:
        np.testing.assert_array_equal(rec[field], np.array(entry["records"][field]), err_msg=field)
