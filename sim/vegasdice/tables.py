"""The Las Vegas report's tables: pandas DataFrames of a run's :class:`~sim.vegasdice.summary.Tally`.

Every function takes the tally (or, for notebooks, the per-game records,
tallied first) and returns one tidy table, exact, percentiles included.
Every estimate comes with a 95% interval in ``low``/``high`` columns:

* means of one value per game — mean ± t·sd/√n, t Student's with n − 1
  degrees of freedom (no interval below ``analysis.stats.MIN_SAMPLES`` games);
* dollars per round by place from the first-player card's holder — a ratio
  of per-game sums to rounds played, with a cluster-robust standard error
  (the rounds of one game are not independent).
"""

from __future__ import annotations

import math

import pandas as pd

from analysis.stats import IntHistogram, cluster_ratio_interval
from analysis.tables import histogram_table, interval_row, mean_row
from sim.vegasdice.summary import Tally

QUANTILES = (5, 25, 50, 75, 95)


tally_of = Tally.of_source  # the tally itself, or the tally of per-game records


def won_by_place(source) -> pd.DataFrame:
    """Dollars won in a round by place clockwise from the holder of the first-player card.

    Place 0 holds the card; ``fair`` is the players' average winnings in a
    round, which every place would get if the card gave no edge.
    """
    t = tally_of(source)
    table = pd.DataFrame([
        {"place": p, **interval_row(cluster_ratio_interval(t.place_won_total[p], t.played_rounds, t.place_won_sq[p],
                                                           t.place_won_xy[p], t.played_rounds_sq, t.games))}
        for p in range(t.players)])
    table["fair"] = t.players_won / t.played_rounds / t.players if t.played_rounds else math.nan
    return table


def money_by_seat(source) -> pd.DataFrame:
    """Per seat: mean final money (Student t interval over games) and its percentiles, in dollars."""
    t = tally_of(source)
    return pd.DataFrame([{"seat": s, **mean_row(t.money_total[s], t.money_total_sq[s], t.games),
                          **{f"p{q:02d}": hist.percentile(q) * (t.money_step or 1) for q in QUANTILES}}
                         for s, hist in enumerate(t.money_seat)])


def money_percentile(source, q: float) -> float:
    """The q-th percentile of final money, all seats pooled, in dollars (nan for no games)."""
    t = tally_of(source)
    return IntHistogram.pooled(t.money_seat).percentile(q) * (t.money_step or 1)


def margin_histogram(source) -> pd.DataFrame:
    """How often each winner's margin (dollars between the richest seat and the next) occurs."""
    t = tally_of(source)
    return histogram_table(t.margin, "margin", t.margin_step or 1)


# --- example games ----------------------------------------------------------------


def typical_game(source) -> tuple[int, str] | None:
    """A game whose winner's margin is the median margin (the nearest seen): its index and why.

    Among the games with that margin the lowest index wins, so the choice
    does not depend on how the run was chunked. None for a run of no games.
    """
    t = tally_of(source)
    if not t.by_margin.counts:
        return None
    target = t.margin.percentile(50) * (t.margin_step or 1)
    margin = min(t.by_margin.counts, key=lambda k: (abs(k[0] - target), k[0]))
    same = t.by_margin.counts[margin]
    why = (
        f"its winner's margin, ${margin[0]:,}, is the median margin of the run "
        f"({same:,} game{'s' * (same != 1)} of {t.games:,} ended with it)"
    )
    return t.by_margin.first[margin], why


def closest_finish(source) -> tuple[int, str] | None:
    """The game with the smallest winner's margin (lowest index on a tie): its index and why."""
    t = tally_of(source)
    if not t.by_margin.counts:
        return None
    margin = min(t.by_margin.counts)
    same = t.by_margin.counts[margin]
    if margin[0] == 0:
        how = "the richest seats tied on money, the closest a finish can be"
    else:
        how = f"the winner was ahead by ${margin[0]:,}, the smallest margin of the run"
    why = f"{how} ({same:,} game{'s' * (same != 1)} of {t.games:,} finished so)"
    return t.by_margin.first[margin], why
