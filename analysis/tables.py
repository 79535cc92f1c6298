"""The tables every game's report has: who wins, by seat and by the seats' policies.

A game's tables (``sim/<game>/tables.py``) read its tally and call
these with the tally's win units: each game's seats' win shares counted in
``unit`` units per win, summed over games (``win_units``), with the sums
of their squares or of the products of two seats' (``win_cross``), so
that any group of seats has its variance. Intervals are Student's t over
games.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from analysis.stats import IntHistogram, mean_and_sd, mean_interval, win_share_interval


def interval_row(interval) -> dict:
    """An estimate's ``(mean, low, high)`` as a table row's columns."""
    return dict(zip(("mean", "low", "high"), interval))


def mean_row(total, total_sq, n: int, scale: float = 1) -> dict:
    """The mean of a value per game from its sum and sum of squares, and its 95% interval, over ``scale``."""
    mean, sd = mean_and_sd(total, total_sq, n)
    low, high = mean_interval(mean, sd, n)
    return {"mean": mean / scale, "low": low / scale, "high": high / scale}


def share_row(total, total_sq, n: int, scale: float = 1) -> dict:
    """:func:`mean_row` of a share within [0, 1] of each game (:func:`analysis.stats.win_share_interval`)."""
    mean, sd = mean_and_sd(total, total_sq, n)
    low, high = win_share_interval(mean, sd, n, scale)
    return {"mean": mean / scale, "low": low, "high": high}


def win_share_by_seat(win_units: Sequence, win_units_sq: Sequence, games: int, unit: int) -> pd.DataFrame:
    """Win share of each seat (tied winners share a win)."""
    return pd.DataFrame([{"seat": s, **share_row(win_units[s], win_units_sq[s], games, unit)}
                         for s in range(len(win_units))])


def win_share_by_policy(win_units: Sequence, win_cross, games: int, unit: int, seats: Sequence[str]) -> pd.DataFrame:
    """Share of the wins each policy's seats take, against its fair share (its seats / players).

    A policy's value in one game is the sum of its seats' win shares, so the
    interval is over games. With every seat on the same policy this is 1.
    """
    players = len(win_units)
    cross = np.array(win_cross, dtype=object).reshape(players, players)  # Python integers: exact sums
    rows = []
    for name in dict.fromkeys(seats):
        mine = [s for s, seat_policy in enumerate(seats) if seat_policy == name]
        total = sum(int(win_units[s]) for s in mine)
        total_sq = sum(cross[i, j] for i in mine for j in mine)
        rows.append({"policy": name, "seats": ", ".join(map(str, mine)), "fair": len(mine) / players,
                     **share_row(total, total_sq, games, unit)})
    return pd.DataFrame(rows)


def histogram_table(hist: IntHistogram, column: str, step: int = 1) -> pd.DataFrame:
    """How often each value of ``hist`` (counted in steps of ``step``) occurs, from the least seen to the largest."""
    if hist.count == 0:
        return pd.DataFrame({column: [], "count": [], "share": []})
    nonzero = np.flatnonzero(hist.counts)
    counts = hist.counts[nonzero[0] : nonzero[-1] + 1]
    values = np.arange(hist.offset + nonzero[0], hist.offset + nonzero[-1] + 1) * step
    return pd.DataFrame({column: values, "count": counts, "share": counts / hist.count})
