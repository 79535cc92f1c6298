"""The tally base every game's tally builds on: exact merges, tally.json, and what a bad one is refused with."""

import pytest

from analysis.tally import MergeableTally
from sim.games import all_games

GAMES = all_games()
IDS = [g.id for g in GAMES]


def report_tally(game, players):
    rules = game.Rules(players=players)
    return game.empty_tally(rules).report, rules


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_every_games_report_tally_is_a_mergeable_tally_stored_as_it_was(game, tmp_path):
    tally, rules = report_tally(game, game.min_players + 1)
    assert isinstance(tally, MergeableTally)
    io = game.report_tally_io
    io.write(tmp_path / "tally.json", tally)
    back = io.read(tmp_path / "tally.json")
    assert back == tally and back.merge(tally) == tally
    assert io.shape(back) == io.rules_shape(rules)
    assert (tmp_path / "tally.json").read_text(encoding="utf-8").count("\n") == 1


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_tallies_of_other_sizes_do_not_merge_and_say_what_differs(game):
    a, _ = report_tally(game, game.min_players + 1)
    b, _ = report_tally(game, game.min_players + 2)
    names = game.report_tally_io.names
    with pytest.raises(ValueError, match=f"cannot merge tallies of {game.min_players + 1} {names[0]} x .* {names[1]}"):
        a.merge(b)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_stored_tally_missing_its_fields_is_refused_as_not_a_tally(game, tmp_path):
    (tmp_path / "tally.json").write_text('{"players": 3}', encoding="utf-8")
    with pytest.raises(ValueError, match="not a .*tally"):
        game.report_tally_io.read(tmp_path / "tally.json")
