"""Duels: seat-rotated matches on the same deals, and the strength order of the policies."""

import math
from dataclasses import replace
from functools import partial

import numpy as np
import pytest

from analysis.stats import share_interval, t95, wilson_interval
from sim import duel as shared
from sim.duel import duel_table
from sim.errors import ConfigError
from sim.game import SkillDuel
from sim.games import get_game
from sim.lasvegan.nb import play_games
from sim.lasvegan.params import Rules
from sim.lasvegan.policies import parse_seats

GAME = get_game("lasvegan")
duel = partial(shared.duel, GAME)
tournament = partial(shared.tournament, GAME)


def skill_gap(rules, games, seed, lookahead):
    """The game's skill gap, its lookahead duel played by ``lookahead`` (a cheaper search)."""
    first, *rest = GAME.skill_gap_duels
    game = replace(GAME, skill_gap_duels=(SkillDuel(first.name, lookahead, first.against, first.factor), *rest))
    return shared.skill_gap(game, rules, games, seed)


def share(result, name):
    row = result["policies"][name]
    return row["win_share"], row["win_share_ci"]


def test_a_duel_plays_every_deal_once_per_rotation_of_the_seats():
    rules = Rules(players=3)
    result = duel(rules, ["greedy", "random", "random"], games=50, seed=4)
    # The same numbers by hand: seat s of rotation k holds seats[(s + k) % 3].
    greedy_wins = np.zeros(50)
    for k in range(3):
        rotated = [["greedy", "random", "random"][(s + k) % 3] for s in range(3)]
        ids, params = parse_seats(rotated, 3)
        rec = play_games(rules, 4, 0, 50, ids, params)
        greedy_wins += rec["win_share"][:, rotated.index("greedy")]
    assert share(result, "greedy")[0] == pytest.approx(greedy_wins.mean() / 3)
    assert result["games"] == 50 and result["players"] == 3 and result["seed"] == 4
    assert result["policies"]["greedy"]["seats"] == 1 and result["policies"]["random"]["seats"] == 2
    assert result["policies"]["random"]["fair_share"] == pytest.approx(2 / 3)
    assert share(result, "greedy")[0] + share(result, "random")[0] == pytest.approx(1.0)


def test_the_interval_is_over_deals_with_rotations_averaged_first():
    result = duel(Rules(players=2), ["greedy", "random"], games=400, seed=2)
    win, (low, high) = share(result, "greedy")
    assert low < win < high
    # Per deal the greedy seat's share, averaged over the 2 rotations.
    per_deal = np.zeros(400)
    for k in range(2):
        rotated = [["greedy", "random"][(s + k) % 2] for s in range(2)]
        ids, params = parse_seats(rotated, 2)
        per_deal += play_games(Rules(players=2), 2, 0, 400, ids, params)["win_share"][:, rotated.index("greedy")] / 2
    assert (low, high) == share_interval(per_deal, 2)
    # At least as wide as the per-deal spread says, and as 800 independent games would be;
    # narrower than if each deal were one game.
    half = (high - low) / 2
    assert half >= 0.99 * t95(400) * per_deal.std(ddof=1) / math.sqrt(400)
    assert half >= 0.99 * (wilson_interval(round(800 * win), 800)[1] - wilson_interval(round(800 * win), 800)[0]) / 2
    assert half < (wilson_interval(round(400 * win), 400)[1] - wilson_interval(round(400 * win), 400)[0]) / 2


def test_policies_alike_at_every_seat_share_every_win():
    result = duel(Rules(), ["random"] * 4, games=20, seed=1)
    assert share(result, "random") == (1.0, [1.0, 1.0])


def test_a_duel_is_reproducible_and_its_seed_picks_the_deals():
    seats = ["cautious", "random", "random", "random"]
    a = duel(Rules(), seats, games=300, seed=7)
    assert a == duel(Rules(), seats, games=300, seed=7, threads=1)
    assert a != duel(Rules(), seats, games=300, seed=8)


