"""What a policy is handed is the same in both engines, at every decision.

The records agreeing (test_differential) shows the policies decided alike;
here the observation itself is compared, so that a difference in a part no
policy of these games happens to read is caught too.

The kernel's side is seen by running its own game loops (``KERNEL_LOOPS``)
as plain Python, with every jitted step and policy still compiled, and each
call that hands a policy its decision (``KERNEL_POLICY_CALLS``) noted on the
way. That the observed run plays the very games of the compiled kernel is
checked record by record first.
"""

from __future__ import annotations

import importlib
from contextlib import contextmanager

import numpy as np
import pytest

from tests.conformance.conftest import assert_same_records, drawn_table, hooks, over_drawn_games


@contextmanager
def kernel_observed(h, log: list):
    """The game's kernel module with its game loops run as Python and each policy call noted in ``log``."""
    nb = importlib.import_module(h.KERNEL_MODULE)
    saved = {name: getattr(nb, name) for name in (*h.KERNEL_LOOPS, *h.KERNEL_POLICY_CALLS)}

    def observed(name, compiled):
        handed = h.KERNEL_POLICY_CALLS[name]

        def call(*args):
            seen, args = handed(*args)
            log.append(seen)
            return compiled(*args)

        return call

    try:
        for name in h.KERNEL_LOOPS:
            setattr(nb, name, saved[name].py_func)
        for name in h.KERNEL_POLICY_CALLS:
            setattr(nb, name, observed(name, saved[name]))
        yield nb
    finally:
        for name, value in saved.items():
            setattr(nb, name, value)


def kernel_observations(game, h, rules, seats, seed, g):
    ids, params = game.parse_seats(seats, rules.players)
    compiled = game.play_games(rules, seed, g, 1, ids, params)
    log: list = []
    with kernel_observed(h, log) as nb:
        observed = nb.play_games(rules, seed, g, 1, ids, params, threads=1)
    assert_same_records(compiled, observed, game.records.fields, f"{game.id}: the observed kernel run")
    return log


def assert_same_observations(kernel, reference, where):
    assert len(kernel) == len(reference), f"{where}: {len(kernel)} decisions in the kernel, {len(reference)} in the reference"
    for i, (k, r) in enumerate(zip(kernel, reference)):
        # The kernel hands some policies less (random draws from the legal moves alone):
        # what it does hand must be what the reference hands.
        for key, value in k.items():
            assert np.array_equal(value, r[key]), (
                f"{where}, decision {i} ({k.get('decision', '')}): {key} differs\n"
                f"kernel    {np.asarray(value).tolist()}\nreference {np.asarray(r[key]).tolist()}")


@over_drawn_games(25)
def test_each_policy_is_handed_the_same_observation_in_both_engines(game, data, seed, first):
    h = hooks(game)
    rules, seats = drawn_table(h, data)
    kernel = kernel_observations(game, h, rules, seats, seed, first)
    reference = h.reference_observations(rules, seed, first, list(seats))
    assert_same_observations(kernel, reference, f"{game.id} {rules} seats {seats} seed {seed} game {first}")


def test_the_observations_compared_include_the_public_table(game):
    """The comparison above is not empty: seats that read the table are handed all of it, in the kernel as in the
    reference engine (a policy that draws from its legal moves alone may be handed those alone). An observation
    is the game's to shape: the test asks for no particular keys, nor for how many."""
    h = hooks(game)
    forms = [f for f in getattr(h, "CHEAP_POLICIES", ()) if f != "random"]
    rules = game.Rules(players=game.min_players)
    seats = ([forms[0]] if forms else ["random"]) * rules.players
    kernel = kernel_observations(game, h, rules, seats, 11, 0)
    reference = h.reference_observations(rules, 11, 0, seats)
    assert_same_observations(kernel, reference, f"{game.id} seats {seats}")
    assert_some_seat_is_handed_all_of_it(kernel, reference, f"{game.id} seats {seats}")


def assert_some_seat_is_handed_all_of_it(kernel, reference, where):
    """At some decision the kernel hands the policy every part of the observation the reference engine hands."""
    assert kernel, f"{where}: no decision observed"
    assert any(k.keys() == r.keys() for k, r in zip(kernel, reference)), (
        f"{where}: no decision hands the policy all that the reference engine hands it; "
        f"the kernel hands {sorted(kernel[0])}, the reference {sorted(reference[0])}")


def test_an_observation_of_any_shape_is_compared_whole():
    """Two keys (the seat's whole view in one array) are as good as four; legal moves alone are not all of it."""
    view = {"decision": "play", "view": np.arange(6)}
    assert_some_seat_is_handed_all_of_it([view], [view], "a view of two keys")
    legal_only = {"decision": "play", "legal": 5}
    with pytest.raises(AssertionError, match="no decision hands the policy all"):
        assert_some_seat_is_handed_all_of_it([legal_only], [{**view, "legal": 5}], "legal moves alone")
