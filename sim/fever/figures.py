"""The $ Fever report's figures, drawn from the tables of :mod:`sim.fever.tables` in the shared style
(:mod:`analysis.figure_style`), one function per figure."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from analysis.figure_style import FAIR, MAIN, OKABE_ITO, figure, percent_axis, seat_share_panel, styled


def seats_figure(by_seat: pd.DataFrame) -> Figure:
    """Win share of finished games by seat, against the fair share."""
    with styled():
        fig, (ax,) = figure(3.0)
        seat_share_panel(ax, by_seat, "seat", "Win share by seat (finished games)", "seat (seat 0 plays first)",
                         ylabel="share of finished games won")
    return fig


def length_figure(lengths: pd.DataFrame, summary: dict, seconds_per_turn: float) -> Figure:
    """How many turns finished games last, with the minutes they take at a given pace."""
    with styled():
        fig, (ax,) = figure(3.0)
        if len(lengths):
            ax.bar(lengths["turns"], lengths["share"], width=1.0, color=MAIN, zorder=2)
        turns = summary["game_length_turns"]
        for key, style in (("p50", "-"), ("p05", ":"), ("p95", ":")):
            if turns.get(key) is not None:
                ax.axvline(turns[key], color=FAIR, linestyle=style, linewidth=1, zorder=3)
        ax.set(title="Length of finished games", xlabel="turns (solid: median; dotted: 5th and 95th percentiles)",
               ylabel="share of finished games")
        percent_axis(ax.yaxis)
        minutes = ax.secondary_xaxis("top", functions=(lambda t: t * seconds_per_turn / 60,
                                                       lambda m: m * 60 / seconds_per_turn))
        minutes.set_xlabel(f"minutes at {seconds_per_turn:g} s a turn")
    return fig


def combinations_figure(combos: pd.DataFrame) -> Figure:
    """Each pay-table pattern's share of the points scored."""
    with styled():
        fig, (ax,) = figure(0.9 + 0.32 * max(1, len(combos)))
        labels = [f"{r.label} ({r.points} pts)" for r in combos.itertuples()]
        ax.barh(range(len(combos)), combos["share"].fillna(0), color=OKABE_ITO["orange"], zorder=2)
        ax.set_yticks(range(len(combos)), labels)
        ax.invert_yaxis()
        ax.set(title="Points scored by combination", xlabel="share of all points scored")
        percent_axis(ax.xaxis)
    return fig
