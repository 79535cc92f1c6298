"""High Card as lvsim sees it: found under the entry-point group ``lvsim.games`` as ``highcard``."""

from __future__ import annotations

from sim.game import Game, SkillDuel, TallyIO, laid_out
from sim.metrics import (
    FIRST_PLAYER_ADVANTAGE, MEAN, RATE, STUDENT_T, TIE_RATE, WILSON, WIN_SHARE, WORST_SEAT_ADVANTAGE,
    WORST_SEAT_ADVANTAGE_CORRECTED, Metric,
)


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
    **laid_out("lvsim_highcard", summary="lvsim_highcard.analysis"),
    report_tally_io=TallyIO.of("lvsim_highcard.analysis:Tally", ("players", "rounds")),
    skill_gap_duels=(SkillDuel("greedy_vs_random", "greedy", "random", 4),),
    skill_gap_games=256,
    strength_policies=("random", "greedy"),
    strength_slow_policy=None,
    metrics=METRICS,
    default_policy="greedy",
    sweep_panels=("first_player_advantage", "tie_rate", "shutout_rate", "mean_points"),
    sweep_heatmap=("first_player_advantage", "shutout_rate"),
    per_game_fields=("win_share", "points"),
)
