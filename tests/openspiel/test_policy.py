"""ismcts as a policy: played by the reference engine in the kernel's record layout, refused when it cannot run."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.games import GAME_IDS, get_game
from tests.helpers import assert_same_records

pyspiel = pytest.importorskip("pyspiel")

from sim.openspiel.reference import play_games as play_by_reference  # noqa: E402

GAME = get_game("lasvegan")
# Every game with the ismcts policy (all shipped games; not the test plugin's).
SEARCHED = [g for g in GAME_IDS if "ismcts" in get_game(g).policies.specs]


def lvsim(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_the_reference_batch_gives_the_kernels_records_for_jitted_seats():
    rules = GAME.Rules(players=4)
    ids, params = GAME.parse_seats(["greedy", "expert", "random", "epsilon:0.3:cautious"], 4)
    assert not GAME.policies.needs_reference(ids)
    assert_same_records(play_by_reference("sim.lasvegan", rules, 5, 20, 6, ids, params),
                        GAME.play_games(rules, 5, 20, 6, ids, params))


def test_a_batch_with_an_ismcts_seat_is_played_by_the_reference_engine_game_by_game():
    rules = GAME.Rules(players=3)
    ids, params = GAME.parse_seats(["ismcts:2", "greedy", "random"], 3)
    assert GAME.policies.needs_reference(ids)
    whole = GAME.play_games(rules, 9, 4, 3, ids, params, threads=2)
    parts = [GAME.play_games(rules, 9, 4 + g, 1, ids, params, threads=1) for g in range(3)]
    assert_same_records(whole, {k: np.concatenate([p[k] for p in parts]) for k in whole})
    assert whole["game"].tolist() == [4, 5, 6]


def test_every_shipped_game_has_ismcts():
    assert {"lasvegan", "vegas-dice", "fever"} <= set(SEARCHED)


@pytest.mark.parametrize("game_id", SEARCHED)
def test_a_duel_with_ismcts_plays_and_reports_its_share(game_id):
    result = lvsim("duel", "--game", game_id, "--players", 3, "--seats", "ismcts:2,greedy,greedy", "--games", 1,
                   "--json")
    assert result.exit_code == 0, result.stderr
    shares = json.loads(result.stdout)["policies"]
    assert set(shares) == {"ismcts:2", "greedy"}
    assert shares["ismcts:2"]["win_share"] + shares["greedy"]["win_share"] == pytest.approx(1.0)


def one_line_refusal(result, *phrases):
    assert result.exit_code == 2, (result.exit_code, result.stderr)
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    for phrase in phrases:
        assert phrase in result.stderr, result.stderr


def test_more_games_than_a_reference_engine_plays_in_an_hour_are_refused():
    result = lvsim("duel", "--players", 3, "--seats", "ismcts,greedy,greedy", "--games", 1000)
    one_line_refusal(result, "--games", "3,000 games with ismcts", "at most 2,000")


def test_without_openspiel_naming_ismcts_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr("sim.policy_spec.openspiel_installed", lambda: False)
    result = lvsim("duel", "--players", 3, "--seats", "ismcts:8,greedy,greedy", "--games", 2)
    one_line_refusal(result, "--seats", "pip install -e '.[openspiel]'")
    assert lvsim("duel", "--players", 3, "--seats", "greedy,random,random", "--games", 2).exit_code == 0


@pytest.mark.parametrize("game_id", SEARCHED)
def test_bench_refuses_an_ismcts_seat_it_does_not_time(game_id):
    result = lvsim("bench", "--game", game_id, "--players", 3, "--policy", "ismcts:4")
    one_line_refusal(result, "--policy", "ismcts:4 is played by the reference engine, not by the jitted core")