@pytest.mark.parametrize(
    "seats,games,message",
    [
        (["greedy", "random"], 10, "--seats: lists 2 policies for 4 players"),
        (["greedy", "random", "nope", "random"], 10, "--seats\\[2\\]: unknown policy 'nope'"),
        (["greedy"] * 4, 0, "games: must be at least 1"),
    ],
)
def test_a_bad_duel_is_a_config_error(seats, games, message):
    with pytest.raises(ConfigError, match=message):
        duel(Rules(), seats, games=games, seed=1)


def test_the_duel_table_has_a_line_per_policy():
    text = duel_table(duel(Rules(players=3), ["greedy", "cautious", "random"], games=30, seed=1))
    lines = text.splitlines()
    assert "30 deals x 3 seat rotations at 3 players" in lines[0]
    assert [line.split()[0] for line in lines[3:]] == ["greedy", "cautious", "random"]


def test_a_tournament_plays_every_ordered_pairing():
    result = tournament(Rules(players=3), ["greedy", "cautious", "random"], games=40, seed=1)
    pairs = {(p["policy"], p["against"]): p for p in result["pairs"]}
    assert len(pairs) == 6
    assert all(p["fair_share"] == pytest.approx(1 / 3) for p in pairs.values())
    assert pairs[("greedy", "random")]["win_share"] > pairs[("random", "greedy")]["win_share"]


def test_the_skill_gap_reports_every_duel_against_the_fair_share():
    gap = skill_gap(Rules(), games=10, seed=1, lookahead="lookahead:2")
    assert set(gap) == {"lookahead_vs_greedy", "greedy_vs_random", "expert_vs_greedy", "lookahead16_vs_expert"}
    assert gap["lookahead_vs_greedy"]["policy"] == "lookahead:2"
    assert gap["greedy_vs_random"]["against"] == "random"
    for entry in gap.values():
        assert entry["fair_share"] == 0.25
        low, high = entry["win_share_ci"]
        assert low <= entry["win_share"] <= high


# --- the strength order: lookahead > greedy > cautious > random --------------------------


def above(a, b):
    """Interval ``a`` lies wholly above interval (or value) ``b``."""
    top = b[1] if isinstance(b, (list, tuple)) else b
    return a[0] > top


@pytest.mark.parametrize("players", [3, 4])
def test_each_policy_beats_a_table_of_the_weaker_one(players):
    rules = Rules(players=players)
    for strong, weak in (("greedy", "random"), ("greedy", "cautious"), ("cautious", "random")):
        result = duel(rules, [strong] + [weak] * (players - 1), games=1500, seed=11)
        win, ci = share(result, strong)
        assert above(ci, 1 / players), (strong, weak, win, ci)


def test_greedy_cautious_and_random_finish_in_that_order_at_one_table():
    result = duel(Rules(players=3), ["random", "greedy", "cautious"], games=1500, seed=12)
    greedy, cautious, random = (share(result, n)[1] for n in ("greedy", "cautious", "random"))
    assert above(greedy, 1 / 3) and above(greedy, cautious) and above(cautious, random)


def test_lookahead_beats_a_table_of_greedy_players():
    result = duel(Rules(), ["lookahead:16"] + ["greedy"] * 3, games=60, seed=13)
    win, ci = share(result, "lookahead:16")
    assert above(ci, 0.25), (win, ci)


@pytest.mark.slow
def test_all_four_policies_finish_in_order_at_one_table():
    result = duel(Rules(), ["lookahead:16", "greedy", "cautious", "random"], games=400, seed=14)
    cis = [share(result, n)[1] for n in ("lookahead:16", "greedy", "cautious", "random")]
    assert above(cis[0], 0.25) and above(cis[0], cis[1]) and above(cis[1], cis[2]) and above(cis[2], cis[3]), cis
