"""Tables of a parameter sweep: one row per cell, and paired differences between cells.

A sweep plays every cell on the same seed, so game ``i`` is dealt the same
in every cell with the same player count (common random numbers). The
difference of a metric between two cells is then best estimated game by
game: :func:`paired_differences` streams both cells' records side by side
and gives the normal interval of the mean per-game difference, next to the
interval two independent runs of the same size would give. The per-game
values are integers (win shares in units of 1/lcm(1..players)), so the
sums are exact and do not depend on how the files are read.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np
import pandas as pd

from analysis.common import win_unit
from analysis.stats import Z95, mean_and_sd, mean_interval

# Lists of the summary that run over rounds rather than seats; the number
# in their columns is the round (end_round_share_r2: games ended after round 2).
ROUND_LISTS = ("end_round_share",)
# Columns that time the run: they differ from one run of the same games to the next.
TIMING_COLUMNS = ("seconds", "games_per_second")

READ_BATCH_GAMES = 65_536


# --- one row per cell --------------------------------------------------------


def summary_row(summary: Mapping[str, Any]) -> dict[str, Any]:
    """A run summary (``lvsim run --json``) flattened into one row of plain columns.

    Lists by seat become ``win_share_s0``, ``win_share_s1`` …; lists by round
    ``end_round_share_r1`` …; nested tables ``swing_mean``, ``amount_mean_golden``;
    the skill gap's duels ``skill_gap_greedy_vs_random`` (the strong seat's win share);
    the strength profile's metrics ``strength_expert_elimination_rate`` …;
    an interval ``x_ci`` becomes ``x_lo`` and ``x_hi`` beside ``x``. Undefined
    values (None) become nan.
    """
    row: dict[str, Any] = {}
    for key, value in summary.items():
        if key.endswith("_ci") and key[: -len("_ci")] in summary:
            continue
        ci = summary.get(f"{key}_ci")
        if key == "skill_gap":
            # One seat's win share in each duel: skill_gap_greedy_vs_random, _lo, _hi.
            for duel, entry in value.items():
                row[f"{key}_{duel}"] = _number(entry["win_share"])
                row[f"{key}_{duel}_lo"], row[f"{key}_{duel}_hi"] = map(_number, entry["win_share_ci"])
        elif key == "strength":
            # Each headline metric under each strength: strength_expert_elimination_rate, _lo, _hi.
            for profile in value.get("profiles", []):
                who = profile["policy"].split(":")[0]
                for metric, (v, lo, hi) in profile["metrics"].items():
                    column = f"{key}_{who}_{metric}"
                    row[column] = _number(v)
                    row[f"{column}_lo"], row[f"{column}_hi"] = _number(lo), _number(hi)
        elif isinstance(value, Mapping):
            for sub, v in value.items():
                row[f"{key}_{sub}"] = _number(v)
        elif isinstance(value, list):
            letter, start = ("r", 1) if key in ROUND_LISTS else ("s", 0)
            name = "policy" if key == "policies" else key
            for i, v in enumerate(value):
                column = f"{name}_{letter}{i + start}"
                row[column] = v if isinstance(v, str) else _number(v)
                if ci is not None:
                    row[f"{column}_lo"], row[f"{column}_hi"] = map(_number, ci[i])
        else:
            row[key] = _number(value)
            if ci is not None:
                row[f"{key}_lo"], row[f"{key}_hi"] = map(_number, ci)
    return row


def metric_columns(config) -> list[str]:
    """The columns :func:`summary_row` gives for a run of ``config`` (a ``sim.config.Config``)."""
    game, players = config.game_spec, config.players
    return list(summary_row(game.summarize(game.empty_tally(config.rules), policies=["random"] * players)))


def _number(value):
    if value is None:
        return math.nan
    return value


def sort_cells(table: pd.DataFrame, sort_by: str) -> pd.DataFrame:
    """The table sorted by one column; ``-column`` sorts from the largest. Ties keep cell order."""
    column, descending = (sort_by[1:], True) if sort_by.startswith("-") else (sort_by, False)
    if column not in table.columns:
        raise KeyError(column)
    return table.sort_values(column, ascending=not descending, kind="stable", na_position="last")


# --- paired differences ----------------------------------------------------------


def _record_batches(path: Path, config, batch_games: int) -> Iterator[dict[str, np.ndarray]]:
    """The record fields the game's paired metrics read, ``batch_games`` games at a time."""
    import pyarrow.parquet as pq

    game, rules = config.game_spec, config.rules
    fields = ("game", *game.per_game_fields)
    columns = {name: game.records.field_columns(name, rules) for name in fields}
    with pq.ParquetFile(path) as f:
        for batch in f.iter_batches(batch_size=batch_games, columns=[c for cs in columns.values() for c in cs]):
            yield {name: game.records.field_array(batch, name, rules, cols) for name, cols in columns.items()}


