"""The registry and the game contract as a designer meets them: lvsim games, game ids, a dice run."""

import json
import sys

import numpy as np
import pytest
from click.testing import CliRunner

import sim
from sim.cli import main
from sim.config import config_from_mapping
from sim.errors import ConfigError, GameError
from sim.games import GAME_IDS, all_games, get_game


def test_game_ids_are_more_than_one_typo_apart():
    def distance(a, b):
        row = list(range(len(b) + 1))
        for i, x in enumerate(a, 1):
            prev, row[0] = row[0], i
            for j, y in enumerate(b, 1):
                prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
        return row[-1]

    for a in GAME_IDS:
        for b in GAME_IDS:
            if a != b:
                assert distance(a, b) > 2, (a, b)


def test_games_json_lists_every_game_with_title_knobs_and_policies():
    result = CliRunner().invoke(main, ["games", "--json"])
    assert result.exit_code == 0, result.output
    listed = json.loads(result.output)
    assert list(listed) == list(GAME_IDS)
    for game in all_games():
        entry = listed[game.id]
        assert entry["title"] == game.title
        # Every knob with its default as the rules give it, and its domain.
        assert list(entry["knobs"]) == list(game.Rules.__dataclass_fields__)
        defaults = game.Rules().to_dict()
        for knob, spec in entry["knobs"].items():
            assert spec["default"] == defaults[knob], knob
            assert spec["values"]
        assert set(entry["policies"]) == set(game.policy_syntax)
        # Every listed policy is accepted by its bare name unless its syntax requires parameters.
        for name, spec in entry["policies"].items():
            if ":" in spec["syntax"].split("[")[0]:
                with pytest.raises(ConfigError):
                    game.parse_policy(name, "policies.seats")
            else:
                game.parse_policy(name, "policies.seats")


def test_games_text_names_each_game_by_title():
    result = CliRunner().invoke(main, ["games"])
    assert result.exit_code == 0
    for game in all_games():
        assert f"{game.id}: {game.title}" in result.output


@pytest.mark.parametrize("game_id", ["lasvegas", "vegasdice", "las-vegan", "", 3])
def test_an_unknown_game_is_refused_naming_the_known_ones(game_id):
    with pytest.raises(ConfigError) as err:
        config_from_mapping({"game": game_id})
    assert str(err.value).startswith("game: must be 'lasvegan' or 'vegas-dice'")
    with pytest.raises(ConfigError):
        get_game(game_id)


@pytest.mark.parametrize(
    "game_id, key, value, owner",
    [("lasvegan", "casinos", 6, "Las Vegas"), ("vegas-dice", "tokens", [[1, -1]], "Las Vegan")],
)
def test_a_rule_of_the_other_game_says_which_game_it_belongs_to(game_id, key, value, owner):
    with pytest.raises(ConfigError) as err:
        config_from_mapping({"game": game_id, "rules": {key: value}})
    message = str(err.value)
    assert message.startswith(f"rules.{key}: is a rule of {owner}")
    assert get_game(game_id).title in message


def test_a_key_of_no_game_is_an_unknown_key():
    with pytest.raises(ConfigError) as err:
        config_from_mapping({"game": "vegas-dice", "rules": {"dice": 8}})
    assert str(err.value).startswith("rules.dice: unknown key")


def test_a_dice_config_runs_with_its_summary_skill_gap_and_strength_profile():
    config = config_from_mapping({
        "game": "vegas-dice",
        "run": {"games": 1500, "seed": 3, "skill_gap_games": 4, "strength_games": 300,
                "strength_lookahead_games": 2},
        "rules": {"players": 3},
    })
    results = sim.run(config, out=None, progress=False)
    summary = results.summary
    assert summary["game"] == "vegas-dice" and summary["games"] == 1500 and summary["players"] == 3
    assert sum(summary["win_share"]) == pytest.approx(1.0)
    assert set(summary["skill_gap"]) == {d.name for d in get_game("vegas-dice").skill_gap_duels}
    assert [p["policy"] for p in summary["strength"]["profiles"]] == ["random", "greedy", "montecarlo:16"]
    assert str(results).startswith("Las Vegas, 3 players")
    assert len(results.to_pandas()) == 1500


