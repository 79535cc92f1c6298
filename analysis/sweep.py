"""Tables of a parameter sweep: one row per cell, and paired differences between cells.

A sweep plays every cell on the same seed, so game ``i`` is dealt the same
in every cell with the same player count (common random numbers), whatever
the seats' policies: they draw from streams of their own. The
difference of a metric between two cells is then best estimated game by
game: :func:`paired_differences` streams both cells' records side by side
and gives the Student t interval of the mean per-game difference, next to the
interval two independent runs of the same size would give. The per-game
values are integers (win shares in units of 1/lcm(1..players)), so the
sums are exact and do not depend on how the files are read.
"""

from __future__ import annotations

import math
import re
import textwrap
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from analysis.common import win_unit
from analysis.stats import MIN_SAMPLES, mean_and_sd, mean_interval, t95, wilson_interval
from analysis.strength import paired_score_interval
from sim.metrics import ADVANTAGE, RATE

# Columns that time the run: they differ from one run of the same games to the next.
TIMING_COLUMNS = ("seconds", "games_per_second")

READ_BATCH_GAMES = 65_536
PAIRED_COLUMNS = ["cell", "baseline", "metric", "games", "difference", "difference_lo", "difference_hi", "unpaired_lo",
                  "unpaired_hi", "tighter"]


# --- one row per cell --------------------------------------------------------


def summary_row(summary: Mapping[str, Any]) -> dict[str, Any]:
    """A run summary (``lvsim run --json``) flattened into one row of plain columns.

    Lists by seat become ``win_share_s0`` …, lists by round (``per=ROUND``)
    ``end_round_share_r1`` …, nested tables ``swing_mean``, the skill gap
    ``skill_gap_greedy_vs_random``, the strength profile
    ``strength_expert_elimination_rate``; an interval ``x_ci`` becomes
    ``x_lo`` and ``x_hi``. Undefined values (None) become nan.
    """
    row: dict[str, Any] = {}
    round_lists = _round_lists(summary.get("game"))
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
            letter, start = ("r", 1) if key in round_lists else ("s", 0)
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


def _round_lists(game_id) -> tuple[str, ...]:
    """The summary lists of the game ``game_id`` that run over rounds (none for a summary of no known game)."""
    from sim.errors import ConfigError
    from sim.games import get_game

    try:
        return get_game(game_id).round_lists
    except ConfigError:
        return ()


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
    return table.sort_values(sort_by.removeprefix("-"), ascending=not sort_by.startswith("-"), kind="stable",
                             na_position="last")


# --- paired differences ----------------------------------------------------------


def _record_batches(path: Path, config, batch_games: int) -> Iterator[dict[str, np.ndarray]]:
    """The record fields the game's paired metrics read, ``batch_games`` games at a time."""
    import pyarrow.parquet as pq

    game, rules = config.game_spec, config.rules
    fields = ("game", *(f for f in paired_fields(game, config) if f != "game"))
    columns = {name: game.records.field_columns(name, rules) for name in fields}
    with pq.ParquetFile(path) as f:
        for batch in f.iter_batches(batch_size=batch_games, columns=[c for cs in columns.values() for c in cs]):
            yield {name: game.records.field_array(batch, name, rules, cols) for name, cols in columns.items()}


def paired_fields(game, config) -> tuple[str, ...]:
    """The record fields the game's paired values read (``Game.per_game``), noted as it reads an empty batch;
    those the game names (``per_game_fields``) if it does."""
    if game.per_game_fields:
        return game.per_game_fields
    rec = _Reads(game.records.empty(0, config.rules))
    game.per_game(rec, config.players, win_unit(config.players))
    if game.per_game_ratios is not None:
        game.per_game_ratios(rec, config.players)
    return tuple(rec.read)


class _Reads(dict):
    """A batch of records that notes each field read, in the order first read."""

    def __init__(self, rec: Mapping[str, np.ndarray]):
        super().__init__(rec)
        self.read: list[str] = []

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self.read:
            self.read.append(name)
        return super().__getitem__(name)

    def get(self, name: str, default=None):
        return self[name] if name in self else default


