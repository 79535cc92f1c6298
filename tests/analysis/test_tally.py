"""The tally base every game's tally builds on: exact merges, tally.json, and what a bad one is refused with."""

import dataclasses
import re

import pytest

from analysis.tally import MergeableTally
from sim.game import TallyIO
from sim.games import all_games
from tests.helpers import games_declared_for, other_players, own_players

GAMES = all_games()
IDS = [g.id for g in GAMES]


def report_tally(game, players):
    rules = game.Rules(players=players)
    return game.empty_tally(rules).report, rules


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_every_games_report_tally_is_a_mergeable_tally_stored_as_it_was(game, tmp_path):
    tally, rules = report_tally(game, own_players(game))
    assert isinstance(tally, MergeableTally)
    io = game.report_tally_io
    io.write(tmp_path / "tally.json", tally)
    back = io.read(tmp_path / "tally.json")
    assert back == tally and back.merge(tally) == tally
    assert io.shape(back) == io.rules_shape(rules)
    assert (tmp_path / "tally.json").read_text(encoding="utf-8").count("\n") == 1


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_tallies_of_other_sizes_do_not_merge_and_say_what_differs(game):
    if other_players(game) is None:
        pytest.skip(f"{game.id} is played at one player count only: its tallies are all of one size")
    players, other = own_players(game), other_players(game)
    a, _ = report_tally(game, players)
    b, _ = report_tally(game, other)
    io = game.report_tally_io

    def size(tally) -> str:  # the shape a game declares ("players" first, sim.game.Game), however many numbers
        return " x ".join(f"{n} {name}" for n, name in zip(io.shape(tally), io.names))

    assert size(a).startswith(f"{players} players") and size(b).startswith(f"{other} players")
    with pytest.raises(ValueError, match=re.escape(f"cannot merge tallies of {size(a)} and {size(b)}")):
        a.merge(b)


@pytest.mark.parametrize("counts", [(3, 7), (4, 4)], ids=["3 to 7 players", "4 players only"])
def test_the_tallies_compared_are_of_counts_the_game_is_declared_for(counts):
    with games_declared_for(lambda g: counts):
        for game in all_games():
            assert counts[0] <= own_players(game) <= counts[1], game.id
            other = other_players(game)
            assert (other is None) == (counts[0] == counts[1]), game.id
            assert other is None or (counts[0] <= other <= counts[1] and other != own_players(game)), game.id


def test_a_game_whose_tally_shape_does_not_start_with_its_players_is_refused_naming_the_game():
    game = GAMES[0]
    with pytest.raises(ValueError, match=re.escape(f"{game.id}: report_tally_io's shape is ('rounds',): it must start "
                                                   "with 'players'")):
        dataclasses.replace(game, report_tally_io=dataclasses.replace(game.report_tally_io, names=("rounds",)))
    # The players alone are a shape: a game need not count anything else.
    alone = dataclasses.replace(game, report_tally_io=TallyIO.of("analysis.tally:MergeableTally", ("players",)))
    assert alone.table_shape(game.Rules(players=3)) == (3,)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_stored_tally_missing_its_fields_is_refused_as_not_a_tally(game, tmp_path):
    (tmp_path / "tally.json").write_text('{"players": 3}', encoding="utf-8")
    with pytest.raises(ValueError, match="not a .*tally"):
        game.report_tally_io.read(tmp_path / "tally.json")