def test_duel_and_bench_take_the_game_without_a_config():
    runner = CliRunner()
    duel = runner.invoke(main, ["duel", "--game", "vegas-dice", "--seats", "greedy,random,random", "--games", "50",
                                "--json"])
    assert duel.exit_code == 0, duel.output
    assert json.loads(duel.output)["game"] == "vegas-dice"
    bench = runner.invoke(main, ["bench", "--game", "vegas-dice", "--games", "200", "--players", "3", "--json"])
    assert bench.exit_code == 0, bench.output
    assert json.loads(bench.output)["game"] == "vegas-dice"
    bad = runner.invoke(main, ["bench", "--game", "vegas-dice", "--players", "7", "--games", "10"])
    assert bad.exit_code == 2 and "--players" in bad.output


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize("n_games", [0, 37])
def test_the_records_written_to_parquet_are_the_flat_table_of_every_game(game_id, n_games):
    import numpy as np
    import pyarrow as pa

    game = get_game(game_id)
    rules = game.Rules.from_mapping({})
    rec = game.records.empty(n_games, rules)
    for i, arr in enumerate(rec.values()):  # distinct values in every cell, so a column out of place shows
        arr[...] = (np.arange(arr.size).reshape(arr.shape) * (i + 1)) % 100
    frame = pa.Table.from_pandas(game.records.to_frame(rec), preserve_index=False)
    table = game.records.to_arrow(rec)
    assert table.equals(frame.replace_schema_metadata(None))


def test_games_come_from_the_entry_point_group_shipped_ones_first(monkeypatch):
    """A game of another package registers under ``lvsim.games`` and is listed after the shipped ones."""
    from importlib.metadata import EntryPoint

    import sim.games

    shipped_order = sim.games.SHIPPED_ORDER
    shipped = [EntryPoint(g, sim.games.ENTRY_POINTS[g].value, sim.games.GROUP) for g in reversed(shipped_order)]
    extra = EntryPoint("aardvark", "somewhere.game:GAME", sim.games.GROUP)
    monkeypatch.setattr(sim.games, "entry_points", lambda group: [extra, *shipped] if group == sim.games.GROUP else [])
    assert list(sim.games._registered()[0]) == [*shipped_order, "aardvark"]


def test_two_packages_registering_one_id_are_refused_when_that_game_is_asked_for(monkeypatch):
    """Found as the registry is first imported, but said only for that game: every other command still runs."""
    from importlib.metadata import EntryPoint

    import sim.games

    clash = [EntryPoint("fever", "a.game:GAME", sim.games.GROUP), EntryPoint("fever", "b.game:GAME", sim.games.GROUP)]
    monkeypatch.setattr(sim.games, "entry_points", lambda group: clash)
    entries, clashes = sim.games._registered()
    assert list(entries) == ["fever"] and set(clashes) == {"fever"}
    assert clashes["fever"].startswith("two games register the id 'fever': a.game:GAME and b.game:GAME; rename one")
    monkeypatch.setattr(sim.games, "CLASHES", clashes)
    sim.games.get_game.cache_clear()
    try:
        with pytest.raises(GameError, match="two games register the id 'fever'"):
            get_game("fever")
        assert get_game("highcard").id == "highcard"
        result = CliRunner().invoke(main, ["games", "--game", "fever"])
        assert result.exit_code == 1 and result.stderr.startswith("error: two games register the id 'fever'")
        assert "traceback" not in result.stderr and len(result.stderr.splitlines()) == 1
    finally:
        sim.games.get_game.cache_clear()


BROKEN = {
    "syntax": ("policies.py", "def choose(:\n", "SyntaxError: invalid syntax"),
    "import": ("policies.py", "from sim.rng import no_such_draw\n", "ImportError: cannot import name 'no_such_draw'"),
    "no GAME": ("game.py", "from sim.game import Game\n\nGAMES = None\n", "defines no GAME, the Game its entry point names"),
}


