"""The jitted core: determinism across threads and chunking, conservation, records' invariants."""

import numpy as np
import pytest

from sim.vegasdice.nb import play_games
from sim.vegasdice.params import Rules
from sim.vegasdice.policies import parse_seats
from sim.vegasdice.records import RECORD_FIELDS, concat_records, field_columns, records_to_frame
from tests.helpers import assert_records_independent_of_threads_and_chunking, assert_same_records


def run(rules, n, seed=5, first=0, seats="random", **kw):
    ids, params = parse_seats(seats, rules.players)
    return play_games(rules, seed, first, n, ids, params, **kw)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_same_records_on_any_thread_count_and_chunking(players):
    assert_records_independent_of_threads_and_chunking(run, Rules(players=players), concat_records)


def test_policy_games_do_not_depend_on_threads_or_chunking():
    rules = Rules(players=3)
    seats = ["montecarlo:2", "greedy", "random"]
    whole = run(rules, 40, seed=9, seats=seats, threads=2, chunk=3)
    assert_same_records(whole, run(rules, 40, seed=9, seats=seats, threads=1, chunk=40))


def test_seed_changes_games():
    a, b = run(Rules(), 200, seed=1), run(Rules(), 200, seed=2)
    assert not np.array_equal(a["money"], b["money"])


def test_a_policy_never_changes_the_bills_laid_out_in_the_first_round():
    # The pile is shuffled from the table stream before any roll.
    a = run(Rules(), 500, seats="random")
    b = run(Rules(), 500, seats="greedy")
    np.testing.assert_array_equal(a["casino_laid_out"][:, 0], b["casino_laid_out"][:, 0])


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(players=2),
        Rules(players=3),
        Rules(players=5),
        Rules(players=3, white_dice=0),
        Rules(players=2, rounds=10, bills=[[10000, 3], [50000, 6]]),
        Rules(players=5, rounds=10, empty_pile="end"),
    ],
    ids=["default", "2p", "3p", "5p", "3p-no-white", "short-pile", "pile-ends"],
)
def test_money_is_conserved_and_records_are_consistent(rules):
    rec = run(rules, 2000, seats="greedy" if rules.players == 5 else "random")
    played = rec["first_player"] >= 0
    won = rec["won"].astype(np.int64)
    # Every dollar laid out is won by a player, by the white dice, or goes back under the pile.
    np.testing.assert_array_equal(
        rec["laid_out"], won.sum(axis=2) + rec["white_won"] + rec["unclaimed"]
    )
    np.testing.assert_array_equal(rec["laid_out"], rec["casino_laid_out"].sum(axis=2))
    np.testing.assert_array_equal(rec["money"], won.sum(axis=1))
    np.testing.assert_array_equal(rec["bills"], rec["bills_won"].astype(np.int64).sum(axis=1))
    # Money never appears or vanishes: what players hold is at most every bill.
    assert (rec["money"].astype(np.int64).sum(axis=1) <= rules.total_money).all()
    np.testing.assert_allclose(rec["win_share"].sum(axis=1), 1.0)
    np.testing.assert_array_equal(played.sum(axis=1), rec["rounds_played"])
    # Rounds are played from the first; the card moves one seat left each round.
    for r in range(rules.rounds):
        on = played[:, r]
        assert (rec["first_player"][on, r] == r % rules.players).all()
        assert (rec["turns"][~on, r] == 0).all()
    assert (rec["payouts"] <= rules.casinos).all()
    assert (rec["tie_cancels"] <= rec["payouts"]).all()
    if rules.empty_pile == "short":
        assert (rec["rounds_played"] == rules.rounds).all()
    else:
        assert (rec["short_casinos"] == 0).all()
    # Every seat takes at least one turn per round; no seat more than it has dice.
    dice = rules.dice_per_player + rules.n_white
    turns = rec["turns"][played]
    assert (turns >= rules.players).all() and (turns <= rules.players * dice).all()


def test_records_flatten_to_one_column_per_cell():
    rules = Rules(players=3)
    rec = run(rules, 50)
    frame = records_to_frame(rec)
    assert len(frame) == 50
    cols = field_columns("won", 3, rules.rounds, rules.casinos)
    np.testing.assert_array_equal(frame[cols].to_numpy().reshape(-1, rules.rounds, 3), rec["won"])
    assert set(RECORD_FIELDS) == set(rec)
