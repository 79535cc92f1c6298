"""Assertions shared by the tests of several games."""

from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any, Callable

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


# Estimates and intervals kept under names of their own, as (estimate, low end, high end): a sweep's paired
# table gives the interval independent runs would give beside the paired one, a Morris screen the one-step effect,
# and a table of a report or a strength profile a row's estimate beside its ``low`` and ``high``.
NAMED_INTERVALS = (("difference", "unpaired_lo", "unpaired_hi"), ("one_step_delta", "one_step_lo", "one_step_hi"),
                   *((value, "low", "high") for value in ("value", "mean", "rate", "share", "estimate")))
# Keys under which every list of three numbers is ``[estimate, low, high]``: a strength profile's and a tune's
# metrics, a tune's side effects, rule holes and policies pulling apart.
TRIPLE_KEYS = ("metrics", "value", "base", "by_policy", "rule_holes")


def estimates_outside_intervals(data, where: str = "") -> list[str]:
    """Every estimate in ``data`` that lies outside its own 95% interval: ``"path: value not in [low, high]"``.

    ``data`` is anything the tool writes — a summary, a flattened row, tune.json, a list of rows, a pandas
    DataFrame (walked row by row) — walked at every depth. An estimate and its interval are found as they
    are written: ``X`` beside ``X_ci`` = ``[low, high]`` (a list ``X`` beside a list of intervals, one each);
    ``X`` beside ``X_lo`` and ``X_hi``; ``X_share`` beside ``X_low`` and ``X_high``; the pairs of
    :data:`NAMED_INTERVALS`; and ``[value, low, high]`` under the keys of :data:`TRIPLE_KEYS`. Checked
    where all three are finite numbers; a low end above the high end is listed too.
    """
    import math

    import pandas as pd

    out: list[str] = []

    def number(x) -> bool:
        return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_)) \
            and math.isfinite(x)

    def check(path: str, value, low, high) -> None:
        if number(value) and number(low) and number(high) and not low <= value <= high:
            out.append(f"{path}: {value!r} not in [{low!r}, {high!r}]")
        elif number(low) and number(high) and low > high:
            out.append(f"{path}: the low end {low!r} is above the high end {high!r}")

    def pair(path: str, value, interval) -> None:
        if isinstance(value, (list, tuple)) and isinstance(interval, (list, tuple)) and len(value) == len(interval) \
                and all(isinstance(i, (list, tuple)) or i is None for i in interval):
            for i, (v, ci) in enumerate(zip(value, interval)):
                pair(f"{path}[{i}]", v, ci)
        elif isinstance(interval, (list, tuple)) and len(interval) == 2:
            check(path, value, *interval)

    def triples(path: str, x) -> None:
        if isinstance(x, (list, tuple)) and len(x) == 3 and all(v is None or number(v) or isinstance(v, float)
                                                                for v in x):
            check(path, *x)

    def walk(path: str, x, triple: bool = False) -> None:
        if isinstance(x, pd.DataFrame):
            for i, row in enumerate(x.to_dict("records")):
                walk(f"{path}[{i}]", row)
            return
        if isinstance(x, dict):
            for key, value in x.items():
                key = str(key)
                if f"{key}_ci" in x:
                    pair(f"{path}.{key}", value, x[f"{key}_ci"])
                if f"{key}_lo" in x and f"{key}_hi" in x:
                    check(f"{path}.{key}", value, x[f"{key}_lo"], x[f"{key}_hi"])
                walk(f"{path}.{key}", value, triple or key in TRIPLE_KEYS)
            for value, low, high in NAMED_INTERVALS:
                if value in x and low in x and high in x:
                    check(f"{path}.{value}", x[value], x[low], x[high])
            for low in [k for k in x if isinstance(k, str) and k.endswith("_low")]:
                # ``gain_share`` beside ``gain_low`` and ``gain_high``: the one other key of that stem.
                stem, high = low[:-len("low")], low[:-len("low")] + "high"
                values = [k for k in x if isinstance(k, str) and k.startswith(stem) and k not in (low, high)]
                if high in x and len(values) == 1:
                    check(f"{path}.{values[0]}", x[values[0]], x[low], x[high])
            return
        if isinstance(x, (list, tuple)):
            if triple:
                triples(path, x)
            for i, value in enumerate(x):
                walk(f"{path}[{i}]", value, triple)

    walk(where, data)
    return out


def assert_estimates_inside_intervals(data, where: str = "") -> None:
    """Every estimate ``data`` writes beside a 95% interval lies inside it (:func:`estimates_outside_intervals`)."""
    outside = estimates_outside_intervals(data, where)
    assert not outside, f"{len(outside)} estimates outside their intervals:\n" + "\n".join(outside[:20])


# --- tables of a game's own player counts, for the suites that run over every registered game ----------------


def own_players(game) -> int:
    """The player count a shared suite seats the game at: its rulebook's (``Rules().players``), which its
    declaration allows; never a count written for every game, which a game for 3 to 7 players would refuse."""
    return min(max(game.Rules().players, game.min_players), game.max_players)


def other_players(game) -> int | None:
    """A second count the game is played at, next to :func:`own_players` (one more, else one fewer); None for a
    game played at one count only."""
    players = own_players(game)
    for other in (players + 1, players - 1):
        if game.min_players <= other <= game.max_players:
            return other
    return None


def weak_policy(game) -> str:
    """A policy every seat but one may play: ``random`` where the game has it, else its default player."""
    return "random" if "random" in game.policy_syntax else game.default_policy


def seats_of(game, first: str | None = None, players: int | None = None) -> list[str]:
    """One policy per seat at ``players`` (default: :func:`own_players`): ``first`` at the first seat, the game's
    :func:`weak_policy` at the others."""
    players = own_players(game) if players is None else players
    weak = weak_policy(game)
    return [weak if first is None else first] + [weak] * (players - 1)


@contextmanager
def games_declared_for(counts: Callable[[Any], tuple[int, int]]):
    """While inside, every registered game as if its declaration said ``counts(game)`` = (fewest, most) players,
    its rules unchanged: a shared suite then meets, with the games installed here, a game for 3 to 7 players or
    for one count only."""
    import dataclasses

    import sim.games

    saved = dict(sim.games.ENTRY_POINTS)
    for game_id, entry in saved.items():
        game = sim.games.get_game(game_id)
        fewest, most = counts(game)
        declared = dataclasses.replace(game, min_players=fewest, max_players=most)
        sim.games.ENTRY_POINTS[game_id] = SimpleNamespace(load=lambda declared=declared: declared, value=entry.value)
    sim.games.get_game.cache_clear()
    try:
        yield
    finally:
        sim.games.ENTRY_POINTS.update(saved)
        sim.games.get_game.cache_clear()



TABLE_WIDTH = 120  # the widest line a summary table may print


def table_block(text: str, heading: str) -> dict[str, str]:
    """The rows of the block of a summary table under ``heading`` (a block ends at a blank line), by label:
    what follows the label (value, interval and note), single spaces."""
    blocks = {b.splitlines()[0]: b.splitlines()[1:] for b in text.split("\n\n") if b.strip()}
    assert heading in blocks, f"no block {heading!r} in:\n{text}"
    return {line[2:27].strip(): " ".join(line[27:].split()) for line in blocks[heading]}


def assert_table_fits(text: str) -> None:
    """No line of a summary table is wider than :data:`TABLE_WIDTH` characters."""
    wide = [line for line in text.splitlines() if len(line) > TABLE_WIDTH]
    assert not wide, f"lines wider than {TABLE_WIDTH} characters: {wide}"
