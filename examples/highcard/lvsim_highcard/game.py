"""High Card as lvsim sees it (found under the entry-point group ``lvsim.games`` as ``highcard``). The package
writes no summary: each metric says its value in each game (``of_games``), and lvsim derives the rest."""

from __future__ import annotations

from sim.game import Game, SkillDuel, laid_out
from sim.metrics import (
    CLUSTER, FIRST_PLAYER_ADVANTAGE, MEAN, RATE, SEAT, STUDENT_T, TIE_RATE, WILSON, WIN_SHARE, WORST_SEAT_ADVANTAGE,
    WORST_SEAT_ADVANTAGE_CORRECTED, Metric,
)

METRICS = (
    FIRST_PLAYER_ADVANTAGE,
    WORST_SEAT_ADVANTAGE,
    TIE_RATE,
    Metric("mean_points", "winner's points", MEAN, STUDENT_T, headline=True, material=0.25, paired=True,
           of_games=lambda rec: rec["points"].max(axis=1)),
    Metric("shutout_rate", "games some player ends without a point", RATE, WILSON, headline=True, material=0.02,
           paired=True, short="shutouts", hole="games some player ends without a point",
           of_games=lambda rec: (rec["points"] == 0).any(axis=1)),
    Metric("void_round_rate", "rounds nobody scores", RATE, CLUSTER, short="void rounds",
           of_games=lambda rec: ((rec["scored"] == 0).sum(axis=1), (rec["scored"] >= 0).sum(axis=1))),
    Metric("winner_margin", "winner's lead over the next player", MEAN, STUDENT_T, short="winner's lead",
           of_games=lambda rec: rec["margin"]),
    Metric("final_points", "points at the end", MEAN, STUDENT_T, per=SEAT, of_games=lambda rec: rec["points"]),
    WIN_SHARE,
    WORST_SEAT_ADVANTAGE_CORRECTED,
)

GAME = Game(
    **laid_out("lvsim_highcard", sizes={"rounds": "R"}),
    skill_gap_duels=(SkillDuel("greedy_vs_random", "greedy", "random", 4),),
    skill_gap_games=256,
    strength_policies=("random", "greedy"),
    strength_slow_policy=None,
    metrics=METRICS,
    default_policy="greedy",
    sweep_panels=("first_player_advantage", "tie_rate", "shutout_rate", "mean_points"),
    sweep_heatmap=("first_player_advantage", "shutout_rate"),
)
