"""The jitted core: determinism, conservation and the records' invariants."""

import numpy as np
import pytest

from sim.lasvegan.nb import play_games
from sim.lasvegan.params import Rules
from sim.lasvegan.policies import parse_seats
from sim.lasvegan.records import concat_records
from tests.helpers import assert_records_independent_of_threads_and_chunking


def run(rules, n, seed=5, first=0, **kw):
    ids, params = parse_seats("random", rules.players)
    return play_games(rules, seed, first, n, ids, params, **kw)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_same_records_on_any_thread_count_and_chunking(players):
    assert_records_independent_of_threads_and_chunking(run, Rules(players=players), concat_records)


def test_seed_changes_games():
    rules = Rules()
    a, b = run(rules, 200, seed=1), run(rules, 200, seed=2)
    assert not np.array_equal(a["final_cabbages"], b["final_cabbages"])


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(players=3),
        Rules(players=5, rounds=2),
        Rules(players=2, reserve="unlimited"),
        Rules(players=4, end_on_elimination=False, starting_cabbages=5),
        Rules(players=3, set_aside=4, set_aside_face="revealed"),
        Rules(players=3, starting_cabbages=3, seat_cabbages=[0, 4, 1, 7], total_cabbages=20),
    ],
    ids=["default", "3p", "5p-2r", "2p-unlimited", "no-elim-end", "3p-4-revealed", "3p-extra-cabbages"],
)
def test_conservation_and_bounds(rules):
    rec = run(rules, 2000)
    final = rec["final_cabbages"].astype(np.int64)
    assert (final >= 0).all()
    # Cabbages move only by the round deltas, from what each seat is dealt (seat 3's extra ones are no seat's).
    np.testing.assert_array_equal(final, np.array(rules.seat_starting) + rec["delta"].sum(axis=1))
    if rules.finite_reserve:
        np.testing.assert_array_equal(final.sum(1) + rec["reserve_end"], rules.total_cabbages)
    else:
        assert (rec["reserve_end"] == -1).all()
    np.testing.assert_allclose(rec["win_share"].sum(1), 1.0)
    # Every trick of every played round is won by someone.
    played = np.arange(rules.rounds)[None, :] < rec["rounds_played"][:, None]
    tricks = rec["tricks"].sum(axis=2)
    assert (tricks[played] == rules.hand_size).all()
    assert (tricks[~played] == 0).all()
    # One placement per 7 won, at most one token per machine.
    placed = (rec["machine_token"] >= 0).sum(2) + (rec["golden_side"] >= 0)
    assert (placed[~played] == 0).all()
    assert (placed[played] <= 4).all()
    if rules.end_on_elimination:
        ended = rec["elim_round"] > 0
        np.testing.assert_array_equal(rec["rounds_played"][ended], rec["elim_round"][ended])
        assert (rec["rounds_played"][~ended] == rules.rounds).all()


def test_default_components_always_have_a_slot_for_each_seven():
    rec = run(Rules(), 3000)
    placed = (rec["machine_token"] >= 0).sum(2) + (rec["golden_side"] >= 0)
    played = np.arange(4)[None, :] < rec["rounds_played"][:, None]
    # 40 cards dealt at 4 players: all four 7s are won, so all four slots fill.
    assert (placed[played] == 4).all()
    assert (rec["seven_no_slot"] == 0).all()


@pytest.mark.parametrize("policy", ["random", "greedy", "cautious", "expert"])
def test_a_table_of_one_policy_plays_the_same_games_on_its_own_kernel_as_on_the_kernel_of_every_policy(
        policy, monkeypatch):
    from sim.lasvegan import nb

    rules = Rules(players=3)
    ids, params = parse_seats(policy, rules.players)
    played = {}
    for kernel in (nb.KERNELS_ALONE[int(ids[0])], "play_chunk_nb"):
        monkeypatch.setattr(nb, "kernel_for", lambda _ids, kernel=kernel: kernel)
        played[kernel] = play_games(rules, 3, 0, 60, ids, params, threads=1)
    alone, every = played.values()
    for field in every:
        assert np.array_equal(alone[field], every[field]), field


def test_a_kernel_of_one_policy_plays_only_a_table_of_that_policy_alone(monkeypatch):
    from sim.lasvegan import nb

    monkeypatch.setattr(nb, "play_chunk_nb", nb.play_chunk_nb.py_func)  # as if not compiled in this process
    assert nb.kernel_for(parse_seats("expert", 4)[0]) == "play_expert_chunk_nb"
    assert nb.kernel_for(parse_seats("greedy", 2)[0]) == "play_greedy_chunk_nb"
    for mixed in (["expert", "greedy", "expert"], ["lookahead:4"] * 3, ["epsilon:0.1:greedy"] * 3):
        assert nb.kernel_for(parse_seats(mixed, 3)[0]) == "play_chunk_nb", mixed
