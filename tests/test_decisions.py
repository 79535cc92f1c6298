"""Restricted play (sim.restricted, sim.decisions): known answers, the reference engine, bad input."""

import numpy as np
import pytest

from sim import restricted as R
from sim.decisions import (
    census, decisions, kind_mask, most_skill, restricted_win_shares, restriction_cost, sentence, verdict,
)
from sim.errors import ConfigError
from sim.games import get_game

LASVEGAN = get_game("lasvegan")


def random_seat_shares(game, rules, seats, random, games, seed):
    """Per deal, the mean over seats of a ``random`` seat's win share against the table (a duel's rotations)."""
    players = rules.players
    out = np.zeros(games)
    for s in range(players):
        table = list(seats)
        table[s] = random
        ids, params = game.parse_seats(table, players)
        out += game.play_games(rules, seed, 0, games, ids, params)["win_share"][:, s]
    return out / players


def test_with_the_golden_token_blank_its_side_costs_nothing():
    rules = LASVEGAN.Rules.from_mapping({"players": 3, "golden_token": [0, 0]})
    found = restriction_cost(LASVEGAN, rules, ["golden"], 300, 5)
    assert found["low"] <= 0.0 <= found["high"], found


def test_with_every_token_blank_placements_cost_nothing():
    rules = LASVEGAN.Rules.from_mapping({"players": 3, "golden_token": [0, 0], "tokens": [[0, 0]] * 4})
    found = restriction_cost(LASVEGAN, rules, ["token", "golden"], 300, 5)
    assert found["low"] <= 0.0 <= found["high"], found


def test_the_rulebook_golden_side_costs_something():
    """The known answers above could pass with a restriction that restricts nothing: here the same one costs."""
    rules = LASVEGAN.Rules.from_mapping({"players": 3})
    assert restriction_cost(LASVEGAN, rules, ["golden"], 300, 5)["low"] > 0.0


def test_a_kind_that_never_offers_a_choice_has_choice_rate_0_and_costs_0():
    game = get_game("highcard")
    rules = game.Rules.from_mapping({"hand": 1, "rounds": 1})
    found = decisions(game, rules, 100, 3, census_games=50)
    (play,) = found["decisions"]
    assert play["decisions"] == 3 * 50  # each seat watched in turn over 50 deals, one card a deal
    assert play["choice_rate"] == 0.0
    assert (play["cost"], play["low"], play["high"]) == (0.0, 0.0, 0.0)
    assert play["verdict"] == "near-free"


def test_a_kind_never_met_costs_0():
    game = get_game("fever")
    rules = game.Rules.from_mapping({"players": 3, "double_up": False})
    found = decisions(game, rules, 60, 3, census_games=10, agreement=0)
    double = found["decisions"][0]
    assert double["kind"] == "double"
    assert double["decisions"] == 0 and double["choice_rate"] == 0.0
    assert (double["cost"], double["low"], double["high"]) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("game_id, random, players", [
    ("vegas-dice", "random", 4),
    ("highcard", "random", 3),
    ("fever", "random:0.5", 3),  # a double made at random is an even one
])
def test_every_kind_at_random_is_a_random_seat_bit_for_bit(game_id, random, players):
    game = get_game(game_id)
    rules = game.Rules.from_mapping({"players": players})
    seats = [game.default_policy] * players
    every = (1 << len(game.policies.decision_kinds)) - 1
    restricted = restricted_win_shares(game, rules, seats, every, 200, 11)
    np.testing.assert_array_equal(restricted, random_seat_shares(game, rules, seats, random, 200, 11))


def test_every_kind_at_random_costs_what_a_random_seat_costs_in_las_vegan():
    """Not bit for bit: whether a 7 places an ordinary token or the golden one stays the base policy's choice
    (docs/decisions.md); the random seat's cost on the same deals lies within the restricted seat's interval."""
    rules = LASVEGAN.Rules.from_mapping({"players": 3})
    found = restriction_cost(LASVEGAN, rules, list(LASVEGAN.policies.decision_kinds), 400, 7)
    seats = ["expert"] * 3
    table = restricted_win_shares(LASVEGAN, rules, seats, 0, 400, 7)
    random_cost = float((table - random_seat_shares(LASVEGAN, rules, seats, "random", 400, 7)).mean())
    assert found["low"] <= random_cost <= found["high"], (found, random_cost)


