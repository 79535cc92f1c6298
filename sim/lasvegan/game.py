"""Las Vegan as the machinery sees it: the trick-taking card game with cabbages and casino tokens."""

from __future__ import annotations

from sim.game import Game, SkillDuel, TallyIO, laid_out
from sim.metrics import (
    CLUSTER, FIRST_PLAYER_ADVANTAGE, MEAN, NO_INTERVAL, RATE, ROUND, STUDENT_T, TIE_RATE, WILSON, WIN_SHARE,
    WORST_SEAT_ADVANTAGE, WORST_SEAT_ADVANTAGE_CORRECTED, Metric,
)

# The headline metrics first, in the order the strength profile shows them.
METRICS = (
    Metric("elimination_rate", "elimination rate", RATE, WILSON, headline=True, material=0.03, paired=True,
           of_games=lambda rec: rec["elim_round"] > 0),
    FIRST_PLAYER_ADVANTAGE,
    WORST_SEAT_ADVANTAGE,
    Metric("mean_rounds", "mean rounds", MEAN, STUDENT_T, headline=True, material=0.1, paired=True,
           short="rounds played", axis="rounds played", of_games=lambda rec: rec["rounds_played"]),
    # Every game's cabbages moved (Σ |change| over its seats and rounds; a round not played changes nothing)
    # over its seat-rounds played.
    Metric("mean_abs_swing", "mean |swing| per round", MEAN, CLUSTER, headline=True, material=0.25, paired=True,
           of_games=lambda rec: (abs(rec["delta"].astype("int64")).sum(axis=(1, 2)),
                                 rec["rounds_played"].astype("int64") * rec["delta"].shape[2])),
    TIE_RATE.but(material=0.03),
    WIN_SHARE,
    WORST_SEAT_ADVANTAGE_CORRECTED,
    Metric("end_round_share", "games ended after each round", RATE, NO_INTERVAL, per=ROUND),
    Metric("shortfall_rate", "reserve shortfall rate", RATE, NO_INTERVAL, higher_is_better=False,
           hole="rounds in which the reserve could not pay every gain"),
    Metric("seven_no_slot_rate", "7s with no free slot", RATE, NO_INTERVAL, higher_is_better=False,
           hole="games in which a 7 was won with no free slot for a token"),
)

GAME = Game(
    **laid_out("sim.lasvegan"),
    report_tally_io=TallyIO.of("sim.lasvegan.report_tally:ReportTally", ("players", "rounds")),
    # The first is the lookahead duel (a test may swap its player for a cheaper search); then each step
    # of skill: random -> greedy -> expert -> lookahead:16. A lookahead:16 deal costs about ninety expert
    # ones, so that duel plays the run's skill-gap deals alone, as the lookahead:32 one does.
    skill_gap_duels=(
        SkillDuel("lookahead_vs_greedy", "lookahead:32", "greedy", 1),
        SkillDuel("greedy_vs_random", "greedy", "random", 20),
        SkillDuel("expert_vs_greedy", "expert", "greedy", 20),
        SkillDuel("lookahead16_vs_expert", "lookahead:16", "expert", 1),
    ),
    skill_gap_games=64,
    strength_policies=("random", "greedy", "expert"),
    strength_slow_policy="lookahead:16",
    metrics=METRICS,
    default_policy="expert",
    sweep_panels=("first_player_advantage", "elimination_rate", "mean_rounds", "tie_rate"),
    sweep_heatmap=("elimination_rate", "first_player_advantage"),
    compile_seconds=20.0,
    compile_every_seconds=45.0,
)
