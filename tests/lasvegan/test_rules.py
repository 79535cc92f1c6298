"""The reference engine on hand-built deals with known outcomes.

Small deals keep the arithmetic checkable by hand: setting most of the deck
aside leaves each seat one to three cards, so a round is one to three tricks.
"""

import numpy as np
import pytest

from sim.lasvegan import enums as E
from sim.lasvegan.params import Rules, machine_code
from sim.lasvegan.records import RECORD_FIELDS, field_shape
from sim.lasvegan.rules import (
    GameState,
    IllegalMove,
    JitPolicy,
    Placement,
    RandomPolicy,
    game_records,
    machine_amounts,
    parse_card,
    play_game,
    settle,
    trick_winner,
    winners,
    win_shares,
)
from sim.rng import Stream, seed_stream_nb
from sim.conformance_kit import random_walk

GOLDEN = E.GOLDEN_SLOT
RED = 2


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def machines(*stickers: str) -> list[int]:
    return [machine_code(s) for s in stickers]


def deal(state: GameState, hands: list[str], round_machines=("value:1", "value:2", "value:3"),
         token_faces=None, golden_face=0) -> None:
    """Start a round with the given hands; every other card is set aside."""
    hands = [cards(h) for h in hands]
    dealt = {c for hand in hands for c in hand}
    set_aside = [c for c in range(E.N_CARDS) if c not in dealt]
    if token_faces is None:
        token_faces = [0] * len(state.rules.tokens)
    state.start_round(machines(*round_machines), token_faces, golden_face, hands, set_aside)


def play_out(state: GameState, plays: str, placements=()) -> None:
    """Play the cards in order, making the next placement whenever one is owed."""
    placements = list(placements)
    for card in cards(plays):
        while state.placement_owed:
            state.place_token(state.to_move, placements.pop(0))
        state.play_card(state.to_move, card)
    while state.placement_owed and placements:
        state.place_token(state.to_move, placements.pop(0))
    assert not placements, "more placements than were owed"


def tiny_rules(players=2, cards_each=2, **knobs) -> Rules:
    return Rules(players=players, set_aside=E.N_CARDS - players * cards_each, **knobs)


# --- who wins a trick ---------------------------------------------------------


def test_highest_card_of_the_led_suit_wins():
    assert trick_winner(cards("R5 R9 B9 R2"), leader=1, players=4) == 2


def test_one_off_suit_zero_wins():
    assert trick_winner(cards("R5 B0 R9 R2"), leader=0, players=4) == 1


def test_of_several_off_suit_zeros_the_last_wins():
    assert trick_winner(cards("R5 B0 R9 G0"), leader=2, players=4) == 1
    assert trick_winner(cards("R5 B0 G0 P0 R9"), leader=0, players=5) == 3


def test_a_led_zero_is_the_lowest_card_of_its_suit():
    assert trick_winner(cards("R0 R3 B4 R1"), leader=0, players=4) == 1
    # a zero of the led suit never beats anything, but an off-suit zero still wins
    assert trick_winner(cards("R0 G0 R9"), leader=0, players=3) == 1


def test_the_trick_winner_leads_the_next_trick_and_the_next_round():
    state = GameState(tiny_rules(rounds=2))
    deal(state, ["R9 G1", "R5 B0"])
    play_out(state, "R9 R5")  # seat 0 takes the first trick
    assert state.to_move == 0
    play_out(state, "G1 B0")  # seat 1 has no green: its off-suit zero wins
    assert state.tricks == [1, 1]
    result = state.end_round()
    assert result.next_leader == 1
    deal(state, ["R9 G1", "R5 B0"], round_machines=("value:4", "value:5", "value:6"))
    assert state.to_move == 1
    assert state.observe(0).round_leader == 1


# --- following suit and other illegal moves -----------------------------------------