def _side_by_side(a: Iterator[dict], b: Iterator[dict]) -> Iterator[tuple[dict, dict]]:
    """Batches of two record streams cut to equal lengths, up to the end of the shorter."""
    heads: list[dict | None] = [None, None]
    while True:
        heads = [h if h is not None and len(h["game"]) else next(s, None) for h, s in zip(heads, (a, b))]
        if heads[0] is None or heads[1] is None:
            return
        n = min(len(h["game"]) for h in heads)
        yield {k: v[:n] for k, v in heads[0].items()}, {k: v[:n] for k, v in heads[1].items()}
        heads = [{k: v[n:] for k, v in h.items()} for h in heads]


def paired_differences(
    cell_records: Path,
    cell_config,
    baseline_records: Path,
    baseline_config,
    *,
    batch_games: int = READ_BATCH_GAMES,
) -> dict[str, dict[str, float | int | None]]:
    """Cell minus baseline for each of the game's ``paired_metrics``, paired game by game.

    Only the games both cells played are compared (a cell given more games
    by adaptive precision shares its first games with the other). Per
    metric: ``games``, ``difference`` with its paired 95% interval
    ``difference_lo``/``_hi``, the interval independent runs would give
    (``unpaired_lo``/``_hi``) and ``tighter``, the ratio of the two
    half-widths. A metric the summary gives as a ratio of sums over games
    (``Game.per_game_ratios``: $ Fever's first-player advantage, over its
    finished games) is compared as that ratio, so that the difference is
    the one of the two cells' own values. Memory holds one batch of a few
    columns per cell.
    """
    game = cell_config.game_spec
    metrics = game.paired_metrics
    cell_players, baseline_players = cell_config.players, baseline_config.players
    unit = win_unit(max(cell_players, baseline_players))
    sums = {m: np.zeros(6, dtype=object) for m in metrics}  # Σd, Σd², Σa, Σa², Σb, Σb²
    ratio_sums: dict[str, np.ndarray] = {}  # a ratio's RATIO_SUMS
    games = 0
    cells = _record_batches(Path(cell_records), cell_config, batch_games)
    bases = _record_batches(Path(baseline_records), baseline_config, batch_games)
    ratios = game.per_game_ratios or (lambda rec, players: {})
    for a, b in _side_by_side(cells, bases):
        if not np.array_equal(a["game"], b["game"]):
            raise ValueError(f"{cell_records} and {baseline_records} do not hold the same games in the same order")
        games += len(a["game"])
        va, vb = game.per_game(a, cell_players, unit), game.per_game(b, baseline_players, unit)
        ra, rb = ratios(a, cell_players), ratios(b, baseline_players)
        for m in metrics:
            if m in ra:
                ratio_sums[m] = ratio_sums.get(m, 0) + _ratio_sums(*ra[m], *rb[m])
                continue
            x, y = va[m], vb[m]
            d = x - y
            # Python integers: exact whatever the number of games.
            sums[m] += [int(d.sum()), int((d * d).sum()), int(x.sum()), int((x * x).sum()),
                        int(y.sum()), int((y * y).sum())]
    # An advantage is a difference of win shares: its per-game values count win units.
    units = {m: unit if game.metric[m].kind == ADVANTAGE else 1 for m in metrics}
    return {m: _ratio_difference(ratio_sums[m], games) if m in ratio_sums
            else _difference(sums[m], games, units[m], game.metric[m].kind == RATE) for m in metrics}


def _ratio_sums(xa, ya, xb, yb) -> np.ndarray:
    """The exact integer sums over games a paired difference of two ratios ``Σxa/Σya - Σxb/Σyb`` needs: the
    first moments, then every product of two of ``xa, ya, xb, yb``."""
    cols = [np.asarray(v, dtype=np.int64).astype(object) for v in (xa, ya, xb, yb)]
    firsts = [int(c.sum()) for c in cols]
    products = [int((cols[i] * cols[j]).sum()) for i in range(4) for j in range(i, 4)]
    return np.array(firsts + products, dtype=object)


