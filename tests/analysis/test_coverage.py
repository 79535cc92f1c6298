"""A duel's 95% interval holds the true win share in at least 95% of seeds, even over a few deals.

Measured by simulation: a long duel (many deals, a seed of its own) gives the
true win share of one greedy seat among random ones; then many short duels,
one per seed, each give an interval, and the share of those intervals that
hold the true value is their coverage. It must be at least 95%, less three
standard errors of that estimate (binomial over the seeds), so that the test
fails on an interval that covers less — the normal interval over 4 deals,
which holds the true share in about 83% of seeds at 4 players and 77% at 2,
or Student's t alone, 92% and 78% — but not by the luck of the seeds.
"""

import math

import pytest

from sim.duel import duel
from sim.lasvegan.game import GAME
from sim.lasvegan.params import Rules

SEEDS = 200
LONG_DEALS = 60_000  # its standard error (about 0.001) is small beside the shortest duel's interval
LONG_SEED = 999_999_937  # deals of their own: no short duel's seed


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 4])
def test_duel_intervals_cover_the_long_runs_win_share_at_4_and_16_deals(players):
    rules = Rules(players=players)
    seats = ["greedy"] + ["random"] * (players - 1)
    truth = duel(GAME, rules, seats, LONG_DEALS, LONG_SEED)["policies"]["greedy"]["win_share"]
    for deals in (4, 16):
        held = 0
        for seed in range(1, SEEDS + 1):
            low, high = duel(GAME, rules, seats, deals, seed)["policies"]["greedy"]["win_share_ci"]
            held += low <= truth <= high
        coverage = held / SEEDS
        floor = 0.95 - 3 * math.sqrt(0.95 * 0.05 / SEEDS)
        assert coverage >= floor, (
            f"{deals}-deal intervals at {players} players hold the true win share {truth:.4f} "
            f"in {coverage:.1%} of {SEEDS} seeds, below {floor:.1%}")
