"""The scripted policies: what they may know, how they play, how they are named."""

import numpy as np
import pytest

from sim.errors import ConfigError
from sim.lasvegan import enums as E
from sim.lasvegan.heuristics import lead_takers_nb, lowest_value_card_nb, takes_lead_nb
from sim.lasvegan.nb import play_games
from sim.lasvegan.params import Rules
from sim.lasvegan.policies import (
    N_POLICY_PARAMS,
    POLICY_DESCRIPTIONS,
    POLICY_IDS,
    parse_policy,
    parse_seats,
)
from sim.lasvegan.records import RECORD_FIELDS
from sim.lasvegan.table import Table, card_id, mask_cards, seat_stream

POLICIES = [
    "random",
    "greedy",
    "cautious",
    "lookahead:12",
    "lookahead:6:win",
    "epsilon:0.3:greedy",
    "epsilon:0.5:lookahead:4",
    "expert",
    "epsilon:0.2:expert",
]


def cards(*names):
    return [card_id(n) for n in names]


# --- what a policy may know: the shared conformance suite (tests/conformance/test_information_sets.py) pairs
# situations at every kind of decision and table size, the cards set aside hidden and shown -------------------


def random_table(players, seed, moves):
    """A round dealt at random and played ``moves`` moves by random seats."""
    table = Table.dealt_at_random(players, seed)
    table.advance("random", moves, seed=seed)
    return table


def test_the_jitted_core_and_the_reference_engine_agree_under_every_policy():
    """Both engines hand the policies the same observation at every decision."""
    from sim.lasvegan.rules import JitPolicy, play_game

    rule_sets = [
        Rules(players=3),
        Rules(players=4),
        Rules(players=2, set_aside=4, set_aside_face="revealed"),
        Rules(players=5, starting_cabbages=12, total_cabbages=62, payout_order="seat_zero", end_on_elimination=False),
        Rules(players=4, reserve="unlimited", tokens=[[2, -1], [1, 1]], golden_token=[-1, 3]),
    ]
    for rules in rule_sets:
        players = rules.players
        for seats in (
            ["greedy", "lookahead:3:win", "cautious", "epsilon:0.4:lookahead:2", "lookahead:2"][:players],
            ["expert", "epsilon:0.3:expert", "greedy", "expert", "cautious"][:players],
        ):
            ids, params = parse_seats(seats, players)
            rec = play_games(rules, 17, 0, 12, ids, params)
            for g in range(12):
                ref = play_game(rules, 17, g, [JitPolicy.named(s) for s in seats])
                for field in RECORD_FIELDS:
                    np.testing.assert_array_equal(rec[field][g], ref[field], err_msg=f"{seats} game {g} {field}")


# --- greedy ------------------------------------------------------------------------

# Machines of the hand-built situations: points machines for 5 and 1, a red
# colour machine; the four ordinary tokens show +1, -2, -3, -1.
POISON_FIVES = {0: 2}  # the -3 token on the points machine for 5
LUCKY_FIVES = {0: 0}  # the +1 token on it


def test_greedy_ducks_a_trick_it_does_not_want_with_its_highest_losing_card():
    table = Table(
        [cards("G5", "B1", "B2"), cards("G8", "B3", "B4"), cards("G2", "G6", "G9"), cards("R1", "R2", "R3")],
        tokens_on=POISON_FIVES,
    )
    table.play("G5")
    table.play("G8")
    assert table.choose_card("greedy") == card_id("G6")


@pytest.mark.parametrize("tokens_on, last_hand, expected", [
    # wanted: the cheapest card that wins it
    (LUCKY_FIVES, ("B5", "B6", "B7"), "G6"),
    # not wanted but forced to win: the highest card goes with it
    (POISON_FIVES, ("B5", "B6", "B8"), "G9"),
], ids=["wants-it-cheapest-winner", "forced-highest-card"])
def test_greedy_last_to_a_trick_it_can_win(tokens_on, last_hand, expected):
    table = Table(
        [cards("G5", "B1", "B2"), cards("G3", "B3", "B4"), cards(*last_hand), cards("G6", "G8", "G9")],
        tokens_on=tokens_on,
    )
    for card in ("G5", "G3", "B5"):
        table.play(card)
    assert table.choose_card("greedy") == card_id(expected)


def test_greedy_discards_its_most_dangerous_card_when_void():
    table = Table(
        [cards("G4", "B1", "B2"), cards("R9", "P5", "B3"), cards("G2", "G6", "G9"), cards("R1", "R2", "R3")],
        tokens_on=POISON_FIVES,
    )
    table.play("G4")
    assert table.choose_card("greedy") == card_id("P5")