def test_following_suit_is_enforced():
    state = GameState(tiny_rules(cards_each=3))
    deal(state, ["R5 B2 G1", "R3 B9 P4"])
    state.play_card(0, parse_card("R5"))
    assert state.legal_cards(1) == cards("R3")
    with pytest.raises(IllegalMove, match=r"must follow suit \(holds red, played B9\)"):
        state.play_card(1, parse_card("B9"))
    state.play_card(1, parse_card("R3"))
    # seat 0 won and leads: any card; seat 1 has no green: any card
    assert state.legal_cards(0) == cards("G1 B2")
    state.play_card(0, parse_card("G1"))
    assert state.legal_cards(1) == cards("B9 P4")


def test_a_seat_without_the_led_suit_may_play_anything_and_shows_it_void():
    state = GameState(tiny_rules(cards_each=1))
    deal(state, ["R5", "B2"])
    state.play_card(0, parse_card("R5"))
    state.play_card(1, parse_card("B2"))
    assert state.observe(0).voids == (frozenset(), frozenset({RED}))


def test_illegal_moves_name_the_rule():
    state = GameState(tiny_rules(cards_each=3))
    deal(state, ["R5 B2 G1", "R3 B9 P4"])
    with pytest.raises(IllegalMove, match="seat 1: not this seat's turn"):
        state.play_card(1, parse_card("R3"))
    with pytest.raises(ValueError, match="card R7 is not in the hand"):
        state.play_card(0, parse_card("R7"))
    with pytest.raises(IllegalMove, match="no placement is owed"):
        state.place_token(0, Placement.golden(E.MIN_SIDE))


def test_a_bad_deal_is_rejected():
    state = GameState(tiny_rules())
    with pytest.raises(ValueError, match="seat 1 is dealt 1 cards, each seat gets 2"):
        deal(state, ["R1 R2", "R3"])
    with pytest.raises(ValueError, match="card R1 is dealt twice"):
        deal(state, ["R1 R2", "R1 R3"])
    with pytest.raises(ValueError, match="machine value:7 is not left in the pile"):
        deal(state, ["R1 R2", "R3 R4"], round_machines=("value:7", "value:2", "value:3"))


# --- sevens and tokens ------------------------------------------------------------


def test_a_trick_with_two_sevens_owes_two_placements():
    state = GameState(tiny_rules(cards_each=2))
    deal(state, ["R7 R1", "B7 B1"], token_faces=[0, 1, 1, 0], golden_face=1)
    play_out(state, "R7 B7")
    assert state.placement_owed and state.to_move == 0
    with pytest.raises(IllegalMove, match="a placement is owed for each 7 won"):
        state.play_card(0, parse_card("R1"))
    with pytest.raises(IllegalMove, match="not this seat's turn"):
        state.place_token(1, Placement.on_machine(0, 0))
    state.place_token(0, Placement.on_machine(0, 2))
    with pytest.raises(IllegalMove, match="machine 0 already holds a token"):
        state.place_token(0, Placement.on_machine(0, 1))
    with pytest.raises(IllegalMove, match="token 2 is already placed"):
        state.place_token(0, Placement.on_machine(1, 2))
    state.place_token(0, Placement.golden(E.MAX_SIDE))
    assert not state.placement_owed
    with pytest.raises(IllegalMove, match="no placement is owed"):
        state.place_token(0, Placement.on_machine(1, 1))
    play_out(state, "R1 B1")
    result = state.end_round()
    assert [p.value for p in result.placements] == [-3, 4]
    assert result.machine_token == (2, -1, -1)
    assert result.golden_side == E.MAX_SIDE and result.golden_placer == 0


