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
                f"{where}, decision {i} ({k['decision']}): {key} differs\n"
                f"kernel    {np.asarray(value).tolist()}\nreference {np.asarray(r[key]).tolist()}")


@over_drawn_games(25)
def test_each_policy_is_handed_the_same_observation_in_both_engines(game, data, seed, first):
    h = hooks(game)
    rules, seats = drawn_table(h, data)
    kernel = kernel_observations(game, h, rules, seats, seed, first)
    reference = h.reference_observations(rules, seed, first, list(seats))
    assert_same_observations(kernel, reference, f"{game.id} {rules} seats {seats} seed {seed} game {first}")


def test_the_observations_compared_include_the_public_table(game):
    """The comparison above is not empty: seats that read the table are handed all of it."""
    h = hooks(game)
    forms = [f for f in h.CHEAP_POLICIES if f != "random"] if hasattr(h, "CHEAP_POLICIES") else []
    rules = game.Rules(players=game.min_players)
    seats = ([forms[0]] if forms else ["random"]) * rules.players
    kernel = kernel_observations(game, h, rules, seats, 11, 0)
    reference = h.reference_observations(rules, 11, 0, seats)
    assert any(len(k) > 2 for k in kernel), "no decision handed a policy more than its legal moves"
    assert_same_observations(kernel, reference, f"{game.id} seats {seats}")
