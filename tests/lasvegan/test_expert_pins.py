"""The expert policy decides exactly as the recorded one did.

``tests/data/expert_decisions.json`` (written by ``tests/data/pin_expert.py``
before expert was made faster) holds situations at 2 to 5 players, under
the rulebook and rule variants, with the card or placement expert chose in
each, and digests of the records of fixed-seed games with expert seats.
Any change to how expert computes must leave every one of them as it was.
"""

import json
from pathlib import Path

import pytest

from sim.lasvegan.params import Rules
from sim.lasvegan.policies import parse_policy
from tests.data.pin_expert import game_digests
from tests.lasvegan.pinned import pinned_decision

PINS = json.loads((Path(__file__).parents[1] / "data" / "expert_decisions.json").read_text())


def test_the_pins_cover_cards_placements_variants_and_every_player_count():
    rows = PINS["situations"]
    placing = [r for r in rows if r["placing"]]
    assert len(placing) >= 300 and len(rows) - len(placing) >= 1500
    assert {r["pub"][0] for r in rows} == {2, 3, 4, 5}
    golden = [r for r in placing if r["decision"][0] == 3]
    assert len(golden) >= 50 and {r["decision"][2] for r in golden} == {0, 1}
    assert {len(g["rules"]) > 0 for g in PINS["games"]} == {True, False}


def test_expert_makes_the_recorded_decisions():
    policy_id, params = parse_policy("expert")
    differ = []
    for row in PINS["situations"]:
        got = pinned_decision(policy_id, params, row, PINS["stream_seed"])
        if got != row["decision"]:
            differ.append((row["stream"][0], got, row["decision"]))
    assert not differ, f"{len(differ)} of {len(PINS['situations'])} decisions differ, first: {differ[:5]}"


@pytest.mark.parametrize("entry", PINS["games"], ids=lambda e: f"{e['players']}p-{e['seed']}")
def test_games_with_expert_seats_are_the_recorded_ones(entry):
    Rules.from_mapping({"players": entry["players"], **entry["rules"]})  # the variant still reads
    now = game_digests(entry["players"], entry["rules"], entry["seats"], entry["games"], entry["seed"])
    assert now == entry["records"]
