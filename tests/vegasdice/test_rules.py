"""The reference engine on hand-built situations with known outcomes."""

import numpy as np
import pytest

from sim.vegasdice import enums as E
from sim.vegasdice.mechanics import casino_gains_nb
from sim.vegasdice.params import Rules
from sim.vegasdice.rules import (
    WHITE,
    GameState,
    IllegalMove,
    Roll,
    pay_casino,
    ranking,
    winners,
    win_shares,
)


# --- one casino's payout -----------------------------------------------------------


def test_most_dice_take_the_largest_bill_then_the_next():
    p = pay_casino(1, [20000, 90000, 50000], {0: 3, 1: 1, 2: 2})
    assert p.paid == ((0, 90000), (2, 50000), (1, 20000))
    assert p.removed == () and p.unclaimed == ()


def test_tied_players_are_removed_and_the_next_moves_up():
    # Seats 0 and 1 both have 3 dice: both out; seat 2 with 1 die takes the 90 000.
    p = pay_casino(4, [90000, 10000], {0: 3, 1: 3, 2: 1})
    assert set(p.removed) == {0, 1}
    assert p.paid == ((2, 90000),)
    assert p.unclaimed == (10000,)


def test_a_three_way_tie_leaves_every_bill_unclaimed():
    p = pay_casino(2, [60000], {0: 2, 1: 2, 2: 2})
    assert len(p.removed) == 3 and p.paid == () and p.unclaimed == (60000,)


def test_when_the_bills_run_out_the_rest_get_nothing():
    p = pay_casino(3, [70000], {0: 4, 1: 2, 2: 1})
    assert p.paid == ((0, 70000),) and p.unclaimed == ()


def test_white_dice_are_a_fictitious_player_that_ties_and_wins():
    # White ties seat 0 (both out); seat 1 takes the 80 000.
    p = pay_casino(5, [80000, 30000], {0: 2, 1: 1, WHITE: 2})
    assert set(p.removed) == {0, WHITE} and p.paid == ((1, 80000),)
    # White alone with most dice takes the largest bill; seat 0 the next.
    p = pay_casino(5, [80000, 30000], {0: 1, WHITE: 3})
    assert p.paid == ((WHITE, 80000), (0, 30000))


def test_a_casino_without_dice_pays_nobody():
    p = pay_casino(6, [50000], {0: 0, 1: 0, WHITE: 0})
    assert p.paid == () and p.removed == () and p.unclaimed == (50000,)


def pub_with(dice, bills, players=3):
    pub = np.zeros(E.PUB_SIZE, dtype=np.int64)
    pub[E.P_PLAYERS] = players
    pub[E.P_CASINOS] = 6
    for owner, n in dice.items():
        pub[E.P_CASINO_DICE + (E.WHITE if owner == WHITE else owner)] = n
    pub[E.P_CASINO_NBILLS] = len(bills)
    pub[E.P_CASINO_BILLS:E.P_CASINO_BILLS + len(bills)] = sorted(bills, reverse=True)
    return pub


@pytest.mark.parametrize(
    "dice,bills",
    [
        ({0: 3, 1: 1, 2: 2}, [20000, 90000, 50000]),
        ({0: 3, 1: 3, 2: 1}, [90000, 10000]),
        ({0: 2, 1: 2, 2: 2}, [60000]),
        ({0: 2, 1: 1, WHITE: 2}, [80000, 30000]),
        ({0: 1, WHITE: 3}, [80000, 30000]),
        ({0: 5, 1: 4, 2: 3, WHITE: 1}, [10000, 20000, 30000, 40000, 50000]),
        ({}, [50000]),
    ],
)
def test_the_jitted_payout_agrees_with_the_reference(dice, bills):
    p = pay_casino(1, bills, dice)
    gains = np.zeros(E.OWNERS, dtype=np.int64)
    removed = casino_gains_nb(pub_with(dice, bills), 0, gains)
    assert removed == len(p.removed)
    expected = np.zeros(E.OWNERS, dtype=np.int64)
    for owner, bill in p.paid:
        expected[E.WHITE if owner == WHITE else owner] = bill
    np.testing.assert_array_equal(gains, expected)


# --- the end of the game -----------------------------------------------------------


def test_the_richest_seat_wins():
    assert winners([100, 300, 200], [[100], [300], [200]], "bills") == [1]


def test_a_money_tie_goes_to_the_larger_bills():
    bills = [[90000, 10000], [50000, 50000], [40000]]
    assert winners([100000, 100000, 40000], bills, "bills") == [0]
    # Same largest bill: the next one decides.
    bills = [[50000, 30000, 20000], [50000, 40000, 10000]]
    assert winners([100000, 100000], bills, "bills") == [1]
    assert ranking([100000, 100000, 40000], [[90000, 10000], [50000, 50000], [40000]], "bills") == [0, 1, 2]


def test_a_money_tie_with_the_same_bills_is_a_shared_win():
    bills = [[50000, 20000], [20000, 50000], [10000]]
    assert winners([70000, 70000, 10000], bills, "bills") == [0, 1]
    assert win_shares([70000, 70000, 10000], bills, "bills") == [0.5, 0.5, 0.0]


def test_the_count_tie_break_favours_more_banknotes_and_none_shares():
    bills = [[90000, 10000], [50000, 30000, 20000]]
    assert winners([100000, 100000], bills, "count") == [1]
    assert winners([100000, 100000], bills, "none") == [0, 1]


