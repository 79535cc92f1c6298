"""The report's tables: pandas DataFrames of a run's :class:`~sim.lasvegan.report_tally.ReportTally`.

Every function takes the tally (or, for notebooks, the per-game records,
tallied first) and returns one tidy table, exact, percentiles included.
Every estimate comes with a 95% interval in ``low``/``high`` columns:

* rates of independent games — Wilson score interval;
* means of one value per game — mean ± t·sd/√n, t Student's with n − 1
  degrees of freedom (no interval below ``analysis.stats.MIN_SAMPLES`` games);
* means and shares over rounds or seats — a cluster-robust standard error,
  games as clusters (the rounds and seats of one game are not independent),
  and Student's t over the games, see :meth:`analysis.stats.Moments.interval`.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from sim.lasvegan.report_tally import ReportTally
from analysis.stats import IntHistogram, wilson_interval
from analysis.tables import histogram_table, interval_row, mean_row

KINDS = ("colour", "points", "golden")  # the report tally's machine kinds
TRAJECTORY_QUANTILES = (5, 25, 50, 75, 95)
END_REASONS = ("a seat ran out in this round", "a seat ran out earlier and played on", "nobody ran out")


tally_of = ReportTally.of_source  # the tally itself, or the tally of per-game records


def _wilson_row(count: int, n: int) -> dict:
    low, high = wilson_interval(int(count), int(n))
    return {"count": int(count), "n": int(n), "rate": count / n if n else np.nan, "low": low, "high": high}


# --- who wins ---------------------------------------------------------------


def win_share_by_seat(source) -> pd.DataFrame:
    """Win share of each seat (tied seats share a win), Student t interval over games."""
    return tally_of(source).win_share_by_seat()


def win_share_by_last_leader(source) -> pd.DataFrame:
    """Win share by place at the table counted from the seat that led the game's last round.

    Position 0 is that leader (the winner of the previous round's last
    trick; seat 0 in a one-round game), position 1 the next seat clockwise.
    """
    t = tally_of(source)
    return pd.DataFrame([
        {"position": p, **mean_row(t.last_leader_units[p], t.last_leader_units_sq[p], t.games, t.win_unit)}
        for p in range(t.players)
    ])


def round_change_by_leader_position(source) -> pd.DataFrame:
    """Mean cabbage change in round r of the seat at each position from that round's leader.

    One row per (round, position) over the games that played the round;
    each game gives one value per cell, so the Student t interval is over games.
    """
    t = tally_of(source)
    m = t.leader_change
    return pd.DataFrame([{"round": r + 1, "position": p, "games": int(m.y[r, p]),
                          **mean_row(m.x[r, p], m.xx[r, p], int(m.y[r, p]))}
                         for r in range(t.rounds) for p in range(t.players)])


def win_share_by_policy(source, seats: Sequence[str]) -> pd.DataFrame:
    """Share of the wins each policy takes, against its fair share (its seats / players), over games.

    With every seat on the same policy this is 1.
    """
    return tally_of(source).win_share_by_policy(seats)


# --- how games end ------------------------------------------------------------


def game_ends(source) -> pd.DataFrame:
    """Games by the round they ended in and why: one row per (round, reason), Wilson intervals.

    "a seat ran out in this round": a seat reached 0 cabbages in the
    game's last round; "… earlier and played on": a seat reached 0 before
    and the game went on (elimination not ending the game); "nobody ran out".
    """
    t = tally_of(source)
    return pd.DataFrame([{"round": r + 1, "reason": END_REASONS[k], **_wilson_row(t.end_counts[r, k], t.games)}
                         for r in range(t.rounds) for k in range(len(END_REASONS))])


def ran_out_by_seat(source, starting: int | Sequence[int]) -> pd.DataFrame:
    """Share of games in which each seat reached 0 cabbages at some point, Wilson intervals.

    ``starting``: the cabbages every seat starts with, or each seat's (``Rules.seat_starting``).
    """
    t = tally_of(source)
    starts = np.broadcast_to(np.asarray(starting, dtype=np.int64), (len(t.lowest_change),))
    return pd.DataFrame([{"seat": s, **_wilson_row(lowest.as_dict().get(-int(starts[s]), 0), t.games)}
                         for s, lowest in enumerate(t.lowest_change)])


# --- cabbage swings ------------------------------------------------------------


def swing_histogram(source) -> pd.DataFrame:
    """How often each per-round cabbage change occurs: one value per seat and round played."""
    return histogram_table(IntHistogram.pooled(tally_of(source).swing_seat), "change")


def swing_by_seat(source) -> pd.DataFrame:
    """Per seat: mean cabbage change per round played (cluster interval) and its spread."""
    t = tally_of(source)
    return pd.DataFrame([{"seat": s, **interval_row(t.swing_ratio.interval(s)),
                          "sd": hist.mean_and_sd()[1] if hist.count > 1 else np.nan,
                          "p05": hist.percentile(5), "p95": hist.percentile(95)}
                         for s, hist in enumerate(t.swing_seat)])


def final_cabbages_by_seat(source) -> pd.DataFrame:
    """Per seat: mean final cabbages (Student t interval over games) and percentiles."""
    return pd.DataFrame([{"seat": s, **mean_row(hist.total, hist.total_sq, hist.count),
                          **{f"p{q:02d}": hist.percentile(q) for q in TRAJECTORY_QUANTILES}}
                         for s, hist in enumerate(tally_of(source).final_seat)])


def trajectory_quantiles(source, starting: int) -> pd.DataFrame:
    """Cabbages of a seat (all seats pooled) at the start and after each round: percentiles and mean.

    A game that ended early keeps its final count for the rounds it did not
    play. ``still_playing`` is the share of games that played that round.
    """
    t = tally_of(source)
    table = pd.DataFrame({"after_round": np.arange(t.rounds + 1)})
    for q in TRAJECTORY_QUANTILES:
        table[f"p{q:02d}"] = [starting + h.percentile(q) for h in t.trajectory]
    table["mean"] = [starting + h.mean_and_sd()[0] for h in t.trajectory]
    games_playing = t.end_counts.sum(axis=1)[::-1].cumsum()[::-1]  # [r]: games that played round r + 1
    table["still_playing"] = np.concatenate([[1.0], games_playing / t.games]) if t.games else np.nan
    return table


# --- what drives the swings ------------------------------------------------------


def swing_drivers(source) -> pd.DataFrame:
    """Where gains and losses come from: one row per machine kind.

    ``gain_share``/``loss_share``: the kind's part of all positive/negative
    amounts scored (a seat's amount from one kind in one round, before
    settlement); ``mean``: the kind's mean amount per seat and round played.
    Intervals are cluster-robust over games.
    """
    d = tally_of(source).drivers
    rows = []
    for k, kind in enumerate(KINDS):
        g, loss, m = d.interval((0, k)), d.interval((1, k)), d.interval((2, k))
        rows.append({
            "kind": kind,
            "gains": int(d.x[0, k]), "gain_share": g[0], "gain_low": g[1], "gain_high": g[2],
            "losses": int(d.x[1, k]), "loss_share": loss[0], "loss_low": loss[1], "loss_high": loss[2],
            "mean": m[0], "low": m[1], "high": m[2],
        })
    return pd.DataFrame(rows)


def token_placements(source) -> pd.DataFrame:
    """Which face value ends up on which kind of ordinary machine, over all played rounds.

    One row per (machine kind, value) with ``value`` None for machines left
    without a token; ``share`` is within the machine kind.
    """
    t = tally_of(source)
    rows = []
    for k, kind in enumerate(("colour", "points")):
        placed = t.token_values[k].as_dict()
        empty = int(t.token_empty[k])
        total = sum(placed.values()) + empty
        for v, c in sorted(placed.items()):
            rows.append({"machine": kind, "value": v, "count": c, "share": c / total if total else np.nan})
        rows.append({"machine": kind, "value": None, "count": empty, "share": empty / total if total else np.nan})
    return pd.DataFrame(rows, columns=["machine", "value", "count", "share"])


def golden_placements(source) -> pd.DataFrame:
    """The golden token by its face value: how often it went on MIN, on MAX, or stayed off."""
    t = tally_of(source)
    by_side = [h.as_dict() for h in t.golden_by_side]
    rows = []
    for v in sorted(set().union(*by_side)):
        total = sum(side.get(v, 0) for side in by_side)
        for name, side in zip(("MIN", "MAX", "not placed"), by_side):
            count = side.get(v, 0)
            rows.append({"value": v, "side": name, "count": count, "share": count / total})
    return pd.DataFrame(rows, columns=["value", "side", "count", "share"])


# --- rule holes -----------------------------------------------------------------


def rule_holes(source) -> pd.DataFrame:
    """How often the game met a situation its rules do not settle, per game (Wilson intervals).

    ``events`` counts the occurrences themselves: rounds with a shortfall,
    sevens with no slot, seat-rounds started at 0 cabbages; ``amount`` the
    cabbages the reserve could not pay.
    """
    t = tally_of(source)
    holes = (
        ("shortfall", t.shortfall_games, t.shortfall_rounds, t.shortfall_cabbages),
        ("seven_no_slot", t.seven_no_slot_games, t.seven_no_slot_events, None),
        ("zero_playing_on", t.zero_playing_on_games, t.zero_playing_on_events, None),
    )
    return pd.DataFrame([{"hole": name, **_wilson_row(games, t.games), "events": events, "amount": amount}
                         for name, games, events, amount in holes])


# --- example games ----------------------------------------------------------------


def typical_game(source) -> tuple[int, str]:
    """A game that looks like most: its game index and why it was picked.

    Among games that last the most common number of rounds and end like
    most games do (with or without someone running out), the one whose
    total cabbage movement is closest to the median; the lowest index wins
    a tie, so the choice is reproducible.
    """
    t = tally_of(source)
    common_length = int(t.end_counts.sum(axis=1).argmax()) + 1
    out_share = t.end_counts[:, :2].sum() / t.games
    usually_out = bool(out_share > 0.5)
    keys = [k for k in t.by_length.counts if k[0] == common_length and k[1] == usually_out]
    if not keys:
        keys = [k for k in t.by_length.counts if k[0] == common_length]
    movement = IntHistogram.pooled(IntHistogram(np.array([t.by_length.counts[k]]), k[2]) for k in keys)
    target = movement.percentile(50)
    distance = min(abs(k[2] - target) for k in keys)
    game = min(t.by_length.first[k] for k in keys if abs(k[2] - target) == distance)
    why = (
        f"it lasts {common_length} round{'s' * (common_length != 1)}, the most common length, "
        f"{'with someone' if usually_out else 'without anyone'} running out of cabbages, like "
        f"{100 * (out_share if usually_out else 1 - out_share):.0f}% of games, "
        f"and its cabbages move by the median amount ({int(target)} in all)"
    )
    return int(game), why


def quickest_elimination(source) -> tuple[int, str] | None:
    """The game in which a seat ran out of cabbages earliest (lowest index on a tie), or None."""
    t = tally_of(source)
    rounds_out = [k for k in t.by_elimination.counts if k[0] > 0]
    if not rounds_out:
        return None
    first = min(rounds_out)
    same = t.by_elimination.counts[first]
    why = (
        f"a seat ran out of cabbages in round {first[0]}, the earliest any game saw "
        f"({same:,} game{'s' * (same != 1)} of {t.games:,} did)"
    )
    return t.by_elimination.first[first], why
