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


@pytest.mark.slow
def test_a_sweeps_paired_ratio_interval_covers_the_difference_of_the_long_runs_ratios():
    """$ Fever's first-player advantage is over finished games, a ratio of sums: a sweep pairs it as that ratio
    (analysis.sweep._ratio_difference). Two targets of the game at 3 players, each long run on deals of its
    own giving the true advantage; short paired runs, one per seed, hold the true difference in at least 95%
    of seeds, less three standard errors."""
    from analysis.sweep import _ratio_difference, _ratio_sums
    from sim.games import get_game

    game = get_game("fever")
    tables = [game.rules_from_mapping({"players": 3, "target": target, "turn_cap": 90}) for target in (8, 9)]
    ids, params = game.parse_seats(["greedy"] * 3, 3)

    def ratio(rules, seed, games):
        return game.per_game_ratios(game.play_games(rules, seed, 0, games, ids, params), 3)["first_player_advantage"]

    long = [ratio(rules, LONG_SEED, 100_000) for rules in tables]  # its error is a tenth of a short run's width
    truth = float(long[1][0].sum() / long[1][1].sum() - long[0][0].sum() / long[0][1].sum())
    held = 0
    for seed in range(1, SEEDS + 1):
        (xa, ya), (xb, yb) = (ratio(rules, seed, 300) for rules in reversed(tables))
        found = _ratio_difference(_ratio_sums(xa, ya, xb, yb), 300)
        assert found["difference"] == pytest.approx(xa.sum() / ya.sum() - xb.sum() / yb.sum())
        held += found["difference_lo"] <= truth <= found["difference_hi"]
    floor = 0.95 - 3 * math.sqrt(0.95 * 0.05 / SEEDS)
    assert held / SEEDS >= floor, f"{held / SEEDS:.1%} of {SEEDS} seeds hold the true difference {truth:+.4f}"