def _ratio_difference(sums, n: int) -> dict[str, float | int | None]:
    """``Ra - Rb`` of two ratios of sums over the same ``n`` games, with Student's t interval over the games'
    linearised differences ``(xa - Ra·ya)/mean(ya) - (xb - Rb·yb)/mean(yb)`` (the delta method), and the
    interval independent runs would give."""
    xa, ya, xb, yb = (int(v) for v in sums[:4])
    prod = dict(zip(((i, j) for i in range(4) for j in range(i, 4)), (int(v) for v in sums[4:])))
    if n < 1 or ya == 0 or yb == 0:
        return _difference([0] * 6, 0)
    ra, rb, ma, mb = xa / ya, xb / yb, ya / n, yb / n
    uu = (prod[0, 0] - 2 * ra * prod[0, 1] + ra * ra * prod[1, 1]) / (ma * ma)
    vv = (prod[2, 2] - 2 * rb * prod[2, 3] + rb * rb * prod[3, 3]) / (mb * mb)
    uv = (prod[0, 2] - rb * prod[0, 3] - ra * prod[1, 2] + ra * rb * prod[1, 3]) / (ma * mb)
    diff = ra - rb
    if n < MIN_SAMPLES:
        return _compared(n, diff, (math.nan, math.nan), (math.nan, math.nan))
    t = t95(n)
    half = t * math.sqrt(max(0.0, uu + vv - 2 * uv) / (n - 1) / n)
    unpaired_half = t * math.sqrt((max(0.0, uu) + max(0.0, vv)) / (n - 1) / n)
    return _compared(n, diff, (diff - half, diff + half), (diff - unpaired_half, diff + unpaired_half))


def _difference(sums, n: int, unit: int, rate: bool = False) -> dict[str, float | int | None]:
    """One metric's paired difference from its sums, and the interval independent runs would give.

    A rate of 0s and 1s (Σx² = Σx for integers) takes score intervals, as the strength profile does: paired,
    Tango's; independent, Newcombe's from each rate's Wilson interval. A t interval has width 0 when no game
    differs, which says the difference is known exactly.
    """
    d_mean, d_sd = mean_and_sd(sums[0], sums[1], n)
    a_mean, a_sd = mean_and_sd(sums[2], sums[3], n)
    b_mean, b_sd = mean_and_sd(sums[4], sums[5], n)
    if rate and n >= MIN_SAMPLES and sums[3] == sums[2] and sums[5] == sums[4]:
        up, down = (sums[1] + sums[0]) // 2, (sums[1] - sums[0]) // 2  # the games where only one side counts
        _, lo, hi = paired_score_interval(int(up), int(down), n)
        (a_lo, a_hi), (b_lo, b_hi) = wilson_interval(int(sums[2]), n), wilson_interval(int(sums[4]), n)
        unpaired = (d_mean - math.hypot(a_mean - a_lo, b_hi - b_mean), d_mean + math.hypot(a_hi - a_mean, b_mean - b_lo))
    else:
        lo, hi = mean_interval(d_mean, d_sd, n)
        half = t95(n) * math.sqrt((a_sd**2 + b_sd**2) / n) if n >= MIN_SAMPLES else math.nan
        unpaired = (d_mean - half, d_mean + half)
    return _compared(n, d_mean, (lo, hi), unpaired, unit)


