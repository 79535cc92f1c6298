"""Known answers of the reference engine: hand-built decks, each rule of the rules document."""

import pytest

from sim.fever import enums as E
from sim.fever.params import Rules
from sim.fever.rules import GameState, IllegalMove, Play
from sim.rng import Stream

DECK = {"cherry": 12, "lemon": 12, "bell": 6, "seven": 3}
TABLE = [{"symbols": ["cherry"] * 3, "points": 1}, {"symbols": ["lemon"] * 3, "points": 2},
         {"symbols": ["bell"] * 3, "points": 3}, {"symbols": ["seven"] * 3, "points": 6}]
CHERRY, LEMON, BELL, SEVEN = range(4)


def state_with(top, players=2, **rules):
    """A game whose deck starts with ``top`` (symbol numbers), the other cards following in deck order."""
    r = Rules(players=players, deck=DECK, paytable=TABLE, **rules)
    rest = list(r.cards)
    for x in top:
        rest.remove(x)
    return GameState(r, list(top) + rest, Stream(1, 0, E.STREAM_TABLE))


# Two players: seat 0 gets cards 0, 2, 4; seat 1 cards 1, 3, 5; the reels cards 6, 7, 8.
DEAL = [CHERRY, LEMON, CHERRY, LEMON, BELL, SEVEN, CHERRY, BELL, LEMON]


def test_the_deal_is_one_card_at_a_time_then_the_three_reels():
    s = state_with(DEAL)
    assert s.hands[0][CHERRY] == 2 and s.hands[0][BELL] == 1
    assert s.hands[1][LEMON] == 2 and s.hands[1][SEVEN] == 1
    assert s.reels == [CHERRY, BELL, LEMON]
    assert len(s.deck) == 33 - 9


def test_two_cards_of_one_symbol_complete_a_combination_and_the_reels_refill():
    s = state_with(DEAL + [SEVEN, SEVEN, BELL, LEMON, LEMON])
    seat = s.begin_turn()
    won = s.play(seat, Play(CHERRY, (1, 2)))
    assert won.points == 1 and won.cards == (CHERRY, CHERRY, CHERRY)
    assert s.reels == [SEVEN, SEVEN, BELL]  # refilled from the top
    assert s.discards[BELL] == 1 and s.discards[LEMON] == 1  # the covered cards
    s.end_turn()
    assert s.hands[0] == [0, 2, 1, 0]  # the bell kept, two lemons drawn
    assert s.score(0) == 1


def test_a_machine_that_already_shows_a_combination_scores_for_nobody_until_covered():
    s = state_with([LEMON, CHERRY, LEMON, CHERRY, BELL, BELL, SEVEN, SEVEN, SEVEN])
    seat = s.begin_turn()
    assert s.play(seat, Play(LEMON, (0,))) is None  # covering a seven breaks it
    s.end_turn()
    s2 = state_with([LEMON, CHERRY, SEVEN, CHERRY, BELL, BELL, SEVEN, SEVEN, LEMON])
    seat = s2.begin_turn()
    assert s2.play(seat, Play(SEVEN, (2,))).points == 6


def test_a_second_card_must_match_and_a_third_needs_a_double():
    s = state_with(DEAL)
    seat = s.begin_turn()
    with pytest.raises(IllegalMove, match="at most 2 cards"):
        s.play(seat, Play(CHERRY, (0, 1, 2)))
    with pytest.raises(IllegalMove, match="holds 1 bell card, plays 2"):
        s.play(seat, Play(BELL, (0, 1)))
    with pytest.raises(IllegalMove, match="scored combination"):
        s.double(seat)


