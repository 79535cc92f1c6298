"""The tally, summary, text table and per-game values of a game that writes none of its own, derived from the
metrics it declares with their value in each game (``sim.metrics.Metric.of_games``).

A game whose package has no ``summary`` module gets these from ``sim.game.Game``, each called with the game.
Besides the metrics every game has (win share by seat, first-player and worst-seat advantage, tie rate:
``analysis.common``), each declared metric with ``of_games`` is tallied by its interval:

* ``WILSON`` (a rate of games): its value is 1 in a game it counts, else 0; the tally keeps the count;
* ``STUDENT_T`` (a mean over games): one integer per game; the tally keeps its sum and sum of squares;
* ``CLUSTER`` (a ratio of sums, games as clusters): (numerators, denominators), integers per game; the tally
  keeps the five sums of :func:`analysis.stats.cluster_ratio_interval`;

and, declared ``per=SEAT``, one value per game and seat, tallied seat by seat. Sums of integers merge exactly, so a
summary does not depend on how its games were split into chunks, threads or workers.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

import numpy as np

from analysis.common import (
    first_player_values, json_ready, num, num_ci, pct, pct_ci, played_line, run_fields, seat_fields, seat_lines,
    share, skill_gap_lines, strength_lines, table_row, tie_values, title_line, win_share_metrics, win_unit,
)
from analysis.stats import cluster_ratio_interval, mean_and_sd, mean_interval, wilson_interval
from analysis.tally import READ_BATCH_GAMES, MergeableTally, tally_of_records_file, win_unit_sums
from sim.errors import GameError, shown
from sim.metrics import CLUSTER, FIRST_PLAYER_ADVANTAGE, SEAT, STUDENT_T, TIE_RATE, WILSON, Metric

# How many integer sums a metric keeps, by its interval.
SUMS = {WILSON: 1, STUDENT_T: 2, CLUSTER: 5}


def tallied(metric: Metric) -> bool:
    """Whether the derived tally keeps ``metric``: it declares its value in each game."""
    return metric.of_games is not None


@dataclasses.dataclass(eq=False)
class DeclaredTally(MergeableTally):
    """The tally of a game without a summary of its own: the players and the game's other sizes (its ``sizes``),
    the win units every tally has, and the integer sums of each tallied metric, in the order the game declares
    them (:data:`SUMS`; seat by seat for a per-seat metric)."""

    SHAPE = ("players", "sizes", "size_names")
    WHAT = "tally of a game's declared metrics"

    players: int
    sizes: tuple[int, ...]
    size_names: tuple[str, ...]  # what each of the sizes counts: ("rounds",)
    games: int
    win_units: tuple[int, ...]
    win_units_sq: tuple[int, ...]
    win_cross: tuple[int, ...]
    tie_games: int
    sums: tuple[tuple[int, ...], ...]

    @property
    def report(self) -> "DeclaredTally":
        """The report needs nothing beyond the tally itself (``tally.json``)."""
        return self

    def _shape_text(self) -> str:
        return " x ".join(f"{n} {name}" for n, name in zip((self.players, *self.sizes), ("players", *self.size_names)))


def tally_of(game, rec: Mapping[str, np.ndarray]) -> DeclaredTally:
    """The tally of ``game``'s records ``rec``."""
    win = np.asarray(rec["win_share"])
    games, players = win.shape
    units = np.rint(win * win_unit(players)).astype(np.int64)
    return DeclaredTally(
        players=players, sizes=tuple(_axis(game.records, rec, axis) for _, axis in game.record_sizes),
        size_names=tuple(name for name, _ in game.record_sizes), games=games, **win_unit_sums(units),
        sums=tuple(_sums(game, m, rec, players) for m in tallied_metrics(game)),
    )


def tallied_metrics(game) -> tuple[Metric, ...]:
    """The metrics of ``game`` its tally keeps: those declaring their value in each game."""
    return tuple(m for m in game.metrics if tallied(m))


def of_records_file(game, path, rules, batch_games: int = READ_BATCH_GAMES) -> DeclaredTally:
    """The tally of every game in a records file of ``rules``, read in batches."""
    return tally_of_records_file(lambda rec: tally_of(game, rec), game.records, game.records.fields, path, rules,
                                 batch_games)