def _side_by_side(a: Iterator[dict], b: Iterator[dict]) -> Iterator[tuple[dict, dict]]:
    """Batches of two record streams cut to equal lengths, up to the end of the shorter."""
    head_a: dict | None = None
    head_b: dict | None = None
    while True:
        if head_a is None or len(head_a["game"]) == 0:
            head_a = next(a, None)
        if head_b is None or len(head_b["game"]) == 0:
            head_b = next(b, None)
        if head_a is None or head_b is None:
            return
        n = min(len(head_a["game"]), len(head_b["game"]))
        yield {k: v[:n] for k, v in head_a.items()}, {k: v[:n] for k, v in head_b.items()}
        head_a = {k: v[n:] for k, v in head_a.items()}
        head_b = {k: v[n:] for k, v in head_b.items()}


def paired_differences(
    cell_records: Path,
    cell_config,
    baseline_records: Path,
    baseline_config,
    *,
    batch_games: int = READ_BATCH_GAMES,
) -> dict[str, dict[str, float | int | None]]:
    """Cell minus baseline for each of the game's ``paired_metrics``, paired game by game.

    Both cells are runs (``sim.config.Config``) of the same game.
    Only the games both cells played are compared (a cell given more games
    by adaptive precision shares its first games with the other). Returns,
    per metric: ``games``, ``difference`` with its paired 95% interval
    ``difference_lo``/``_hi``, the interval independent runs of the same
    size would give (``unpaired_lo``/``_hi``) and ``tighter``, the ratio of
    the two half-widths. Memory holds one batch of a few columns per cell.
    """
    game = cell_config.game_spec
    metrics = game.paired_metrics
    cell_players, baseline_players = cell_config.players, baseline_config.players
    unit = win_unit(max(cell_players, baseline_players))
    sums = {m: np.zeros(6, dtype=object) for m in metrics}  # Σd, Σd², Σa, Σa², Σb, Σb²
    games = 0
    cells = _record_batches(Path(cell_records), cell_config, batch_games)
    bases = _record_batches(Path(baseline_records), baseline_config, batch_games)
    for a, b in _side_by_side(cells, bases):
        if not np.array_equal(a["game"], b["game"]):
            raise ValueError(f"{cell_records} and {baseline_records} do not hold the same games in the same order")
        games += len(a["game"])
        va, vb = game.per_game(a, cell_players, unit), game.per_game(b, baseline_players, unit)
        for m in metrics:
            x, y = va[m], vb[m]
            d = x - y
            # Python integers: exact whatever the number of games.
            sums[m] += [int(d.sum()), int((d * d).sum()), int(x.sum()), int((x * x).sum()),
                        int(y.sum()), int((y * y).sum())]
    return {m: _difference(sums[m], games, unit if m == "first_player_advantage" else 1) for m in metrics}


def _difference(sums, n: int, unit: int) -> dict[str, float | int | None]:
    d_mean, d_sd = mean_and_sd(sums[0], sums[1], n)
    _, a_sd = mean_and_sd(sums[2], sums[3], n)
    _, b_sd = mean_and_sd(sums[4], sums[5], n)
    lo, hi = mean_interval(d_mean, d_sd, n)
    paired_half = (hi - lo) / 2
    unpaired_half = Z95 * math.sqrt((a_sd**2 + b_sd**2) / n) if n >= 2 else math.nan
    tighter = unpaired_half / paired_half if paired_half > 0 else math.nan
    out = {
        "games": n,
        "difference": d_mean / unit,
        "difference_lo": lo / unit,
        "difference_hi": hi / unit,
        "unpaired_lo": (d_mean - unpaired_half) / unit,
        "unpaired_hi": (d_mean + unpaired_half) / unit,
        "tighter": tighter,
    }
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in out.items()}


def paired_table(records: Mapping[int, Path], configs: Mapping[int, Any],
                 baseline: int | Mapping[int, int]) -> pd.DataFrame:
    """Every cell against its baseline: one row per (cell, metric), in cell order.

    ``records`` and ``configs`` give each cell's records file and config;
    ``baseline`` is one cell for all, or each cell's own (``sim.sweep.baselines``:
    the baseline of its player count). A cell that is its own baseline has no row.
    """
    rows = []
    for cell in sorted(records):
        base = baseline if isinstance(baseline, int) else baseline[cell]
        if cell == base:
            continue
        diffs = paired_differences(records[cell], configs[cell], records[base], configs[base])
        for metric, d in diffs.items():
            rows.append({"cell": cell, "baseline": base, "metric": metric, **d})
    columns = ["cell", "baseline", "metric", "games", "difference", "difference_lo", "difference_hi",
               "unpaired_lo", "unpaired_hi", "tighter"]
    return pd.DataFrame(rows, columns=columns).astype({"difference_lo": float, "difference_hi": float,
                                                       "unpaired_lo": float, "unpaired_hi": float,
                                                       "tighter": float})


# --- text ----------------------------------------------------------------------


# A rule-hole rate is flagged when it is at least this much above the baseline's, and at least twice it.
HOLE_MARGIN = 0.01