def test_a_seven_without_a_free_slot_does_nothing():
    # one ordinary token only: once it and the golden token are placed, the
    # other two 7s find no slot, though machines 0 and 2 are still empty
    rules = tiny_rules(players=4, cards_each=1, tokens=[[1, -1]])
    state = GameState(rules)
    deal(state, ["R7", "G7", "B7", "P7"])
    play_out(state, "R7 G7 B7 P7", [Placement.on_machine(1, 0)])
    assert state.free_slots() == [E.GOLDEN_SLOT]
    play_out(state, "", [Placement.golden(E.MIN_SIDE)])
    assert state.seven_no_slot == 2
    assert state.round_over


def test_a_machine_without_token_scores_nothing():
    # seat 0 wins the 1, both 2s and two reds, but only machine 0 (value:1) gets a token
    state = GameState(tiny_rules(cards_each=2))
    deal(state, ["R7 R2", "B1 B2"], round_machines=("value:1", "value:2", "suit:red"))
    play_out(state, "R7 B1 R2 B2", [Placement.on_machine(0, 0)])
    result = state.end_round()
    assert result.machine_token == (0, -1, -1)
    assert result.machine_amounts == ((1, 0), (0, 0), (0, 0), (0, 0))
    rec = game_records(state, game=0)
    assert rec["machine_token"][0].tolist() == [0, -1, -1]
    assert rec["machine_value"][0].tolist() == [1, 0, 0]
    assert rec["amount"][0, E.KIND_POINTS].tolist() == [1, 0]
    assert rec["amount"][0, E.KIND_COLOUR].tolist() == [0, 0]


# --- scoring ---------------------------------------------------------------------


@pytest.mark.parametrize("reds, groups", [(2, 0), (3, 1), (5, 1), (6, 2)])
def test_a_colour_machine_counts_groups_of_three(reds, groups):
    won = [[parse_card(f"R{v}") for v in range(reds)] + cards("G1 B2 B3"), []]
    rows = machine_amounts(machines("suit:red", "value:9", "value:8"), [-2, None, None], E.NO_SIDE, 3,
                           won, tricks=[3, 0])
    assert rows[0] == [-2 * groups, 0]


def test_a_points_machine_counts_each_card_of_its_value():
    won = [cards("R5 G5 B5"), cards("P5 R1")]
    rows = machine_amounts(machines("value:5", "value:9", "value:8"), [1, None, None], E.NO_SIDE, 3, won, [2, 1])
    assert rows[0] == [3, 1]


@pytest.mark.parametrize(
    "side, tricks, expected",
    [
        (E.MIN_SIDE, [3, 1, 3, 1], [0, -4, 0, -4]),
        (E.MAX_SIDE, [3, 1, 3, 1], [-4, 0, -4, 0]),
        (E.MIN_SIDE, [4, 2, 1, 3], [0, 0, -4, 0]),
        (E.MAX_SIDE, [4, 2, 1, 3], [-4, 0, 0, 0]),
        (E.MAX_SIDE, [2, 2, 2, 2], [-4, -4, -4, -4]),
    ],
)
def test_the_golden_machine_hits_every_seat_tied_for_fewest_or_most_tricks(side, tricks, expected):
    rows = machine_amounts(machines("value:1", "value:2", "value:3"), [None] * 3, side, 4, [[]] * 4, tricks)
    assert rows[GOLDEN] == expected
    assert rows[:GOLDEN] == [[0] * 4] * 3


# --- settlement --------------------------------------------------------------------


def test_a_loss_is_capped_at_the_cabbages_held():
    settled = settle([3, 15], reserve=10, net=[-10, 0], first_payee=0)
    assert settled.cabbages == [0, 15]
    assert settled.reserve == 13


def test_gains_are_paid_clockwise_from_the_first_payee_while_the_reserve_lasts():
    settled = settle([10, 10, 10, 10], reserve=2, net=[0, 3, 0, 4], first_payee=3)
    assert settled == ([10, 10, 10, 12], 0, 5)
    settled = settle([10, 10, 10, 10], reserve=2, net=[0, 3, 0, 4], first_payee=0)
    assert settled == ([10, 12, 10, 10], 0, 5)


