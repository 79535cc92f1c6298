"""Assertions shared by the tests of several games."""

import numpy as np


def assert_same_records(a: dict, b: dict) -> None:
    """Two record dicts hold the same fields with equal arrays (field named on failure)."""
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)



def assert_checked_game_is_played(state, game_records, play_game, rules, seed: int, game: int, fields) -> dict:
    """The game a checked run ended in ``state`` is the very game ``play_game`` plays (every one of ``fields``);
    its records."""
    played = play_game(rules, seed, game)
    assert_fields_equal(game_records(state, game), played, fields)
    return played

def assert_records_independent_of_threads_and_chunking(run, rules, concat_records) -> None:
    """``run(rules, n, first=..., threads=..., chunk=...)`` gives the same 3000 records however they are split."""
    whole = run(rules, 3000, threads=2, chunk=64)
    assert_same_records(whole, run(rules, 3000, threads=1, chunk=3000))
    assert_same_records(whole, run(rules, 3000, threads=2, chunk=7))
    # Split into batches at arbitrary points: game indices carry the randomness.
    parts = [run(rules, 1000, first=0), run(rules, 1234, first=1000), run(rules, 766, first=2234)]
    assert_same_records(whole, concat_records(parts))


def assert_records_match_reference(records: dict, reference_game, games: int, fields) -> None:
    """Game ``g`` of the kernel's ``records`` equals ``reference_game(g)`` in every field; all differences listed."""
    mismatches = []
    for g in range(games):
        ref = reference_game(g)
        for field in fields:
            if not np.array_equal(records[field][g], ref[field]):
                mismatches.append((g, field, records[field][g].tolist(), np.asarray(ref[field]).tolist()))
    assert not mismatches, f"{len(mismatches)} differing records, first: {mismatches[:3]}"


def assert_kernel_plays_as_reference(game_id: str, rules, seats, games: int, seed: int = 20261130) -> None:
    """The jitted core's first ``games`` games of ``seed`` under ``rules`` and ``seats`` equal the reference
    engine's, every record field (its player for each seat as the game's conformance module names it)."""
    from importlib import import_module

    from sim.conformance_kit import completed
    from sim.games import get_game

    game = get_game(game_id)
    ids, params = game.parse_seats(list(seats), rules.players)
    records = game.play_games(rules, seed, 0, games, ids, params)
    reference = completed(import_module(game.conformance)).play_reference
    assert_records_match_reference(records, lambda g: reference(rules, seed, g, list(seats)), games, game.records.fields)


def copy_sweep_on_quick_base(directory, config, sweep) -> None:
    """Copy the shipped ``sweep`` and its base ``config`` into ``directory``, the base without the skill gap
    and the strength profile, so the shipped sweep stays quick."""
    base = config.read_text(encoding="utf-8").replace(
        "[run]\n", "[run]\nskill_gap_games = 0\nstrength_games = 0\nstrength_lookahead_games = 0\n", 1)
    (directory / config.name).write_text(base, encoding="utf-8")
    (directory / "sweep.toml").write_text(sweep.read_text(encoding="utf-8"), encoding="utf-8")


def assert_fields_equal(a: dict, b: dict, fields) -> None:
    """The records of one game, ``a`` and ``b``, agree in every one of ``fields`` (the field named on failure)."""
    for name in fields:
        assert np.array_equal(a[name], b[name]), name