@pytest.mark.parametrize(("golden_side", "expected"), [(E.MIN_SIDE, "G6"), (E.MAX_SIDE, "G2")])
def test_greedy_wins_a_trick_on_min_to_escape_the_fewest_tricks_penalty(golden_side, expected):
    # Seat 1 has won nothing: with the golden token on MIN any trick lifts it off; on MAX it ducks.
    table = Table(
        [cards("G5", "B1"), cards("G6", "G2"), cards("B6", "B7")],
        won=[cards("R4", "R5", "R6"), [], cards("P1", "P2", "P3")],
        golden_side=golden_side,
    )
    table.play("G5")
    assert table.choose_card("greedy") == card_id(expected)


def placement_table(won, tricks=None, tokens_on=None, golden_side=E.MIN_SIDE):
    """Seat 0 wins a trick with a 7 and owes a placement; machines: points 8,
    points 3, blue colour; tokens +1, -3, 0, -1."""
    table = Table(
        [cards("G7", "R1"), cards("G1", "R2"), cards("G2", "R3")],
        machines=("value:8", "value:3", "suit:blue"),
        token_values=(1, -3, 0, -1),
        won=won,
        tricks=tricks,
        tokens_on={1: 2, 2: 3} if tokens_on is None else tokens_on,
        golden_side=golden_side,
    )
    for card in ("G7", "G1", "G2"):
        table.play(card)
    assert table.owed == 1 and table.seat == 0
    return table


def test_greedy_places_the_worst_token_where_opponents_profit():
    table = placement_table(won=[[], cards("R8", "B8", "P8"), []])
    assert table.choose_placement("greedy") == (0, 1, E.NO_SIDE)


def test_greedy_places_the_best_token_where_it_profits():
    table = placement_table(won=[cards("R8", "B8"), [], []])
    assert table.choose_placement("greedy") == (0, 0, E.NO_SIDE)


def test_greedy_puts_the_golden_token_on_the_side_that_hits_others():
    # All ordinary machines hold a token; seat 0 leads the tricks count.
    table = placement_table(
        won=[[], [], []], tricks=[3, 1, 0], tokens_on={0: 0, 1: 1, 2: 2}, golden_side=E.NO_SIDE
    )
    assert table.choose_placement("greedy") == (E.GOLDEN_SLOT, -1, E.MIN_SIDE)
    table = placement_table(
        won=[[], [], []], tricks=[0, 2, 3], tokens_on={0: 0, 1: 1, 2: 2}, golden_side=E.NO_SIDE
    )
    assert table.choose_placement("greedy") == (E.GOLDEN_SLOT, -1, E.MAX_SIDE)


# --- cautious ----------------------------------------------------------------------


def test_cautious_does_not_take_a_seven_even_with_its_lowest_card():
    # Void in green, its lowest card (a blue 0) would win the trick led with a 7.
    table = Table([cards("G7", "G1"), cards("B0", "R5"), cards("G2", "G3")])
    table.play("G7")
    assert table.choose_card("cautious") == card_id("R5")


def test_cautious_does_not_take_a_card_of_a_negative_machine():
    table = Table(
        [cards("G5", "B1", "B2"), cards("G8", "G1", "B3"), cards("B4", "B5", "B6")], tokens_on=POISON_FIVES
    )
    table.play("G5")
    assert table.choose_card("cautious") == card_id("G1")
    table = Table([cards("G5", "B1", "B2"), cards("G8", "G9", "B3"), cards("B4", "B5", "B6")], tokens_on={})
    table.play("G5")
    assert table.choose_card("cautious") == card_id("G8")


def test_cautious_plays_low_and_does_not_lead_a_seven():
    table = Table([cards("G7", "B9", "R8"), cards("G1", "G2", "G3"), cards("B1", "B2", "B3")])
    assert table.choose_card("cautious") == card_id("R8")


def test_the_mask_of_cards_that_take_the_lead_agrees_with_the_card_by_card_rule():
    for led in range(-1, E.N_SUITS):
        for best in range(-1 if led < 0 else 0, E.N_VALUES):
            for zero in (False, True):
                takers = int(lead_takers_nb(led, best, zero))
                for card in range(E.N_CARDS):
                    assert bool(takers >> card & 1) == takes_lead_nb(card, led, best, zero), (led, best, zero, card)


def test_the_lowest_value_card_of_a_mask_is_of_the_lowest_suit_among_equals():
    rng = np.random.default_rng(0)
    for _ in range(2000):
        mask = int(rng.integers(1, 1 << E.N_CARDS))
        expected = min(mask_cards(mask), key=lambda card: (card % 10, card))
        assert lowest_value_card_nb(np.uint64(mask)) == expected


# --- epsilon -----------------------------------------------------------------------


def play(seats, players=4, games=40, seed=3):
    ids, params = parse_seats(seats, players)
    return play_games(Rules(players=players), seed, 0, games, ids, params)