def test_losses_refill_the_reserve_before_gains_are_paid():
    assert settle([10, 10], reserve=0, net=[-3, 3], first_payee=1) == ([7, 13], 0, 0)


def test_an_unlimited_reserve_pays_every_gain():
    assert settle([10, 1], reserve=None, net=[7, -5], first_payee=0) == ([17, 0], None, 0)


def short_reserve_round(payout_order: str):
    """Seat 1 takes both 7s: golden MIN (a -2 face, so +2 each) for seats 0 and 2,
    and -1 per 7 won on the value:7 machine for seat 1. The reserve starts empty."""
    rules = tiny_rules(players=3, cards_each=1, rounds=1, total_cabbages=45,
                       machines=["value:7", "value:8", "value:9"], golden_token=[-2, -3],
                       payout_order=payout_order)
    state = GameState(rules)
    deal(state, ["P1", "P7", "G7"], round_machines=("value:7", "value:8", "value:9"), token_faces=[1, 0, 0, 0])
    play_out(state, "P1 P7 G7", [Placement.golden(E.MIN_SIDE), Placement.on_machine(0, 0)])
    return state, state.end_round()


def test_the_finite_reserve_running_short_pays_from_the_next_leader():
    state, result = short_reserve_round("next_leader")
    assert result.net == (2, -2, 2)
    assert result.next_leader == 1
    # seat 1's 2 cabbages go to seat 2, first clockwise from seat 1
    assert result.cabbages == (15, 13, 17)
    assert result.shortfall == 2 and result.reserve == 0
    rec = game_records(state, game=0)
    assert rec["shortfall"].tolist() == [2]
    assert rec["delta"][0].tolist() == [0, -2, 2]
    assert rec["amount"][0, E.KIND_GOLDEN].tolist() == [2, 0, 2]
    assert rec["amount"][0, E.KIND_POINTS].tolist() == [0, -2, 0]


def test_the_seat_zero_payout_order_pays_seat_zero_first():
    _, result = short_reserve_round("seat_zero")
    assert result.cabbages == (17, 13, 15)
    assert result.shortfall == 2


# --- end of the game ---------------------------------------------------------------


def elimination_game(end_on_elimination: bool) -> GameState:
    """Seat 0 wins a 9 under a -3 token while holding only 2 cabbages."""
    rules = tiny_rules(rounds=2, starting_cabbages=2, end_on_elimination=end_on_elimination)
    state = GameState(rules)
    deal(state, ["R7 R9", "B1 B2"], round_machines=("value:9", "value:8", "value:6"), token_faces=[0, 0, 1, 0])
    play_out(state, "R7 B1 R9 B2", [Placement.on_machine(0, 2)])
    result = state.end_round()
    assert result.net == (-3, 0)
    assert result.cabbages == (0, 2)  # lost 2, not 3
    return state


def test_elimination_ends_the_game():
    state = elimination_game(end_on_elimination=True)
    assert state.game_over
    assert state.winners() == [1]
    with pytest.raises(ValueError, match="the game is over"):
        deal(state, ["R7 R9", "B1 B2"], round_machines=("value:1", "value:2", "value:3"))
    rec = game_records(state, game=5)
    assert rec["rounds_played"] == 1 and rec["elim_round"] == 1
    assert rec["round_leader"].tolist() == [0, -1]
    assert rec["delta"].tolist() == [[-2, 0], [0, 0]]
    assert rec["machine"][1].tolist() == [-1, -1, -1]
    assert rec["win_share"].tolist() == [0.0, 1.0]
    assert rec["game"] == 5


