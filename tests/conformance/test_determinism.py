"""A game's records do not depend on threads, chunks, how the games are split, or where they ran."""

import pytest
from hypothesis import strategies as st

from sim.config import config_from_mapping
from tests.conformance.conftest import drawn_table, hooks, over_drawn_games

N_GAMES = 23
TIMING = ("seconds", "games_per_second")


def same(a, b, fields, where):
    differ = [f for f in fields if not (a[f] == b[f]).all()]
    assert not differ, f"{where}: {differ}"


@over_drawn_games(6)
def test_threads_chunks_and_splits_give_the_same_records(game, data, seed, first):
    h = hooks(game)
    rules, seats = drawn_table(h, data)
    cut = data.draw(st.integers(1, N_GAMES - 1), label="cut")
    ids, params = game.parse_seats(seats, rules.players)
    fields = game.records.fields

    def play(first_game, n, **kw):
        return game.play_games(rules, seed, first_game, n, ids, params, **kw)

    whole = play(first, N_GAMES, threads=1, chunk=N_GAMES)
    same(whole, play(first, N_GAMES, threads=2, chunk=1), fields, "threads=2 chunk=1")
    same(whole, play(first, N_GAMES, threads=2, chunk=5), fields, "threads=2 chunk=5")
    same(whole, play(first, N_GAMES), fields, "default threads and chunks")
    parts = game.records.concat([play(first, cut, threads=2), play(first + cut, N_GAMES - cut, threads=1)])
    same(whole, parts, fields, f"split at game {first + cut}")


def small_config(game):
    # Enough games for the cluster to cut them into several chunks (4,096 games at least each).
    return config_from_mapping({
        "game": game.id,
        "run": {"games": 9_000, "seed": 7, "skill_gap_games": 0, "strength_games": 0,
                "strength_lookahead_games": 0},
        "rules": {"players": min(game.min_players + 1, game.max_players)},  # a small table the game seats
        "policies": {"seats": "random"},
    })


@pytest.fixture(scope="module")
def cluster():
    """One local cluster of two workers for every game's run (on one test worker: ``xdist_group``)."""
    from sim.cluster import open_cluster

    with open_cluster(workers=2) as opened:
        yield opened


@pytest.mark.slow
@pytest.mark.xdist_group("dask-determinism")
def test_a_run_gives_the_same_summary_in_process_and_on_a_dask_cluster(game, cluster):
    from sim.runner import run

    config = small_config(game)
    here = run(config, out=None)
    there = run(config, out=None, cluster=cluster)
    drop = lambda s: {k: v for k, v in s.items() if k not in TIMING}  # noqa: E731
    assert drop(there.summary) == drop(here.summary)
    same(here.records, there.records, game.records.fields, "dask")