def test_restricting_nothing_changes_nothing():
    """The restricted policy with an empty mask plays its base draw for draw: the table's games are unchanged."""
    rules = LASVEGAN.Rules.from_mapping({"players": 4})
    cost = restriction_cost(LASVEGAN, rules, [], 200, 2)
    assert np.all(cost["per_deal"] == 0.0)


def test_the_census_plays_the_table_s_games_and_counts_within_its_budget():
    game = get_game("vegas-dice")
    rules = game.Rules.from_mapping({"players": 3})
    counts = census(game, rules, ["greedy"] * 3, 40, 1, agreement=30)
    decided, choices, asked, agreed = counts[0]
    assert decided > choices > 0
    assert asked == 3 * 10  # 30 spread over 3 seats
    assert 0 <= agreed <= asked


def test_kernel_and_reference_engine_agree_on_restricted_play():
    from sim.lasvegan import rules as reference

    rules = LASVEGAN.Rules.from_mapping({"players": 4})
    ids, params = LASVEGAN.parse_seats(["expert"] * 4, 4)
    n = LASVEGAN.n_policy_params
    wide = np.zeros((4, R.width(n)))
    wide[:, :n] = params
    ids = np.array(ids)
    ids[1] = LASVEGAN.policies.restricted_id
    wide[1] = R.row(n, kind_mask(LASVEGAN, ["follow", "token"]), int(ids[0]), params[0])
    ids[2] = LASVEGAN.policies.restricted_id
    wide[2] = R.row(n, kind_mask(LASVEGAN, ["lead", "golden"]), int(ids[0]), params[0])
    kernel = LASVEGAN.play_games(rules, 9, 0, 6, ids, wide.copy())
    for g in range(6):
        players = [reference.JitPolicy(int(i), p.copy()) for i, p in zip(ids, wide)]
        one = reference.play_game(rules, 9, g, players)
        for name in ("final_cabbages", "win_share", "machine_token", "machine_placer", "golden_side", "tricks"):
            np.testing.assert_array_equal(kernel[name][g], one[name], err_msg=f"game {g}: {name}")


def test_an_unknown_kind_is_refused_naming_it():
    with pytest.raises(ConfigError, match="unknown decision kind 'bluff'.*lead, follow, token, golden"):
        kind_mask(LASVEGAN, ["bluff"])


def test_bad_games_and_seats_are_refused():
    rules = LASVEGAN.Rules.from_mapping({"players": 3})
    with pytest.raises(ConfigError, match="--games"):
        decisions(LASVEGAN, rules, 0, 1)
    with pytest.raises(ConfigError, match="--seats"):
        decisions(LASVEGAN, rules, 10, 1, seats=["expert", "nobody", "expert"])


def _rows_of(per_deal):
    """The rows decisions() makes of these per-deal costs, one kind each."""
    from sim.decisions import _interval

    rows = []
    for k, cost in enumerate(per_deal):
        mean, low, high = _interval(cost)
        rows.append({"kind": f"k{k}", "cost": mean, "low": low, "high": high, "verdict": verdict(low, high)})
    return rows


def test_kinds_the_paired_difference_cannot_tell_apart_share_the_most_skill():
    """Two kinds costing about as much on the same deals are both named; the costliest alone only when its
    paired difference to each other kind lies above 0."""
    rng = np.random.default_rng(1)
    base = rng.normal(0.15, 0.1, 40)
    wobble = np.resize([0.05, -0.05], 40)  # the second kind's paired difference: 0.01 on average, spread 0.05
    close = [base + 0.01, base + wobble, np.resize([0.03, -0.03], 40)]
    rows = _rows_of(close)
    assert [r["verdict"] for r in rows[:2]] == ["skill", "skill"]
    assert most_skill(rows, close) == ["k0", "k1"]
    said = sentence({"decisions": rows, "near_free": 0.02, "games": 40, "most_skill": most_skill(rows, close)})
    assert said.startswith("k0 and k1 carry the most skill, not told apart at 40 deals")
    assert "carries the most skill" not in said

    apart = [base + 0.1 + wobble / 5, base, np.resize([0.03, -0.03], 40)]  # 0.1 apart, spread 0.01
    rows = _rows_of(apart)
    assert most_skill(rows, apart) == ["k0"]
    said = sentence({"decisions": rows, "near_free": 0.02, "games": 40, "most_skill": most_skill(rows, apart)})
    assert said.startswith("k0 carries the most skill") and "k1 also costs something" in said


