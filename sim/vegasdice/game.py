"""Las Vegas as the machinery sees it: the dice game of casinos and banknotes."""

from __future__ import annotations

from sim.game import Game, SkillDuel, TallyIO, laid_out
from sim.metrics import (
    CLUSTER, FIRST_PLAYER_ADVANTAGE, RATE, TIE_RATE, WILSON, WIN_SHARE, WORST_SEAT_ADVANTAGE,
    WORST_SEAT_ADVANTAGE_CORRECTED, Metric,
)


def _in_game(rec, field: str):
    """A per-round record field summed over each game's rounds."""
    return rec[field].astype("int64").sum(axis=1)


# The headline metrics in the order the strength profile shows them; the money tie rate is only compared.
METRICS = (
    FIRST_PLAYER_ADVANTAGE,
    WORST_SEAT_ADVANTAGE,
    TIE_RATE,
    Metric("money_tie_rate", "money tie rate", RATE, WILSON, paired=True, of_games=lambda rec: rec["money_tied"] > 1),
    # Shares of each game's payouts and of the money laid out on its casinos.
    Metric("tie_cancel_rate", "casino payouts cancelled by ties", RATE, CLUSTER, headline=True, material=0.03, paired=True,
           of_games=lambda rec: (_in_game(rec, "tie_cancels"), _in_game(rec, "payouts"))),
    Metric("white_dice_share", "money won by the white dice", RATE, CLUSTER, headline=True, material=0.02, paired=True,
           of_games=lambda rec: (_in_game(rec, "white_won"), _in_game(rec, "laid_out"))),
    Metric("unclaimed_share", "money nobody won", RATE, CLUSTER, headline=True, material=0.02, paired=True,
           of_games=lambda rec: (_in_game(rec, "unclaimed"), _in_game(rec, "laid_out"))),
    WIN_SHARE,
    WORST_SEAT_ADVANTAGE_CORRECTED,
)

GAME = Game(
    **laid_out("sim.vegasdice"),
    report_tally_io=TallyIO.of("sim.vegasdice.summary:Tally", ("players", "rounds")),
    skill_gap_duels=(
        SkillDuel("montecarlo_vs_greedy", "montecarlo:16", "greedy", 1),
        SkillDuel("greedy_vs_random", "greedy", "random", 20),
    ),
    skill_gap_games=256,
    strength_policies=("random", "greedy"),
    strength_slow_policy="montecarlo:16",
    metrics=METRICS,
    default_policy="greedy",
    sweep_panels=("first_player_advantage", "tie_rate", "money_tie_rate", "white_dice_share"),
    sweep_heatmap=("first_player_advantage", "white_dice_share"),
    compile_seconds=13.0,
)