def test_without_end_on_elimination_a_seat_at_zero_plays_on_and_cannot_lose_more():
    state = elimination_game(end_on_elimination=False)
    assert not state.game_over
    deal(state, ["R7 R9", "B1 B2"], round_machines=("value:1", "value:2", "value:3"))
    play_out(state, "R7 B1 R9 B2", [Placement.on_machine(0, 3)])  # -1 per 1 won: seat 0 won B1
    result = state.end_round()
    assert result.net == (-1, 0) and result.cabbages == (0, 2)
    assert state.game_over
    rec = game_records(state, game=0)
    assert rec["elim_round"] == 1 and rec["zero_playing_on"] == 1 and rec["rounds_played"] == 2


@pytest.mark.parametrize("extra, eliminated", [(1, True), (2, False)])
def test_a_seat_s_extra_cabbages_are_dealt_to_it_and_count_before_it_is_out(extra, eliminated):
    """Seat 0 starts with 2 + ``extra`` and loses 3 (a 9 under a -3 token): out with 3, not with 4."""
    rules = tiny_rules(rounds=2, starting_cabbages=2, seat_cabbages=[extra], total_cabbages=10)
    state = GameState(rules)
    assert state.cabbages == [2 + extra, 2] and state.reserve == 10 - 4 - extra
    deal(state, ["R7 R9", "B1 B2"], round_machines=("value:9", "value:8", "value:6"), token_faces=[0, 0, 1, 0])
    play_out(state, "R7 B1 R9 B2", [Placement.on_machine(0, 2)])
    result = state.end_round()
    assert result.cabbages == (2 + extra - 3, 2)
    assert state.reserve == 10 - 4 - extra + 3
    assert state.game_over == eliminated
    assert game_records(state, game=0)["elim_round"] == (1 if eliminated else 0)


def test_tied_players_share_the_win():
    assert winners([5, 9, 9, 2]) == [1, 2]
    assert win_shares([5, 9, 9, 2]) == [0.0, 0.5, 0.5, 0.0]


# --- observations -------------------------------------------------------------------


@pytest.mark.parametrize("face", ["hidden", "revealed"])
def test_the_set_aside_card_is_seen_only_when_revealed(face):
    rules = Rules(players=3, set_aside_face=face)
    state = GameState(rules)
    deck = list(range(40))
    state.start_round(machines("value:1", "value:2", "value:3"), [0] * 4, 0,
                      [deck[0:13], deck[13:26], deck[26:39]], [39])
    obs = state.observe(1)
    pub = obs.to_pub()
    assert pub[E.P_N_SET_ASIDE] == 1
    if face == "hidden":
        assert obs.set_aside == frozenset() and pub[E.P_SET_ASIDE] == 0
    else:
        assert obs.set_aside == {39} and pub[E.P_SET_ASIDE] == 1 << 39


def test_the_public_observation_follows_the_enums_layout():
    state = GameState(tiny_rules(players=3, cards_each=2))
    deal(state, ["R7 R2", "B5 R1", "G0 G3"], token_faces=[0, 1, 1, 0], golden_face=1)
    play_out(state, "R7 R1 G0")  # seat 2's off-suit zero takes a 7
    state.place_token(2, Placement.on_machine(1, 3))
    state.play_card(2, parse_card("G3"))
    pub = state.observe(0).to_pub()
    assert pub.dtype == np.int64 and pub.shape == (E.PUB_SIZE,)
    assert pub[E.P_PLAYERS] == 3 and pub[E.P_TRICK_LEADER] == 2 and pub[E.P_TRICK_NUMBER] == 1
    assert pub[E.P_TRICK_LEN] == 1
    assert pub[E.P_TRICK_CARDS:E.P_TRICK_CARDS + 2].tolist() == [parse_card("G3"), -1]
    assert pub[E.P_PLAYED] == sum(1 << c for c in cards("R7 R1 G0 G3"))
    assert pub[E.P_WON + 2] == sum(1 << c for c in cards("R7 R1 G0"))
    assert pub[E.P_TRICKS:E.P_TRICKS + 3].tolist() == [0, 0, 1]
    assert pub[E.P_VOIDS + 2] == 1 << RED
    assert pub[E.P_HAND_SIZE:E.P_HAND_SIZE + 3].tolist() == [1, 1, 0]
    assert pub[E.P_MACHINE_TOKEN:E.P_MACHINE_TOKEN + 3].tolist() == [-1, 3, -1]
    assert pub[E.P_MACHINE_PLACER + 1] == 2
    assert pub[E.P_TOKEN_VALUE:E.P_TOKEN_VALUE + 4].tolist() == [1, -2, -3, -1]
    assert pub[E.P_TOKEN_PLACED:E.P_TOKEN_PLACED + 4].tolist() == [0, 0, 0, 1]
    assert pub[E.P_GOLDEN_VALUE] == 4 and pub[E.P_GOLDEN_SIDE] == E.NO_SIDE
    assert pub[E.P_RESERVE] == 75 - 45 and pub[E.P_CABBAGES] == 15


