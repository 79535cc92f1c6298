"""High Card as lvsim sees it: found under the entry-point group ``lvsim.games`` as ``highcard``."""

from __future__ import annotations

from sim.game import Game, SkillDuel, TallyIO, lazy
from sim.metrics import (
    FIRST_PLAYER_ADVANTAGE, MEAN, RATE, STUDENT_T, TIE_RATE, WILSON, WIN_SHARE, WORST_SEAT_ADVANTAGE,
    WORST_SEAT_ADVANTAGE_CORRECTED, Metric,
)

from lvsim_highcard import enums as E
from lvsim_highcard.params import KNOBS, Rules
from lvsim_highcard.policies import POLICIES
from lvsim_highcard.records import LAYOUT

METRICS = (
    FIRST_PLAYER_ADVANTAGE,
    WORST_SEAT_ADVANTAGE,
    TIE_RATE,
    Metric("mean_points", "winner's points", MEAN, STUDENT_T, headline=True, material=0.25),
    Metric("shutout_rate", "games some player ends without a point", RATE, WILSON, headline=True, material=0.02,
           paired=True, short="shutouts", hole="games some player ends without a point"),
    WIN_SHARE,
    WORST_SEAT_ADVANTAGE_CORRECTED,
)

GAME = Game(
    id=E.GAME_ID,
    title=E.TITLE,
    Rules=Rules,
    knobs=KNOBS,
    policies=POLICIES,
    min_players=E.MIN_PLAYERS,
    max_players=E.MAX_PLAYERS,
    play_games=lazy("lvsim_highcard.nb:play_games"),
    records=LAYOUT,
    tally=lazy("lvsim_highcard.analysis:Tally.of"),
    summarize=lazy("lvsim_highcard.analysis:summarize"),
    summary_table=lazy("lvsim_highcard.analysis:summary_table"),
    report_tally_io=TallyIO.of("lvsim_highcard.analysis:Tally", ("players", "rounds")),
    build_report=lazy("lvsim_highcard.report:build_report"),
    replay_path=lazy("lvsim_highcard.replay:replay_path"),
    skill_gap_duels=(SkillDuel("greedy_vs_random", "greedy", "random", 4),),
    skill_gap_games=256,
    strength_policies=("random", "greedy"),
    strength_slow_policy=None,
    metrics=METRICS,
    strength_order=("greedy",),
    default_policy="greedy",
    sweep_panels=("first_player_advantage", "tie_rate", "shutout_rate", "mean_points"),
    sweep_heatmap=("first_player_advantage", "shutout_rate"),
    per_game=lazy("lvsim_highcard.analysis:paired_values"),
    per_game_fields=("win_share", "points"),
    conformance="lvsim_highcard.conformance",
)