# --- a round by hand ---------------------------------------------------------------


def two_player_state(**knobs):
    """Two players, two casinos filled with one bill each, the pile known."""
    rules = Rules(players=2, casinos=2, dice_per_player=2, bills=[[50000, 2], [90000, 2]], white_dice=0, **knobs)
    return GameState(rules, [90000, 50000, 90000, 50000])


def test_a_round_played_by_hand():
    state = two_player_state()
    assert state.start_round()
    assert state.casino_bills == [[90000], [50000]]
    assert state.to_move == 0
    state.take_turn(0, Roll((1, 1)), 1)  # seat 0: both dice on casino 1
    assert state.to_move == 1
    state.take_turn(1, Roll((2, 1)), 2)
    assert state.to_move == 1  # seat 0 has no dice left: it passes
    state.take_turn(1, Roll((1,)), 1)
    assert state.round_over
    result = state.end_round()
    # Casino 1: seat 0 has 2 dice, seat 1 has 1: seat 0 takes the 90 000.
    assert result.won == (90000, 50000)
    assert result.unclaimed == 0 and result.white_won == 0
    # Round 2: the card passed to seat 1, the casinos drew the rest of the pile.
    assert state.start_round()
    assert state.first_player == 1 and state.to_move == 1
    assert state.casino_bills == [[90000], [50000]]


def test_bills_nobody_wins_go_under_the_pile_in_order():
    rules = Rules(players=2, casinos=2, dice_per_player=2, bills=[[10000, 6], [90000, 2]], white_dice=0,
                  casino_minimum=20000)
    state = GameState(rules, [10000, 10000, 90000, 10000, 10000, 10000, 10000, 90000])
    state.start_round()
    assert state.casino_bills == [[10000, 10000], [90000]]
    state.take_turn(0, Roll((2, 2)), 2)
    state.take_turn(1, Roll((2, 2)), 2)  # tied on casino 2: the 90 000 stays
    result = state.end_round()
    assert result.unclaimed == 110000 and result.won == (0, 0)
    # Under the pile: casino 1's bills (largest first), then casino 2's.
    assert list(state.pile) == [10000] * 4 + [90000, 10000, 10000, 90000]


def test_the_pile_running_out_leaves_casinos_short_or_ends_the_game():
    def exhausted(empty_pile):
        rules = Rules(players=2, casinos=2, dice_per_player=1, bills=[[50000, 3]], white_dice=0,
                      rounds=3, empty_pile=empty_pile)
        state = GameState(rules, [50000] * 3)
        state.start_round()
        state.take_turn(0, Roll((1,)), 1)
        state.take_turn(1, Roll((2,)), 2)
        state.end_round()  # both bills won: one is left
        return state

    state = exhausted("short")
    assert state.start_round()
    assert state.casino_bills == [[50000], []] and state.short_casinos == 1
    state = exhausted("end")
    assert not state.start_round() and state.game_over


def test_white_dice_go_with_the_value_and_a_white_only_value_may_be_chosen():
    rules = Rules(players=2, casinos=3, dice_per_player=2, white_dice=2, bills=[[50000, 6]])
    state = GameState(rules, [50000] * 6)
    state.start_round()
    state.take_turn(0, Roll((1, 2), (1, 3)), 1)  # one own die and one white die on casino 1
    assert state.casino_dice[0] == [1, 0, 1]
    assert state.dice_left[0] == 1 and state.white_left[0] == 1
    state.take_turn(1, Roll((1, 1), (2, 2)), 2)  # only white dice: the seat keeps its own
    assert state.casino_dice[1] == [0, 0, 2] and state.dice_left[1] == 2


def test_a_seat_holding_only_white_dice_still_takes_turns():
    rules = Rules(players=2, casinos=3, dice_per_player=1, white_dice=1, bills=[[50000, 6]])
    state = GameState(rules, [50000] * 6)
    state.start_round()
    state.take_turn(0, Roll((1,), (2,)), 1)
    state.take_turn(1, Roll((3,), (3,)), 3)
    assert state.to_move == 0 and state.dice_left[0] == 0 and state.white_left[0] == 1
    state.take_turn(0, Roll((), (2,)), 2)
    assert state.round_over


def test_the_extra_white_dice_at_three_players():
    rules = Rules(players=3)
    assert rules.n_white == 2 and rules.n_extra_white == 2
    state = GameState(rules, rules.pile)
    state.start_round()
    with pytest.raises(IllegalMove, match="white dice are placed before the first turn"):
        state.take_turn(0, Roll((1,) * 8, (1, 1)), 1)
    state.place_extra_white([4, 4])
    assert state.casino_dice[3] == [0, 0, 0, 2]
    assert Rules(players=3, white_dice=0).n_extra_white == 0
    assert Rules(players=4).n_extra_white == 0 and Rules(players=5).n_white == 0


@pytest.mark.parametrize(
    "seat,roll,value,message",
    [
        (1, Roll((1, 1)), 1, "not this seat's turn"),
        (0, Roll((1,)), 1, "rolls all its dice: 2 of its own"),
        (0, Roll((1, 2)), 3, "places a value its dice show"),
        (0, Roll((1, 7)), 1, "a die shows 1 to 2"),
    ],
)
def test_an_illegal_turn_names_the_rule(seat, roll, value, message):
    state = two_player_state()
    state.start_round()
    with pytest.raises(IllegalMove, match=message):
        state.take_turn(seat, roll, value)
