"""The Las Vegan report's figures, drawn from the tables of :mod:`sim.lasvegan.tables` in the shared style
(:mod:`analysis.figure_style`), one function per figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from analysis.figure_style import (
    GAIN, LOSS, MAIN, NEUTRAL, OKABE_ITO, SEQUENCE, SIGNED, error_bars, figure, percent_axis, percentile_boxes,
    reference_line, seat_share_panel, share_bars, share_strip, share_ylim, signed_text, styled,
)

KIND_COLOURS = {"colour": OKABE_ITO["sky_blue"], "points": OKABE_ITO["orange"], "golden": OKABE_ITO["reddish_purple"]}
REASON_COLOURS = {
    "a seat ran out in this round": OKABE_ITO["vermillion"],
    "a seat ran out earlier and played on": OKABE_ITO["orange"],
    "nobody ran out": OKABE_ITO["sky_blue"],
}


# --- first-player advantage ---------------------------------------------------------


def win_share_figure(by_seat: pd.DataFrame, by_last_leader: pd.DataFrame) -> Figure:
    """Win share per seat, and per position from the last round's leader, with the fair share."""
    both = pd.concat([by_seat, by_last_leader])
    with styled():
        fig, (left, right) = figure(3.0, 2)
        seat_share_panel(left, by_seat, "seat", "Win share by seat", "seat (seat 0 leads round 1)", scale_from=both)
        seat_share_panel(right, by_last_leader, "position", "Win share from the last round's leader (selected by play)",
                         "seats clockwise from that leader (0 = leader)", OKABE_ITO["orange"], scale_from=both)
    return fig


def leader_edge_figure(by_position: pd.DataFrame) -> Figure:
    """Mean cabbage change in each round by place from that round's leader."""
    players = int(by_position["position"].max()) + 1
    rounds = int(by_position["round"].max())
    width = 0.8 / players
    with styled():
        fig, (ax,) = figure(3.3)
        for p in range(players):
            rows = by_position[by_position["position"] == p]
            x = rows["round"].to_numpy() + (p - (players - 1) / 2) * width
            label = "round leader" if p == 0 else f"leader + {p}"
            ax.bar(x, rows["mean"], width=width * 0.92, color=SEQUENCE[p % len(SEQUENCE)], label=label, zorder=2)
            ax.errorbar(x, rows["mean"], yerr=error_bars(rows), fmt="none", ecolor="#222222", elinewidth=1,
                        capsize=2, zorder=3)
        ax.axhline(0, color="#555555", linewidth=0.8)
        ax.set(title="Cabbage change in a round, by place from that round's leader", xlabel="round",
               ylabel="mean change (cabbages)")
        ax.set_xticks(range(1, rounds + 1))
        fig.legend(ncols=players, loc="outside lower center")
    return fig


# --- elimination ----------------------------------------------------------------------


def elimination_figure(ends: pd.DataFrame, ran_out: pd.DataFrame) -> Figure:
    """Stacked bars of the round games end in, by why; and the share of games each seat runs out."""
    rounds = int(ends["round"].max())
    with styled():
        fig, (left, right) = figure(3.1, 2, width_ratios=[1.35, 1])
        bottom = np.zeros(rounds)
        for reason, colour in REASON_COLOURS.items():
            rows = ends[ends["reason"] == reason]
            if rows["count"].sum() == 0:
                continue
            left.bar(rows["round"], rows["rate"], bottom=bottom, color=colour, width=0.62, label=reason, zorder=2)
            bottom += rows["rate"].to_numpy()
        left.set(title="Round in which games end", xlabel="last round played", ylabel="share of games")
        left.set_xticks(range(1, rounds + 1))
        left.set_ylim(0, min(1.0, bottom.max() * 1.3 + 0.02))
        percent_axis(left.yaxis)
        left.legend(loc="upper left")

        table = ran_out.rename(columns={"rate": "mean"})
        share_bars(right, table["seat"], table, LOSS)
        right.set(title="Seats running out", xlabel="seat", ylabel="share of games at 0 cabbages")
        right.set_xticks(table["seat"])
        share_ylim(right, table, 0.0)
    return fig


# --- cabbage swings ---------------------------------------------------------------------


def swing_figure(histogram: pd.DataFrame) -> Figure:
    """Histogram of one seat's cabbage change in one round."""
    with styled():
        fig, (ax,) = figure(2.8)
        colours = np.where(histogram["change"] < 0, LOSS, np.where(histogram["change"] > 0, GAIN, NEUTRAL))
        ax.bar(histogram["change"], histogram["share"], width=0.85, color=colours, zorder=2)
        ax.set(title="Cabbage change of one seat in one round", xlabel="change in the round after settlement (cabbages)",
               ylabel="share of seat-rounds")
        percent_axis(ax.yaxis)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=16))
        ax.xaxis.set_major_formatter(SIGNED)
    return fig