def rule_hole_flags(table: pd.DataFrame, paired: pd.DataFrame, game, baseline: int) -> list[dict[str, Any]]:
    """Cells where a rate of the game's rule holes (``game.rule_holes``) rose well above their baseline's:
    by at least :data:`HOLE_MARGIN` and to at least twice it. The baseline of a cell is the one its paired
    differences name (its player count's), else ``baseline``."""
    bases = paired.groupby("cell")["baseline"].first().astype(int).to_dict() if len(paired) else {}
    rows = table.set_index("cell")
    flags = []
    for cell, row in rows.iterrows():
        base = bases.get(int(cell), baseline)
        if base == cell or base not in rows.index:
            continue
        for metric, meaning in game.rule_holes.items():
            if metric not in rows.columns:
                continue
            rate, was = row[metric], rows.loc[base, metric]
            if is_missing(rate) or is_missing(was):
                continue
            if rate >= was + HOLE_MARGIN and rate >= 2 * was:
                flags.append({"cell": int(cell), "baseline": int(base), "metric": metric, "meaning": meaning,
                              "rate": float(rate), "baseline_rate": float(was)})
    return flags


def rule_hole_lines(flags: list[dict[str, Any]], game) -> list[str]:
    """The flags of :func:`rule_hole_flags` as sentences; one line saying so when there is none."""
    if not game.rule_holes:
        return []
    if not flags:
        watched = ", ".join(game.rule_holes)
        return [f"Rule holes ({watched}): no cell rises well above its baseline."]
    return [f"Rule hole: cell {f['cell']:03d} has {f['metric']} {_pct(f['rate'])} against {_pct(f['baseline_rate'])} "
            f"in cell {f['baseline']:03d} ({f['meaning']})." for f in flags]


def sweep_text(
    table: pd.DataFrame,
    paired: pd.DataFrame,
    parameters: list[str],
    *,
    game,
    baseline: int,
    sort_by: str = "cell",
) -> str:
    """The sweep of ``game`` (a ``sim.game.Game``) as the text ``lvsim sweep`` prints: the cells, then the
    paired differences."""
    table = sort_cells(table, sort_by)
    metrics = game.sweep_plotted
    headers = ["cell", *parameters, "games"]
    headers += [game.paired_metrics.get(m, label) + (" (pp)" if signed else "")
                for m, (label, _, signed) in metrics.items()]
    rows = []
    for _, r in table.iterrows():
        row = [f"{int(r['cell']):03d}", *(format_value(r[p]) for p in parameters), f"{int(r['games']):,}"]
        for m, (_, scale, signed) in metrics.items():
            lo, hi = r.get(f"{m}_lo", math.nan), r.get(f"{m}_hi", math.nan)
            if signed:
                row.append(f"{_pp(r[m])} {_pp_ci(lo, hi)}")
            elif scale == 100:
                row.append(f"{_pct(r[m])} {_pct_ci(lo, hi)}")
            else:
                row.append(format_value(r[m]) if is_missing(r[m]) else f"{r[m]:.2f}")
        rows.append(row)
    order = "" if sort_by == "cell" else f", sorted by {sort_by}"
    lines = [f"{len(table)} cells, seed {format_value(table['seed'].iloc[0])}, 95% intervals{order}", ""]
    lines += _aligned_rows(headers, rows)
    if len(paired):
        lines += ["", f"Paired differences from cell {baseline:03d}, or from the cell like it with the same player "
                      "count (same deals; 95% interval, and how much tighter it is than independent runs would give)"]
        # The rates and the advantage, in percentage points.
        wanted = [m for m, (_, scale, _) in metrics.items() if scale == 100 and m in game.paired_metrics][:3]
        headers = ["cell", "baseline", *(f"{game.paired_metrics[m]} (pp)" for m in wanted)]
        rows = []
        for cell, group in paired.groupby("cell", sort=True):
            by_metric = group.set_index("metric")
            cells = [f"{cell:03d}", f"{int(group['baseline'].iloc[0]):03d}"]
            for m in wanted:
                d = by_metric.loc[m]
                cells.append(f"{_pp(d['difference'])} {_pp_ci(d['difference_lo'], d['difference_hi'])}"
                             f" x{_ratio(d['tighter'])}")
            rows.append(cells)
        lines += _aligned_rows(headers, rows)
    holes = rule_hole_lines(rule_hole_flags(table, paired, game, baseline), game)
    if holes:
        lines += ["", *holes]
    return "\n".join(lines)


def _aligned_rows(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    out = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return out


def format_value(v) -> str:
    """A parameter value as the sweep file spells it."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v)


def is_missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _pp(x) -> str:
    return "n/a" if is_missing(x) else f"{100 * x:+.2f}"


def _pp_ci(lo, hi) -> str:
    return "" if is_missing(lo) or is_missing(hi) else f"[{100 * lo:+.2f}, {100 * hi:+.2f}]"


def _pct(x) -> str:
    return "n/a" if is_missing(x) else f"{100 * x:.2f}%"


def _pct_ci(lo, hi) -> str:
    return "" if is_missing(lo) or is_missing(hi) else f"[{100 * lo:.2f}, {100 * hi:.2f}]"


def _ratio(x) -> str:
    return "n/a" if is_missing(x) else f"{x:.1f}"
