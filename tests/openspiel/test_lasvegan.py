"""Las Vegan through OpenSpiel: the reference engine's game, its chance nodes, what a seat knows."""

from collections import Counter

import pytest

pyspiel = pytest.importorskip("pyspiel")

from sim.lasvegan import enums as E  # noqa: E402
from sim.lasvegan.state import placement_action  # noqa: E402
from sim.lasvegan.params import Rules  # noqa: E402
from sim.lasvegan.rules import (  # noqa: E402
    PLAY_LOOP, deal_round, game_records, player_named, shuffled_pile, suit_of,
)
from sim.openspiel import load  # noqa: E402
from sim.rng import Stream  # noqa: E402
from tests.helpers import assert_same_records  # noqa: E402
from tests.openspiel.walk import at_random_decision, played_to, replayed, resamples  # noqa: E402


class Logged:
    """A reference-engine player that notes every move it makes, as an OpenSpiel action."""

    def __init__(self, policy, moves):
        self.policy, self.moves = policy, moves

    def choose_card(self, obs, legal, rng):
        card = self.policy.choose_card(obs, legal, rng)
        self.moves.append(card)
        return card

    def choose_placement(self, obs, rng):
        placement = self.policy.choose_placement(obs, rng)
        self.moves.append(placement_action(placement))
        return placement


def chance_outcomes_of(rules, seed, game, rounds):
    """The table stream's draws of ``rounds`` rounds as OpenSpiel chance outcomes, in the order they are drawn."""
    table = Stream(seed, game, PLAY_LOOP.table_stream)
    pile = shuffled_pile(rules, table)
    outcomes = []
    for r in range(rounds):
        deal = deal_round(rules, table, pile, r)
        outcomes += list(deal.machines) + list(deal.token_faces) + [deal.golden_face]
        outcomes += [card for hand in deal.hands for card in hand]
    return outcomes


@pytest.mark.parametrize("players,seats,rules_table", [
    (3, ["greedy", "random", "expert"], {}),
    (4, ["random", "cautious", "greedy", "lookahead:2"], {}),
    (5, ["greedy"] * 5, {"set_aside_face": "revealed"}),
    (2, ["random", "greedy"], {"rounds": 2, "reserve": "unlimited"}),
])
def test_a_game_played_through_openspiel_is_the_reference_engines(players, seats, rules_table):
    rules = Rules.from_mapping({"players": players, **rules_table})
    spel = load("lasvegan", rules)
    for game in range(4):
        moves = []
        reference = PLAY_LOOP.play_game(rules, 11, game, [Logged(player_named(rules, s), moves) for s in seats])
        chance = iter(chance_outcomes_of(rules, 11, game, int(reference["rounds_played"])))
        played = iter(moves)
        state = replayed(spel, chance, played)
        assert next(played, None) is None and next(chance, None) is None
        assert_same_records(game_records(state.table.state, game), reference)
        shares = reference["win_share"].tolist()
        assert state.returns() == pytest.approx(shares)


def test_chance_nodes_have_the_true_probabilities():
    spel = load("lasvegan", Rules(players=3))
    state = spel.new_initial_state()
    machines = dict(state.chance_outcomes())
    pile = Counter(Rules(players=3).machine_codes)
    assert machines == pytest.approx({code: n / sum(pile.values()) for code, n in pile.items()})
    for _ in range(3):
        state.apply_action(state.chance_outcomes()[0][0])
    assert dict(state.chance_outcomes()) == {0: 0.5, 1: 0.5}
    while len(state.chance_outcomes()) == 2:
        state.apply_action(1)
    assert dict(state.chance_outcomes()) == pytest.approx({c: 1 / E.N_CARDS for c in range(E.N_CARDS)})
    state.apply_action(17)
    assert 17 not in dict(state.chance_outcomes()) and len(state.chance_outcomes()) == E.N_CARDS - 1


def test_a_seat_knows_its_hand_and_the_table_never_another_hand():
    spel = load("lasvegan", Rules(players=4))
    state = played_to(spel, 3, 9)
    seat = state.current_player()
    text = state.information_state_string(seat)
    gs = state.table.state
    assert f"hand {' '.join(sorted_names(gs.hands[seat]))}" in text
    for other in range(4):
        if other != seat:
            assert " ".join(sorted_names(gs.hands[other])) not in text
            assert state.information_state_string(other) != text


def sorted_names(cards):
    from sim.lasvegan.rules import card_name

    return [card_name(c) for c in sorted(cards)]


@pytest.mark.parametrize("seed", range(6))
def test_resampling_keeps_what_the_seat_knows_and_redeals_the_rest_within_the_voids(seed):
    state, seat, gs = at_random_decision("lasvegan", Rules(players=4), seed, 14 + 3 * seed)
    redealt = 0
    for other in resamples(state, seat, 12):
        og = other.table.state
        assert og.hands[seat] == gs.hands[seat]
        for s in range(4):
            assert len(og.hands[s]) == len(gs.hands[s])
            assert not {suit_of(c) for c in og.hands[s]} & og.voids[s]
        hidden = set().union(*(gs.hands[s] for s in range(4) if s != seat), gs.set_aside)
        assert set().union(*(og.hands[s] for s in range(4) if s != seat), og.set_aside) == hidden
        redealt += og.hands != gs.hands
    assert redealt > 0
