"""Metric declarations: each game's are what its summary, sweeps and strength profile read."""

from dataclasses import replace

import numpy as np
import pytest

from analysis.common import win_unit
from sim.games import all_games
from sim.metrics import ADVANTAGE, FIRST_PLAYER_ADVANTAGE, MEAN, RATE, STUDENT_T, TIE_RATE, WILSON, Metric

GAMES = all_games()
IDS = [g.id for g in GAMES]


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_every_declared_metric_is_in_the_games_summary_with_its_interval(game):
    summary = game.summarize(game.empty_tally(game.Rules()), policies=["random"] * game.Rules().players)
    for metric in game.metrics:
        assert metric.name in summary, metric.name
        assert (f"{metric.name}_ci" in summary) == (metric.interval != "none"), metric.name


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_headline_metrics_are_the_strength_profiles_and_each_says_what_difference_matters(game):
    headline = game.headline_metrics
    assert headline and list(headline) == list(game.strength_metrics)
    assert all(m.headline and m.material > 0 for m in headline.values())
    assert FIRST_PLAYER_ADVANTAGE.name in headline


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_every_paired_metric_is_given_game_by_game(game):
    rules = game.Rules()
    empty = game.records.empty(3, rules)
    values = game.per_game(empty, rules.players, win_unit(rules.players))
    ratios = game.per_game_ratios(empty, rules.players)
    # One number a game, or a ratio's numerators and denominators (compared as that ratio).
    assert set(game.paired_metrics) == set(values) | (set(ratios) & set(game.paired_metrics))
    assert all(v.dtype == np.int64 for v in values.values())
    assert all(v.dtype == np.int64 for parts in ratios.values() for v in parts)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_sweeps_figure_shows_declared_metrics_in_their_units(game):
    plotted = game.sweep_plotted
    assert len(plotted) == 4
    for name, (label, scale, signed) in plotted.items():
        metric = game.metric[name]
        assert label.startswith(metric.axis or metric.label)
        assert scale == (1 if metric.kind == MEAN else 100) and signed == (metric.kind == ADVANTAGE)


def test_the_common_metrics_are_declared_once_and_a_game_adjusts_its_own_copy():
    lasvegan = next(g for g in GAMES if g.id == "lasvegan")
    assert lasvegan.metric["tie_rate"].material == 0.03 and TIE_RATE.material == 0.02
    assert lasvegan.metric["tie_rate"].but(material=0.02) == TIE_RATE
    # $ Fever's copy declares its value in each game (over finished games), which no comparison reads.
    assert all(g.metric["first_player_advantage"] == FIRST_PLAYER_ADVANTAGE for g in GAMES)
    assert [g.id for g in GAMES if g.metric["first_player_advantage"] is not FIRST_PLAYER_ADVANTAGE] == ["fever"]


def test_a_declaration_says_what_is_missing_or_wrong():
    with pytest.raises(ValueError, match="smallest difference"):
        Metric("x_rate", "x rate", RATE, WILSON, headline=True)
    with pytest.raises(ValueError, match="kind"):
        Metric("x_rate", "x rate", "share", WILSON)
    with pytest.raises(ValueError, match="interval"):
        Metric("x_rate", "x rate", RATE, "bootstrap")


def test_a_game_names_only_declared_metrics_in_its_sweep_figure():
    game = GAMES[0]
    with pytest.raises(ValueError, match="not among the game's metrics"):
        replace(game, sweep_panels=(*game.sweep_panels[:3], "no_such_metric"))
    with pytest.raises(ValueError, match="declared twice"):
        replace(game, metrics=(*game.metrics, Metric("mean_x", "x", MEAN, STUDENT_T, paired=True),
                               Metric("mean_x", "x", MEAN, STUDENT_T)))