def _compared(n: int, difference: float, paired: tuple[float, float], unpaired: tuple[float, float],
              unit: int = 1) -> dict[str, float | int | None]:
    """One metric's row of paired differences, in the metric's units (the values counted ``unit`` to one), and
    how many times tighter the paired interval is than the independent one; nan written as None."""
    (lo, hi), paired_half, unpaired_half = paired, (paired[1] - paired[0]) / 2, (unpaired[1] - unpaired[0]) / 2
    tighter = unpaired_half / paired_half if paired_half > 0 and unpaired_half > 0 else math.nan
    out = {
        "games": n,
        "difference": difference / unit,
        "difference_lo": lo / unit,
        "difference_hi": hi / unit,
        "unpaired_lo": unpaired[0] / unit,
        "unpaired_hi": unpaired[1] / unit,
        "tighter": tighter,
    }
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in out.items()}


def paired_table(records: Mapping[int, Path], configs: Mapping[int, Any], baselines: Mapping[int, int]) -> pd.DataFrame:
    """Every cell against its own baseline (``sim.sweep.baselines``): one row per (cell, metric), in cell order.

    A baseline has the cell's game, seed and player count, so game ``i`` is
    dealt alike in both whatever their seats (a rule may still change a
    deal: the games stay paired one for one, only less alike); ValueError
    otherwise. A cell that is its own baseline has no row.
    """
    rows = []
    for cell in sorted(records):
        base = baselines[cell]
        if cell == base:
            continue
        here, there = configs[cell], configs[base]
        if (here.game, here.seed, here.players) != (there.game, there.seed, there.players):
            raise ValueError(f"cell {cell:03d} ({here.game}, seed {here.seed}, {here.players} players) cannot be "
                             f"compared with cell {base:03d} ({there.game}, seed {there.seed}, {there.players} "
                             "players): a baseline has the cell's game, seed and player count, so that its games "
                             "are dealt alike")
        diffs = paired_differences(records[cell], here, records[base], there)
        for metric, d in diffs.items():
            rows.append({"cell": cell, "baseline": base, "metric": metric, **d})
    return pd.DataFrame(rows, columns=PAIRED_COLUMNS).astype(dict.fromkeys(PAIRED_COLUMNS[5:], float))


def cell_baselines(table: pd.DataFrame, paired: pd.DataFrame) -> dict[int, int | None]:
    """Each cell's baseline as the paired differences give it: the cell it is compared with; itself when
    other cells are compared with it; None when no other cell has its player count."""
    compared = {int(c): int(b) for c, b in paired[["cell", "baseline"]].drop_duplicates("cell").to_numpy()} \
        if len(paired) else {}
    bases = set(compared.values())
    return {int(c): compared.get(int(c), int(c) if int(c) in bases else None) for c in table["cell"]}


def hole_baselines(table: pd.DataFrame, paired: pd.DataFrame) -> dict[int, int | None]:
    """Each cell's baseline for its rule holes: a cell with its player count and its seats' policies.

    A rate that rises when other policies play the same rules is the
    players', not a hole in the rules, so a cell whose baseline
    (:func:`cell_baselines`) has other seats is compared instead with the
    cell of its player count and seats (``policy_s0`` …) that has its
    baseline's other parameters, failing that the first such cell; None
    when there is none.
    """
    bases = cell_baselines(table, paired)
    rows = table.set_index("cell", drop=False)
    seat_columns = [c for c in table.columns if re.fullmatch(r"policy_s\d+", c)]
    others = [c for c in table.columns if "." in c and not c.startswith("policies.") and c != "run.threads"]

    def values(cell: int, columns: Sequence[str]) -> tuple:
        return tuple(format_value(rows.loc[cell, c]) for c in columns)

    def setting(cell: int) -> tuple:
        return values(cell, ["players"] if "players" in table.columns else []), values(cell, seat_columns)

    cells = [int(c) for c in table["cell"]]
    found: dict[int, int | None] = {}
    for cell in cells:
        base = bases[cell]
        if base is None or base not in rows.index or setting(base) == setting(cell):
            found[cell] = base
            continue
        same = [c for c in cells if setting(c) == setting(cell)]
        like = [c for c in same if values(c, others) == values(base, others)]
        found[cell] = (like or same)[0]
    compared_with = {b for c, b in found.items() if b is not None and b != c}
    return {c: None if b == c and c not in compared_with else b for c, b in found.items()}


