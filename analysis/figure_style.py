"""The look every report's figures share: palette, style, canvas, and the figures every game draws.

Figures are :class:`matplotlib.figure.Figure` objects built without pyplot
(no global state, the Agg canvas), so they can be drawn from any thread and
never open a window. Colours are the Okabe–Ito palette, which stays
distinct under the common colour-vision deficiencies; interval bars are 95%
intervals. A game's own figures (``sim/<game>/figures.py``) build on
:func:`figure`, :func:`styled` and the helpers here.
"""

from __future__ import annotations

import io
import os
import pickle
import signal
import textwrap
import warnings
import weakref
from contextlib import contextmanager, suppress
from typing import Iterator, Sequence

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter, MaxNLocator  # noqa: E402

# Okabe & Ito (2008), "Color Universal Design".
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}
MAIN = OKABE_ITO["blue"]
GAIN = OKABE_ITO["bluish_green"]
LOSS = OKABE_ITO["vermillion"]
NEUTRAL = "#999999"
FAIR = "#555555"
SEQUENCE = [OKABE_ITO[k] for k in ("blue", "orange", "bluish_green", "reddish_purple", "sky_blue", "vermillion")]
WIDTH = 7.6  # inches; the report shows figures at most 760 px wide
DPI = 150  # sharp on high-density screens, small enough to embed

STYLE = {
    "font.size": 9.5,
    "axes.titlesize": 10.5,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
    "axes.labelsize": 9.5,
    "axes.labelcolor": "#333333",
    "axes.edgecolor": "#888888",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "axes.axisbelow": True,
    "grid.color": "#e6e6e6",
    "grid.linewidth": 0.8,
    "xtick.color": "#444444",
    "ytick.color": "#444444",
    "legend.frameon": False,
    "legend.fontsize": 8.5,
    "figure.dpi": DPI,
}

MINUS = "\u2212"
PERCENT = FuncFormatter(lambda v, _: f"{100 * v:.10g}%".replace("-", MINUS))
SIGNED = FuncFormatter(lambda v, _: signed_text(int(round(v))))


def signed_text(value: int) -> str:
    """+2, 0, −3: gains and losses read at a glance (a true minus sign, as matplotlib's numbers)."""
    return f"+{value}" if value > 0 else ("0" if value == 0 else f"{MINUS}{-value}")


def percent_axis(axis) -> None:
    """Shares shown as whole percentages at round steps (5%, 10%, 20%…, never 2.5%)."""
    axis.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 5, 10]))
    axis.set_major_formatter(PERCENT)


@contextmanager
def styled() -> Iterator[None]:
    with matplotlib.rc_context(STYLE):
        yield