def test_a_double_gives_up_the_cheapest_combination_draws_three_and_may_play_three():
    after = [LEMON, LEMON, SEVEN, BELL, BELL, CHERRY, LEMON, BELL, SEVEN, CHERRY, CHERRY, LEMON]
    s = state_with(DEAL + after, players=2)
    seat = s.begin_turn()
    s.play(seat, Play(CHERRY, (1, 2)))  # cherry x3, refill lemon lemon seven
    s.end_turn()  # seat 0 draws 2 bells
    s.begin_turn()
    s.play(1, Play(LEMON, (2,)))  # lemon x3 for seat 1, refill from the next cards
    s.end_turn()
    seat = s.begin_turn()
    assert seat == 0 and s.score(0) == 1
    hand_before = sum(s.hands[0])
    s.double(0)
    assert s.score(0) == 0 and s.out[CHERRY] == 3
    assert sum(s.hands[0]) == hand_before + 3
    assert s.max_play == 3
    with pytest.raises(IllegalMove, match="once"):
        s.double(0)


def test_after_a_double_the_seat_keeps_at_most_three_then_draws_up_to_three():
    s = state_with([LEMON, LEMON, CHERRY, LEMON, BELL, SEVEN, SEVEN, SEVEN, CHERRY, BELL, BELL, BELL, CHERRY,
                    CHERRY], players=1)
    s.begin_turn()  # one player: lemon lemon cherry in hand, reels lemon bell seven
    assert s.play(0, Play(LEMON, (1, 2))).points == 2
    s.end_turn()
    s.begin_turn()
    s.double(0)
    assert s.hands[0] == [3, 0, 3, 0]
    assert s.play(0, Play(BELL, (0,))) is None
    with pytest.raises(IllegalMove, match="keeps at most 3"):
        s.keep(0, list(s.hands[0]))
    s.keep(0, [1, 0, 0, 0])
    s.end_turn()
    assert sum(s.hands[0]) == 3


def test_an_empty_deck_is_remade_from_the_discards_or_the_seat_stops_drawing():
    for reshuffle in (True, False):
        r = Rules(players=1, deck={"cherry": 3, "lemon": 3}, paytable=[{"symbols": ["cherry"] * 3, "points": 1}],
                  reshuffle_discards=reshuffle)
        s = GameState(r, [1, 0, 1, 0, 1, 0], Stream(2, 0, E.STREAM_TABLE))
        assert s.deck == []
        s.begin_turn()
        s.play(0, Play(1, (0,)))  # lemon covers lemon: one lemon discarded
        s.end_turn()
        if reshuffle:
            assert s.reshuffles == 1 and sum(s.hands[0]) == 3
        else:
            assert s.reshuffles == 0 and sum(s.hands[0]) == 2


def test_reaching_the_target_wins_at_once():
    s = state_with(DEAL, players=2, target=1)
    seat = s.begin_turn()
    s.play(seat, Play(CHERRY, (1, 2)))
    assert s.winner == 0 and s.reels == [E.EMPTY] * 3  # no refill once won
    s.end_turn()
    assert s.game_over


def test_without_refill_the_reels_stay_empty_until_played_on():
    s = state_with(DEAL, players=2, refill_after_scoring=False)
    s.begin_turn()
    s.play(0, Play(CHERRY, (1, 2)))
    assert s.reels == [E.EMPTY] * 3
    s.end_turn()
    s.begin_turn()
    assert s.play(1, Play(LEMON, (0, 1))) is None  # two reels covered, one still empty
    assert s.reels == [LEMON, LEMON, E.EMPTY]


def test_a_dealt_combination_waits_or_is_dealt_again():
    top = [LEMON, CHERRY, LEMON, CHERRY, BELL, BELL, SEVEN, SEVEN, SEVEN, LEMON, BELL, CHERRY]
    waits = state_with(top)
    assert waits.reels == [SEVEN, SEVEN, SEVEN] and waits.discards == [0, 0, 0, 0]
    redealt = state_with(top, dealt_combination="redeal")
    assert redealt.reels == [LEMON, BELL, CHERRY] and redealt.discards[SEVEN] == 3


def test_redealing_stops_after_ten_machines_in_a_row():
    r = Rules(players=1, deck={"cherry": 40}, paytable=[{"symbols": ["cherry"] * 3, "points": 1}],
              dealt_combination="redeal")
    s = GameState(r, list(r.cards), Stream(1, 0, E.STREAM_TABLE))
    assert s.reels == [CHERRY] * 3 and s.discards[CHERRY] == 30 and len(s.deck) == 40 - 3 - 33