@pytest.fixture
def installed_as_highcard(tmp_path, monkeypatch):
    """Install a package ``brokengame`` as the game ``highcard``: ``install(files)`` writes its modules."""
    from importlib.metadata import EntryPoint

    import sim.games

    def install(files: dict[str, str]):
        (tmp_path / "brokengame").mkdir()
        (tmp_path / "brokengame" / "__init__.py").write_text("", encoding="utf-8")
        for name, text in files.items():
            (tmp_path / "brokengame" / name).write_text(text, encoding="utf-8")
        monkeypatch.syspath_prepend(str(tmp_path))
        monkeypatch.setitem(sim.games.ENTRY_POINTS, "highcard",
                            EntryPoint("highcard", "brokengame.game:GAME", sim.games.GROUP))
        sim.games.get_game.cache_clear()

    yield install
    sim.games.get_game.cache_clear()
    for name in [m for m in sys.modules if m == "brokengame" or m.startswith("brokengame.")]:
        del sys.modules[name]


@pytest.mark.parametrize("mistake", list(BROKEN))
def test_a_game_package_that_does_not_load_is_named_with_the_line_that_failed(installed_as_highcard, tmp_path,
                                                                              mistake):
    module, text, problem = BROKEN[mistake]
    installed_as_highcard({"game.py": "from brokengame import policies  # noqa: F401\nGAME = None\n",
                           "policies.py": "", module: text})
    result = CliRunner().invoke(main, ["games", "--game", "highcard"])
    assert result.exit_code == 1, result.output
    line = result.stderr
    assert len(line.splitlines()) == 1 and "bug in lvsim" not in line, line
    assert line.startswith(f"error: game 'highcard' (brokengame.game:GAME) does not load: "
                           f"{tmp_path / 'brokengame' / module}"), line
    assert problem in line, line


