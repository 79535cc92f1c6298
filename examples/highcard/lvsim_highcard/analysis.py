"""The summary of a batch of High Card games, from a mergeable tally (``analysis.tally``).

Definitions beyond the metrics every game has (``analysis.common``):

* ``mean_points``: the winner's points (a shared win: the points the
  winners share), mean over games, Student t;
* ``shutout_rate``: games in which some player ends without a point, Wilson;
* ``void_round_rate``: rounds nobody scores (a tie under ``ties = "nobody"``);
* ``winner_margin``: points between the winner and the next player (0 when
  the win is shared).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from analysis.common import (
    json_ready, num, pct, played_line, run_fields, seat_fields, seat_lines, share, skill_gap_lines,
    strength_lines, table_row, title_line, win_share_metrics, win_unit,
)
from analysis.stats import FirstGames, IntHistogram, mean_and_sd, mean_interval, wilson_interval
from analysis.tally import MergeableTally

from lvsim_highcard import enums as E
from lvsim_highcard.records import LAYOUT as RECORD_LAYOUT


@dataclass(eq=False)
class Tally(MergeableTally):
    """Counts and integer sums of a batch of games; win shares in units of 1/lcm(1..players) of a win."""

    SHAPE = ("players", "rounds")

    players: int
    rounds: int
    games: int
    win_units: tuple[int, ...]  # [seat]
    win_units_sq: tuple[int, ...]
    win_cross: tuple[int, ...]  # [seat * players + seat]: sums of products of two seats' win units
    tie_games: int
    points_total: tuple[int, ...]  # [seat]
    winner_points: int
    winner_points_sq: int
    shutout_games: int
    void_rounds: int
    margin: IntHistogram
    by_margin: FirstGames  # key (winner's margin,): the example games

    WHAT = "High Card tally"
    LAYOUT = RECORD_LAYOUT

    @classmethod
    def of(cls, rec: Mapping[str, np.ndarray]) -> "Tally":
        games, players = rec["points"].shape
        rounds = rec["high"].shape[1]
        units = np.rint(rec["win_share"] * win_unit(players)).astype(np.int64)
        points = rec["points"].astype(np.int64)
        best = points.max(axis=1) if games else np.zeros(0, dtype=np.int64)
        margin = rec["margin"].astype(np.int64)
        return cls(
            players=players, rounds=rounds, games=games,
            win_units=tuple(int(v) for v in units.sum(axis=0)),
            win_units_sq=tuple(int(v) for v in (units * units).sum(axis=0)),
            win_cross=tuple(int(v) for v in np.einsum("gi,gj->ij", units, units).ravel()),
            tie_games=int(np.count_nonzero((units > 0).sum(axis=1) > 1)),
            points_total=tuple(int(v) for v in points.sum(axis=0)),
            winner_points=int(best.sum()),
            winner_points_sq=int((best * best).sum()),
            shutout_games=int(np.count_nonzero((points == 0).any(axis=1))),
            void_rounds=int(np.count_nonzero(rec["scored"] == 0)),
            margin=IntHistogram.of(margin),
            by_margin=FirstGames.of(margin[:, None], rec["game"]),
        )

    @property
    def report(self) -> "Tally":
        """The report needs nothing beyond the tally itself (``tally.json``)."""
        return self


def summarize(tally: Tally, *, game: str = E.GAME_ID, seed: int | None = None, seconds: float | None = None,
              policies=None) -> dict[str, Any]:
    n = tally.games
    headline = win_share_metrics(tally.win_units, tally.win_units_sq, tally.win_unit, n, tally.tie_games)
    winner_mean, winner_sd = mean_and_sd(tally.winner_points, tally.winner_points_sq, n)
    return json_ready({
        **run_fields(game=game, title=E.TITLE, players=tally.players, rounds=tally.rounds, games=n, seed=seed,
                     seconds=seconds, policies=policies),
        **seat_fields(headline),
        "tie_rate": headline["tie_rate"],
        "tie_rate_ci": headline["tie_rate_ci"],
        "mean_points": winner_mean,
        "mean_points_ci": list(mean_interval(winner_mean, winner_sd, n)),
        "shutout_rate": share(tally.shutout_games, n),
        "shutout_rate_ci": list(wilson_interval(tally.shutout_games, n)),
        "void_round_rate": share(tally.void_rounds, n * tally.rounds),
        "points_mean": [share(p, n) for p in tally.points_total],
        "winner_margin": {"mean": tally.margin.mean_and_sd()[0], "p50": tally.margin.percentile(50)},
    })


def paired_values(rec: Mapping[str, np.ndarray], players: int, unit: int) -> dict[str, np.ndarray]:
    """The metrics a sweep compares game by game, per game, as integers (win shares in ``unit`` units)."""
    win = rec["win_share"]
    return {
        "first_player_advantage": np.rint(win[:, 0] * unit).astype(np.int64) - unit // players,
        "tie_rate": ((win > 0).sum(axis=1) > 1).astype(np.int64),
        "shutout_rate": (rec["points"] == 0).any(axis=1).astype(np.int64),
    }


def summary_table(summary: Mapping[str, Any]) -> str:
    """The summary as the text ``lvsim run`` prints."""
    lines = [title_line(E.TITLE, summary), "", *seat_lines(summary), "", "Games"]
    lines.append(table_row("tie rate", pct(summary["tie_rate"]), "of games, the win shared"))
    lines.append(table_row("winner's points", num(summary["mean_points"]), f"of {summary['rounds']} rounds"))
    lines.append(table_row("shutouts", pct(summary["shutout_rate"]), "of games, some player without a point"))
    lines.append(table_row("void rounds", pct(summary["void_round_rate"]), "of rounds, nobody scores"))
    lines += skill_gap_lines(summary)
    lines += strength_lines(summary)
    lines += ["", played_line(summary)]
    return "\n".join(lines)