# --- whole games ----------------------------------------------------------------------


def test_play_game_fills_every_record_field_with_its_shape_and_dtype():
    rules = Rules(players=3, rounds=2)
    rec = play_game(rules, seed=7, game=3)
    assert set(rec) == set(RECORD_FIELDS)
    for name, (_, dtype, _) in RECORD_FIELDS.items():
        assert rec[name].shape == field_shape(name, 3, 2), name
        assert rec[name].dtype == dtype, name


def test_the_same_seed_and_game_give_the_same_game():
    rules = Rules()
    a, trace_a = play_game(rules, 11, 4, trace=True)
    b, trace_b = play_game(rules, 11, 4, trace=True)
    assert trace_a == trace_b
    assert all(np.array_equal(a[k], b[k]) for k in RECORD_FIELDS)
    _, other = play_game(rules, 11, 5, trace=True)
    assert other != trace_a


def test_the_jitted_stream_starts_where_the_python_stream_does():
    state = np.zeros(4, dtype=np.uint64)
    seed_stream_nb(state, 42, 9, E.STREAM_POLICY + 2)
    assert [int(w) for w in state] == Stream(42, 9, E.STREAM_POLICY + 2).s


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_jitted_random_policy_plays_the_same_game_as_the_python_one(players):
    rules = Rules(players=players)
    for game in range(5):
        python = play_game(rules, 3, game, policies=[RandomPolicy()] * players, trace=True)
        jitted = play_game(rules, 3, game, policies=[JitPolicy.named("random")] * players, trace=True)
        assert jitted[1] == python[1]
        assert all(np.array_equal(jitted[0][k], python[0][k]) for k in RECORD_FIELDS)


@pytest.mark.parametrize("face", ["hidden", "revealed"])
def test_an_observation_names_no_card_its_seat_may_not_see(face):
    """Straight from the rules, not from the engine's own idea of what is hidden (which the information-set
    suite's redeals follow): a seat sees its hand, every card played this round and, only when the rules show
    them, the cards set aside. The kernel hands its policies the same observation (tests/conformance)."""
    from sim.lasvegan.rules import STATE, card_mask

    rules, checked = Rules(players=3, set_aside_face=face), 0
    for seed in range(3):
        for state, _ in random_walk(STATE, rules, seed):
            seat = state.to_move()
            if seat < 0:
                continue
            gs = state.state
            obs = gs.observe(seat)
            may_see = set(gs.hands[seat]) | set(gs.played) | (set(gs.set_aside) if face == "revealed" else set())
            named = set(obs.hand) | set(obs.trick) | set(obs.played) | set(obs.set_aside) | set().union(*obs.won)
            assert named <= may_see, f"seat {seat} is shown {sorted(named - may_see)}"
            assert obs.set_aside == (frozenset(gs.set_aside) if face == "revealed" else frozenset())
            pub = obs.to_pub()
            assert int(pub[E.P_SET_ASIDE]) == (card_mask(gs.set_aside) if face == "revealed" else 0)
            checked += 1
    assert checked > 100