def _axis(layout, rec: Mapping[str, np.ndarray], letter: str) -> int:
    """The length of axis ``letter`` of a batch of records: the first field it sizes says it."""
    for name, (dims, _, _) in layout.fields.items():
        if letter in dims:
            return int(np.shape(rec[name])[1 + dims.index(letter)])
    raise ValueError(f"no record field has an axis {letter!r}")


def values_of(game, metric: Metric, rec: Mapping[str, np.ndarray]) -> np.ndarray | tuple[np.ndarray, ...]:
    """``metric.of_games(rec)`` as integers: one a game (a column per seat for a per-seat metric), or a tuple of
    such for a ratio. What the game's declaration gets wrong (it raises, gives another shape, or a fraction a
    sum of integers would cut) is a GameError naming the metric and where its of_games is written."""
    win = np.asarray(rec["win_share"])
    shape = win.shape if metric.per == SEAT else win.shape[:1]
    said = f"{game.id}: metric {metric.name}{_written_at(metric.of_games)}"
    try:
        value = metric.of_games(rec)
    except Exception as err:  # noqa: BLE001  (whatever it raises, the declaration is at fault)
        raise GameError(f"{said}: its of_games raised {type(err).__name__}: {err}") from err
    if metric.interval == CLUSTER and not (isinstance(value, tuple) and len(value) == 2):
        raise GameError(f"{said}: a ratio of sums ({CLUSTER}) gives (numerators, denominators) in each game, not "
                        f"{type(value).__name__}")
    out = []
    for part in value if isinstance(value, tuple) else (value,):
        v = np.asarray(part)
        if v.shape != shape:
            raise GameError(f"{said}: its of_games gives an array of shape {v.shape} for {shape[0]:,} games; one "
                            f"value a game{' and seat' if metric.per == SEAT else ''} is of shape {shape}")
        if v.dtype.kind not in "biu":
            whole = np.isfinite(v) & (v == np.trunc(v)) if v.dtype.kind == "f" else np.zeros(v.shape, bool)
            if not whole.all():
                raise GameError(f"{said}: its of_games gives {shown(v[~whole].ravel()[0].item())}, but a value "
                                "in each game is a whole number, summed exactly: count in smaller units (half "
                                "points as points x 2), or declare a ratio")
        out.append(v.astype(np.int64))
    return tuple(out) if isinstance(value, tuple) else out[0]


def _written_at(function) -> str:
    """`` (<file>, line <n>)``: where a function is written, when Python says."""
    code = getattr(function, "__code__", None)
    return f" ({code.co_filename}, line {code.co_firstlineno})" if code is not None else ""


def _sums(game, metric: Metric, rec: Mapping[str, np.ndarray], players: int) -> tuple[int, ...]:
    """The integer sums the tally keeps of ``metric`` over a batch of records (seat by seat for a per-seat one)."""
    value = values_of(game, metric, rec)
    if metric.interval == CLUSTER:
        x, y = value
        parts = [x, y, x * x, x * y, y * y]
    else:
        v = value
        if metric.interval == WILSON and not np.isin(v, (0, 1)).all():
            raise ValueError(f"metric {metric.name}: a rate of games is 1 in a game it counts and 0 in the others, "
                             f"but its of_games gives {sorted(set(v.ravel().tolist()) - {0, 1})[:3]}")
        parts = [v] if metric.interval == WILSON else [v, v * v]
    sums = [p.sum(axis=0) for p in parts]
    if metric.per == SEAT:
        return tuple(int(s[seat]) for seat in range(players) for s in sums)
    return tuple(int(s) for s in sums)


def value_and_interval(metric: Metric, sums: tuple[int, ...], games: int) -> tuple[float, list[float]]:
    """A tallied metric over ``games`` games (one seat's sums for a per-seat one) and its 95% interval."""
    if metric.interval == WILSON:
        return share(sums[0], games), list(wilson_interval(sums[0], games))
    if metric.interval == STUDENT_T:
        mean, sd = mean_and_sd(sums[0], sums[1], games)
        return mean, list(mean_interval(mean, sd, games))
    mean, low, high = cluster_ratio_interval(*sums, games)
    return mean, [low, high]


