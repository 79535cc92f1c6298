"""The conformance suite runs once per registered game, through the game's own hooks.

Every test takes ``game`` (a :class:`sim.game.Game`, one per id in
``sim.games.GAME_IDS``); :func:`hooks` imports the module the game names in
``Game.conformance`` (if the game has one) and derives what follows from
the game's declarations (``sim.conformance_kit.completed``). A game registered without it, or without
one of the hooks the suite asks for, fails here by name rather than being
skipped.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.conformance_kit import DECLARED, completed
from sim.games import GAME_IDS, get_game

# What the suite asks of every game's conformance module.
HOOKS = {
    **DECLARED,
    "rule_sets": "hypothesis strategy drawing any valid Rules",
    "POLICY_FORMS": "policy -> its cheap concrete forms, for every policy of the game",
    "seat_policies": "players -> hypothesis strategy drawing a policy name per seat",
    "play_reference": "(rules, seed, game, seats) -> one game's records by the reference engine",
    "KERNEL_MODULE": "module of the jitted core",
    "KERNEL_LOOPS": "names of the kernel's game loops, run as Python while observed",
    "KERNEL_POLICY_CALLS": "kernel function called for a decision -> (args -> (what the policy is handed, args))",
    "reference_observations": "(rules, seed, game, seats) -> what each policy is handed, in the reference engine",
    "hidden_pairs": "() -> pairs of situations differing only in what the seat to move cannot see, 8 at least",
    "seen_by_seat": "situation -> what the seat to move decides from",
    "unseen_by_seat": "situation -> what the seat to move cannot see",
    "seen_otherwise": "situation -> situations with something the seat sees changed",
    "decide": "(situation, policy, stream) -> the seat's decision",
    "decision_stream": "situation -> a fresh policy stream for the seat to move",
    "BAD_RULES": "[(bad [rules] table, the key its ConfigError must name)], 5 at least",
    "streams": "players -> {name: stream number} of a game's random streams, all different: the table's, one per seat's policy",
    # What the bad-input and fuzz suites (tests/test_badinput*.py) start from and garble.
    "SMALL_CONFIG": "TOML text of a small game's [rules] and [policies] tables (the suites add game and [run])",
    "SWEEP_AXIS": "(rule knob path, two whole values): a sweep's axis, and a tune's search range between them",
    "REPLAY_SCRIPT": "JSON text of a hand-given game that `lvsim replay --game <id>` plays",
}


def hooks(game) -> SimpleNamespace:
    """The game's conformance hooks; a failure naming the game and what is missing otherwise."""
    if not game.conformance:
        pytest.fail(f"game {game.id!r} names no conformance module (Game.conformance) for the shared suite")
    found = importlib.util.find_spec(game.conformance) is not None
    module = completed(importlib.import_module(game.conformance) if found else None, game.conformance.rsplit(".", 1)[0])
    missing = [name for name in HOOKS if not hasattr(module, name)]
    if missing:
        pytest.fail(f"{game.conformance} (game {game.id!r}) lacks "
                    + "; ".join(f"{name}: {HOOKS[name]}" for name in missing))
    return module


@pytest.fixture(params=GAME_IDS)
def game(request):
    return get_game(request.param)


def assert_same_records(kernel, reference, fields, where=""):
    """Every field of one game's record equal; the message names the first fields that differ."""
    differ = [f for f in fields if not (kernel[f].shape == reference[f].shape and (kernel[f] == reference[f]).all())]
    assert not differ, f"{where}: fields differ: " + "; ".join(
        f"{f}: kernel {kernel[f].tolist()} reference {reference[f].tolist()}" for f in differ[:3])


def over_drawn_games(max_examples: int):
    """A test ``(game, data, seed, first)`` run on ``max_examples`` draws of a seed and a first game number;
    :func:`drawn_table` draws its rules and seats from ``data``."""

    def wrap(test):
        drawn = given(data=st.data(), seed=st.integers(0, 2**64 - 1), first=st.integers(0, 2**40))(test)
        return settings(max_examples=max_examples, deadline=None,
                        suppress_health_check=[HealthCheck.function_scoped_fixture])(drawn)

    return wrap


def drawn_table(h, data):
    """Rules drawn by the game's strategy, then a policy per seat for their players."""
    rules = data.draw(h.rule_sets(), label="rules")
    return rules, data.draw(h.seat_policies(rules.players), label="seats")
