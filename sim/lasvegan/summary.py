"""The summary of a batch of Las Vegan games, built from mergeable partial statistics.

A :class:`Tally` (:mod:`analysis.tally`) of chunks of games merges exactly;
:func:`summarize` turns it into the dict ``lvsim run --json`` prints,
:func:`summary_table` into the text it prints otherwise.

Definitions:

* win share: each of the k seats tied for most cabbages gets 1/k of a win;
  its interval is Student's t over games with the sample variance;
* first-player advantage: seat 0's win share minus 1/players;
* elimination: a game in which a seat reached 0 cabbages (``elim_round > 0``);
* swing: one seat's cabbage change in one played round; ``mean_abs_swing``
  is its mean size (|change|), with a cluster-robust interval over games;
* worst-seat advantage: the largest |win share − 1/players| over seats;
  ``worst_seat_advantage_corrected`` takes out the upward bias a maximum over
  noisy seats has at small samples, kept inside the same interval
  (``analysis.common.worst_seat_advantage_corrected``);
* tie: a game with more than one winner;
* shortfall: a played round in which the reserve could not pay every gain
  (``shortfall_per_round`` is the unpaid cabbages per played round);
* ``amount_mean``: what one seat scores in one round from each kind of
  machine (colour, points, golden) before settlement — what drives swings;
* ``seven_no_slot_rate``, ``zero_playing_on_rate``: share of games in which
  a 7 found no free slot, or a seat started a round at 0 cabbages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from sim.lasvegan.report_tally import ReportTally
from analysis.common import (
    json_ready, num as _num, num_ci as _num_ci, pct as _pct, pct_ci as _pct_ci, played_line, run_fields, seat_fields,
    seat_lines, share, skill_gap_lines, strength_lines, table_row as row, title_line, win_share_metrics, win_unit,
)
from analysis.stats import IntHistogram, mean_and_sd, mean_interval, wilson_interval
from analysis.tally import MergeableTally
from sim.lasvegan.records import empty_records

KIND_NAMES = ("colour", "points", "golden")  # rows of the records' ``amount`` field
PERCENTILES = (5, 50, 95)
GAME_TITLES = {"lasvegan": "Las Vegan"}
# The strength profile's rows in the text summary (the report shows every headline metric).
TEXT_STRENGTH_METRICS = ("elimination_rate", "mean_rounds", "first_player_advantage")


@dataclass(eq=False)
class Tally(MergeableTally):
    """Sufficient statistics of a batch of games; ``merge`` adds two batches exactly.

    Most of the summary is read off the report's tally, which one jitted pass
    makes: its histograms pooled over seats, its sums. Every number is an
    integer: win shares are counted in units of 1/lcm(1..players) of a win,
    so that 1/k of a win is whole for any tie.
    """

    SHAPE = ("players", "rounds")

    players: int
    rounds: int
    games: int
    tie_games: int
    elimination_games: int
    end_round_games: np.ndarray  # [r]: games with rounds_played == r + 1
    report: ReportTally  # what the HTML report shows, and the rest of the summary

    @property
    def played_rounds(self) -> int:
        return int(self.end_round_games @ np.arange(1, self.rounds + 1))

    @classmethod
    def of(cls, rec: Mapping[str, np.ndarray]) -> "Tally":
        """The tally of one batch of game records (see ``sim.lasvegan.records``)."""
        games, rounds, players = rec["delta"].shape
        units = np.rint(rec["win_share"] * win_unit(players)).astype(np.int64)
        rounds_played = rec["rounds_played"].astype(np.int64)
        return cls(
            players=players,
            rounds=rounds,
            games=games,
            tie_games=int(np.count_nonzero(np.count_nonzero(units > 0, axis=1) > 1)),
            elimination_games=int(np.count_nonzero(rec["elim_round"] > 0)),
            end_round_games=np.bincount(rounds_played - 1, minlength=rounds).astype(np.int64),
            report=ReportTally.of(rec),
        )

    @classmethod
    def empty(cls, players: int, rounds: int) -> "Tally":
        """The tally of no games: the starting point of a run's merges."""
        return cls.of(empty_records(0, players, rounds))