# --- text ----------------------------------------------------------------------


# A rule-hole rate is flagged when it is at least this much above the baseline's, and at least twice it.
HOLE_MARGIN = 0.01
# The terminal's width: no line of the printed sweep is longer.
TEXT_WIDTH = 120
# A parameter value longer than this (a list of tokens, a pay table) is shown by its number, #1, #2, ...
LONG_VALUE = 24


def rule_hole_flags(table: pd.DataFrame, paired: pd.DataFrame, game) -> list[dict[str, Any]]:
    """Cells where a rate of the game's ``rule_holes`` rose above their baseline's (:func:`hole_baselines`;
    ``paired_baseline`` the one their paired differences name) by at least :data:`HOLE_MARGIN` and to at least
    twice it."""
    rows = table.set_index("cell")
    paired_bases = cell_baselines(table, paired)
    flags = []
    for cell, base in hole_baselines(table, paired).items():
        if base is None or base == cell or base not in rows.index:
            continue
        row = rows.loc[cell]
        for metric, meaning in game.rule_holes.items():
            if metric not in rows.columns:
                continue
            rate, was = row[metric], rows.loc[base, metric]
            if is_missing(rate) or is_missing(was):
                continue
            if rate >= was + HOLE_MARGIN and rate >= 2 * was:
                flags.append({"cell": int(cell), "baseline": int(base), "metric": metric, "meaning": meaning,
                              "rate": float(rate), "baseline_rate": float(was),
                              "players": None if is_missing(row.get("players")) else int(row["players"]),
                              "paired_baseline": paired_bases[cell]})
    return flags


def uncompared_cells(table: pd.DataFrame, paired: pd.DataFrame) -> list[int]:
    """The cells that no other cell shares a player count with: they have no baseline."""
    return [cell for cell, base in cell_baselines(table, paired).items() if base is None]


def hole_uncompared_cells(table: pd.DataFrame, paired: pd.DataFrame) -> list[int]:
    """The cells that no other cell shares a player count and seats with: their rule holes are not compared."""
    return [cell for cell, base in hole_baselines(table, paired).items() if base is None]


def rule_hole_lines(flags: list[dict[str, Any]], game, uncompared: Sequence[int] = (),
                    cells: int | None = None) -> list[str]:
    """The flags of :func:`rule_hole_flags` as sentences (one saying so when there is none), then one naming
    the ``uncompared`` cells (:func:`hole_uncompared_cells`) of the ``cells`` in all."""
    if not game.rule_holes:
        return []
    watched = ", ".join(game.rule_holes)
    lines = []
    for f in flags:
        at = f" ({f['players']} players)" if f.get("players") is not None else ""
        # The paired baseline may have other seats: the rates are then those of the cell with the same ones.
        seats = "" if f.get("paired_baseline") in (None, f["baseline"]) else " with the same seats"
        lines.append(f"Rule hole: cell {f['cell']:03d}{at} has {f['metric']} {_pct(f['rate'])} against "
                     f"{_pct(f['baseline_rate'])} in cell {f['baseline']:03d}, its baseline{seats} ({f['meaning']}).")
    everyone = cells is not None and len(uncompared) >= cells
    if not flags and not everyone:
        lines.append(f"Rule holes ({watched}): no cell rises well above its baseline with the same player count "
                     "and seats.")
    if uncompared:
        names = _cell_list(uncompared)
        if everyone:
            lines.append(f"Rule holes ({watched}) are not compared: no two cells have the same player count and "
                         "seats, and a rate that moves with the seats' policies is the players', not a hole in "
                         "the rules.")
        else:
            whose = "its" if len(uncompared) == 1 else "their"
            lines.append(f"Rule holes of {names} are not compared: no other cell has {whose} player count and "
                         "seats, so there is no cell to compare them with.")
    return lines


