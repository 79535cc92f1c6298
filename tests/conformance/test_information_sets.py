"""For every policy of every game: a decision depends on what the seat sees, never on what it cannot.

The game gives pairs of situations that differ only in what the seat to
move cannot see (others' hidden cards, the order of a pile); its view must be
the same in both, and so must the decision of every policy drawing from the
same stream. That test could fail: changing something the seat does see
changes some decision.
"""

import numpy as np
import pytest

from sim.games import GAME_IDS, get_game
from tests.conformance.conftest import hooks


def every_policy():
    for game_id in GAME_IDS:
        module = hooks(get_game(game_id))
        for forms in module.POLICY_FORMS.values():
            for form in forms:
                yield pytest.param(game_id, form, id=f"{game_id}-{form}")


@pytest.fixture(scope="module")
def pairs_of():
    cache = {}

    def pairs(game_id):
        if game_id not in cache:
            cache[game_id] = hooks(get_game(game_id)).hidden_pairs()
        return cache[game_id]

    return pairs


def same_view(a, b):
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("game_id,policy", list(every_policy()))
def test_a_decision_does_not_depend_on_what_the_seat_cannot_see(game_id, policy, pairs_of):
    h = hooks(get_game(game_id))
    pairs = pairs_of(game_id)
    assert len(pairs) >= 8
    for a, b in pairs:
        assert same_view(h.seen_by_seat(a), h.seen_by_seat(b))
        assert h.unseen_by_seat(a) != h.unseen_by_seat(b)
        assert h.decide(a, policy, h.decision_stream(a)) == h.decide(b, policy, h.decision_stream(b))


@pytest.mark.parametrize("game_id,policy", list(every_policy()))
def test_a_decision_does_depend_on_what_the_seat_sees(game_id, policy, pairs_of):
    h = hooks(get_game(game_id))
    changed = 0
    for a, _ in pairs_of(game_id):
        choice = h.decide(a, policy, h.decision_stream(a))
        for seen in h.seen_otherwise(a):
            assert not same_view(h.seen_by_seat(seen), h.seen_by_seat(a))
            changed += h.decide(seen, policy, h.decision_stream(seen)) != choice
    assert changed > 0