def summarize(
    tally: Tally,
    *,
    game: str = "lasvegan",
    seed: int | None = None,
    seconds: float | None = None,
    policies: list[str] | tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """The summary dict of a run: plain JSON values, seat lists in seat order.

    Intervals are 95% ``[low, high]``; rates are fractions; a value that is
    undefined (an interval from a single game) is None.
    """
    n, players, report = tally.games, tally.players, tally.report
    headline = win_share_metrics(report.win_units, report.win_units_sq, tally.win_unit, n, tally.tie_games)
    mean_rounds, sd_rounds = IntHistogram(tally.end_round_games, offset=1).mean_and_sd()
    swing, final = IntHistogram.pooled(report.swing_seat), IntHistogram.pooled(report.final_seat)
    final_seat = [mean_and_sd(h.total, h.total_sq, n) for h in report.final_seat]
    played_rounds = tally.played_rounds
    seat_rounds = played_rounds * players
    abs_swing = report.abs_swing.interval()
    summary = {
        **run_fields(game=game, players=players, rounds=tally.rounds, games=n, seed=seed, seconds=seconds,
                     policies=policies),
        **seat_fields(headline),
        "elimination_rate": share(tally.elimination_games, n),
        "elimination_rate_ci": list(wilson_interval(tally.elimination_games, n)),
        "end_round_share": [share(c, n) for c in tally.end_round_games],
        "mean_rounds": mean_rounds,
        "mean_rounds_ci": list(mean_interval(mean_rounds, sd_rounds, n)),
        "swing": _distribution(swing),
        "mean_abs_swing": abs_swing[0],
        "mean_abs_swing_ci": list(abs_swing[1:]),
        "final_cabbages_mean": [m for m, _ in final_seat],
        "final_cabbages_mean_ci": [list(mean_interval(m, sd, n)) for m, sd in final_seat],
        "final_cabbages": _distribution(final),
        "tie_rate": headline["tie_rate"],
        "tie_rate_ci": headline["tie_rate_ci"],
        "shortfall_rate": share(report.shortfall_rounds, played_rounds),
        "shortfall_per_round": share(report.shortfall_cabbages, played_rounds),
        # Σ over games of each kind's net amount: the drivers' third measure.
        "amount_mean": {k: share(int(a), seat_rounds) for k, a in zip(KIND_NAMES, report.drivers.x[2])},
        "seven_no_slot_rate": share(report.seven_no_slot_games, n),
        "zero_playing_on_rate": share(report.zero_playing_on_games, n),
    }
    return json_ready(summary)


def summarize_records(rec: Mapping[str, np.ndarray], **kwargs) -> dict[str, Any]:
    """The summary of records held in memory (see :func:`summarize` for the options)."""
    return summarize(Tally.of(rec), **kwargs)


def _distribution(hist: IntHistogram) -> dict[str, float]:
    mean, sd = hist.mean_and_sd()
    return {"mean": mean, "sd": sd, **{f"p{q:02d}": hist.percentile(q) for q in PERCENTILES}}


# --- text ------------------------------------------------------------------


def summary_table(summary: Mapping[str, Any]) -> str:
    """The summary as the text table ``lvsim run`` prints: every estimate with its 95% interval, the
    distributions of swings and final cabbages by their spread."""
    title = GAME_TITLES.get(summary["game"], summary["game"])
    games = summary["games"]
    lines = [title_line(title, summary), "", *seat_lines(summary, first_seat="leads round 1")]
    lines += ["", "Games"]
    lines.append(row("elimination rate", _pct(summary["elimination_rate"]), _pct_ci(summary["elimination_rate_ci"])))
    lines.append(row("rounds played", _num(summary["mean_rounds"]), _num_ci(summary["mean_rounds_ci"])))
    for r, x in enumerate(summary["end_round_share"]):
        lines.append(row(f"ended after round {r + 1}", _pct(x), _games_share_ci(x, games)))
    lines.append(row("mean |swing| per round", _num(summary["mean_abs_swing"]),
                     "cabbages a seat gains or loses in a round", ci=_num_ci(summary["mean_abs_swing_ci"])))
    lines.append(row("tie rate", _pct(summary["tie_rate"]), "of games", ci=_pct_ci(summary["tie_rate_ci"])))
    # A share of rounds: a game's rounds are not independent, and the summary keeps no interval for it.
    lines.append(row("reserve shortfall rate", _pct(summary["shortfall_rate"]), "of rounds"))
    for key, label in (("seven_no_slot_rate", "7s with no free slot"), ("zero_playing_on_rate", "seat playing on at 0")):
        if summary.get(key):
            lines.append(row(label, _pct(summary[key]), "of games", ci=_games_share_ci(summary[key], games)))
    lines += ["", f"Cabbages{'mean':>29}{'sd':>8}{'p05':>7}{'p50':>7}{'p95':>7}"]
    for label, key in (("swing (seat, round)", "swing"), ("final (seat)", "final_cabbages")):
        d = summary[key]
        lines.append(
            f"  {label:<25}{_num(d['mean']):>10}{_num(d['sd']):>8}"
            f"{_short(d['p05']):>7}{_short(d['p50']):>7}{_short(d['p95']):>7}"
        )
    lines += ["", "Final cabbages by seat, mean (95% CI)"]
    for s, (m, ci) in enumerate(zip(summary["final_cabbages_mean"], summary["final_cabbages_mean_ci"])):
        lines.append(row(f"seat {s}", _num(m), _num_ci(ci)))
    lines += skill_gap_lines(summary)
    from sim.games import get_game

    lines += strength_lines(summary, [get_game(summary["game"]).metric[m] for m in TEXT_STRENGTH_METRICS])
    lines.append("")
    lines.append(played_line(summary))
    return "\n".join(lines)


def _games_share_ci(x: float | None, games: int) -> str:
    """The Wilson interval of a share of the games (a count of games over all of them); empty without games."""
    if x is None or not games:
        return ""
    return _pct_ci(wilson_interval(round(x * games), games))


def _short(x: float | None) -> str:
    return "n/a" if x is None else f"{x:g}"