def _cell_list(cells: Sequence[int]) -> str:
    names = [f"{c:03d}" for c in cells]
    if len(names) == 1:
        return f"cell {names[0]}"
    return f"cells {', '.join(names[:-1])} and {names[-1]}"


def sweep_text(
    table: pd.DataFrame,
    paired: pd.DataFrame,
    parameters: list[str],
    *,
    game,
    baseline: int,
    sort_by: str = "cell",
    width: int = TEXT_WIDTH,
) -> str:
    """The sweep of ``game`` as ``lvsim sweep`` prints it: the cells, the paired differences, the rule holes.

    No line is longer than ``width``: the cell, the parameters that differ, the games and the ``sort_by``
    column always show, the game's main metrics as far as they fit (the others named as left out); values
    too long for a column are numbered (#1, #2 …) and spelled out below it.
    """
    table = sort_cells(table, sort_by)
    by_cell = table.sort_values("cell", kind="stable")
    sort_column = sort_by.removeprefix("-")
    shared = shared_values(table, parameters, sort_by)
    shown = [p for p in parameters if p not in shared]

    columns: list[_Column] = [_Column("cell", [f"{int(c):03d}" for c in table["cell"]], keep=0)]
    legends: list[str] = []
    for p in shown:
        values = [format_value(v) for v in table[p]]
        if max(map(len, values), default=0) > LONG_VALUE:
            order = list(dict.fromkeys(format_value(v) for v in by_cell[p]))
            values = [f"#{order.index(v) + 1}" for v in values]
            legends += [f"{p} #{i + 1} = {v}" for i, v in enumerate(order)]
        columns.append(_Column(p, values, keep=0 if p == sort_column else 1, parameter=True))
    columns.append(_Column("games", [f"{int(g):,}" for g in table["games"]], keep=0))
    if sort_column == "label":
        columns.insert(1, _Column("label", [str(v) for v in table["label"]], keep=0, cut=True))
    metrics = dict(game.sweep_plotted)
    for m, (label, scale, signed) in metrics.items():
        header = game.paired_metrics.get(m, label) + (" (pp)" if signed else "")
        columns.append(_Column(header, [_metric_text(r, m, scale, signed) for _, r in table.iterrows()],
                               keep=0 if m == sort_column else 2))
    if sort_column not in {"cell", "games", "label", *shown, *metrics}:
        scale, signed = column_scale(sort_column, metrics)
        header = sort_column + (" (pp)" if signed else "")
        columns.insert(len(shown) + 2, _Column(header, [_metric_text(r, sort_column, scale, signed)
                                                        for _, r in table.iterrows()], keep=0))
    columns, left_out = _fitted(columns, width)

    order = "" if sort_by == "cell" else f", sorted by {sort_by}"
    lines = [f"{len(table)} cells, seed {format_value(table['seed'].iloc[0])}, 95% intervals{order}"]
    if shared:
        lines += _wrapped("Every cell has " + ", ".join(f"{p} = {v}" for p, v in shared.items()) + ".", width)
    lines.append("")
    lines += _aligned_rows(columns)
    if legends:
        lines += [""] + [line for text in legends for line in _wrapped(text, width)]
    dropped_parameters = [c.header for c in left_out if c.parameter]
    if dropped_parameters:
        lines += [""] + [line for _, r in by_cell.iterrows()
                         for line in _wrapped(f"cell {int(r['cell']):03d}: {r['label']}", width)]
    if left_out:
        names = ", ".join(c.header for c in left_out)
        lines += _wrapped(f"Left out to fit {width} columns: {names} (sweep.html and sweep.parquet have every "
                          "metric).", width)

    uncompared = uncompared_cells(by_cell, paired)
    if len(paired):
        lines += [""] + _wrapped(
            f"Paired differences of each cell from its baseline: cell {baseline:03d} at its player count, "
            f"whatever the seats, and at another player count the cell with that count and cell "
            f"{baseline:03d}'s other values (same deals; 95% interval, and how many times tighter it is than "
            "independent runs would give: below 1, pairing did not tighten it)", width)
        # The paired metrics of the sweep's figure, as the page shows them, each in its own unit, as far as
        # they fit: rates and the advantage in percentage points, counts (rounds played) as they are.
        wanted = {m: scale for m, (_, scale, _) in metrics.items() if m in game.paired_metrics}
        paired_columns = [_Column("cell", [], keep=0), _Column("baseline", [], keep=0)]
        paired_columns += [_Column(game.paired_metrics[m] + (" (pp)" if scale == 100 else ""), [],
                                   keep=0 if i == 0 else 2) for i, (m, scale) in enumerate(wanted.items())]
        for cell, group in paired.groupby("cell", sort=True):
            by_metric = group.set_index("metric")
            paired_columns[0].values.append(f"{cell:03d}")
            paired_columns[1].values.append(f"{int(group['baseline'].iloc[0]):03d}")
            for column, (m, scale) in zip(paired_columns[2:], wanted.items()):
                d = by_metric.loc[m]
                interval = fmt_ci(d["difference_lo"], d["difference_hi"], scale, signed=True)
                tighter = "" if is_missing(d["tighter"]) else f" x{ratio_text(d['tighter'])}"
                column.values.append(f"{fmt(d['difference'], scale, signed=True)} {interval}{tighter}")
        paired_columns, paired_left_out = _fitted(paired_columns, width)
        lines += _aligned_rows(paired_columns)
        if paired_left_out:
            lines += _wrapped(f"Left out to fit {width} columns: {', '.join(c.header for c in paired_left_out)} "
                              "(in sweep.html and paired.parquet).", width)
    if uncompared and len(uncompared) < len(by_cell):
        whose = "its" if len(uncompared) == 1 else "their"
        lines += _wrapped(f"No paired differences for {_cell_list(uncompared)}: no other cell has {whose} player "
                          "count.", width)
    holes = rule_hole_lines(rule_hole_flags(by_cell, paired, game), game, hole_uncompared_cells(by_cell, paired),
                            len(by_cell))
    if holes:
        lines += [""] + [line for text in holes for line in _wrapped(text, width)]
    return "\n".join(lines)