def figure(height: float, ncols: int = 1, width_ratios=None, nrows: int = 1) -> tuple[Figure, list]:
    """A figure of the report's width on the Agg canvas, and its panels row by row."""
    fig = Figure(figsize=(WIDTH, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False,
                        gridspec_kw={"width_ratios": width_ratios} if width_ratios else None)
    return fig, list(axes.ravel())


def save_fitted(fig, target, **savefig) -> None:
    """``fig.savefig(target, **savefig)``, its titles and axis labels wrapped first where they would be cut.

    A title or label too long for its room (:func:`wrap_cut_text`) is put on more lines and the
    figure drawn again, so that the layout makes room for them; a figure whose texts fit is drawn
    once.
    """
    for _ in range(4):
        if hasattr(target, "seek"):
            target.seek(0)
            target.truncate()
        fig.savefig(target, **savefig)
        if not wrap_cut_text(fig):
            return


def wrap_cut_text(fig) -> bool:
    """Wrap onto more lines every title and axis label of ``fig``, as last drawn, that is cut or runs into a
    neighbour; whether any changed (the figure is then to be drawn again).

    The figure's title has the figure's width; a panel's title the room from where it starts to the
    figure's edge or the next panel on its right; an axis label its panel's width or height. A text
    is wrapped from its words as first given, so that it takes the fewest lines its room allows.
    """
    renderer = fig.canvas.get_renderer()
    changed = False
    for text, room in _text_room(fig, renderer):
        shown = text.get_text()
        given = _UNWRAPPED.get(text, shown)
        box = text.get_window_extent(renderer)
        along = box.height if text.get_rotation() % 180 == 90 else box.width
        if along <= room + 0.5 and shown == given:
            continue
        per_char = along / max(map(len, shown.split("\n")))
        chars = max(8, int(room / per_char * 0.95))
        wrapped = "\n".join(textwrap.fill(line, chars, break_long_words=False) for line in given.split("\n"))
        if along <= room + 0.5 and wrapped.count("\n") >= shown.count("\n"):
            continue  # fits already, and more room would not save a line
        if wrapped != shown:
            _UNWRAPPED[text] = given
            text.set_text(wrapped)
            changed = True
    return changed


# Texts wrapped to fit, and their words as first given.
_UNWRAPPED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _text_room(fig, renderer) -> Iterator[tuple]:
    """Each title and axis label of ``fig`` that shows text, with the room it has along its line (pixels)."""
    width = fig.bbox.width
    if fig._suptitle is not None and fig._suptitle.get_visible() and fig._suptitle.get_text():
        yield fig._suptitle, 0.98 * width
    panels = [ax for ax in fig.axes if ax.get_visible()]
    frames = {ax: ax.get_window_extent(renderer) for ax in panels}
    for ax, frame in frames.items():
        def beside(right: bool, ax=ax, frame=frame) -> list:
            return [other for other, box in frames.items() if other is not ax and box.y0 < frame.y1
                    and box.y1 > frame.y0 and (box.x0 >= frame.x1 - 1 if right else box.x1 <= frame.x0 + 1)]

        titles = [ax._left_title, ax.title, ax._right_title]
        if any(t.get_visible() and t.get_text() for t in titles):
            # A panel's neighbours are measured only when one of its titles shows.
            right = min([width, *(other.get_tightbbox(renderer).x0 for other in beside(True))])
            left = max([0.0, *(frames[other].x1 for other in beside(False))])
            yield from ((t, max(room, 1.0)) for t, room in zip(titles, (right - frame.x0, frame.width, frame.x1 - left))
                        if t.get_visible() and t.get_text())
        for label, room in ((ax.xaxis.label, frame.width), (ax.yaxis.label, frame.height)):
            if label.get_visible() and label.get_text():
                yield label, max(room, 1.0)


def png_bytes(fig: Figure) -> bytes:
    """The figure as PNG bytes (no timestamps or software tags: the same figure, the same bytes).

    Titles and axis labels too long for their room are wrapped (:func:`save_fitted`)."""
    buffer = io.BytesIO()
    save_fitted(fig, buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def png_bytes_all(figs: Sequence[Figure]) -> list[bytes]:
    """Every figure as :func:`png_bytes` gives it, drawn on two processes when the machine has two cores.

    Drawing is Python-bound (text layout, ticks), so threads would not
    help; a forked copy of this process draws about half of the figures
    (balanced by their number of panels) and sends the bytes back. The
    bytes are the same either way. If the copy cannot be made or fails,
    its figures are drawn here.
    """
    if len(figs) < 2 or not hasattr(os, "fork") or _cores() < 2:
        return [png_bytes(fig) for fig in figs]
    # A figure costs about as much as two of its panels (their ticks and labels) again.
    cost = [2 + len(fig.axes) for fig in figs]
    load = [0, 0]
    parts: list[list[int]] = [[], []]
    for i in sorted(range(len(figs)), key=lambda i: -cost[i]):
        k = 0 if load[0] <= load[1] else 1
        parts[k].append(i)
        load[k] += cost[i]
    mine, theirs = parts
    drawn: dict[int, bytes] = {}
    wait = _draw_in_fork(figs, theirs)
    try:
        for i in mine:
            drawn[i] = png_bytes(figs[i])
    except BaseException:
        if wait is not None:
            wait(kill=True)
        raise
    received = None
    if wait is not None:
        payload = wait()
        try:
            received = pickle.loads(payload) if payload else None
        except Exception:
            received = None
    if received is None or len(received) != len(theirs):
        received = [png_bytes(figs[i]) for i in theirs]
    drawn.update(zip(theirs, received))
    return [drawn[i] for i in range(len(figs))]


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _draw_in_fork(figs: Sequence[Figure], which: list[int]):
    """Start drawing ``figs[which]`` in a forked copy of this process; return a function that waits for
    the pickled list of PNG bytes (None if the copy failed), or None if no copy could be made."""
    try:
        read_fd, write_fd = os.pipe()
    except OSError:
        return None
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns about forking a process that has threads (the
            # game kernels' workers): the copy only draws and exits, it takes
            # no lock those threads could hold.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return None
    if pid == 0:  # the copy: draw, send, and leave without running any of the parent's exit handlers
        code = 1
        try:
            os.close(read_fd)
            data = pickle.dumps([png_bytes(figs[i]) for i in which])
            with os.fdopen(write_fd, "wb") as pipe:
                pipe.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(write_fd)

    def wait(kill: bool = False) -> bytes | None:
        """The copy's pickled PNG bytes (None if it failed); with ``kill``, stop it instead."""
        with os.fdopen(read_fd, "rb") as pipe:
            try:
                if not kill:
                    data = pipe.read()
                    _, status = os.waitpid(pid, 0)
                    return data if os.waitstatus_to_exitcode(status) == 0 else None
            except BaseException:  # interrupted while waiting: the copy must not outlive this call
                kill = True
                raise
            finally:
                if kill:
                    with suppress(ProcessLookupError, ChildProcessError):
                        os.kill(pid, signal.SIGKILL)
                        os.waitpid(pid, 0)
        return None

    return wait


def error_bars(table: pd.DataFrame) -> np.ndarray:
    """``errorbar``'s lengths of each row's interval from its mean; for intervals that hold their mean (a Wilson
    interval does). :func:`intervals` draws any interval as given."""
    return np.vstack([table["mean"] - table["low"], table["high"] - table["mean"]])


def numbers(values) -> np.ndarray:
    """``values`` as floats, None and anything missing as NaN."""
    return np.array(list(values), dtype=float)


def intervals(ax, at, low, high, *, horizontal: bool = False, color: str = "#222222", linewidth: float = 1.2,
              capsize: float = 4, zorder: float = 3) -> None:
    """Intervals drawn as given: from each ``low`` to its ``high`` at the position ``at`` (vertical lines, or
    horizontal ones with ``horizontal``), capped at both ends.

    Unlike ``errorbar``'s lengths measured from an estimate, the ends are drawn where they are, so an
    estimate outside its interval (a bias-corrected one may lie there) or a zero-width interval is drawn
    as it is and never fails; an interval with a missing end (None, NaN) is left out.
    """
    at, low, high = numbers(at), numbers(low), numbers(high)
    keep = np.isfinite(at) & np.isfinite(low) & np.isfinite(high)
    at, low, high = at[keep], low[keep], high[keep]
    if not len(at):
        return
    lines = ax.hlines if horizontal else ax.vlines
    lines(at, low, high, color=color, linewidth=linewidth, zorder=zorder)
    if capsize:
        ends, where = np.concatenate([low, high]), np.concatenate([at, at])
        x, y = (ends, where) if horizontal else (where, ends)
        ax.plot(x, y, linestyle="none", marker="|" if horizontal else "_", markersize=2 * capsize,
                markeredgewidth=linewidth, color=color, zorder=zorder)


def reference_line(ax, y: float, text: str) -> None:
    """A dashed line across ``ax`` at ``y`` (a fair share, a start), named at its right end."""
    ax.axhline(y, color=FAIR, linestyle="--", linewidth=1, zorder=1)
    ax.annotate(text, xy=(1, y), xycoords=("axes fraction", "data"), xytext=(0, 3), textcoords="offset points",
                ha="right", va="bottom", fontsize=8, color=FAIR)


def share_strip(ax, y: float, parts) -> None:
    """One horizontal bar at ``y`` made of ``(share, colour, label)`` parts end to end, a share of 6% or more
    written on its part; a part without a share is left out."""
    left = 0.0
    for share, colour, label in parts:
        if not share > 0:
            continue
        ax.barh(y, share, left=left, height=0.6, color=colour, label=label, zorder=2)
        if share >= 0.06:
            ax.text(left + share / 2, y, f"{100 * share:.0f}%", ha="center", va="center", fontsize=8.5,
                    color="#111111", zorder=3)
        left += share


def share_bars(ax, x, table: pd.DataFrame, colour: str) -> None:
    ax.bar(x, table["mean"], color=colour, width=0.62, zorder=2)
    intervals(ax, x, table["low"], table["high"])


def share_ylim(ax, table: pd.DataFrame, fair: float) -> None:
    top = max(float(table["high"].max()), fair)
    ax.set_ylim(0, min(1.0, top * 1.25 + 0.01))
    percent_axis(ax.yaxis)


def seat_share_panel(ax, shares: pd.DataFrame, x: str, title: str, xlabel: str, colour: str = MAIN,
                     ylabel: str = "share of games won", scale_from: pd.DataFrame | None = None) -> None:
    """Win shares by seat (or by place at the table, column ``x``) against the fair share.

    ``scale_from`` is what the y axis must hold (the shares by default), when
    panels side by side share a scale.
    """
    fair = 1 / len(shares)
    share_bars(ax, shares[x], shares, colour)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    ax.set_xticks(range(len(shares)))
    share_ylim(ax, shares if scale_from is None else scale_from, fair)
    reference_line(ax, fair, f"fair share {100 * fair:.0f}%")


# --- the figures every game's report shows ----------------------------------------


def percentile_boxes(ax, table: pd.DataFrame) -> None:
    """One box per row of ``table`` from its exact percentiles (box: p25–p75, whiskers: p05–p95, dot: mean)."""
    stats = [
        {"med": r["p50"], "q1": r["p25"], "q3": r["p75"], "whislo": r["p05"], "whishi": r["p95"],
         "mean": r["mean"], "fliers": []}
        for _, r in table.iterrows()
    ]
    ax.bxp(
        stats, positions=range(len(table)), widths=0.55, showfliers=False, patch_artist=True, showmeans=True,
        boxprops={"facecolor": "#d6e6f2", "edgecolor": MAIN},
        medianprops={"color": MAIN, "linewidth": 2},
        whiskerprops={"color": MAIN}, capprops={"color": MAIN},
        meanprops={"marker": "o", "markerfacecolor": OKABE_ITO["orange"], "markeredgecolor": "none",
                   "markersize": 5},
    )


def skill_figure(entries: pd.DataFrame, title: str) -> Figure:
    """Horizontal win-share bars with intervals, each against its own fair share."""
    with styled():
        fig, (ax,) = figure(0.7 + 0.45 * len(entries))
        ax.grid(False)
        ax.grid(True, axis="x")
        y = np.arange(len(entries))[::-1]
        ax.barh(y, entries["mean"], height=0.55, color=MAIN, zorder=2)
        intervals(ax, y, entries["low"], entries["high"], horizontal=True)
        for yi, fair in zip(y, entries["fair"]):
            ax.plot([fair, fair], [yi - 0.38, yi + 0.38], color=FAIR, linestyle="--", linewidth=1.2, zorder=4)
        ax.set_yticks(y, entries["label"])
        ax.set_xlim(0, min(1.0, max(float(entries["high"].max()), float(entries["fair"].max())) * 1.2 + 0.02))
        percent_axis(ax.xaxis)
        ax.set(xlabel="share of games won (dashed: fair share)", title=title)
    return fig


# --- does it hold for stronger players -------------------------------------------------------


def strength_figure(table: pd.DataFrame, labels: dict[str, tuple[str, str]]) -> Figure:
    """One small panel per headline metric: its value with 95% interval under each strength of player.

    ``table`` is ``analysis.strength.strength_table``; ``labels`` maps each
    metric to its title and its kind (``pct``, ``pts`` or ``num``).
    """
    metrics = list(dict.fromkeys(table["metric"]))
    policies = list(dict.fromkeys(table["policy"]))
    ncols = 3
    nrows = -(-len(metrics) // ncols)
    with styled():
        fig, axes = figure(1.9 * nrows + 0.3, ncols, nrows=nrows)
        x = np.arange(len(policies))
        for ax, metric in zip(axes, metrics):
            rows = table[table["metric"] == metric].set_index("policy").loc[policies]
            colours = [SEQUENCE[i % len(SEQUENCE)] for i in range(len(policies))]
            intervals(ax, x, rows["low"], rows["high"], linewidth=1.1, capsize=3, zorder=2)
            ax.scatter(x, rows["value"], c=colours, s=28, zorder=3)
            title, kind = labels[metric]
            ax.set_title(title, fontsize=9)
            ax.set_xticks(x, [p.split(":")[0] for p in policies], fontsize=8)
            if kind == "pct":
                percent_axis(ax.yaxis)
            elif kind == "pts":
                ax.axhline(0, color=FAIR, linestyle="--", linewidth=1, zorder=1)
                ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{100 * v:+.0f}"))
            ax.margins(x=0.15)
        for ax in axes[len(metrics):]:
            ax.set_visible(False)
    return fig