def assert_same_games(a, b):
    for field in RECORD_FIELDS:
        np.testing.assert_array_equal(a[field], b[field], err_msg=field)


@pytest.mark.parametrize("base", ["greedy", "cautious", "lookahead:3", "expert"])
def test_epsilon_zero_plays_exactly_like_its_base(base):
    games = 8 if base.startswith("lookahead") else 300
    rest = ["greedy"] * 3
    assert_same_games(play([f"epsilon:0:{base}"] + rest, games=games), play([base] + rest, games=games))


def test_epsilon_one_plays_exactly_like_random():
    assert_same_games(play(["epsilon:1:greedy", "greedy", "cautious", "epsilon:1:cautious"], games=300),
                      play(["random", "greedy", "cautious", "random"], games=300))


def test_epsilon_plays_at_random_with_its_probability():
    table = random_table(4, seed=1, moves=5)
    legal = mask_cards(table.legal())
    greedy = table.choose_card("greedy")
    n, epsilon = 4000, 0.3
    stream = seat_stream(2, 0, table.seat)
    hits = sum(table.choose_card(f"epsilon:{epsilon}:greedy", stream) == greedy for _ in range(n))
    expected = 1 - epsilon + epsilon / len(legal)
    assert len(legal) > 2
    assert abs(hits / n - expected) < 4 * np.sqrt(expected * (1 - expected) / n)


# --- names --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,policy_id,params",
    [
        ("random", E.POLICY_RANDOM, [0, 0, 0, 0]),
        (" greedy ", E.POLICY_GREEDY, [0, 0, 0, 0]),
        ("cautious", E.POLICY_CAUTIOUS, [0, 0, 0, 0]),
        ("lookahead", E.POLICY_LOOKAHEAD, [64, 0, 0, 0]),
        ("lookahead:16", E.POLICY_LOOKAHEAD, [16, 0, 0, 0]),
        ("lookahead:8:win", E.POLICY_LOOKAHEAD, [8, 1, 0, 0]),
        ("lookahead:8:cabbages", E.POLICY_LOOKAHEAD, [8, 0, 0, 0]),
        ("epsilon:0.2:greedy", E.POLICY_EPSILON, [0.2, E.POLICY_GREEDY, 0, 0]),
        ("epsilon:1:lookahead:16:win", E.POLICY_EPSILON, [1, E.POLICY_LOOKAHEAD, 16, 1]),
        ("expert", E.POLICY_EXPERT, [0, 0, 0, 0]),
        ("epsilon:0.1:expert", E.POLICY_EPSILON, [0.1, E.POLICY_EXPERT, 0, 0]),
    ],
)
def test_compact_policy_names_parse_to_an_id_and_parameters(text, policy_id, params):
    got_id, got_params = parse_policy(text)
    assert got_id == policy_id
    assert got_params.shape == (N_POLICY_PARAMS,)
    np.testing.assert_allclose(got_params, params)


@pytest.mark.parametrize(
    "text,message",
    [
        ("smart", "unknown policy 'smart'"),
        ("greedy:3", "greedy takes no parameters"),
        ("expert:8", "expert takes no parameters"),
        ("lookahead:0", "samples per move"),
        ("lookahead:many", "samples per move"),
        ("lookahead:8:fun", "'cabbages' or 'win'"),
        ("lookahead:8:win:1", "expected lookahead[:N[:cabbages|win]]"),
        ("epsilon:0.2", "expected epsilon:E:BASE"),
        ("epsilon:1.5:greedy", "between 0 and 1"),
        ("epsilon:x:greedy", "between 0 and 1"),
        ("epsilon:0.1:epsilon:0.1:greedy", "cannot itself be epsilon"),
        ("epsilon:0.1:smart", "unknown policy 'smart'"),
    ],
)
def test_a_bad_policy_name_is_a_config_error_naming_the_field(text, message):
    with pytest.raises(ConfigError, match="^policies.seats\\[1\\]: .*" + message.replace("[", "\\[").replace("|", "\\|")):
        parse_seats(["random", text], 2)


def test_every_policy_has_a_description_for_the_report():
    assert set(POLICY_DESCRIPTIONS) == set(POLICY_IDS)
    assert all(text.endswith(".") and len(text) < 300 for text in POLICY_DESCRIPTIONS.values())


def test_policy_games_do_not_depend_on_threads_or_chunking():
    rules = Rules(players=3)
    ids, params = parse_seats(["lookahead:2", "greedy", "epsilon:0.5:cautious"], 3)
    whole = play_games(rules, 9, 0, 24, ids, params, threads=2, chunk=5)
    assert_same_games(whole, play_games(rules, 9, 0, 24, ids, params, threads=1, chunk=24))
