"""The backbone, for every game: the reference engine and the jitted core play the same games.

Rule sets and seats are drawn by the game's own strategies (any valid rule
set, any mix of every policy in a cheap form); every record field of every
game must be equal.
"""

import pytest

from tests.conformance.conftest import assert_same_records, drawn_table, hooks, over_drawn_games

GAMES_EACH = 2


def assert_engines_agree(game, h, rules, seats, seed, first):
    ids, params = game.parse_seats(seats, rules.players)
    kernel = game.play_games(rules, seed, first, GAMES_EACH, ids, params)
    for i in range(GAMES_EACH):
        reference = h.play_reference(rules, seed, first + i, list(seats))
        assert_same_records({f: kernel[f][i] for f in kernel}, reference, game.records.fields,
                            f"{game.id} {rules} seats {seats} seed {seed} game {first + i}")


@over_drawn_games(40)
def test_reference_equals_kernel_on_drawn_rules_and_seats(game, data, seed, first):
    h = hooks(game)
    rules, seats = drawn_table(h, data)
    assert_engines_agree(game, h, rules, seats, seed, first)


@pytest.mark.parametrize("seed", [3])
def test_reference_equals_kernel_under_every_policy(game, seed):
    """Every cheap form of every policy sits at every seat at least once, whatever hypothesis draws."""
    h = hooks(game)
    forms = [form for forms in h.POLICY_FORMS.values() for form in forms]
    players = game.max_players
    rules = game.Rules(players=players)
    for start in range(0, len(forms), players):
        seats = [forms[(start + s) % len(forms)] for s in range(players)]
        assert_engines_agree(game, h, rules, seats, seed, start)
