"""A bad [rules] table is refused naming its key, and another game's key names the game it belongs to."""

import pytest

from sim.config import config_from_mapping
from sim.errors import ConfigError
from sim.games import all_games
from tests.conformance.conftest import hooks


def test_each_bad_rules_table_names_its_key(game):
    h = hooks(game)
    assert len(h.BAD_RULES) >= 5
    for table, key in h.BAD_RULES:
        with pytest.raises(ConfigError) as err:
            config_from_mapping({"game": game.id, "rules": table})
        assert err.value.field == f"rules.{key}", (table, str(err.value))
        with pytest.raises(ConfigError) as err:
            game.rules_from_mapping(table)
        assert err.value.field == f"rules.{key}", (table, str(err.value))


def test_a_key_of_another_game_names_the_game_it_belongs_to(game):
    own = set(game.Rules.__dataclass_fields__)
    checked = 0
    for other in all_games():
        if other.id == game.id:
            continue
        for key in sorted(set(other.Rules.__dataclass_fields__) - own):
            default = getattr(other.Rules(), key)
            with pytest.raises(ConfigError) as err:
                config_from_mapping({"game": game.id, "rules": {key: default}})
            assert err.value.field == f"rules.{key}"
            assert other.title in err.value.problem and f'game = "{other.id}"' in err.value.problem
            assert game.title in err.value.problem
            checked += 1
    assert checked or len(all_games()) == 1


def test_the_rulebook_game_is_a_good_config(game):
    config = config_from_mapping({"game": game.id})
    assert config.rules == game.Rules()
