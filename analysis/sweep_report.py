"""The sweep report: one self-contained HTML page comparing the cells of a sweep.

It shows the table of cells sorted by a chosen metric, line plots of the
main metrics against each parameter, heatmaps over two parameters at a
time, and the paired differences from the baseline cell; every value with
its 95% interval. Figures are PNGs embedded in the page, drawn with
matplotlib's Agg backend in a colour-blind-safe palette (Okabe & Ito; the
heatmaps use viridis, or purple-orange for signed values).
"""

from __future__ import annotations

import base64
import html
import io
import itertools
import math
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from analysis import report_html as H
from analysis.figure_style import intervals
from analysis.sweep import (
    HOLE_MARGIN, LONG_VALUE, column_scale, fmt, fmt_ci, format_value, hole_uncompared_cells, ratio_text,
    rule_hole_flags, rule_hole_lines, shared_values, sort_cells, uncompared_cells,
)
from sim.game import Game

# Okabe & Ito (2008), "Color Universal Design": distinguishable with any common colour-vision deficiency.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")

MAX_LINES = len(OKABE_ITO)
LONG_TICK = LONG_VALUE  # characters: a value longer than this (a whole pay table, say) is shown by its number
MAX_HEATMAP_PAIRS = 6

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.9em; margin: 1em 0; }
th, td { padding: 0.25em 0.7em; text-align: right; border-bottom: 1px solid #eee; }
th { background: #f4f4f4; } td.text, th.text { text-align: left; }
.ci { color: #666; font-size: 0.9em; white-space: nowrap; } .note { color: #555; font-size: 0.9em; }
img { max-width: 100%; margin: 0.5em 0; }
.scroll { overflow-x: auto; max-width: 100%; }
"""


def same_deals_text(table: pd.DataFrame) -> str:
    """Which cells play the same deals: all of them, or those of one player count (the same seed deals differently
    to another number of hands, so cells of different player counts are compared as independent runs)."""
    if "players" in table.columns and table["players"].nunique() > 1:
        return ("cells of the same player count play the same deals, so differences between them are measured "
                "game by game; a cell at another player count is dealt other hands")
    return "every cell plays the same deals, so differences between cells are measured game by game"


def sweep_report_html(
    table: pd.DataFrame,
    paired: pd.DataFrame,
    *,
    sweep_name: str,
    parameters: Sequence[str],
    axes: Mapping[str, Sequence[Any]],
    game: Game,
    baseline: int = 0,
    sort_by: str = "cell",
    target_ci: float | None = None,
    target_metric: str = "first_player_advantage",
) -> str:
    """The report page of a sweep of ``game`` as one HTML string, from ``sweep.parquet`` (``table``) and
    ``paired.parquet`` (``paired``); ``axes`` gives each of the ``parameters``' values in the order to show them."""
    import matplotlib

    matplotlib.use("Agg")

    # A metric whose summary gives no interval (a share of dollars) is shown without one.
    for metric in (*game.sweep_plotted, *game.sweep_heatmap):
        if f"{metric}_lo" not in table.columns:
            table = table.assign(**{f"{metric}_lo": np.nan, f"{metric}_hi": np.nan})
    varying = [p for p in parameters if table[p].nunique() > 1]
    first = table.iloc[0]
    games = table["games"]
    games_text = f"{int(games.iloc[0]):,} games per cell" if games.nunique() == 1 else (
        f"{int(games.min()):,} to {int(games.max()):,} games per cell")
    intro = f"{len(table)} cells, {games_text}, seed {int(first['seed'])}: {same_deals_text(table)}. Intervals are 95%."
    if target_ci is not None:
        intro += (f" Games were added to each cell until the interval of {html.escape(target_metric)} was at most "
                  f"&plusmn;{100 * target_ci:.2f} points wide, or the cell reached its cap.")
    # Each part built through the guard: a table or figure that fails says why in its place, and the page
    # is written.
    parts = [
        f"<h1>Sweep {html.escape(sweep_name)}</h1>",
        f"<p>{intro}</p>",
        "<h2>Cells</h2>",
        H.guarded(lambda: _cells_table(table, parameters, sort_by, target_ci, game, target_metric), "table", "Cells"),
        "<p class='note'>Every metric, with its interval, is in <code>sweep.parquet</code>; each cell's records, "
        "config and summary are in <code>cells/&lt;cell&gt;/</code>.</p>",
    ]
    uncompared = uncompared_cells(table, paired)
    if len(paired):
        parts += ["<h2>Paired differences</h2>",
                  H.guarded(lambda: _paired_table(table, paired, baseline, game, uncompared, parameters), "table",
                            "Paired differences")]
    parts.append(H.guarded(lambda: _holes(table, paired, game), "section", "Rule holes"))
    parts.append(H.guarded(lambda: _figures(table, varying, axes, game, baseline), "section", "Figures"))
    body = "\n".join(parts)
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>Sweep {html.escape(sweep_name)}</title><style>{STYLE}</style></head>\n"
        f"<body>\n{body}\n</body></html>\n"
    )


def _holes(table: pd.DataFrame, paired: pd.DataFrame, game: Game) -> str:
    # Rule holes are compared at the same seats, not only the same player count: the cells uncompared differ.
    holes = rule_hole_lines(rule_hole_flags(table, paired, game), game, hole_uncompared_cells(table, paired),
                            len(table))
    if not holes:
        return ""
    return "".join(["<h2>Rule holes</h2>", "".join(f"<p>{html.escape(line)}</p>" for line in holes),
                    f"<p class='note'>A rate is flagged when it is at least {100 * HOLE_MARGIN:.0f} point above its "
                    "baseline's and at least twice it.</p>"])


def _figures(table: pd.DataFrame, varying: Sequence[str], axes: Mapping[str, Sequence[Any]], game: Game,
             baseline: int) -> str:
    """The line plots against each varying parameter, then the heatmaps over two of them."""
    parts = []
    # Keys varied together (a zipped axis: the player count with the starting cabbages) are one axis
    # of the figures, each of its values labelled with every key's value.
    table, varying, axes, together = _joined_axes(table, varying, axes)
    for p in varying:
        lines = _lines(table, p, varying, together)
        if lines:
            parts += [f"<h2>Against {html.escape(p)}</h2>",
                      _drawn(lambda p=p, lines=lines: _line_figure(table, p, lines, axes, game), f"Metrics against {p}")]
    pairs = [(a, b) for a, b in itertools.combinations(varying, 2)
             if _is_grid(_slice(table, a, b, varying, baseline), a, b)]
    for a, b in pairs[:MAX_HEATMAP_PAIRS]:
        others = [p for p in varying if p not in (a, b)]
        where = ", ".join(_setting(p, _cell(table, baseline), together, " = ") for p in others)
        parts += [
            f"<h2>{html.escape(b)} &times; {html.escape(a)}</h2>",
            f"<p class='note'>Other parameters as in cell {baseline:03d}{': ' + html.escape(where) if where else ''}."
            " Each square shows the value and its interval.</p>",
            _drawn(lambda a=a, b=b: _heatmap_figure(_slice(table, a, b, varying, baseline), a, b, axes, game),
                   f"{b} by {a}"),
        ]
    return "\n".join(parts)


def skill_gap_columns(game: Game) -> dict[str, str]:
    """The sweep table's skill-gap columns of ``game`` and their headings."""
    return {f"skill_gap_{d.name}": f"skill: {d.policy.split(':')[0]} vs {d.against} (%)" for d in game.skill_gap_duels}


def _cell(table: pd.DataFrame, cell: int) -> pd.Series:
    return table.loc[table["cell"] == cell].iloc[0]


def _joined_axes(table: pd.DataFrame, varying: Sequence[str], axes: Mapping[str, Sequence[Any]]):
    """The figures' axes: each varying parameter, but parameters whose values go together one to one over the
    cells are one axis, named and valued as a zipped axis (``rules.players, rules.starting_cabbages``,
    ``[3, 20]``). Returns the table with a column per joined axis, the axes, their values in order, and the
    keys of each joined axis."""
    groups: list[list[str]] = []
    for p in varying:
        for group in groups:
            if _one_to_one(table, group[0], p):
                group.append(p)
                break
        else:
            groups.append([p])
    together = {", ".join(g): g for g in groups if len(g) > 1}
    axes = dict(axes)
    in_order = table.sort_values("cell", kind="stable")
    for name, keys in together.items():
        table = table.assign(**{name: _joined_values(table, keys)})
        axes[name] = list(dict.fromkeys(_joined_values(in_order, keys)))
    return table, [", ".join(g) for g in groups], axes, together


def _joined_values(table: pd.DataFrame, keys: Sequence[str]) -> list[str]:
    return ["[" + ", ".join(format_value(v) for v in values) + "]" for values in zip(*(table[k] for k in keys))]


def _one_to_one(table: pd.DataFrame, a: str, b: str) -> bool:
    pairs = table[[a, b]].map(format_value).drop_duplicates()
    return len(pairs) == pairs[a].nunique() == pairs[b].nunique()


def _setting(axis: str, row: pd.Series, together: Mapping[str, Sequence[str]], equals: str = "=") -> str:
    """An axis's value in a cell (``row``) as a reader names it; a joined axis as each of its keys' values."""
    return ", ".join(f"{k}{equals}{format_value(row[k])}" for k in together.get(axis, [axis]))


def _lines(table: pd.DataFrame, axis: str, varying: Sequence[str],
           together: Mapping[str, Sequence[str]] = {}) -> list[tuple[str | None, pd.DataFrame]]:
    """The cells that differ in ``axis`` alone, one group per setting of the other parameters.

    A group with a single cell is no line; at most :data:`MAX_LINES` lines, in cell order.
    """
    others = [p for p in varying if p != axis]
    if not others:
        return [(None, table)]
    groups = [g for _, g in table.groupby(others, sort=False) if g[axis].nunique() > 1][:MAX_LINES]
    # Name each line by what tells it from the others.
    telling = [p for p in others if len({format_value(g[p].iloc[0]) for g in groups}) > 1] or others
    return [(", ".join(_setting(p, g.iloc[0], together) for p in telling), g) for g in groups]


def _slice(table: pd.DataFrame, a: str, b: str, varying: Sequence[str], baseline: int) -> pd.DataFrame:
    """The cells whose parameters other than ``a`` and ``b`` are those of the baseline cell."""
    base = _cell(table, baseline)
    rows = table
    for p in varying:
        if p not in (a, b):
            rows = rows[rows[p].map(format_value) == format_value(base[p])]
    return rows


def _is_grid(rows: pd.DataFrame, a: str, b: str) -> bool:
    """Whether a slice is worth a heatmap: every pair of at least two values of each parameter."""
    keys = rows[[a, b]].map(format_value)
    n_a, n_b = keys[a].nunique(), keys[b].nunique()
    return n_a > 1 and n_b > 1 and len(keys.drop_duplicates()) == n_a * n_b


# --- tables -------------------------------------------------------------------------


def _cells_table(table: pd.DataFrame, parameters: Sequence[str], sort_by: str, target_ci: float | None,
                 game: Game, target_metric: str = "first_player_advantage") -> str:
    plotted, skill_columns = game.sweep_plotted, skill_gap_columns(game)
    ordered = sort_cells(table, sort_by)
    note = "" if sort_by == "cell" else f"<p class='note'>Sorted by <code>{html.escape(sort_by)}</code>.</p>"
    # Skill-gap columns are empty when the cells skipped the duels: shown only when measured.
    skill = [c for c in skill_columns if c in table.columns and table[c].notna().any()]
    if skill:
        note += ("<p class='note'>Skill: the win share of one stronger seat against weaker ones at every other "
                 "seat, seats rotated over the same deals (fair share: 1 / players).</p>")
    # A parameter every cell shares is said once, above the table, not in a column of equal values.
    column = sort_by.removeprefix("-")
    shared = shared_values(table, parameters, sort_by)
    if shared:
        same = ", ".join(f"<code>{html.escape(p)} = {html.escape(v)}</code>" for p, v in shared.items())
        note += f"<p class='note'>Every cell has {same}.</p>"
    parameters = [p for p in parameters if p not in shared]
    # The column the cells are sorted by is shown, whatever it is.
    extra = [] if column in {"cell", "games", *parameters, *plotted, *skill} else [column]
    units = {(100, True): " (percentage points)", (100, False): " (%)"}
    extra_head = [c if c == "label" or not pd.api.types.is_numeric_dtype(table[c])
                  else c + units.get(column_scale(c, plotted), "") for c in extra]
    head = ["cell", *parameters, *extra_head, "games", *(plotted[m][0] for m in plotted)]
    # The skill gap, when the cells measured it: the strong seat's win share.
    head += [skill_columns[c] for c in skill]
    if target_ci is not None:
        head.append("target met")
    rows = []
    for _, r in ordered.iterrows():
        # A cell is a run's results without a report (`lvsim report cells/<NNN>` writes one): not a link.
        cells = [f"<td class='text'>{int(r['cell']):03d}</td>"]
        cells += [f"<td class='text'>{html.escape(format_value(r[p]))}</td>" for p in parameters]
        for c in extra:
            if c == "label" or isinstance(r[c], str):
                cells.append(f"<td class='text'>{html.escape(str(r[c]))}</td>")
                continue
            cells.append(_value_cell(r, c, *column_scale(c, plotted)))
        cells.append(f"<td>{int(r['games']):,}</td>")
        cells += [_value_cell(r, m, scale, signed) for m, (_, scale, signed) in plotted.items()]
        cells += [_value_cell(r, c, 100, False) for c in skill]
        if target_ci is not None:
            met = (r[f"{target_metric}_hi"] - r[f"{target_metric}_lo"]) / 2 <= target_ci
            cells.append(f"<td>{'yes' if met else 'no (cap)'}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    # The cell and its parameters are text, left-aligned; the rest are numbers.
    text = len(parameters) + (extra == ["label"])
    header = "".join(f"<th class='text'>{html.escape(h)}</th>" if i <= text else f"<th>{html.escape(h)}</th>"
                     for i, h in enumerate(head))
    note += ("<p class='note'>Each cell's results are in <code>cells/&lt;cell&gt;/</code>; "
             "<code>lvsim report cells/&lt;cell&gt;</code> writes its full report.</p>")
    return f"{note}<div class='scroll'><table><tr>{header}</tr>\n" + "\n".join(rows) + "</table></div>"


def _value_cell(r: pd.Series, column: str, scale: float, signed: bool) -> str:
    interval = fmt_ci(r.get(f"{column}_lo"), r.get(f"{column}_hi"), scale, signed)
    return f"<td>{fmt(r[column], scale, signed)} <span class='ci'>{interval}</span></td>"


def _paired_table(table: pd.DataFrame, paired: pd.DataFrame, baseline: int, game: Game,
                  uncompared: Sequence[int] = (), parameters: Sequence[str] = ()) -> str:
    plotted = {m: v for m, v in game.sweep_plotted.items() if m in game.paired_metrics}
    labels = dict(zip(table["cell"], table["label"]))
    rows_by_cell = table.set_index("cell")

    def changes(cell: int, base: int) -> str:
        """What the cell changes from its own baseline, which at another player count is not cell ``baseline``."""
        here, there = rows_by_cell.loc[cell], rows_by_cell.loc[base]
        changed = [f"{p}={format_value(here[p])}" for p in parameters
                   if format_value(here[p]) != format_value(there[p])]
        return ", ".join(changed) or "nothing"
    intro = (
        f"<p>Each cell minus its baseline, which has its player count: cell {baseline:03d} "
        f"({html.escape(str(labels[baseline]))}) at its own, whatever the seats, and at another player count "
        "the cell with that player count and cell "
        f"{baseline:03d}'s other values (the deals are the same only at the same player count, and the seats' "
        "policies never change them): game by game on the same deals. Beside each paired interval, how many "
        "times narrower it is than the interval two independent runs of the same size would give (below 1, "
        "pairing did not narrow it).</p>"
    )
    if uncompared:
        names = ", ".join(f"{c:03d}" for c in uncompared)
        intro += (f"<p class='note'>No other cell has the player count of cell{'s' * (len(uncompared) > 1)} "
                  f"{names}: {'they have' if len(uncompared) > 1 else 'it has'} no baseline and no row here.</p>")
    head = ("<tr><th class='text'>cell</th><th class='text'>changes from the baseline</th>"
            "<th class='text'>baseline</th>"
            + "".join(f"<th>{html.escape(game.paired_metrics[m])}</th>" for m in plotted) + "</tr>")
    rows = []
    for cell, group in paired.groupby("cell", sort=True):
        d = group.set_index("metric")
        base = int(group["baseline"].iloc[0])
        cells = [f"<td class='text'>{int(cell):03d}</td>",
                 f"<td class='text'>{html.escape(changes(int(cell), base))}</td>",
                 f"<td class='text'>{base:03d}</td>"]
        for m, (_, scale, _) in plotted.items():
            x = d.loc[m]
            tighter = "" if H.is_missing(x["tighter"]) else f" &times;{ratio_text(x['tighter'])}"
            cells.append(
                f"<td>{fmt(x['difference'], scale, True)} "
                f"<span class='ci'>{fmt_ci(x['difference_lo'], x['difference_hi'], scale, True)}{tighter}</span></td>"
            )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    units = "<p class='note'>Differences of rates and of the advantage are in percentage points.</p>"
    return intro + "<div class='scroll'><table>" + head + "\n".join(rows) + "</table></div>" + units


# --- figures --------------------------------------------------------------------------


def _positions(values: Sequence[Any]) -> tuple[dict[str, float], bool]:
    """x positions of a parameter's values: the numbers themselves, or 0, 1, 2 … for other values."""
    numeric = all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in values)
    if numeric:
        return {format_value(v): float(v) for v in values}, True
    return {format_value(v): float(i) for i, v in enumerate(values)}, False


def _ticks(labels: Sequence[str], axis: str) -> tuple[list[str], str]:
    """Tick labels of an axis's values, and the axis's label. Values too long to print under an
    axis (a list of tables) are numbered in the sweep's order, as the table of cells lists them."""
    labels = list(labels)
    if max(map(len, labels), default=0) <= LONG_TICK:
        return labels, axis
    return [f"#{i + 1}" for i in range(len(labels))], f"{axis}: value #1, #2, … in the sweep's order"


def _figure(width: float, height: float, rows: int, columns: int):
    """A figure of ``rows`` by ``columns`` panels, made without pyplot: nothing to close if drawing it fails."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(rows, columns, squeeze=False)


def _line_figure(table: pd.DataFrame, axis: str, lines, axes: Mapping[str, Sequence[Any]], game: Game):
    """Each plotted metric against ``axis``: a line per group of cells, each value with its 95% interval."""
    positions, numeric = _positions(axes[axis])
    # Lines side by side rather than on top of each other, so that every interval shows.
    xs = sorted(positions.values())
    spacing = min(np.diff(xs)) if len(xs) > 1 else 1.0
    dodge = 0.25 * spacing / (len(lines) - 1) if len(lines) > 1 else 0.0
    fig, panels = _figure(10, 6.5, 2, 2)
    for ax, (metric, (label, scale, signed)) in zip(panels.ravel(), game.sweep_plotted.items()):
        for i, (name, group) in enumerate(lines):
            shift = (i - (len(lines) - 1) / 2) * dodge
            group = group.assign(_x=group[axis].map(lambda v, shift=shift: positions[format_value(v)] + shift)).sort_values("_x")
            y = group[metric].to_numpy(float) * scale
            intervals(ax, group["_x"], group[metric + "_lo"].to_numpy(float) * scale,
                      group[metric + "_hi"].to_numpy(float) * scale, color=OKABE_ITO[i], linewidth=1.5, capsize=3)
            ax.plot(group["_x"], y, color=OKABE_ITO[i], marker=MARKERS[i], linewidth=1.5, markersize=5, label=name)
        if signed:
            ax.axhline(0, color="#999", linewidth=0.8, zorder=0)
        ticks, axis_label = _ticks(positions, axis)
        ax.set_xlabel(axis_label)
        ax.set_ylabel(label)
        ax.set_xticks(list(positions.values()), ticks, rotation=0 if numeric or ticks[0].startswith("#") else 20,
                      fontsize=8)
        ax.grid(alpha=0.3)
    if lines[0][0] is not None:
        handles, names = panels.ravel()[0].get_legend_handles_labels()
        columns = 1 if max(map(len, names)) > 60 else min(3, len(names))
        fig.legend(handles, names, loc="outside lower center", ncol=columns, fontsize=8, frameon=False)
    fig.suptitle(f"Metrics against {axis} (95% intervals)")
    return fig


def _heatmap_figure(rows: pd.DataFrame, a: str, b: str, axes: Mapping[str, Sequence[Any]], game: Game):
    heatmap_metrics, plotted = game.sweep_heatmap, game.sweep_plotted
    present_a, present_b = set(rows[a].map(format_value)), set(rows[b].map(format_value))
    xs = [format_value(v) for v in axes[a] if format_value(v) in present_a]
    ys = [format_value(v) for v in axes[b] if format_value(v) in present_b]
    fig, panels = _figure(6 * len(heatmap_metrics), 4.8, 1, len(heatmap_metrics))
    for ax, metric in zip(panels.ravel(), heatmap_metrics):
        label, scale, signed = plotted[metric]
        grid = np.full((len(ys), len(xs)), np.nan)
        half = np.full_like(grid, np.nan)
        for _, r in rows.iterrows():
            i, j = ys.index(format_value(r[b])), xs.index(format_value(r[a]))
            grid[i, j] = r[metric] * scale
            half[i, j] = (r[metric + "_hi"] - r[metric + "_lo"]) * scale / 2
        if signed:
            limit = np.nanmax(np.abs(grid)) if np.isfinite(grid).any() else 1.0
            image = ax.imshow(grid, cmap="PuOr", vmin=-limit or -1, vmax=limit or 1, aspect="auto", origin="lower")
        else:
            image = ax.imshow(grid, cmap="viridis", aspect="auto", origin="lower")
        fig.colorbar(image, ax=ax, label=label)
        for i, j in itertools.product(range(len(ys)), range(len(xs))):
            if math.isfinite(grid[i, j]):
                colour = _text_colour(image, grid[i, j])
                text = f"{grid[i, j]:.2f}" + (f"\n±{half[i, j]:.2f}" if math.isfinite(half[i, j]) else "")
                ax.text(j, i, text, ha="center", va="center", fontsize=8, color=colour)
        x_ticks, x_label = _ticks(xs, a)
        y_ticks, y_label = _ticks(ys, b)
        ax.set_xticks(range(len(xs)), x_ticks, rotation=20 if max(map(len, x_ticks)) > 3 else 0, fontsize=8)
        ax.set_yticks(range(len(ys)), y_ticks, fontsize=8)
        ax.set_xlabel(x_label)
        ax.set_ylabel(y_label)
        ax.set_title(label)
    return fig


def _text_colour(image, value: float) -> str:
    r, g, b, _ = image.cmap(image.norm(value))
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def _img(fig) -> str:
    from analysis.figure_style import save_fitted

    buf = io.BytesIO()
    save_fitted(fig, buf, format="png", dpi=100)  # no title or axis label cut
    return f"<img alt='' src='data:image/png;base64,{base64.b64encode(buf.getvalue()).decode('ascii')}'>"


def _drawn(draw, name: str) -> str:
    """The figure ``draw()`` makes, embedded, through the reports' guard: a figure that fails is one line saying
    why (:func:`analysis.report_html.not_drawn`), and the page is written all the same."""
    return H.guarded(lambda: _img(draw()), "figure", name)
