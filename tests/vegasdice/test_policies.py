"""The scripted policies: what they may know, how they choose, how they are named."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.errors import ConfigError
from sim.rng import Stream
from sim.vegasdice import enums as E
from sim.vegasdice.conformance import midround
from sim.vegasdice.heuristics import placement_gain_nb
from sim.vegasdice.params import Rules
from sim.vegasdice.policies import (
    N_POLICY_PARAMS,
    POLICY_DESCRIPTIONS,
    POLICY_IDS,
    POLICY_SYNTAX,
    parse_policy,
    parse_seats,
)
from sim.vegasdice.rules import GameState, JitPolicy, RandomPolicy, Roll, pay_casino

POLICIES = ["random", "greedy", "montecarlo:6"]


def policy(name):
    return RandomPolicy() if name == "random" else JitPolicy.named(name)


# --- what a policy may know ------------------------------------------------------


@pytest.mark.parametrize("name", POLICIES)
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_decision_does_not_depend_on_the_order_of_the_pile(name, players):
    rules = Rules(players=players)
    changed_piles = 0
    for seed in range(6):
        state, other, seat, roll = midround(rules, seed, turns=1 + seed)
        changed_piles += list(state.pile) != list(other.pile)
        obs, obs_other = state.observe(seat), other.observe(seat)
        np.testing.assert_array_equal(obs.to_pub(), obs_other.to_pub())
        a = policy(name).choose_value(obs, roll, Stream(5, 9, seat))
        b = policy(name).choose_value(obs_other, roll, Stream(5, 9, seat))
        assert a == b and a in roll.shown()
    assert changed_piles >= 4


@pytest.mark.parametrize("name", POLICIES)
def test_a_decision_does_depend_on_what_the_seat_sees(name):
    """The test above could fail: changing the seat's roll or the bills on the
    casinos changes some decisions."""
    rules = Rules(players=4)
    changed = 0
    for seed in range(10):
        state, _, seat, roll = midround(rules, seed, turns=2 + seed)
        obs = state.observe(seat)
        choice = policy(name).choose_value(obs, roll, Stream(5, 9, seat))
        other_roll = Roll(tuple(1 + (f % rules.casinos) for f in roll.own), roll.white)
        changed += policy(name).choose_value(obs, other_roll, Stream(5, 9, seat)) != choice
        richer = state.observe(seat)
        bills = tuple((90000,) * 3 if c == 5 else b for c, b in enumerate(richer.casino_bills))
        object.__setattr__(richer, "casino_bills", bills)
        changed += policy(name).choose_value(richer, roll, Stream(5, 9, seat)) != choice
    assert changed > 0


# --- greedy ----------------------------------------------------------------------


def decide(name, dice, bills, roll, seat=0, players=3, stream=None):
    """Seat ``seat`` to move with ``dice[c]`` = {owner: n} on casino c+1 and ``bills[c]`` on it."""
    rules = Rules(players=players, white_dice=2)
    state = GameState(rules, rules.pile)
    state.start_round()
    state.extra_placed = True
    state.casino_bills = [sorted(b, reverse=True) for b in bills]
    for c, owners in enumerate(dice):
        for owner, n in owners.items():
            state.casino_dice[c][players if owner == "white" else owner] = n
    state.next_seat = seat
    obs = state.observe(seat)
    return policy(name).choose_value(obs, roll, stream or Stream(1, 2, seat))


EMPTY = [{}] * 6
FLAT = [[50000]] * 6


def standing(players, seat, bills, dice):
    """The seat's take times ``players`` minus every player's take, by the readable payout."""
    paid = dict(pay_casino(1, bills, dict(enumerate(dice))).paid)
    return players * paid.get(seat, 0) - sum(paid.get(o, 0) for o in range(players))


@settings(max_examples=400, deadline=None)
@given(
    players=st.integers(2, 5),
    data=st.data(),
    bills=st.lists(st.sampled_from([10000, 20000, 50000, 60000, 90000]), min_size=1, max_size=6),
    add_own=st.integers(0, 8),
    add_white=st.integers(0, 4),
)
def test_greedy_gain_is_the_change_in_the_readable_payout(players, data, bills, add_own, add_white):
    """``placement_gain_nb`` sums the payout on the fly from masks; it must
    equal the change in standing the reference engine's payout gives."""
    seat = data.draw(st.integers(0, players - 1))
    dice = data.draw(st.lists(st.integers(0, 8), min_size=players + 1, max_size=players + 1))  # seats, then white
    pub = np.zeros(E.PUB_SIZE, dtype=np.int64)
    pub[E.P_PLAYERS] = players
    pub[E.P_CASINOS] = 1
    for o, n in enumerate(dice):
        pub[E.P_CASINO_DICE + (E.WHITE if o == players else o)] = n
    bills = sorted(bills, reverse=True)
    pub[E.P_CASINO_NBILLS] = len(bills)
    pub[E.P_CASINO_BILLS:E.P_CASINO_BILLS + len(bills)] = bills
    after = list(dice)
    after[seat] += add_own
    after[players] += add_white
    expected = standing(players, seat, bills, after) - standing(players, seat, bills, dice)
    assert placement_gain_nb(pub, seat, 0, add_own, add_white) == expected


