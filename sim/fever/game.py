"""$ Fever as the machinery sees it: the slot-machine card game."""

from __future__ import annotations

from sim.game import Game, SkillDuel, TallyIO, laid_out
from sim.metrics import (
    CLUSTER, FIRST_PLAYER_ADVANTAGE, MEAN, RATE, STUDENT_T, WILSON, WIN_SHARE, WORST_SEAT_ADVANTAGE,
    WORST_SEAT_ADVANTAGE_CORRECTED, Metric,
)


def _finished(rec):
    """1 in each game a seat won, 0 in each the turn cap ended."""
    return (rec["winner"] >= 0).astype("int64")


# The headline metrics first, in the order the strength profile shows them. One winner a game: no ties.
METRICS = (
    # The summary's first-player advantage and game length are over finished games: a ratio whose denominator
    # counts each game 1 when finished, 0 when not. Seat 0's win less the fair share, in whole wins per
    # ``players`` (one winner a game, so shares are 0 or 1); a sweep compares it as that ratio.
    FIRST_PLAYER_ADVANTAGE.but(of_games=lambda rec: (
        (rec["win_share"][:, 0].round().astype("int64") * rec["win_share"].shape[1] - 1) * _finished(rec),
        _finished(rec) * rec["win_share"].shape[1])),
    Metric("unfinished_rate", "games the turn cap ends", RATE, WILSON, higher_is_better=False, headline=True,
           material=0.02, paired=True, short="unfinished games", of_games=lambda rec: rec["winner"] < 0),
    Metric("turns_mean", "turns per finished game", MEAN, STUDENT_T, headline=True, material=5.0,
           of_games=lambda rec: (rec["turns"].astype("int64") * _finished(rec), _finished(rec))),
    Metric("double_rate", "turns that double", RATE, WILSON, headline=True, material=0.02,
           of_games=lambda rec: (rec["doubles"].astype("int64").sum(axis=1), rec["turns"].astype("int64"))),
    Metric("drought_rate", "rounds nobody can score", RATE, CLUSTER, higher_is_better=False, headline=True,
           material=0.02, of_games=lambda rec: (rec["drought_rounds"], rec["full_rounds"])),
    Metric("turns_per_game", "turns per game", MEAN, STUDENT_T, paired=True, of_games=lambda rec: rec["turns"]),
    WIN_SHARE,
    # The strength profile judges the first seat only.
    WORST_SEAT_ADVANTAGE.but(headline=False),
    WORST_SEAT_ADVANTAGE_CORRECTED,
)

GAME = Game(
    **laid_out("sim.fever"),
    report_tally_io=TallyIO.of("sim.fever.summary:Tally", ("players", "patterns")),
    skill_gap_duels=(
        SkillDuel("montecarlo_vs_greedy", "montecarlo:16", "greedy", 1),
        SkillDuel("greedy_vs_random", "greedy", "random", 4),
    ),
    skill_gap_games=256,
    strength_policies=("random", "greedy", "montecarlo:4"),
    strength_slow_policy="montecarlo:16",
    metrics=METRICS,
    default_policy="montecarlo:4",
    sweep_panels=("first_player_advantage", "unfinished_rate", "turns_mean", "drought_rate"),
    sweep_heatmap=("turns_mean", "unfinished_rate"),
    compile_seconds=16.0,
)