def cabbages_figure(finals: pd.DataFrame, trajectory: pd.DataFrame, starting: int) -> Figure:
    """Final cabbages by seat (box: quartiles, whiskers: 5th–95th percentile, dot: mean); trajectory bands.

    ``finals`` is ``tables.final_cabbages_by_seat``: the boxes are drawn from
    its exact percentiles, not from the games themselves.
    """
    with styled():
        fig, (left, right) = figure(3.2, 2, width_ratios=[1, 1.25])
        percentile_boxes(left, finals)
        reference_line(left, starting, f"start {starting}")
        left.set(title="Final cabbages by seat", xlabel="seat", ylabel="cabbages at the end")
        top = max(float(finals["p95"].max()), float(trajectory["p95"].max()), starting)
        for ax in (left, right):
            ax.set_ylim(0, top * 1.12 + 1)  # the same scale on both sides: cabbages are cabbages
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))

        x = trajectory["after_round"]
        right.fill_between(x, trajectory["p05"], trajectory["p95"], color=MAIN, alpha=0.15, linewidth=0,
                           label="5–95th percentile")
        right.fill_between(x, trajectory["p25"], trajectory["p75"], color=MAIN, alpha=0.3, linewidth=0,
                           label="25–75th percentile")
        right.plot(x, trajectory["p50"], color=MAIN, linewidth=2, marker="o", markersize=4, label="median")
        right.set(title="Cabbages of a seat over the game", xlabel="after round (0 = start)", ylabel="cabbages")
        right.set_xticks(x)
        fig.legend(*right.get_legend_handles_labels(), loc="outside lower right", ncols=3)
    return fig


# --- what drives the swings ---------------------------------------------------------------


def drivers_figure(drivers: pd.DataFrame) -> Figure:
    """100% bars: where all gains, and all losses, come from."""
    with styled():
        fig, (ax,) = figure(2.2)
        ax.grid(False)
        ax.grid(True, axis="x")
        for y, column in ((1, "gain_share"), (0, "loss_share")):
            share_strip(ax, y, [(row[column], KIND_COLOURS[row["kind"]], "") for _, row in drivers.iterrows()])
        ax.set_yticks([1, 0], ["gains", "losses"])
        ax.set_xlim(0, 1)
        percent_axis(ax.xaxis)
        ax.set(xlabel="share of all cabbages scored (before settlement)", title="Where gains and losses come from")
        handles = [Patch(color=KIND_COLOURS[kind], label=f"{kind} machines") for kind in drivers["kind"]]
        fig.legend(handles=handles, ncols=len(handles), loc="outside lower center")
    return fig


def tokens_figure(tokens: pd.DataFrame, golden: pd.DataFrame) -> Figure:
    """Token faces placed on colour and points machines; golden token on MIN or MAX by its value."""
    with styled():
        fig, (left, right) = figure(3.0, 2, width_ratios=[1.5, 1])
        placed = tokens[tokens["value"].notna()]
        values = sorted(int(v) for v in placed["value"].unique())
        labels = [*(signed_text(v) for v in values), "none"]
        width = 0.38
        for i, kind in enumerate(("colour", "points")):
            rows = tokens[tokens["machine"] == kind]
            by_value = {None if pd.isna(v) else int(v): s for v, s in zip(rows["value"], rows["share"])}
            shares = [by_value.get(v, 0.0) for v in values] + [by_value.get(None, 0.0)]
            x = np.arange(len(labels)) + (i - 0.5) * width
            left.bar(x, shares, width=width * 0.95, color=KIND_COLOURS[kind], label=f"{kind} machines", zorder=2)
        left.set_xticks(range(len(labels)), labels)
        left.set(title="Token face on an ordinary machine",
                 xlabel="face value of the token placed (none = machine left empty)",
                 ylabel="share of that kind's machines")
        left.set_ylim(0, min(1.0, left.get_ylim()[1] * 1.15))
        percent_axis(left.yaxis)
        left.legend(loc="upper left", ncols=2)

        sides = ("MIN", "MAX", "not placed")
        side_colours = (OKABE_ITO["blue"], OKABE_ITO["vermillion"], NEUTRAL)
        golden_values = sorted(golden["value"].unique())
        bottom = np.zeros(len(golden_values))
        for side, colour in zip(sides, side_colours):
            shares = np.array([
                golden[(golden["value"] == v) & (golden["side"] == side)]["share"].sum() for v in golden_values
            ])
            right.bar(range(len(golden_values)), shares, bottom=bottom, width=0.55, color=colour, label=side,
                      zorder=2)
            bottom += shares
        right.set_xticks(range(len(golden_values)), [f"penalty {v}" for v in golden_values])
        right.set(title="Golden token: MIN or MAX", xlabel="golden token face", ylabel="share of rounds")
        right.set_ylim(0, 1)
        percent_axis(right.yaxis)
        right.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig
