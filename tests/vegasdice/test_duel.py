"""Seat-rotated duels and the strength order of the policies: montecarlo > greedy > random."""

from functools import partial

import pytest

from sim.duel import duel as shared_duel
from sim.games import get_game
from sim.vegasdice.params import Rules

duel = partial(shared_duel, get_game("vegas-dice"))


def share(result, name):
    row = result["policies"][name]
    return row["win_share"], row["win_share_ci"], row["fair_share"]


def test_policies_alike_at_every_seat_share_every_win():
    result = duel(Rules(players=3), ["random"] * 3, games=30, seed=1)
    assert share(result, "random")[0] == pytest.approx(1.0)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_greedy_beats_random(players):
    result = duel(Rules(players=players), ["greedy"] + ["random"] * (players - 1), games=2000, seed=7)
    win, (low, high), fair = share(result, "greedy")
    assert low < win < high
    assert low > fair  # the whole interval above the fair share


@pytest.mark.slow
@pytest.mark.parametrize("players,games", [(2, 150), (3, 150), (4, 100)])
def test_montecarlo_beats_greedy(players, games):
    result = duel(Rules(players=players), ["montecarlo:16"] + ["greedy"] * (players - 1), games=games, seed=7)
    win, (low, high), fair = share(result, "montecarlo:16")
    assert low > fair, (win, low, high, fair)
