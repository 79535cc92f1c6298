"""The Las Vegas report's figures, drawn from the tables of :mod:`sim.vegasdice.tables` in the shared style
(:mod:`analysis.figure_style`), one function per figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from analysis.figure_style import (
    GAIN, LOSS, MAIN, MINUS, NEUTRAL, OKABE_ITO, error_bars, figure, percent_axis, percentile_boxes, reference_line,
    seat_share_panel, share_strip, styled,
)


def dollars_text(value: float) -> str:
    """$1.2M, $350k, $0: dollars on an axis."""
    sign = MINUS if value < 0 else ""
    value = abs(value)
    if value >= 1_000_000:
        return f"{sign}${value / 1_000_000:.3g}M"
    if value >= 1_000:
        return f"{sign}${value / 1_000:.3g}k"
    return f"{sign}${value:.0f}"


DOLLARS = FuncFormatter(lambda v, _: dollars_text(v))


def seats_figure(by_seat: pd.DataFrame, by_place: pd.DataFrame) -> Figure:
    """Win share by seat against the fair share; dollars won per round by place from the card's holder."""
    players = len(by_seat)
    with styled():
        fig, (left, right) = figure(3.0, 2)
        seat_share_panel(left, by_seat, "seat", "Win share by seat", "seat (seat 0 holds the card in round 1)")

        colours = [OKABE_ITO["orange"]] + [MAIN] * (players - 1)
        right.bar(by_place["place"], by_place["mean"], color=colours, width=0.62, zorder=2)
        right.errorbar(by_place["place"], by_place["mean"], yerr=error_bars(by_place), fmt="none",
                       ecolor="#222222", elinewidth=1.2, capsize=4, zorder=3)
        even = float(by_place["fair"].iloc[0])
        reference_line(right, even, f"even share {dollars_text(even)}")
        right.set(title="Dollars won in a round by place", xlabel="place clockwise from the card (0 = its holder)",
                  ylabel="dollars per round")
        right.set_xticks(range(players))
        # One game has no interval: the scale then follows the bars alone.
        top = np.nanmax([by_place["high"].max(), by_place["mean"].max(), even])
        right.set_ylim(0, top * 1.2 if np.isfinite(top) and top > 0 else 1)
        right.yaxis.set_major_formatter(DOLLARS)
    return fig


def money_figure(by_seat: pd.DataFrame, margins: pd.DataFrame) -> Figure:
    """Final money by seat (box: quartiles, whiskers: 5th–95th percentile, dot: mean); winner's margins.

    ``by_seat`` is ``tables.money_by_seat``: the boxes are drawn from its
    exact percentiles, not from the games themselves.
    """
    with styled():
        fig, (left, right) = figure(3.2, 2, width_ratios=[1, 1.3])
        percentile_boxes(left, by_seat)
        left.set(title="Final money by seat", xlabel="seat", ylabel="dollars at the end")
        left.set_ylim(bottom=0)
        left.yaxis.set_major_formatter(DOLLARS)

        if len(margins):
            width = float(np.min(np.diff(margins["margin"]))) * 0.85 if len(margins) > 1 else 1.0
            colours = np.where(margins["margin"] == 0, LOSS, MAIN)
            right.bar(margins["margin"], margins["share"], width=width, color=colours, zorder=2)
        right.set(title="Winner's margin over the next seat", xlabel="dollars ahead of the next seat (0: a money tie)",
                  ylabel="share of games")
        percent_axis(right.yaxis)
        right.xaxis.set_major_locator(MaxNLocator(nbins=6))
        right.xaxis.set_major_formatter(DOLLARS)
    return fig


def money_flow_figure(summary: dict) -> Figure:
    """Where the dollars laid out on the casinos go: to the players, to the white dice, or nobody."""
    white = summary["white_dice_share"] or 0.0
    unclaimed = summary["unclaimed_share"] or 0.0
    with styled():
        fig, (ax,) = figure(1.7)
        ax.grid(False)
        ax.grid(True, axis="x")
        share_strip(ax, 0, [(1 - white - unclaimed, GAIN, "won by players"), (white, NEUTRAL, "won by the white dice"),
                            (unclaimed, LOSS, "won by nobody")])
        ax.set_yticks([])
        ax.set_xlim(0, 1)
        percent_axis(ax.xaxis)
        ax.set(xlabel="share of the dollars laid out on the casinos", title="Where the money laid out goes")
        fig.legend(ncols=3, loc="outside lower center")
    return fig
