"""Experiment files: the default config, strict validation, overrides, writing back."""

import tomllib
from textwrap import dedent

import pytest

from sim.config import DEFAULT_CONFIG_PATH, Config, config_from_mapping, default_config, load_config
from sim.errors import ConfigError
from sim.games import GAME_IDS
from sim.lasvegan.params import Rules


def write(tmp_path, text, name="exp.toml"):
    path = tmp_path / name
    path.write_text(dedent(text))
    return path


def test_default_config_is_the_rulebook_game_at_four_players():
    config = load_config(DEFAULT_CONFIG_PATH)
    assert config == Config(name="default", games=100_000, seed=1, rules=Rules(players=4), seats="expert")
    # The built-in twin used when the file is absent is the same experiment.
    assert default_config() == config


def test_default_config_spells_out_exactly_the_documented_schema():
    data = tomllib.loads(DEFAULT_CONFIG_PATH.read_text())
    assert set(data) == {"game", "run", "rules", "policies"}
    assert data["run"] == {"games": 100_000, "seed": 1}
    # docs/running.md gives these two commented out: the file is the rulebook's game, which has no seat_cabbages.
    assert set(data["rules"]) == set(Rules.__dataclass_fields__) - {"payout_order", "seat_cabbages"}
    assert data["policies"] == {"seats": "expert"}


def test_every_key_is_optional_but_the_game(tmp_path):
    config = load_config(write(tmp_path, 'game = "lasvegan"\n'))
    assert config == Config(name="exp")


@pytest.mark.parametrize("game, policy", [("lasvegan", "expert"), ("vegas-dice", "greedy"), ("fever", "montecarlo:4")])
def test_without_policies_every_seat_plays_the_games_default_player(tmp_path, game, policy):
    config = load_config(write(tmp_path, f'game = "{game}"\n[rules]\nplayers = 3\n'))
    assert config.seat_policies == (policy,) * 3
    assert load_config(write(tmp_path, f'game = "{game}"\n[policies]\n', "empty.toml")).seats == policy
    assert Config(game=game).seats == policy
    # Written back, the seats are spelled out: the saved config replays the same players.
    assert config.to_dict()["policies"] == {"seats": policy}


def test_a_full_custom_config_is_read(tmp_path):
    path = write(
        tmp_path,
        """
        game = "lasvegan"
        [run]
        games = 250
        seed = 12
        threads = 1
        [rules]
        players = 3
        rounds = 2
        reserve = "unlimited"
        set_aside = 4
        set_aside_face = "revealed"
        end_on_elimination = false
        [policies]
        seats = ["random", "random", "random"]
        """,
    )
    config = load_config(path)
    assert (config.games, config.seed, config.threads) == (250, 12, 1)
    assert config.rules == Rules(
        players=3, rounds=2, reserve="unlimited", set_aside=4, set_aside_face="revealed", end_on_elimination=False
    )
    assert config.seats == ("random",) * 3 and config.seat_policies == ("random",) * 3


@pytest.mark.parametrize(
    "text, message",
    [
        ('game = "lasvegas"', f"game: must be {' or '.join(map(repr, GAME_IDS))}, got 'lasvegas'"),
        ("[run]\ngames = 10", "game: missing"),
        ('game = "lasvegan"\ncolour = 1', "colour: unknown key"),
        ('game = "lasvegan"\n[report]\nx = 1', "report: unknown table"),
        ('game = "lasvegan"\nrun = 5', "run: must be a table, got 5"),
        ('game = "lasvegan"\n[run]\ngamez = 10',
         "run.gamez: unknown key (known: games, seed, threads, skill_gap_games, strength_games, strength_slow_games, "
         "sensitivity_games)"),
        ('game = "lasvegan"\n[run]\ngames = 0', "run.games: must be at least 1, got 0"),
        ('game = "lasvegan"\n[run]\ngames = "many"', "run.games: must be an integer, got 'many'"),
        ('game = "lasvegan"\n[run]\ngames = 1e5', "run.games: must be an integer, got 100000.0"),
        ('game = "lasvegan"\n[run]\nseed = -1', "run.seed: must be between 0 and"),
        ('game = "lasvegan"\n[run]\nseed = true', "run.seed: must be an integer, got true"),
        ('game = "lasvegan"\n[run]\nthreads = 0', "run.threads: must be at least 1, got 0"),
        ('game = "lasvegan"\n[rules]\nplayers = 7', "rules.players: must be between 2 and 5, got 7"),
        ('game = "lasvegan"\n[rules]\nplayer = 4', "rules.player: unknown key"),
        ('game = "lasvegan"\n[rules]\nreserve = "infinite"', "rules.reserve: must be 'finite' or 'unlimited'"),
        ('game = "lasvegan"\n[rules]\nplayers = 3\nset_aside = 0', "rules.set_aside: 40 cards minus 0 set aside"),
        ('game = "lasvegan"\n[rules]\nstarting_cabbages = 20', "rules.total_cabbages: 4 players x 20"),
        ('game = "lasvegan"\n[rules]\nseat_cabbages = [0, 10, 6]',
         "rules.total_cabbages: 4 players x 15 starting cabbages + 16 extra (seat_cabbages) = 76 dealt, more than"),
        ('game = "lasvegan"\n[rules]\nseat_cabbages = [0, -1]', "rules.seat_cabbages[1]: must be between 0 and 10000"),
        ('game = "lasvegan"\n[rules]\nmachines = ["suit:pink"]', "rules.machines[0]: unknown machine sticker"),
        ('game = "lasvegan"\n[rules]\ntokens = [[1, 2, 3]]', "rules.tokens[0]: must be a [face, face] integer pair, got [1, 2"),
        ('game = "lasvegan"\n[policies]\nseats = "genius"', "policies.seats: unknown policy 'genius'"),
        ('game = "lasvegan"\n[policies]\nseats = ["random", "random"]', "policies.seats: lists 2 policies for 4"),
        ('game = "lasvegan"\n[policies]\nseats = ["random", 1, "random", "random"]', "policies.seats[1]: must be"),
        ('game = "lasvegan"\n[policies]\nseats = 3', "policies.seats: must be a policy name or a list"),
        ('game = "lasvegan"\n[policies]\nseat = "random"', "policies.seat: unknown key (known: seats)"),
    ],
)
def test_malformed_configs_name_the_key(tmp_path, text, message):
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, text + "\n"))
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)


