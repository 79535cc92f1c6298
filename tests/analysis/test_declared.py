"""A game that writes no summary of its own (High Card) has it derived from the metrics it declares per game."""

import dataclasses
import json
import pickle
import re

import numpy as np
import pytest

from analysis.stats import ratio_interval, sample_mean_interval, wilson_interval
from sim.errors import GameError
from sim.game import DERIVED
from sim.games import get_game
from sim.metrics import CLUSTER, MEAN, RATE, SEATS, STUDENT_T, WILSON, Metric

GAME = get_game("highcard")


@pytest.fixture(scope="module")
def records():
    rules = GAME.rules_from_mapping({"players": 4, "hand": 6, "rounds": 6})
    ids, params = GAME.parse_seats(["greedy", "random", "greedy", "random"], 4)
    return rules, GAME.play_games(rules, 11, 0, 3000, ids, params)


def test_each_declared_metric_is_what_its_values_in_each_game_give_with_its_interval(records):
    rules, rec = records
    s = GAME.summarize(GAME.tally(rec), seed=11)
    points, n = rec["points"].astype(np.int64), len(rec["game"])
    mean, low, high = sample_mean_interval(points.max(axis=1))
    assert s["mean_points"] == pytest.approx(mean) and s["mean_points_ci"] == pytest.approx([low, high])
    shutouts = int((points == 0).any(axis=1).sum())
    assert s["shutout_rate"] == shutouts / n and s["shutout_rate_ci"] == list(wilson_interval(shutouts, n))
    void = (rec["scored"] == 0).sum(axis=1)
    assert [s["void_round_rate"], *s["void_round_rate_ci"]] == pytest.approx(
        list(ratio_interval(void, np.full(n, rules.rounds))))
    for seat in range(4):
        mean, low, high = sample_mean_interval(points[:, seat])
        assert s["final_points"][seat] == pytest.approx(mean) and s["final_points_ci"][seat] == pytest.approx([low, high])
    assert s["rounds"] == 6 and s["players"] == 4 and s["games"] == n
    assert s["win_share"] == pytest.approx(rec["win_share"].mean(axis=0).tolist())


def test_the_tally_merges_exactly_goes_to_json_and_to_another_process_and_keeps_its_sizes(records):
    rules, rec = records
    whole = GAME.tally(rec)
    cut = [0, 7, 1000, 2999, 3000]
    parts = [GAME.tally({k: v[a:b] for k, v in rec.items()}) for a, b in zip(cut, cut[1:])]
    merged = parts[0]
    for part in parts[1:]:
        merged = merged.merge(part)
    assert merged == whole
    assert type(whole).from_json(json.loads(json.dumps(whole.to_json()))) == whole
    assert pickle.loads(pickle.dumps(whole)) == whole
    assert GAME.report_tally_io.shape(whole) == GAME.table_shape(rules) == (4, 6)
    other = GAME.rules_from_mapping({"players": 4, "hand": 6, "rounds": 5})
    with pytest.raises(ValueError, match="4 players x 6 rounds and 4 players x 5 rounds"):
        whole.merge(GAME.empty_tally(other))


def test_the_text_table_has_a_row_for_each_metric_of_one_value(records):
    _, rec = records
    table = GAME.summary_table(GAME.summarize(GAME.tally(rec), seed=11))
    for label in ("tie rate", "winner's points", "shutouts", "void rounds", "winner's lead"):
        assert f"  {label} " in table
    assert "points at the end" not in table  # a per-seat metric is in the summary, not among the games' rows


def test_the_values_in_each_game_are_the_tallys_and_a_ratio_comes_with_its_denominators(records):
    rules, rec = records
    unit = GAME.tally(rec).win_unit
    paired = GAME.per_game(rec, 4, unit)
    assert set(paired) == set(GAME.paired_metrics) == {"first_player_advantage", "tie_rate", "mean_points",
                                                       "shutout_rate"}
    assert paired["mean_points"].tolist() == rec["points"].max(axis=1).tolist()
    num, den = GAME.per_game_ratios(rec, 4)["void_round_rate"]
    assert num.tolist() == (rec["scored"] == 0).sum(axis=1).tolist() and set(den.tolist()) == {rules.rounds}