def test_a_difference_alike_on_every_deal_tells_two_kinds_apart_only_over_enough_deals():
    """A paired difference of 0.1 on each of 40 deals does not rule out a deal unlike them (at most 7% of deals
    at 95%, each up to 2.1 away); on 400 deals it does, as a cost alike on every deal is judged."""
    for deals, told in ((40, False), (400, True)):
        base = np.random.default_rng(2).normal(0.15, 0.1, deals)
        costs = [base + 0.1, base]
        assert most_skill(_rows_of(costs), costs) == (["k0"] if told else ["k0", "k1"]), deals


def test_equal_costs_on_every_deal_are_not_told_apart():
    same = [np.linspace(0.1, 0.3, 20), np.linspace(0.1, 0.3, 20)]
    assert most_skill(_rows_of(same), same) == ["k0", "k1"]


def test_a_cost_s_interval_stays_within_a_whole_win_share():
    """A seat that wins nearly every deal unrestricted and loses when restricted: Student t's interval over 30
    deals would reach past a cost of 1, which no deal can show."""
    from sim.decisions import _interval

    costs = np.array([1.0] * 28 + [0.0] * 2)
    mean, low, high = _interval(costs)
    assert low < mean < high == 1.0
    mean, low, high = _interval(-costs)
    assert low == -1.0 < mean < high


def test_a_kind_offering_choices_whose_deals_all_cost_alike_is_not_called_near_free_on_a_few_deals():
    """Thirty deals alike do not show a cost within ±0.02: a deal unlike them may be up to 1 - 0.05^(1/30) of
    all (95%), each up to a whole win share away. Only a kind that offered no choice costs exactly nothing."""
    game = get_game("fever")
    found = decisions(game, game.Rules.from_mapping({"players": 1}), 30, 1)
    keep = next(row for row in found["decisions"] if row["kind"] == "keep")
    assert keep["choice_rate"] > 0.5 and keep["cost"] == 0.0
    reach = 1 - 0.05 ** (1 / 30)
    assert (keep["low"], keep["high"]) == pytest.approx((-reach, reach))
    assert keep["verdict"] == "undecided" and "near-free" not in found["sentence"]
    every = found["every_kind"]  # every deal lost at random: the interval stays within a whole win share
    assert every["cost"] == 1.0 and every["low"] == pytest.approx(1 - 2 * reach) and every["high"] == 1.0


def test_the_reports_table_writes_each_cost_as_the_sentence_under_it_and_the_command_do():
    """One number, one spelling in one section: the table once wrote a cost as 4.5% [1.5%, 7.5%] above a sentence
    saying 0.045 [0.015, 0.075] of a win share."""
    from analysis.decisions_section import decisions_html
    from sim.decisions import decisions_table

    game = get_game("highcard")
    found = decisions(game, game.Rules(), 80, 2)
    html, text = decisions_html(found), decisions_table(found)
    for row in [*found["decisions"], found["every_kind"]]:
        cost, ci = f"{row['cost']:.3f}", f"[{row['low']:.3f}, {row['high']:.3f}]"
        assert f'<td class="num">{cost}</td><td class="num">{ci}</td>' in html
        assert cost in text and ci in text
    skill = next(row for row in found["decisions"] if row["verdict"] == "skill")
    assert f"{skill['cost']:.3f} [{skill['low']:.3f}, {skill['high']:.3f}]" in found["sentence"]