def test_malformed_toml_names_the_file_and_the_line(tmp_path):
    path = write(tmp_path, 'game = "lasvegan"\n[run]\ngames = \n')
    with pytest.raises(ConfigError, match=r"exp\.toml: not valid TOML: .*line 3"):
        load_config(path)


def test_a_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="nope.toml: no such file"):
        load_config(tmp_path / "nope.toml")


def test_a_directory_is_not_a_config(tmp_path):
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path)


def test_overrides_replace_only_what_is_given():
    config = default_config()
    assert config.with_overrides() == config
    changed = config.with_overrides(games=10, seed=99, threads=2)
    assert (changed.games, changed.seed, changed.threads, changed.rules) == (10, 99, 2, config.rules)


def test_a_player_override_recomputes_the_cards_set_aside():
    config = default_config().with_overrides(players=3)
    assert config.rules.players == 3
    assert (config.rules.n_set_aside, config.rules.hand_size) == (1, 13)
    assert config.seat_policies == ("expert",) * 3


def test_a_player_override_checks_the_rules_again():
    config = config_from_mapping({"game": "lasvegan", "rules": {"set_aside": 0}})
    with pytest.raises(ConfigError, match=r"^rules\.set_aside: .* among 3 players"):
        config.with_overrides(players=3)
    with pytest.raises(ConfigError, match=r"^rules\.players: must be between 2 and 5, got 6"):
        config.with_overrides(players=6)


def test_a_player_override_checks_the_seat_list():
    config = config_from_mapping({"game": "lasvegan", "policies": {"seats": ["random"] * 4}})
    with pytest.raises(ConfigError, match=r"^policies\.seats: lists 4 policies for 5 players"):
        config.with_overrides(players=5)


@pytest.mark.parametrize("key, value, message", [
    ("games", 0, "run.games: must be at least 1"),
    ("seed", -3, "run.seed: must be between 0"),
    ("threads", 0, "run.threads: must be at least 1"),
])
def test_bad_overrides_are_config_errors(key, value, message):
    with pytest.raises(ConfigError, match=f"^{message}"):
        default_config().with_overrides(**{key: value})


@pytest.mark.parametrize(
    "config",
    [
        Config(name="default"),
        Config(
            name="odd",
            games=7,
            seed=2**63 - 1,
            threads=3,
            rules=Rules(players=3, set_aside=4, reserve="unlimited", tokens=((2, -5),), golden_token=(0, 9),
                        machines=("value:0",) * 12, payout_order="seat_zero", end_on_elimination=False),
            seats=("random", "random", "random"),
        ),
    ],
)
def test_the_resolved_toml_reads_back_to_the_same_config(config):
    text = config.to_toml()
    assert config_from_mapping(tomllib.loads(text), name=config.name) == config
    assert f"# Resolved config of experiment {config.name!r}." in text


def test_the_slow_strength_games_are_read_under_their_earlier_name_too():
    """run.strength_lookahead_games named Las Vegan's slow policy; configs written with it still run alike."""
    new = config_from_mapping({"game": "lasvegan", "run": {"strength_slow_games": 3}})
    old = config_from_mapping({"game": "lasvegan", "run": {"strength_lookahead_games": 3}})
    assert old == new and old.strength_sizes[1] == 3
    assert "strength_slow_games = 3" in old.to_toml() and "lookahead" not in old.to_toml()
    assert Config(strength_lookahead_games=5) == Config(strength_slow_games=5)
    with pytest.raises(ConfigError, match=r"^run\.strength_lookahead_games: must be between 0 and"):
        config_from_mapping({"game": "lasvegan", "run": {"strength_lookahead_games": -1}})
    with pytest.raises(ConfigError, match=r"^run\.strength_lookahead_games: is the earlier name of "
                                          r"run\.strength_slow_games: give one of them"):
        config_from_mapping({"game": "lasvegan", "run": {"strength_lookahead_games": 1, "strength_slow_games": 1}})


def test_a_sweep_or_tune_file_given_as_a_config_is_named_as_one(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text('base = "default.toml"\n[search]\n')
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert err.value.field == "base" and "a sweep or tune file" in str(err.value)