def metric_fields(metric: Metric, sums: tuple[int, ...], games: int, players: int) -> dict[str, Any]:
    """``{name: value, name_ci: [low, high]}`` of one tallied metric (lists by seat for a per-seat one)."""
    if metric.per != SEAT:
        value, ci = value_and_interval(metric, sums, games)
        return {metric.name: value, f"{metric.name}_ci": ci}
    k = SUMS[metric.interval]
    seats = [value_and_interval(metric, sums[s * k:(s + 1) * k], games) for s in range(players)]
    return {metric.name: [v for v, _ in seats], f"{metric.name}_ci": [ci for _, ci in seats]}


def summarize(game, tally: DeclaredTally, *, seed: int | None = None, seconds: float | None = None,
              policies=None) -> dict[str, Any]:
    """The summary of a run: the run's set-up, the seat metrics, the tie rate, then each tallied metric with its
    95% interval, in the order the game declares them."""
    metrics = tallied_metrics(game)
    if len(tally.sums) != len(metrics):
        raise ValueError(f"the tally holds {len(tally.sums)} metrics, but {game.title} declares {len(metrics)}")
    n = tally.games
    headline = win_share_metrics(tally.win_units, tally.win_units_sq, tally.win_unit, n, tally.tie_games)
    out = {
        **run_fields(game=game.id, title=game.title, players=tally.players, games=n, seed=seed, seconds=seconds,
                     policies=policies, **{name: size for (name, _), size in zip(game.record_sizes, tally.sizes)}),
        **seat_fields(headline),
        "tie_rate": headline["tie_rate"],
        "tie_rate_ci": headline["tie_rate_ci"],
    }
    for m, sums in zip(metrics, tally.sums):
        out.update(metric_fields(m, sums, n, tally.players))
    return json_ready(out)


def summary_table(game, summary: Mapping[str, Any]) -> str:
    """The summary as the text ``lvsim run`` prints: the seats, a row for each metric of one value, the skill gap
    and strength profile when the run played them."""
    lines = [title_line(game.title, summary), "", *seat_lines(summary), "", "Games"]
    shown = {"pct": (pct, pct_ci), "num": (num, num_ci)}
    for m in game.metrics:
        if m.name == TIE_RATE.name or (tallied(m) and m.per != SEAT):
            value, interval = shown.get(m.style, shown["num"])
            lines.append(table_row(m.title, value(summary[m.name]), interval(summary.get(f"{m.name}_ci"))))
    lines += skill_gap_lines(summary)
    lines += strength_lines(summary, [m for m in game.metrics if m.headline])
    lines += ["", played_line(summary)]
    return "\n".join(lines)


def paired_values(game, rec: Mapping[str, np.ndarray], players: int, unit: int) -> dict[str, np.ndarray]:
    """The value in each game, as integers, of each metric the game declares ``paired``: the first player's
    advantage (in ``unit`` units per win), the tie rate, and its own (``of_games``: one number per game). A
    paired ratio of sums is left to :func:`ratio_values`: a sweep compares it as that ratio."""
    win = np.asarray(rec["win_share"])
    common = {FIRST_PLAYER_ADVANTAGE.name: lambda: first_player_values(win, unit, players),
              TIE_RATE.name: lambda: tie_values(win)}
    out = {}
    for m in game.metrics:
        if m.paired and m.name in common:
            out[m.name] = common[m.name]()
        elif m.paired:
            if m.of_games is None:
                raise ValueError(f"{game.id}: metric {m.name} is paired, so a sweep compares its value in each "
                                 "game: the metric declares it (of_games)")
            value = values_of(game, m, rec)
            if not isinstance(value, tuple):
                out[m.name] = value
    return out


def ratio_values(game, rec: Mapping[str, np.ndarray], players: int) -> dict[str, tuple[np.ndarray, ...]]:
    """Each metric of one value whose ``of_games`` gives a ratio of sums: its (numerators, denominators) in each
    game, as integers (the strength profile and ``lvsim confirm`` judge it on them)."""
    out = {}
    for m in game.metrics:
        if m.of_games is not None and m.per != SEAT:
            value = values_of(game, m, rec)
            if isinstance(value, tuple):
                out[m.name] = value
    return out