def shared_values(table: pd.DataFrame, parameters: Sequence[str], sort_by: str) -> dict[str, str]:
    """The parameters every cell has alike (said once, above a table, not as a column), but the sorted one."""
    by_cell = table.sort_values("cell", kind="stable")
    return {p: format_value(by_cell[p].iloc[0]) for p in parameters
            if p != sort_by.removeprefix("-") and by_cell[p].map(format_value).nunique() <= 1}


@dataclass
class _Column:
    """A column of the printed table: its heading and its cells as text, in row order."""

    header: str
    values: list[str]
    keep: int = 2  # 0: always shown; 1: a parameter, left out after the metrics; 2: a metric, left out first
    parameter: bool = False  # a parameter of the sweep (its heading may lose its rules. prefix)
    cut: bool = False  # text that may be cut short to fit

    @property
    def width(self) -> int:
        return max(len(self.header), *map(len, self.values)) if self.values else len(self.header)


def _fitted(columns: list[_Column], width: int) -> tuple[list[_Column], list[_Column]]:
    """The columns that fit in ``width``, and those left out. Parameter headings lose their
    ``rules.``/``policies.`` prefix first, then the metrics not always shown go from the right,
    then the parameters not always shown, and a text column is cut last."""

    def total(cs: list[_Column]) -> int:
        return sum(c.width for c in cs) + 2 * (len(cs) - 1)

    columns = list(columns)
    if total(columns) > width:
        short = {c.header: c.header.removeprefix("rules.").removeprefix("policies.") for c in columns if c.parameter}
        others = {c.header for c in columns if not c.parameter}
        if len(set(short.values())) == len(short) and not set(short.values()) & others:
            columns = [replace(c, header=short[c.header]) if c.parameter else c for c in columns]
    for c in columns:
        if total(columns) > width and c.cut:
            _cut(c, max(len(c.header), width // 3))
    left_out: list[_Column] = []
    for keep in (2, 1):
        for c in reversed(list(columns)):
            if total(columns) <= width:
                break
            if c.keep == keep:
                columns.remove(c)
                left_out.insert(0, c)
    for c in columns:
        excess = total(columns) - width
        if excess > 0 and c.cut:
            _cut(c, max(len(c.header), c.width - excess, 2))
    return columns, left_out


def _cut(column: _Column, width: int) -> None:
    column.values = [v if len(v) <= width else v[:width - 1] + "…" for v in column.values]


def _aligned_rows(columns: list[_Column]) -> list[str]:
    """The columns' headings, then their rows, each value padded to its column's width."""
    widths = [c.width for c in columns]
    rows = [[c.header for c in columns], *zip(*(c.values for c in columns))]
    return ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in rows]


def _wrapped(text: str, width: int) -> list[str]:
    """A sentence as lines of at most ``width`` characters, the following lines indented."""
    return textwrap.wrap(text, width=width, subsequent_indent="  ", break_long_words=True,
                         break_on_hyphens=False) or [""]


def _metric_text(row: pd.Series, metric: str, scale: float, signed: bool) -> str:
    """A metric of a cell as the table prints it: its value, then its interval when it has one."""
    value = row.get(metric, math.nan)
    lo, hi = row.get(f"{metric}_lo", math.nan), row.get(f"{metric}_hi", math.nan)
    if isinstance(value, str):
        return value
    if signed:
        text, interval = fmt(value, signed=True), fmt_ci(lo, hi, signed=True)
    elif scale == 100:
        text, interval = _pct(value), fmt_ci(lo, hi)
    else:
        text = format_value(value) if is_missing(value) else _number_text(value)
        interval = "" if is_missing(lo) or is_missing(hi) else f"[{_number_text(lo)}, {_number_text(hi)}]"
    return f"{text} {interval}".strip()


def _number_text(x) -> str:
    if isinstance(x, (bool, np.bool_)):
        return format_value(x)
    x = float(x)
    return f"{x:,.0f}" if abs(x) >= 1000 or float(x).is_integer() else f"{x:.2f}" if abs(x) >= 1 else f"{x:.3g}"


def column_scale(column: str, metrics: Mapping[str, tuple[str, float, bool]]) -> tuple[float, bool]:
    """How a column of the sweep table reads: (100, True) in percentage points, (100, False) in percent,
    (1, False) as a number. Known from the game's plotted metrics, else from the column's name."""
    name = re.sub(r"_(lo|hi)$", "", column)
    if name in metrics:
        _, scale, signed = metrics[name]
        return scale, signed
    words = set(name.split("_"))
    if "advantage" in words:
        return 100, True
    if words & {"rate", "share"} or name.startswith("skill_gap_"):
        return 100, False
    return 1, False


def format_value(v) -> str:
    """A parameter value as the sweep file spells it."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v)


def is_missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def fmt(x, scale: float = 100, signed: bool = False) -> str:
    """A value as the tables print it: times ``scale``, two decimals, with its sign when ``signed``."""
    if is_missing(x):
        return "n/a"
    return f"{x * scale:+.2f}" if signed else f"{x * scale:.2f}"


def fmt_ci(lo, hi, scale: float = 100, signed: bool = False) -> str:
    return "" if is_missing(lo) or is_missing(hi) else f"[{fmt(lo, scale, signed)}, {fmt(hi, scale, signed)}]"


def _pct(x) -> str:
    return "n/a" if is_missing(x) else fmt(x) + "%"


def ratio_text(x) -> str:
    """A ratio of interval widths to two decimals: one below 1 (pairing widened the interval) is cut, not
    rounded up, so that it never reads as 1.00."""
    if is_missing(x):
        return "n/a"
    return f"{math.floor(x * 100) / 100:.2f}" if x < 1 else f"{x:.2f}"
