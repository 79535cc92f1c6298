"""Every game's state speaks the one protocol: decision kinds it declares, names that give back their actions,
returns that are win shares, clones that do not share what a step changes."""

import importlib

import numpy as np
import pytest

from sim.games import GAME_IDS, get_game
from sim.games import state_module_name, state_of
from sim.state import CHANCE, TERMINAL
from sim import conformance_kit

GAMES = [g for g in GAME_IDS if state_of(g) is not None]


def kinds_of(game_id):
    return importlib.import_module(state_module_name(game_id).rsplit(".", 1)[0] + ".enums").DECISION_KINDS


def random_walk(game_id, seed, players):
    """Each state of one game of ``game_id`` at ``players`` played at random, with the action taken there."""
    return conformance_kit.random_walk(state_of(game_id), get_game(game_id).Rules(players=players), seed)


def test_every_shipped_game_and_the_template_speak_the_protocol():
    assert {"lasvegan", "vegas-dice", "fever"} <= set(GAMES)


@pytest.mark.parametrize("game_id", GAMES)
def test_each_decision_is_of_a_declared_kind_and_each_name_gives_back_its_action(game_id):
    kinds = kinds_of(game_id)
    assert len(kinds) == len(set(kinds)) and all(isinstance(k, str) and k for k in kinds)
    game = get_game(game_id)
    seen = set()
    for seed, players in enumerate(sorted({game.min_players + (game.min_players < 2), game.max_players})):
        for state, action in random_walk(game_id, seed, players):
            seat = state.to_move()
            if seat in (CHANCE, TERMINAL):
                assert state.decision_kind() is None
            else:
                assert state.decision_kind() in kinds
                seen.add(state.decision_kind())
            named = state.named_actions()
            if seat != TERMINAL:
                assert len(named) == len(state.legal_actions() if seat >= 0 else state.chance_outcomes())
            for name, a in named.items():
                assert state.action_from_name(name) == a
            if action is None:
                shares = state.returns()
                assert all(0 <= s <= 1 for s in shares) and sum(shares) <= 1 + 1e-9
                assert state.trace()
    assert seen


def test_las_vegan_decisions_lead_follow_and_place():
    seen = {state.decision_kind() for seed in range(3) for state, _ in random_walk("lasvegan", seed, 4)}
    assert {"lead", "follow", "token", "golden"} <= seen


@pytest.mark.parametrize("game_id", GAMES)
def test_a_clone_goes_its_own_way(game_id):
    walk = random_walk(game_id, 7, get_game(game_id).max_players)
    for _ in range(30):
        state, action = next(walk)
        if action is None:
            break
    other = state.clone()

    def seen(s):  # what every seat knows of the clone, its own holding included
        return s.to_move(), [(s.information_state(p), s.observation(p)) for p in range(s.rules.players)], list(s.events)

    before = seen(other)
    state.apply_action(action)
    assert seen(other) == before


def test_a_name_not_legal_now_is_refused_naming_what_is():
    state = state_of("vegas-dice").new(get_game("vegas-dice").Rules(players=2))
    with pytest.raises(ValueError, match="not a legal outcome now"):
        state.action_from_name("places 3")


@pytest.mark.parametrize("game_id", GAMES)
def test_a_resample_draws_from_a_streams_four_words_and_keeps_what_the_seat_sees(game_id):
    """Each decision of a game played at random, resampled for the seat to move from a stream's state
    (``sim.rng``): what the seat knows is the same, whatever was drawn again."""
    from sim.rng import Stream

    for k, (state, _) in enumerate(random_walk(game_id, 3, get_game(game_id).max_players)):
        seat = state.to_move()
        if seat >= 0 and k % 5 == 0:
            other = state.resample(seat, np.array(Stream(1, k, seat).s, dtype=np.uint64))
            assert other.information_state(seat) == state.information_state(seat)
            assert other.to_move() == seat and other.legal_actions() == state.legal_actions()


def test_las_vegans_redeal_refuses_words_that_are_not_a_streams_four():
    """Its draw is jitted: three words would be read, and written, past their end."""
    state = next(s for s, _ in random_walk("lasvegan", 1, 4) if s.decision_kind() == "follow")
    with pytest.raises(ValueError, match="a stream's 4 words"):
        state.resample(state.to_move(), np.array([7, 1, 2], dtype=np.uint64))