def test_a_game_package_that_does_not_load_stops_no_other_game(installed_as_highcard):
    """The hints that look at every game (a rule of another game, how long a compile takes, the help) skip it."""
    from sim.estimates.compiling import usual_text

    installed_as_highcard({"game.py": "GAME = None\n"})
    assert "highcard" not in [g.id for g in sim.games.loaded_games()]
    with pytest.raises(ConfigError, match="rules.top: "):
        config_from_mapping({"game": "fever", "rules": {"top": 3}})
    assert usual_text("no such game")
    for args in (["games", "--game", "fever"], ["--help"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, (args, result.output)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_game_names_its_engines_player_by_one_function_and_an_older_game_is_still_read(game_id):
    """``player_named(rules, text)`` of each engine module gives the player of ``seat_player`` for the parsed
    policy; a game written before it, giving ``policy_named(text)``, is read through the same helper."""
    from types import SimpleNamespace

    from sim.games import part_module
    from sim.reference import player_named_of

    engine = part_module(game_id, "rules") or part_module(game_id, "state")
    game = get_game(game_id)
    rules = game.Rules()
    named = player_named_of(engine)
    assert type(named(rules, "random")) is type(engine.seat_player(rules, *game.policies.parse("random")))
    greedy_id, _ = game.policies.parse("greedy")
    assert named(rules, "greedy").policy_id == greedy_id != game.policies.parse("random")[0]
    older = SimpleNamespace(policy_named=lambda text: f"the player of {text}")
    assert player_named_of(older)(rules, "greedy") == "the player of greedy"
    assert player_named_of(SimpleNamespace()) is None


@pytest.mark.parametrize("game_id", ["lasvegan", "vegas-dice"])
def test_a_game_written_before_players_still_gets_the_same_players(game_id):
    """``sim.reference.player_of`` and ``named``, as a game written before ``Players`` calls them, give the
    players its ``PLAYERS`` gives: the Python ``random`` twin, and each jitted policy with its parameters."""
    from sim import reference
    from sim.games import part_module

    engine = part_module(game_id, "rules")
    rules = get_game(game_id).Rules()
    JitPolicy, RandomPolicy = engine.PLAYERS.jit_policy, engine.PLAYERS.random_policy
    older = reference.named(lambda r, pid, params: reference.player_of(pid, params, RandomPolicy, JitPolicy),
                            JitPolicy.parse_policy)
    assert type(older(rules, "random")) is RandomPolicy is type(engine.player_named(rules, "random"))
    then, now = older(rules, "greedy"), engine.player_named(rules, "greedy")
    assert type(then) is type(now) is JitPolicy
    assert then.policy_id == now.policy_id and np.array_equal(then.params, now.params)


def test_per_game_values_come_from_a_summary_module_that_writes_them_else_from_the_metrics(tmp_path, monkeypatch):
    """A summary module's own paired_values and ratio_values, as a game written before metrics declared their
    values in each game has them, are called; without them the metrics' of_games give the values."""
    from sim.game import OwnOrDeclared

    (tmp_path / "old_summary.py").write_text(
        "def paired_values(rec, players, unit):\n    return {'own': players * unit}\n"
        "def ratio_values(rec, players):\n    return {'own_ratio': players}\n", encoding="utf-8")
    (tmp_path / "new_summary.py").write_text("", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    game = get_game("lasvegan")
    rules = game.rules_from_mapping({"players": 3})
    ids, params = game.parse_seats(["greedy"] * 3, 3)
    rec = game.play_games(rules, 1, 0, 50, ids, params)
    assert OwnOrDeclared("old_summary:paired_values").bound(game)(rec, 3, 60) == {"own": 180}
    assert OwnOrDeclared("old_summary:ratio_values").bound(game)(rec, 3) == {"own_ratio": 3}
    declared = OwnOrDeclared("new_summary:paired_values").bound(game)(rec, 3, 60)
    assert declared["elimination_rate"].tolist() == (rec["elim_round"] > 0).astype(np.int64).tolist()
    assert declared["mean_rounds"].tolist() == rec["rounds_played"].tolist()
    [(moved, seat_rounds)] = OwnOrDeclared("new_summary:ratio_values").bound(game)(rec, 3).values()
    assert moved.tolist() == np.abs(rec["delta"].astype(np.int64)).sum(axis=(1, 2)).tolist()
    assert seat_rounds.tolist() == (3 * rec["rounds_played"].astype(np.int64)).tolist()


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_sweep_reads_the_record_fields_the_paired_values_read_and_no_others(game_id):
    from analysis.sweep import paired_fields

    game = get_game(game_id)
    config = config_from_mapping({"game": game_id})
    fields = paired_fields(game, config)
    assert "win_share" in fields and len(fields) < len(game.records.fields) - 1
    ids, params = game.parse_seats(["greedy"] * config.players, config.players)
    rec = game.play_games(config.rules, 3, 0, 40, ids, params)
    only = {name: rec[name] for name in fields}
    whole, read = game.per_game(rec, config.players, 60), game.per_game(only, config.players, 60)
    ratios, read_ratios = game.per_game_ratios(rec, config.players), game.per_game_ratios(only, config.players)
    assert whole.keys() == read.keys() and ratios.keys() == read_ratios.keys()
    assert set(game.paired_metrics) <= set(whole) | set(ratios)  # a paired ratio is compared as one
    assert all(np.array_equal(whole[m], read[m]) for m in whole)
    assert all(np.array_equal(a, b) for m in ratios for a, b in zip(ratios[m], read_ratios[m]))


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_policy_setting_listed_is_taken_within_its_listed_values_and_refused_just_outside(game_id):
    """`lvsim games` says each setting's values and default ("N from 1 to 100,000, default 64"): a config is held
    to exactly those, and a setting left out reads as the default listed."""
    import re

    game = get_game(game_id)
    checked = 0
    for name, listed in game.policies.listed.items():
        settings = re.search(r"Settings: (.*)\.$", listed)
        if settings is None:
            continue
        said = [s.strip() for s in settings.group(1).split(";")]
        for k, setting in enumerate(said):
            bounds = re.search(r"from ([\d.,]+) to ([\d.,]+)", setting)
            if bounds is None:
                continue
            low, high = (float(b.replace(",", "")) for b in bounds.groups())
            step = 1 if high > 1 else 0.01  # a whole number, or a probability
            # The other settings at their defaults; a required one (a base policy) is random.
            others = [default.group(1) if (default := re.search(r", default (\S+)$", other)) else "random"
                      for other in said]

            entries = {value: ":".join([name, *others[:k], f"{value:g}" if step < 1 else f"{int(value)}",
                                        *others[k + 1:]]) for value in (low, high, low - step, high + step)}
            for value in (low, high):
                game.parse_policy(entries[value], "policies.seats")
            for value in (low - step, high + step):
                with pytest.raises(ConfigError):
                    game.parse_policy(entries[value], "policies.seats")
            checked += 1
        defaults = [re.search(r", default (\S+)$", s) for s in said]
        if all(defaults):
            full = ":".join([name, *(d.group(1) for d in defaults)])
            assert np.array_equal(game.parse_policy(name, "policies.seats")[1], game.parse_policy(full, "x")[1])
    assert checked or game_id not in sim.games.SHIPPED_ORDER  # a game of another package may take no setting


def test_a_knob_declared_twice_is_named():
    from sim.knobs import Int, Knob, knob_table

    with pytest.raises(ValueError, match="knob top is declared twice"):
        knob_table(Knob("players", 3, Int(2, 5), "players"), Knob("top", 4, Int(2, 9), "top"),
                   Knob("top", 5, Int(2, 9), "top"))


def test_a_default_outside_its_knobs_values_is_the_games_fault_not_the_configs():
    """Every config without the knob plays its default: refused as the config's, it would name rules.top in a
    config that never gave it."""
    from sim.knobs import Flag, Int, Knob, RuleKnobs, declared, knob_table

    @declared(knob_table(Knob("players", 3, Int(2, 5), "players"), Knob("top", 30, Int(2, 20), "top")))
    class Rules(RuleKnobs):
        pass

    for make in (Rules, lambda: Rules.from_mapping({"players": 4})):
        with pytest.raises(GameError, match=rf"^knob top of {__name__}: its default 30 is not one of its own values "
                                            r"\(must be between 2 and 20, got 30\)$"):
            make()
    with pytest.raises(ConfigError, match="^rules.top: must be between 2 and 20, got 40$"):
        Rules.from_mapping({"top": 40})

    @declared(knob_table(Knob("players", 3, Int(2, 5), "players"), Knob("on", True, Flag(), "on")))
    class Good(RuleKnobs):
        pass

    # a value equal to a good default but of another form is the config's to mend
    with pytest.raises(ConfigError, match="^rules.on: must be true or false, got 1$"):
        Good.from_mapping({"on": 1})


def test_defaults_the_game_refuses_together_are_the_games_fault(monkeypatch):
    import dataclasses
    from types import SimpleNamespace

    import sim.games

    game = get_game("highcard")

    class Rules(game.Rules):
        def check_combinations(self):
            raise ConfigError("rounds", "6 rounds need 6 cards in each hand, but hand is 5")

    entry = SimpleNamespace(load=lambda: dataclasses.replace(game, Rules=Rules), value="lvsim_highcard.game:GAME")
    monkeypatch.setitem(sim.games.ENTRY_POINTS, "highcard", entry)
    sim.games.get_game.cache_clear()
    try:
        result = CliRunner().invoke(main, ["duel", "--game", "highcard", "--seats", "greedy,random", "--games", "10"])
    finally:
        sim.games.get_game.cache_clear()
    assert result.exit_code == 1
    assert result.stderr == ("error: game 'highcard' (lvsim_highcard.game:GAME): its knobs' defaults are not rules it "
                             "takes (rounds: 6 rounds need 6 cards in each hand, but hand is 5)\n")
