"""The mergeable tally and the summary of a batch of games."""

import json
import math

import numpy as np
import pytest

from sim.vegasdice.nb import play_games
from sim.vegasdice.params import Rules
from sim.vegasdice.policies import parse_seats
from sim.vegasdice.records import slice_records
from analysis.stats import t95
from sim.vegasdice.summary import Tally, _dollars, summarize, summary_table
from analysis.common import pct, pct_ci
from tests.helpers import assert_table_fits, table_block


def records(players=4, n=4000, seats="random", seed=3, **knobs):
    rules = Rules(players=players, **knobs)
    ids, params = parse_seats(seats, players)
    return rules, play_games(rules, seed, 0, n, ids, params)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_tallies_of_any_split_merge_to_the_same_tally(players):
    rules, rec = records(players)
    whole = Tally.of(rec)
    for cuts in ([1, 17, 2000, 3999], [2000], [5, 6, 7]):
        parts = [Tally.of(slice_records(rec, slice(a, b))) for a, b in zip([0] + cuts, cuts + [4000])]
        merged = Tally.empty(players, rules.rounds)
        for part in reversed(parts):
            merged = part.merge(merged)
        assert merged == whole
        assert summarize(merged, seed=3) == summarize(whole, seed=3)


def test_margins_in_different_steps_merge_exactly():
    rules, rec = records(2, n=400)
    rec["margin"][:200] = 20000 * (np.arange(200) % 3)
    rec["margin"][200:] = 10000 * (np.arange(200) % 5)
    a, b = Tally.of(slice_records(rec, slice(0, 200))), Tally.of(slice_records(rec, slice(200, 400)))
    assert (a.margin_step, b.margin_step) == (20000, 10000)
    merged = a.merge(b)
    assert merged == Tally.of(rec) and merged.margin_step == 10000
    s = summarize(merged)
    assert s["winner_margin"]["p50"] == float(np.percentile(rec["margin"], 50))
    assert s["winner_margin"]["p95"] == float(np.percentile(rec["margin"], 95))


def test_the_summary_agrees_with_the_records():
    rules, rec = records(3, seats=["greedy", "random", "random"])
    s = summarize(Tally.of(rec), seed=3, seconds=2.0)
    json.dumps(s)
    n = 4000
    assert s["game"] == "vegas-dice" and s["games"] == n and s["players"] == 3 and s["games_per_second"] == 2000
    np.testing.assert_allclose(s["win_share"], rec["win_share"].mean(axis=0))
    assert s["first_player_advantage"] == pytest.approx(rec["win_share"][:, 0].mean() - 1 / 3)
    np.testing.assert_allclose(s["money_mean"], rec["money"].mean(axis=0))
    np.testing.assert_allclose(s["money_sd"], rec["money"].std(axis=0, ddof=1))
    np.testing.assert_allclose(s["bills_mean"], rec["bills"].mean(axis=0))
    assert s["winner_margin"]["mean"] == pytest.approx(rec["margin"].mean())
    assert s["tie_cancel_rate"] == pytest.approx(rec["tie_cancels"].sum() / rec["payouts"].sum())
    assert s["unclaimed_share"] == pytest.approx(rec["unclaimed"].sum() / rec["laid_out"].sum())
    assert s["white_dice_share"] == pytest.approx(rec["white_won"].sum() / rec["laid_out"].sum())
    assert s["tie_rate"] == pytest.approx(np.mean((rec["win_share"] > 0).sum(axis=1) > 1))
    # The card holder of each round against the players' average that round.
    won = rec["won"].astype(np.int64)
    holder = np.stack([won[:, r, r % 3] for r in range(rules.rounds)], axis=1)
    advantage = holder - won.sum(axis=2) / 3
    assert s["first_card_advantage"] == pytest.approx(advantage.mean())
    low, high = s["first_card_advantage_ci"]
    per_game = advantage.mean(axis=1)
    half = t95(n) * per_game.std(ddof=1) / math.sqrt(n)
    assert low == pytest.approx(advantage.mean() - half, rel=1e-4)
    assert high == pytest.approx(advantage.mean() + half, rel=1e-4)
    for key in ("win_share_ci", "first_player_advantage_ci", "tie_rate_ci"):
        assert s[key] is not None
    # The shares of sums over games: their intervals take the games as clusters (a game's payouts and rounds
    # are not independent), Student's t over the games' linearised shares.
    for name, num, den in (("tie_cancel_rate", "tie_cancels", "payouts"), ("white_dice_share", "white_won", "laid_out"),
                           ("unclaimed_share", "unclaimed", "laid_out")):
        x, y = (rec[f].astype(np.int64).sum(axis=1) for f in (num, den))
        ratio = x.sum() / y.sum()
        half = t95(n) * ((x - ratio * y) / y.mean()).std(ddof=1) / math.sqrt(n)
        low, high = s[f"{name}_ci"]
        assert low < s[name] < high
        assert (low, high) == (pytest.approx(ratio - half, rel=1e-9), pytest.approx(ratio + half, rel=1e-9))


def test_rulebook_at_four_players_random_play_leaves_sound_figures():
    _, rec = records(4, n=20000)
    s = summarize(Tally.of(rec))
    fair = 0.25
    for share, (low, high) in zip(s["win_share"], s["win_share_ci"]):
        assert low < share < high and abs(share - fair) < 0.05
    assert 0 < s["tie_cancel_rate"] < 1 and 0 < s["unclaimed_share"] < 1 and 0 < s["white_dice_share"] < 1
    assert s["short_casino_rate"] == 0 and s["rounds_played_mean"] == 4
    # Laid out: the pile never wraps in 4 rounds of the box, so on average
    # each casino holds what its first bills hold.
    assert 250_000 < s["laid_out_per_round"] < 600_000


def test_an_empty_tally_summarizes_to_undefined_values():
    s = summarize(Tally.empty(3, 4))
    assert s["games"] == 0 and s["win_share"] == [None] * 3 and s["tie_cancel_rate"] is None


def test_tallies_of_other_shapes_do_not_merge():
    with pytest.raises(ValueError, match="cannot merge"):
        Tally.empty(3, 4).merge(Tally.empty(4, 4))


def test_the_summary_table_gives_each_estimate_its_interval():
    _, rec = records(4, n=600)
    s = summarize(Tally.of(rec), seed=3, policies=["random"] * 4)
    text = summary_table(s)
    seats = table_block(text, "Win share by seat (95% CI)")
    low, high = s["first_card_advantage_ci"]
    assert seats["first-player card"] == (f"{_dollars(s['first_card_advantage'])} [{_dollars(low)}, {_dollars(high)}] "
                                          "won per round by its holder beyond the fair share")
    money = table_block(text, "Money by seat, mean (95% CI)")
    assert money == {f"seat {i}": f"{_dollars(m)} [{_dollars(lo)}, {_dollars(hi)}]"
                     for i, (m, (lo, hi)) in enumerate(zip(s["money_mean"], s["money_mean_ci"]))}
    games = table_block(text, "Games")
    for label, key, note in (("tie rate", "tie_rate", "of games, after the tie-break"),
                             ("money tie rate", "money_tie_rate", "of games, before it"),
                             ("ties cancelling", "tie_cancel_rate", "of casino payouts"),
                             ("won by white dice", "white_dice_share", "of the money laid out"),
                             ("unclaimed", "unclaimed_share", "of the money laid out")):
        assert games[label] == f"{pct(s[key])} {pct_ci(s[f'{key}_ci'])} {note}", label
    assert_table_fits(text)
