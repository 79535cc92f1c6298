"""Properties of every game, across random rule knobs."""

from hypothesis import given, settings
from hypothesis import strategies as st

from sim.rng import Stream
from sim.vegasdice import enums as E
from sim.vegasdice.conformance import rule_sets
from sim.vegasdice.params import Rules
from sim.vegasdice.records import RECORD_FIELDS
from sim.vegasdice.rules import GameState, RandomPolicy, game_records, play_game, roll_dice, roll_for, shuffled_pile
from tests.helpers import assert_checked_game_is_played


def play_checked(rules: Rules, seed: int, game: int) -> GameState:
    """The game ``play_game`` plays, checking the invariants after every move."""
    table = Stream(seed, game, E.STREAM_TABLE)
    streams = [Stream(seed, game, E.STREAM_POLICY + s) for s in range(rules.players)]
    state = GameState(rules, shuffled_pile(rules, table))
    dice_each = rules.dice_per_player + rules.n_white
    while not state.game_over and state.start_round():
        pile_before = len(state.pile)
        if rules.n_extra_white:
            state.place_extra_white(roll_dice(table, rules.n_extra_white, rules.casinos))
        while not state.round_over:
            seat = state.to_move
            roll = roll_for(state, seat, table)
            placed = sum(map(sum, state.casino_dice))
            state.take_turn(seat, roll, RandomPolicy().choose_value(state.observe(seat), roll, streams[seat]))
            assert sum(map(sum, state.casino_dice)) > placed  # a turn places at least one die
        # every die is placed: the players' own and white ones, and the table's
        assert sum(map(sum, state.casino_dice)) == rules.players * dice_each + rules.n_extra_white
        laid = sum(map(sum, state.casino_bills))
        result = state.end_round()
        # bills laid out = bills won by players + won by the white dice + unclaimed
        assert laid == sum(result.won) + result.white_won + result.unclaimed
        assert len(state.pile) == pile_before + sum(len(p.unclaimed) for p in result.payouts) + sum(
            1 for p in result.payouts for owner, _ in p.paid if owner == "white"
        )
        # every bill is somewhere: in the pile or held by a player
        held = [b for seat_bills in state.bills_held for b in seat_bills]
        assert sorted(held + list(state.pile)) == sorted(rules.pile)
    return state


@settings(max_examples=60, deadline=None)
@given(rules=rule_sets(), seed=st.integers(0, 2**64 - 1), game=st.integers(0, 2**40))
def test_every_game_conserves_bills_and_places_every_die(rules, seed, game):
    played = assert_checked_game_is_played(play_checked(rules, seed, game), game_records, play_game, rules, seed,
                                           game, RECORD_FIELDS)
    assert sum(played["win_share"]) == 1.0 or abs(sum(played["win_share"]) - 1.0) < 1e-12
    assert played["money"].sum() == sum(played["won"].sum(axis=0))
