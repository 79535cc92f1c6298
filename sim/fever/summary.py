"""The summary of a batch of $ Fever games, built from mergeable partial statistics.

A :class:`Tally` (:mod:`analysis.tally`) of chunks of games merges exactly;
:func:`summarize` turns it into a JSON-ready dict.

Definitions:

* a game is *finished* when a seat reached the target; the turn cap ends
  the others (``unfinished_rate``, Wilson interval);
* win share: the share of finished games each seat won (one winner a
  game); the first-player advantage is seat 0's minus 1/players. At 1
  player there is no seat to compare: both advantages are None;
* game length, in turns and in rounds (a round: every seat's turn), over
  finished games: mean and exact percentiles 5, 50 and 95;
  ``turns_per_game`` is the mean over every game, the capped ones at the
  cap;
* ``points_by_combination``: each pay-table pattern's share of every point
  scored (points a double later gives up included), in pay-table order;
* ``double_rate``: share of turns on which the seat doubled;
  ``double_gain``: the mean, over doubles, of the points scored on the
  doubling turn minus the points of the combination given up (cluster
  interval over games);
* ``drought_rate``: share of full rounds in which no seat, on its turn, had
  a play that scored (cluster interval over games);
* ``reshuffles_per_game``: times the discards were shuffled into a new deck.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from analysis.common import json_ready, run_fields, seat_fields, share, win_share_metrics
from analysis.stats import (
    FirstGames, IntHistogram, cluster_ratio_interval, mean_and_sd, mean_interval, wilson_interval,
)
from analysis.tally import MergeableTally
from sim.fever import enums as E
from sim.fever.records import LAYOUT as RECORD_LAYOUT, empty_records

PERCENTILES = (5, 50, 95)


@dataclass(eq=False)
class Tally(MergeableTally):
    """Sufficient statistics of a batch of games; ``merge`` adds two batches exactly.

    Every number is a Python integer. It is also the report's tally: the win
    cross sums (win share by policy), the score sums and the first game of
    each length (the example games) are kept for the report.
    """

    players: int
    patterns: int
    games: int
    finished: int
    win_units: tuple[int, ...]  # [seat], over finished games
    win_units_sq: tuple[int, ...]
    win_cross: tuple[int, ...]  # [seat * players + seat]
    score_total: tuple[int, ...]  # [seat]
    score_total_sq: tuple[int, ...]
    turns_finished: IntHistogram  # turns of finished games
    rounds_finished: IntHistogram  # rounds of finished games
    turns: int  # over every game
    turns_sq: int
    pattern_scored: tuple[int, ...]  # [pattern]
    pattern_points: tuple[int, ...]  # [pattern]
    scoring_turns: tuple[int, ...]  # [seat]
    doubles: tuple[int, ...]  # [seat]
    doubles_all: int  # over every game: sum, square, times double_net
    doubles_all_sq: int
    double_scored: int
    double_net: int  # points won on doubling turns minus points given up
    double_net_sq: int
    double_net_xy: int  # sum over games of net x doubles
    double_points_won: int
    double_points_given: int
    could_score_turns: int
    full_rounds: int
    full_rounds_sq: int
    drought_rounds: int
    drought_rounds_sq: int
    drought_xy: int  # sum over games of drought rounds x full rounds
    reshuffles: int
    reshuffles_sq: int
    passes: int
    by_length: FirstGames  # key (finished, turns)

    SHAPE = ("players", "patterns")
    WHAT = "$ Fever tally"
    LAYOUT = RECORD_LAYOUT

    @property
    def win_unit(self) -> int:
        return 1  # one winner a game

    @property
    def win_games(self) -> int:
        return self.finished  # an unfinished game has no winner: win shares are over finished games

    @classmethod
    def of(cls, rec: Mapping[str, np.ndarray]) -> "Tally":
        """The tally of one batch of game records (see ``sim.fever.records``)."""
        games, players = rec["score"].shape
        patterns = rec["pattern_scored"].shape[1]
        finished = rec["winner"] >= 0
        units = rec["win_share"][finished].astype(np.int64)
        turns = rec["turns"].astype(np.int64)
        doubles = rec["doubles"].astype(np.int64)
        doubles_game = doubles.sum(axis=1)
        net = rec["double_points_won"].astype(np.int64) - rec["double_points_given"].astype(np.int64)
        drought = rec["drought_rounds"].astype(np.int64)
        full = rec["full_rounds"].astype(np.int64)
        reshuffles = rec["reshuffles"].astype(np.int64)
        score = rec["score"].astype(np.int64)

        def total(x):
            return int(x.sum())

        def column(x):
            return tuple(int(v) for v in x.sum(axis=0))

        return cls(
            players=players,
            patterns=patterns,
            games=games,
            finished=int(finished.sum()),
            win_units=column(units) if len(units) else (0,) * players,
            win_units_sq=column(units * units) if len(units) else (0,) * players,
            win_cross=tuple(int(v) for v in np.einsum("gi,gj->ij", units, units).ravel()),
            score_total=column(score),
            score_total_sq=column(score * score),
            turns_finished=IntHistogram.of(turns[finished]),
            rounds_finished=IntHistogram.of(rec["rounds"].astype(np.int64)[finished]),
            turns=total(turns),
            turns_sq=total(turns * turns),
            pattern_scored=column(rec["pattern_scored"].astype(np.int64)),
            pattern_points=column(rec["pattern_points"].astype(np.int64)),
            scoring_turns=column(rec["scoring_turns"].astype(np.int64)),
            doubles=column(doubles),
            doubles_all=total(doubles_game),
            doubles_all_sq=total(doubles_game * doubles_game),
            double_scored=total(rec["double_scored"].astype(np.int64)),
            double_net=total(net),
            double_net_sq=total(net * net),
            double_net_xy=total(net * doubles_game),
            double_points_won=total(rec["double_points_won"].astype(np.int64)),
            double_points_given=total(rec["double_points_given"].astype(np.int64)),
            could_score_turns=total(rec["could_score_turns"].astype(np.int64)),
            full_rounds=total(full),
            full_rounds_sq=total(full * full),
            drought_rounds=total(drought),
            drought_rounds_sq=total(drought * drought),
            drought_xy=total(drought * full),
            reshuffles=total(reshuffles),
            reshuffles_sq=total(reshuffles * reshuffles),
            passes=total(rec["passes"].astype(np.int64)),
            by_length=FirstGames.of(np.column_stack([finished.astype(np.int64), turns]), rec["game"]),
        )

    @classmethod
    def empty(cls, players: int, patterns: int) -> "Tally":
        """The tally of no games: the starting point of a run's merges."""
        return cls.of(empty_records(0, players, patterns))

    @property
    def report(self) -> "Tally":
        """What the report needs beyond the summary: the tally itself (stored as ``tally.json``)."""
        return self