def test_greedy_takes_the_biggest_bill_it_can_lead():
    bills = [[50000], [50000], [90000, 20000], [50000], [50000], [50000]]
    assert decide("greedy", EMPTY, bills, Roll((1, 3, 5, 5, 6, 6, 2, 4), (1, 2))) == 3


def test_greedy_breaks_a_tie_that_would_cancel_it_out():
    # Seat 1 leads casino 2 with 2 dice; seat 0 has 1 there. Two more dice make it 3 > 2.
    dice = [{}, {0: 1, 1: 2}, {}, {}, {}, {}]
    bills = [[50000], [90000], [60000], [50000], [50000], [50000]]
    assert decide("greedy", dice, bills, Roll((2, 2, 3, 4, 5, 6, 6, 1), (1, 4))) == 2


def test_greedy_weighs_cancelling_a_rival_against_its_own_gain():
    # Casino 2 with seven dice: seat 0 takes 40 000, +80 000 against two rivals.
    # One die on casino 3 ties seat 1's single die: seat 1 loses the 90 000 (+90 000).
    dice = [{}, {}, {1: 1}, {}, {}, {}]
    bills = [[50000], [10000, 40000], [90000], [50000], [50000], [50000]]
    assert decide("greedy", dice, bills, Roll((3, 2, 2, 2, 2, 2, 2, 2), (1, 1))) == 3
    # With seat 2 ahead there, the tie only costs seat 1 the 10 000 (+10 000).
    dice = [{}, {}, {1: 1, 2: 2}, {}, {}, {}]
    bills = [[50000], [10000, 40000], [90000, 10000], [50000], [50000], [50000]]
    assert decide("greedy", dice, bills, Roll((3, 2, 2, 2, 2, 2, 2, 2), (1, 1))) == 2


def test_greedy_spends_fewest_dice_on_equal_terms():
    bills = [[90000]] * 6
    assert decide("greedy", EMPTY, bills, Roll((4, 4, 4, 6, 6, 1, 1, 1), (2, 2))) == 6


def test_greedy_uses_white_dice_to_cancel_an_opponents_lead():
    # Seat 1 alone on casino 5 with 2 dice; two white dice tie it out of the 90 000.
    dice = [{}, {}, {}, {}, {1: 2}, {}]
    bills = [[10000, 40000]] * 4 + [[90000], [10000, 40000]]
    assert decide("greedy", dice, bills, Roll((1, 1, 1, 1, 1, 1, 1, 1), (5, 5))) == 5


def test_montecarlo_sees_that_a_lone_die_on_a_big_casino_is_easily_tied():
    # Greedy puts its single 2 on casino 2's 90 000 (the best bill it can lead
    # now with fewest dice); two opponents with 10 dice each would soon tie or
    # beat one die there.
    bills = [[90000], [90000]] + [[50000]] * 4
    roll = Roll((1, 1, 1, 1, 1, 1, 1, 2), (3, 4))
    assert decide("greedy", EMPTY, bills, roll) == 2
    assert decide("montecarlo:64", EMPTY, bills, roll) != 2


def test_montecarlo_with_one_value_shown_draws_nothing():
    stream = Stream(3, 3, 0)
    before = list(stream.s)
    assert decide("montecarlo:8", EMPTY, FLAT, Roll((4,) * 8, (4, 4)), stream=stream) == 4
    assert stream.s == before


# --- names -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,policy_id,params",
    [
        ("random", E.POLICY_RANDOM, [0, 0]),
        (" greedy ", E.POLICY_GREEDY, [0, 0]),
        ("montecarlo", E.POLICY_MONTECARLO, [32, 0]),
        ("montecarlo:100", E.POLICY_MONTECARLO, [100, 0]),
    ],
)
def test_compact_policy_names_parse_to_an_id_and_parameters(text, policy_id, params):
    got_id, got_params = parse_policy(text)
    assert got_id == policy_id and got_params.shape == (N_POLICY_PARAMS,)
    np.testing.assert_allclose(got_params, params)


@pytest.mark.parametrize(
    "text,message",
    [
        ("smart", "unknown policy 'smart'"),
        ("greedy:3", "greedy takes no parameters"),
        ("montecarlo:0", "samples per decision"),
        ("montecarlo:100001", "samples per decision"),
        ("montecarlo:many", "samples per decision"),
        ("montecarlo:+8", "samples per decision"),
        ("montecarlo:\u0663", "samples per decision"),  # an Arabic-Indic 3
        ("montecarlo:8:win", "expected montecarlo\\[:N\\]"),
    ],
)
def test_a_bad_policy_name_is_a_config_error_naming_the_field(text, message):
    with pytest.raises(ConfigError, match="^policies.seats\\[1\\]: .*" + message):
        parse_seats(["random", text], 2)


def test_seat_lists_must_match_the_players():
    with pytest.raises(ConfigError, match="^policies.seats: lists 3 policies for 2 players"):
        parse_seats(["random"] * 3, 2)
    ids, params = parse_seats("greedy", 4)
    assert ids.tolist() == [E.POLICY_GREEDY] * 4 and params.shape == (4, N_POLICY_PARAMS)


def test_every_policy_has_a_description_and_a_syntax():
    assert set(POLICY_DESCRIPTIONS) == set(POLICY_IDS) == set(POLICY_SYNTAX)
    assert all(text.endswith(".") and len(text) < 300 for text in POLICY_DESCRIPTIONS.values())