def test_a_metric_that_cannot_be_tallied_as_declared_is_refused_by_name_when_the_game_is_declared():
    """A game with a summary of its own may declare a ratio of per-game sums with any interval (its summary
    computes it); a game whose tally is derived needs one the derived tally can compute."""
    def declared(metric):
        return dataclasses.replace(GAME, metrics=(*GAME.metrics, metric), **dict.fromkeys(DERIVED))

    with pytest.raises(ValueError, match="highcard: metric odd: a value in each game is tallied with"):
        declared(Metric("odd", "odd", RATE, SEATS, of_games=lambda rec: rec["points"]))
    with pytest.raises(ValueError, match="highcard: metric odd: a wilson interval is a rate's, not a mean's"):
        declared(Metric("odd", "odd", MEAN, WILSON, of_games=lambda rec: rec["points"]))
    declared(Metric("fine", "fine", MEAN, CLUSTER, of_games=lambda rec: (rec["points"], rec["points"])))
    declared(Metric("fine", "fine", MEAN, STUDENT_T, of_games=lambda rec: rec["points"]))


def test_a_paired_metric_with_no_single_value_in_each_game_is_refused_when_the_game_is_declared(records):
    per_seat = next(m for m in GAME.metrics if m.name == "final_points").but(paired=True)
    with pytest.raises(ValueError, match="highcard: metric final_points is paired, so a sweep compares"):
        dataclasses.replace(GAME, metrics=tuple(per_seat if m.name == per_seat.name else m for m in GAME.metrics),
                            **dict.fromkeys(DERIVED))
    # A ratio of sums is one ratio a game: a sweep compares it as that ratio (analysis.sweep._ratio_difference).
    ratio = next(m for m in GAME.metrics if m.name == "void_round_rate").but(paired=True)
    game = dataclasses.replace(GAME, metrics=tuple(ratio if m.name == ratio.name else m for m in GAME.metrics),
                               **dict.fromkeys(DERIVED))
    _, rec = records
    assert "void_round_rate" in game.paired_metrics and "void_round_rate" not in game.per_game(rec, 4, 12)
    assert "void_round_rate" in game.per_game_ratios(rec, 4)


def test_a_rate_of_games_that_is_not_one_or_zero_in_each_game_is_refused_by_name(records):
    _, rec = records
    wrong = Metric("shutout_rate", "shutouts", RATE, WILSON, of_games=lambda rec: rec["points"].max(axis=1))
    game = dataclasses.replace(GAME, metrics=tuple(wrong if m.name == wrong.name else m for m in GAME.metrics),
                               **dict.fromkeys(DERIVED))
    with pytest.raises(ValueError, match="metric shutout_rate: a rate of games is 1 in a game it counts"):
        game.tally(rec)


@pytest.mark.parametrize("of_games, problem", [
    (lambda rec: rec["margin"] / 2, r"its of_games gives \d+\.5, but a value in each game is a whole number"),
    (lambda rec: rec["margin"][:, None], r"its of_games gives an array of shape \(300, 1\) for 300 games"),
    (lambda rec: rec["margn"], r"its of_games raised KeyError: 'margn'"),
])
def test_values_in_each_game_the_tally_cannot_sum_are_refused_naming_the_metric_and_where_it_is_written(
        records, of_games, problem):
    """A fraction would be cut to a whole number and summed, printing a wrong mean as if it were right."""
    _, rec = records
    rec = {name: values[:300] for name, values in rec.items()}
    wrong = Metric("winner_margin", "winner's lead", MEAN, STUDENT_T, paired=True, of_games=of_games)
    game = dataclasses.replace(GAME, metrics=tuple(wrong if m.name == wrong.name else m for m in GAME.metrics),
                               **dict.fromkeys(DERIVED))
    for values in (game.tally, lambda rec: game.per_game(rec, 4, 12)):
        with pytest.raises(GameError, match=rf"^highcard: metric winner_margin \({re.escape(__file__)}, line \d+\): {problem}"):
            values(rec)


@pytest.mark.parametrize("name", ["first_player_advantage", "tie_rate", "win_share", "games", "rounds"])
def test_a_metric_of_the_games_own_named_as_a_number_every_summary_has_is_refused(name):
    """Its value would overwrite that number in the summary: a margin printed as the first-player advantage."""
    from analysis.common import run_fields
    from sim.game import SUMMARY_KEYS

    assert set(run_fields(game="g", title="t", players=3, games=1, seed=1, seconds=1.0, policies=[])) <= set(SUMMARY_KEYS)
    own = Metric(name, "winner's lead", MEAN, STUDENT_T, of_games=lambda rec: rec["margin"])
    with pytest.raises(ValueError, match=f"highcard: metric {name} has the name of a number every summary has"):
        dataclasses.replace(GAME, metrics=(*(m for m in GAME.metrics if m.name != name), own), **dict.fromkeys(DERIVED))
