"""The lookahead policy's parts: imagined deals and rollouts."""

import numpy as np
import pytest

from sim.lasvegan import enums as E
from sim.lasvegan.lookahead import (
    N_HOLDERS,
    OBJECTIVE_CABBAGES,
    OBJECTIVE_WIN,
    deal_unseen_nb,
    placements_owed_nb,
    play_out_round_nb,
    round_outcome_nb,
)
from sim.lasvegan.table import Table, card_id, mask_cards, seat_stream



def cards(*names):
    return [card_id(n) for n in names]


def random_table(players, seed, moves):
    table = Table.dealt_at_random(players, seed)
    table.advance("random", moves, seed=seed)
    return table


def imagine(table, stream):
    hands = np.zeros(E.MAX_PLAYERS, dtype=np.uint64)
    scratch = (
        np.empty(E.N_CARDS, dtype=np.int64),
        np.zeros(N_HOLDERS, dtype=np.int64),
        np.zeros(N_HOLDERS, dtype=np.int64),
        np.zeros(E.N_SUITS, dtype=np.int64),
    )
    deal_unseen_nb(table.pub, np.uint64(table.hand), table.seat, stream, hands, *scratch)
    return [int(h) for h in hands[:table.players]]


def table_with_voids(seed):
    """A 3-player round played until two seats have shown a void."""
    table = random_table(3, seed, moves=0)
    stream = seat_stream(seed, 0, 0)
    while sum(table.pub[E.P_VOIDS + s] != 0 for s in range(3)) < 2 or table.owed:
        if table.round_over:
            return None
        if table.owed:
            table.place(*table.choose_placement("random", stream))
        else:
            table.play(table.choose_card("random", stream))
    return table


def test_an_imagined_deal_agrees_with_everything_the_seat_knows():
    checked = 0
    for seed in range(40):
        table = table_with_voids(seed)
        if table is None:
            continue
        checked += 1
        seat, pub = table.seat, table.pub
        unseen = ((1 << E.N_CARDS) - 1) & ~(int(pub[E.P_PLAYED]) | table.hand)
        stream = seat_stream(seed, 1, seat)
        for _ in range(50):
            hands = imagine(table, stream)
            assert hands[seat] == table.hand
            dealt = 0
            for s in range(table.players):
                if s == seat:
                    continue
                assert bin(hands[s]).count("1") == pub[E.P_HAND_SIZE + s]
                for suit in range(E.N_SUITS):
                    if pub[E.P_VOIDS + s] >> suit & 1:
                        assert not any(c // 10 == suit for c in mask_cards(hands[s]))
                assert not dealt & hands[s]
                dealt |= hands[s]
            assert dealt & ~unseen == 0
            # The rest of the unseen cards is the hidden set-aside card.
            assert bin(unseen & ~dealt).count("1") == pub[E.P_N_SET_ASIDE]
    assert checked >= 10


def test_without_voids_each_unseen_card_goes_to_each_holder_in_proportion_to_its_room():
    table = Table([cards("G1", "G2", "G3"), cards("B1", "B2", "B3"), cards("R1", "R2", "R3")], set_aside=["P9"])
    n = 6000
    stream = seat_stream(1, 2, 0)
    with_seat_1 = sum(imagine(table, stream)[1] >> card_id("B1") & 1 for _ in range(n))
    p = 3 / 7  # seat 1 holds 3 of the 7 unseen cards (6 in hands, 1 set aside)
    assert abs(with_seat_1 / n - p) < 4 * np.sqrt(p * (1 - p) / n)


def test_a_rollout_plays_the_round_exactly_as_the_game_steps_do():
    for seed in range(10):
        table = random_table(4, seed, moves=3 + seed)
        rollout = table.copy()
        table.advance("greedy", 200)
        assert table.round_over
        play_out_round_nb(rollout.pub, rollout.hands, rollout.owed, np.zeros(3, dtype=np.int64))
        np.testing.assert_array_equal(rollout.pub, table.pub)


@pytest.mark.parametrize("objective", [OBJECTIVE_CABBAGES, OBJECTIVE_WIN])
def test_the_outcome_of_a_round_is_the_seats_settled_change_or_its_win_chance(objective):
    # Seat 0 wins every trick and with them three 5s on the -3 machine: -9.
    table = Table(
        [cards("G9", "B9", "R5"), cards("G1", "B5", "R1"), cards("G5", "B1", "R2")],
        tokens_on={0: 2},
        cabbages=[4, 10, 12],
        round=3,
    )
    table.advance("greedy", 9)
    assert table.round_over and table.pub[E.P_TRICKS] == 3
    scratch = [np.zeros((E.N_SLOTS, E.MAX_PLAYERS), dtype=np.int64)] + [
        np.zeros(E.MAX_PLAYERS, dtype=np.int64) for _ in range(3)
    ]
    outcomes = [round_outcome_nb(table.pub, s, objective, *scratch) for s in range(3)]
    if objective == OBJECTIVE_CABBAGES:
        assert outcomes == [-4.0, 0.0, 0.0]  # the loss is capped at the 4 cabbages held
    else:
        assert outcomes == [0.0, 0.0, 1.0]  # the last round: seat 2 ends with the most


def test_the_win_chance_before_the_last_round_favours_the_leader():
    table = Table([cards("G1"), cards("G2"), cards("G3")], cabbages=[10, 14, 18], round=0)
    table.advance("greedy", 3)
    scratch = [np.zeros((E.N_SLOTS, E.MAX_PLAYERS), dtype=np.int64)] + [
        np.zeros(E.MAX_PLAYERS, dtype=np.int64) for _ in range(3)
    ]
    chances = [round_outcome_nb(table.pub, s, OBJECTIVE_WIN, *scratch) for s in range(3)]
    assert 0 < chances[0] < chances[1] < chances[2] < 1


def test_placements_owed_count_every_seven_of_the_trick():
    table = Table([cards("G7", "G1"), cards("B7", "B1"), cards("G2", "G3")])
    for card in ("G7", "B7", "G2"):
        table.play(card)
    assert table.owed == 2 and placements_owed_nb(table.pub) == 2
    table.place(0, 0)
    assert table.owed == 1 and placements_owed_nb(table.pub) == 1
