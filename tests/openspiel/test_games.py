"""Every game with an OpenSpiel table passes OpenSpiel's own checks, and its knobs are its parameters."""

import pytest

pyspiel = pytest.importorskip("pyspiel")

import sim.openspiel as so  # noqa: E402
from sim.errors import ConfigError  # noqa: E402
from sim.games import GAME_IDS, get_game  # noqa: E402
from sim.openspiel.adapter import game_name  # noqa: E402

GAMES = sorted(so.register())


def test_every_shipped_game_with_a_table_is_registered_by_its_id():
    assert {"lasvegan", "vegas-dice", "fever"} <= set(GAMES)
    names = set(pyspiel.registered_names())
    for game_id in GAMES:
        assert game_name(game_id) in names
    assert set(GAMES) <= set(GAME_IDS)


def two_player_counts(game_id):
    game = get_game(game_id)
    return sorted({game.min_players + 1, game.max_players})


@pytest.mark.parametrize("game_id,players", [(g, p) for g in GAMES for p in two_player_counts(g)])
def test_random_sim_test_passes(game_id, players):
    game = pyspiel.load_game(game_name(game_id), {"players": players})
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("game_id", GAMES)
def test_every_knob_is_a_game_parameter_with_its_rulebook_value(game_id):
    game = get_game(game_id)
    spel = pyspiel.load_game(game_name(game_id))
    assert set(spel.get_parameters()) == set(game.knobs)
    assert spel.rules == game.Rules()


def test_a_list_knob_is_given_as_text_and_a_wrong_value_is_refused_naming_the_knob():
    spel = pyspiel.load_game("lvsim_lasvegan", {"players": 3, "tokens": "[[1;-1];[2;-2]]", "set_aside": "1"})
    assert spel.rules.tokens == ((1, -1), (2, -2)) and spel.rules.n_set_aside == 1
    with pytest.raises(ConfigError, match="rules.rounds"):
        pyspiel.load_game("lvsim_lasvegan", {"rounds": 9})