def cluster_ratio(x: int, y: int, xx: int, xy: int, yy: int, clusters: int) -> tuple[float, list[float]]:
    """``Σx / Σy`` over games and its cluster-robust 95% interval (Student t over games), from exact integer moments."""
    mean, low, high = cluster_ratio_interval(x, y, xx, xy, yy, clusters)
    return mean, [low, high]


def length_stats(hist: IntHistogram) -> dict[str, float]:
    mean, _ = hist.mean_and_sd()
    return {"mean": mean, **{f"p{q:02d}": hist.percentile(q) for q in PERCENTILES}}


def summarize(
    tally: Tally,
    *,
    game: str = E.GAME_ID,
    seed: int | None = None,
    seconds: float | None = None,
    policies: list[str] | tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """The summary dict of a run: plain JSON values, seat lists in seat order, pattern lists in
    pay-table order. Intervals are 95% ``[low, high]``; rates are fractions; undefined values are None."""
    n, players, finished = tally.games, tally.players, tally.finished
    headline = win_share_metrics(tally.win_units, tally.win_units_sq, tally.win_unit, finished, 0)
    if players == 1:  # a race alone: no seat to compare
        for key in ("first_player_advantage", "worst_seat_advantage", "worst_seat_advantage_corrected"):
            headline[key] = math.nan
            headline[f"{key}_ci"] = [math.nan, math.nan]
    turns_mean, turns_sd = mean_and_sd(tally.turns, tally.turns_sq, n)
    score = [mean_and_sd(t, q, n) for t, q in zip(tally.score_total, tally.score_total_sq)]
    points = sum(tally.pattern_points)
    gain, gain_ci = cluster_ratio(tally.double_net, tally.doubles_all, tally.double_net_sq, tally.double_net_xy,
                                  tally.doubles_all_sq, n)
    drought, drought_ci = cluster_ratio(tally.drought_rounds, tally.full_rounds, tally.drought_rounds_sq,
                                        tally.drought_xy, tally.full_rounds_sq, n)
    reshuffles, reshuffles_sd = mean_and_sd(tally.reshuffles, tally.reshuffles_sq, n)
    doubles = sum(tally.doubles)
    summary = {
        **run_fields(game=game, title=E.TITLE, players=players, patterns=tally.patterns, games=n, seed=seed,
                     seconds=seconds, policies=policies),
        "finished_games": finished,
        "unfinished_rate": share(n - finished, n),
        "unfinished_rate_ci": list(wilson_interval(n - finished, n)),
        **seat_fields(headline),
        "game_length_turns": length_stats(tally.turns_finished),
        "game_length_rounds": length_stats(tally.rounds_finished),
        "turns_mean": length_stats(tally.turns_finished)["mean"],
        "turns_mean_ci": list(mean_interval(*tally.turns_finished.mean_and_sd(), finished)),
        "turns_per_game": turns_mean,
        "turns_per_game_ci": list(mean_interval(turns_mean, turns_sd, n)),
        "score_mean": [m for m, _ in score],
        "score_mean_ci": [list(mean_interval(m, sd, n)) for m, sd in score],
        "points_by_combination": [share(p, points) for p in tally.pattern_points],
        "combinations_per_game": [share(c, n) for c in tally.pattern_scored],
        "points_per_game": share(points, n),
        "double_rate": share(doubles, tally.turns),
        "double_rate_ci": list(wilson_interval(doubles, tally.turns)),
        "double_gain": gain,
        "double_gain_ci": gain_ci,
        "double_success_rate": share(tally.double_scored, doubles),
        "doubles_per_game": share(doubles, n),
        "drought_rate": drought,
        "drought_rate_ci": drought_ci,
        "could_score_rate": share(tally.could_score_turns, tally.turns),
        "scoring_turn_rate": share(sum(tally.scoring_turns), tally.turns),
        "reshuffles_per_game": reshuffles,
        "reshuffles_per_game_ci": list(mean_interval(reshuffles, reshuffles_sd, n)),
        "passes_per_game": share(tally.passes, n),
    }
    return json_ready(summary)


# --- text --------------------------------------------------------------------

TEXT_STRENGTH_METRICS = ("first_player_advantage", "unfinished_rate", "turns_mean", "double_rate")


def summary_table(summary: Mapping[str, Any]) -> str:
    """The summary as the text table ``lvsim run`` prints: every estimate with its 95% interval where the summary
    holds one, game lengths by their spread."""
    from analysis.common import (
        num, num_ci, pct, pct_ci, played_line, seat_lines, skill_gap_lines, strength_lines, table_row, title_line,
    )

    players = summary["players"]
    lines = [title_line(E.TITLE, summary), ""]
    if players > 1:
        lines += seat_lines(summary, "Win share by seat, of finished games (95% CI)")
    else:
        lines.append("A race to the target alone: no seat to compare")
    turns, rounds = summary["game_length_turns"], summary["game_length_rounds"]
    lines += ["", "Game length (finished games)"]
    lines.append(table_row("turns", num(turns["mean"], 2),
                           f"p05 {num(turns['p05'], 0)}, median {num(turns['p50'], 0)}, p95 {num(turns['p95'], 0)}",
                           ci=num_ci(summary["turns_mean_ci"])))
    # The summary keeps no interval for the mean rounds, nor for the shares of points and of turns below (a
    # game's turns are not independent): those rows give their value alone.
    lines.append(table_row("rounds", num(rounds["mean"], 1),
                           f"p05 {num(rounds['p05'], 0)}, median {num(rounds['p50'], 0)}, p95 {num(rounds['p95'], 0)}"))
    lines.append(table_row("unfinished", pct(summary["unfinished_rate"]),
                           "of games, ended by the turn cap", ci=pct_ci(summary["unfinished_rate_ci"])))
    lines += ["", "Scoring"]
    shares = "  ".join(f"{p}: {pct(x)}" for p, x in enumerate(summary["points_by_combination"]))
    lines.append(f"  {'points by pattern':<25}{shares}")
    lines.append(table_row("turns that could score", pct(summary["could_score_rate"])))
    lines.append(table_row("drought rounds", pct(summary["drought_rate"]),
                           "rounds in which no seat could score", ci=pct_ci(summary["drought_rate_ci"])))
    lines.append(table_row("turns that double", pct(summary["double_rate"]), pct_ci(summary["double_rate_ci"])))
    lines.append(table_row("gain of a double", num(summary["double_gain"], 2),
                           "points scored minus points given up", ci=num_ci(summary["double_gain_ci"])))
    lines.append(table_row("reshuffles per game", num(summary["reshuffles_per_game"], 2),
                           num_ci(summary["reshuffles_per_game_ci"])))
    lines += skill_gap_lines(summary)
    from sim.games import get_game

    lines += strength_lines(summary, [get_game(summary["game"]).metric[m] for m in TEXT_STRENGTH_METRICS])
    lines += ["", played_line(summary)]
    return "\n".join(lines)
