"""Everything the report shows, as mergeable integer statistics of chunks of games.

A :class:`ReportTally` is to the report what ``analysis.lasvegan.summary.Tally`` is
to the summary: counts, integer sums, cross sums and integer histograms of
one chunk of game records, which merge exactly. A run tallies each chunk as
it is played, so its report needs memory bounded by the chunk size whatever
the number of games, and never reads the records back. ``lvsim report`` on
a results directory without a stored tally rebuilds one from the records
file in bounded batches (:func:`tally_records_file`).

Nothing here is an approximation of the records: the tables built from a
tally (``analysis.lasvegan.tables``) equal those built from the records themselves,
percentiles included (from integer histograms), and the intervals use the
same formulas. The cluster-robust intervals need, per cluster (game), the
sums ``x`` and counts ``y`` only through ``Σx, Σy, Σx², Σxy, Σy²``, which
are kept as exact integers (:class:`Moments`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np
from numba import njit

from analysis.stats import MIN_SAMPLES, FirstGames, IntHistogram, t95  # noqa: F401  (FirstGames: kept importable here)
from sim.lasvegan import enums as E
from sim.lasvegan.records import RECORD_FIELDS, empty_records, field_columns, field_shape

# The record fields a report tally is made of.
TALLY_FIELDS = (
    "game", "final_cabbages", "win_share", "rounds_played", "elim_round", "seven_no_slot", "zero_playing_on",
    "round_leader", "delta", "amount", "shortfall", "machine", "machine_token", "machine_value",
    "golden_side", "golden_value",
)

# Record batches read back from a records file hold at most this many games.
READ_BATCH_GAMES = 65_536



def merge_tallies(a, b):
    """Two tallies of the same dataclass (players and rounds alike) added field by field, exactly.

    Integers and arrays add; histograms, moments and nested tallies merge;
    lists of them merge item by item.
    """
    if (a.players, a.rounds) != (b.players, b.rounds):
        raise ValueError(
            f"cannot merge tallies of {a.players} players x {a.rounds} rounds "
            f"and {b.players} players x {b.rounds} rounds"
        )
    merged = {}
    for f in fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.name in ("players", "rounds"):
            merged[f.name] = x
        elif isinstance(x, list):
            merged[f.name] = [u.merge(v) for u, v in zip(x, y)]
        elif hasattr(x, "merge"):
            merged[f.name] = x.merge(y)
        else:
            merged[f.name] = x + y
    return type(a)(**merged)


def win_unit(players: int) -> int:
    """1/k of a win is a whole number of these units for every k <= players."""
    return math.lcm(*range(1, players + 1))


@dataclass(eq=False)
class Moments:
    """``Σx, Σy, Σx², Σxy, Σy²`` over clusters, for the ratio ``Σx / Σy`` and its interval.

    Arrays of any shape hold one set of moments per cell; a cluster with
    ``y = 0`` still counts as a cluster (it enters the standard error).
    """

    clusters: int
    x: np.ndarray
    y: np.ndarray
    xx: np.ndarray
    xy: np.ndarray
    yy: np.ndarray

    @classmethod
    def of(cls, x: np.ndarray, y: np.ndarray) -> "Moments":
        """Moments of clusters along axis 0 (``x`` and ``y`` broadcast to one shape)."""
        x = np.asarray(x, dtype=np.int64)
        y = np.broadcast_to(np.asarray(y, dtype=np.int64), x.shape) if x.ndim else np.asarray(y, dtype=np.int64)
        return cls(len(x), x.sum(axis=0), y.sum(axis=0), (x * x).sum(axis=0), (x * y).sum(axis=0),
                   (y * y).sum(axis=0))

    def __eq__(self, other) -> bool:
        if not isinstance(other, Moments):
            return NotImplemented
        return self.to_json() == other.to_json()

    def merge(self, other: "Moments") -> "Moments":
        return Moments(self.clusters + other.clusters, *(getattr(self, k) + getattr(other, k)
                                                        for k in ("x", "y", "xx", "xy", "yy")))

    def interval(self, index=(), z: float | None = None) -> tuple[float, float, float]:
        """``(mean, low, high)`` of cell ``index``, as ``analysis.stats.ratio_interval`` gives it.

        The multiplier is Student's t over the clusters unless ``z`` is given.
        """
        g = self.clusters
        X, Y = int(self.x[index]), int(self.y[index])
        if g == 0 or Y == 0:
            return math.nan, math.nan, math.nan
        mean = X / Y
        if g < MIN_SAMPLES:
            return mean, math.nan, math.nan
        z = t95(g) if z is None else z
        # Σ (x - m·y)² · Y² in exact integers, m = X / Y.
        residual_y2 = Y * Y * int(self.xx[index]) - 2 * X * Y * int(self.xy[index]) + X * X * int(self.yy[index])
        se = math.sqrt(residual_y2 / (Y * Y) * g / (g - 1)) / Y
        return mean, mean - z * se, mean + z * se

    def to_json(self) -> dict:
        return {"clusters": self.clusters, **{k: getattr(self, k).tolist() for k in ("x", "y", "xx", "xy", "yy")}}

    @classmethod
    def from_json(cls, data: Mapping) -> "Moments":
        return cls(int(data["clusters"]), *(np.asarray(data[k], dtype=np.int64) for k in ("x", "y", "xx", "xy", "yy")))


@dataclass(eq=False)
class ReportTally:
    """Sufficient statistics of the report's tables for a batch of games; ``merge`` adds batches exactly.

    Win shares are in units of 1/lcm(1..players) of a win, so every number
    is an integer. Seats and positions are axes of the arrays; ``R`` rounds,
    ``P`` players, ``K`` machine kinds.
    """

    players: int
    rounds: int
    games: int
    win_units: np.ndarray  # [P]
    win_cross: np.ndarray  # [P, P]: Σ u_s · u_t, so any group of seats has its variance
    last_leader_units: np.ndarray  # [position]: win units of the seat at that place from the last round's leader
    last_leader_units_sq: np.ndarray  # [position]
    leader_change: Moments  # [R, position]: cabbage change by place from the round's leader; y = 1 if played
    end_counts: np.ndarray  # [R, reason]: games by the round they ended in and why
    lowest_change: list[IntHistogram]  # [P]: lowest cumulative cabbage change over the game (0 = the start)
    swing_seat: list[IntHistogram]  # [P]: cabbage change in one played round
    swing_ratio: Moments  # [P]: x = the game's summed change, y = rounds played
    final_seat: list[IntHistogram]  # [P]: final cabbages
    trajectory: list[IntHistogram]  # [R + 1]: cumulative change of a seat (all seats pooled) after each round
    drivers: Moments  # [3 measures, K]: gains / all gains, losses / all losses, amount / seat-rounds
    token_values: list[IntHistogram]  # [colour, points]: face values of tokens on ordinary machines
    token_empty: np.ndarray  # [colour, points]: played machines left without a token
    golden_by_side: list[IntHistogram]  # [MIN_SIDE, MAX_SIDE, not placed]: face value of the golden token
    shortfall_games: int
    shortfall_rounds: int
    shortfall_cabbages: int
    seven_no_slot_games: int
    seven_no_slot_events: int
    zero_playing_on_games: int
    zero_playing_on_events: int
    by_length: FirstGames  # key (rounds played, someone ran out, cabbages moved)
    by_elimination: FirstGames  # key (elimination round,)
    abs_swing: Moments  # x = a game's summed |cabbage change|, y = its seat-rounds played

    @classmethod
    def of(cls, rec: Mapping[str, np.ndarray]) -> "ReportTally":
        """The tally of one batch of game records (see ``sim.lasvegan.records``)."""
        games, rounds, players = rec["delta"].shape
        game = rec["game"].astype(np.int64)
        units = np.rint(rec["win_share"] * win_unit(players)).astype(np.int64)
        rounds_played = rec["rounds_played"].astype(np.int64)
        elim = rec["elim_round"].astype(np.int64)
        (last_units, last_units_sq, leader_x, leader_xx, leader_n, end_counts, lowest_low, lowest_counts, swing_low,
         swing_counts, final_low, final_counts, path_low, path_counts, swing, drivers, token_counts, token_empty,
         golden_counts, short, moved) = _tally_pass_nb(
            rec["delta"], rounds_played, rec["round_leader"], units, elim, rec["amount"], rec["machine"],
            rec["machine_token"], rec["machine_value"], rec["golden_side"], rec["golden_value"], rec["shortfall"],
            rec["final_cabbages"], E.POINTS_BASE,
        )
        seven = rec["seven_no_slot"].astype(np.int64)
        zero = rec["zero_playing_on"].astype(np.int64)
        ran_out = (elim > 0).astype(np.int64)
        return cls(
            players=players,
            rounds=rounds,
            games=games,
            win_units=units.sum(axis=0),
            win_cross=units.T @ units,
            last_leader_units=last_units,
            last_leader_units_sq=last_units_sq,
            # y is 1 for each game that played the round: Σxy = Σx and Σy² = Σy.
            leader_change=Moments(games, leader_x, leader_n, leader_xx, leader_x.copy(), leader_n.copy()),
            end_counts=end_counts,
            lowest_change=[_trimmed(lowest_counts[s], lowest_low) for s in range(players)],
            swing_seat=[_trimmed(swing_counts[s], swing_low) for s in range(players)],
            swing_ratio=Moments(games, *swing),
            final_seat=[_trimmed(final_counts[s], final_low) for s in range(players)],
            trajectory=[IntHistogram(np.array([games * players], dtype=np.int64), 0) if games else IntHistogram()]
            + [_trimmed(path_counts[r], path_low) for r in range(rounds)],
            drivers=Moments(games, *drivers),
            token_values=[_histogram_of_counts(token_counts[k]) for k in range(2)],
            token_empty=token_empty,
            golden_by_side=[_histogram_of_counts(golden_counts[i]) for i in range(3)],
            shortfall_games=int(short[0]),
            shortfall_rounds=int(short[1]),
            shortfall_cabbages=int(short[2]),
            seven_no_slot_games=int(np.count_nonzero(seven > 0)),
            seven_no_slot_events=int(seven.sum()),
            zero_playing_on_games=int(np.count_nonzero(zero > 0)),
            zero_playing_on_events=int(zero.sum()),
            by_length=FirstGames.of(np.stack([rounds_played, ran_out, moved], axis=1), game),
            by_elimination=FirstGames.of(elim[:, None], game),
            abs_swing=Moments.of(moved, rounds_played * players),
        )

    @classmethod
    def empty(cls, players: int, rounds: int) -> "ReportTally":
        return cls.of(empty_records(0, players, rounds))

    def merge(self, other: "ReportTally") -> "ReportTally":
        """The tally of both batches together."""
        return merge_tallies(self, other)

    def __eq__(self, other) -> bool:
        if not isinstance(other, ReportTally):
            return NotImplemented
        return self.to_json() == other.to_json()

    # --- storage: the run writes its tally beside its records -------------------------

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, list):
                out[f.name] = [_histogram_json(h) for h in value]
            elif isinstance(value, IntHistogram):
                out[f.name] = _histogram_json(value)
            elif isinstance(value, np.ndarray):
                out[f.name] = value.tolist()
            elif hasattr(value, "to_json"):
                out[f.name] = value.to_json()
            else:
                out[f.name] = int(value)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ReportTally":
        """The tally ``to_json`` wrote; a malformed one raises ``ValueError``."""
        try:
            values = {}
            for f in fields(cls):
                raw = data[f.name]
                sample = _FIELD_KINDS.get(f.name, "int")
                if sample == "histograms":
                    values[f.name] = [_histogram_from_json(h) for h in raw]
                elif sample == "array":
                    values[f.name] = np.asarray(raw, dtype=np.int64)
                elif sample == "moments":
                    values[f.name] = Moments.from_json(raw)
                elif sample == "first":
                    values[f.name] = FirstGames.from_json(raw)
                else:
                    values[f.name] = int(raw)
            return cls(**values)
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"not a report tally ({type(err).__name__}: {err})") from None


_FIELD_KINDS = {
    "win_units": "array", "win_cross": "array", "last_leader_units": "array", "last_leader_units_sq": "array",
    "leader_change": "moments", "end_counts": "array", "lowest_change": "histograms", "swing_seat": "histograms",
    "swing_ratio": "moments", "final_seat": "histograms", "trajectory": "histograms", "drivers": "moments",
    "token_values": "histograms", "token_empty": "array", "golden_by_side": "histograms",
    "by_length": "first", "by_elimination": "first", "abs_swing": "moments",
}


def _histogram_json(h: IntHistogram) -> dict:
    return {"offset": h.offset, "counts": h.counts.tolist()}


def _histogram_from_json(data: Mapping) -> IntHistogram:
    return IntHistogram(np.asarray(data["counts"], dtype=np.int64), int(data["offset"]))


def write_tally(path: Path, tally: ReportTally) -> None:
    path.write_text(json.dumps(tally.to_json(), separators=(",", ":")) + "\n", encoding="utf-8")


def read_tally(path: Path) -> ReportTally:
    return ReportTally.from_json(json.loads(path.read_text(encoding="utf-8")))


# --- the per-chunk pass, jitted: one walk over the games instead of dozens of array passes ------

VALUE_OFFSET = 128  # token and golden face values are int8: counts[v + VALUE_OFFSET]


# nogil: a run tallies one chunk while the next one plays.
@njit(cache=True, nogil=True)
def _tally_pass_nb(delta, rounds_played, round_leader, units, elim, amount, machine, token, value, golden_side,
                   golden_value, shortfall, final, points_base):
    """Every count, sum and histogram of a chunk in two walks over its games.

    The first walk finds the range of each histogram's values, the second
    fills them; the histograms come back as ``(low, counts[row, value - low])``
    with one row per seat (per round for the path), all rows on one range.
    """
    games, rounds, players = delta.shape
    kinds = amount.shape[2]
    big = np.int64(1) << 62
    swing_lo, swing_hi, final_lo, final_hi, path_lo, path_hi = big, -big, big, -big, big, -big
    for g in range(games):
        played = rounds_played[g]
        for s in range(players):
            f = np.int64(final[g, s])
            final_lo = min(final_lo, f)
            final_hi = max(final_hi, f)
            c = np.int64(0)
            for r in range(rounds):
                d = np.int64(delta[g, r, s])
                c += d
                path_lo = min(path_lo, c)
                path_hi = max(path_hi, c)
                if r < played:
                    swing_lo = min(swing_lo, d)
                    swing_hi = max(swing_hi, d)
    # The lowest change of a game counts its start (0), so it lies in [min(path, 0), 0].
    lowest_lo = min(path_lo, 0) if games else 0
    lowest_counts = np.zeros((players, 1 - lowest_lo if games else 0), np.int64)
    swing_counts = np.zeros((players, max(swing_hi - swing_lo + 1, 0)), np.int64)
    final_counts = np.zeros((players, max(final_hi - final_lo + 1, 0)), np.int64)
    path_counts = np.zeros((rounds, max(path_hi - path_lo + 1, 0)), np.int64)

    last_units = np.zeros(players, np.int64)
    last_units_sq = np.zeros(players, np.int64)
    leader_x = np.zeros((rounds, players), np.int64)
    leader_xx = np.zeros((rounds, players), np.int64)
    leader_n = np.zeros((rounds, players), np.int64)
    end_counts = np.zeros((rounds, 3), np.int64)
    cumulative = np.zeros(players, np.int64)
    lowest = np.zeros(players, np.int64)
    swing = np.zeros((5, players), np.int64)  # Σx, Σy, Σx², Σxy, Σy² with x = summed change, y = rounds played
    drivers = np.zeros((5, 3, kinds), np.int64)
    token_counts = np.zeros((2, 256), np.int64)
    token_empty = np.zeros(2, np.int64)
    golden_counts = np.zeros((3, 256), np.int64)
    short = np.zeros(3, np.int64)  # games, rounds, cabbages
    moved = np.zeros(games, np.int64)
    gains = np.zeros(kinds, np.int64)
    losses = np.zeros(kinds, np.int64)
    for g in range(games):
        played = rounds_played[g]
        # Who led the last round played; seat 0 in a game of no rounds.
        last = round_leader[g, played - 1] if played > 0 else 0
        for p in range(players):
            seat = last + p if last + p < players else last + p - players
            u = units[g, seat]
            last_units[p] += u
            last_units_sq[p] += u * u
            final_counts[p, np.int64(final[g, p]) - final_lo] += 1
        reason = 2 if elim[g] == 0 else (0 if elim[g] == played else 1)
        if played > 0:
            end_counts[played - 1, reason] += 1
        short_game = False
        cumulative[:] = 0
        lowest[:] = 0
        for r in range(rounds):
            in_play = r < played
            leader = round_leader[g, r] if in_play else 0
            for s in range(players):
                d = np.int64(delta[g, r, s])
                cumulative[s] += d
                path_counts[r, cumulative[s] - path_lo] += 1
                if cumulative[s] < lowest[s]:
                    lowest[s] = cumulative[s]
                moved[g] += abs(d)
                if in_play:
                    swing_counts[s, d - swing_lo] += 1
            if in_play:
                for p in range(players):
                    seat = leader + p if leader + p < players else leader + p - players
                    d = np.int64(delta[g, r, seat])
                    leader_x[r, p] += d
                    leader_xx[r, p] += d * d
                    leader_n[r, p] += 1
                for m in range(machine.shape[2]):
                    kind = 0 if machine[g, r, m] < points_base else 1
                    if token[g, r, m] >= 0:
                        token_counts[kind, value[g, r, m] + 128] += 1
                    else:
                        token_empty[kind] += 1
                side = golden_side[g, r]
                # Rows MIN_SIDE (0), MAX_SIDE (1), then NO_SIDE (-1) last.
                golden_counts[side if side >= 0 else 2, golden_value[g, r] + 128] += 1
                if shortfall[g, r] > 0:
                    short_game = True
                    short[1] += 1
                    short[2] += shortfall[g, r]
        if short_game:
            short[0] += 1
        for s in range(players):
            lowest_counts[s, lowest[s] - lowest_lo] += 1
            x = cumulative[s]
            y = np.int64(played)
            swing[0, s] += x
            swing[1, s] += y
            swing[2, s] += x * x
            swing[3, s] += x * y
            swing[4, s] += y * y
        gains[:] = 0
        losses[:] = 0
        for r in range(min(played, rounds)):
            for k in range(kinds):
                for s in range(players):
                    a = np.int64(amount[g, r, k, s])
                    if a > 0:
                        gains[k] += a
                    else:
                        losses[k] -= a
        all_gains = gains.sum()
        all_losses = losses.sum()
        seat_rounds = np.int64(played) * players
        for k in range(kinds):
            for measure in range(3):
                if measure == 0:
                    x, y = gains[k], all_gains
                elif measure == 1:
                    x, y = losses[k], all_losses
                else:
                    x, y = gains[k] - losses[k], seat_rounds
                drivers[0, measure, k] += x
                drivers[1, measure, k] += y
                drivers[2, measure, k] += x * x
                drivers[3, measure, k] += x * y
                drivers[4, measure, k] += y * y
    return (last_units, last_units_sq, leader_x, leader_xx, leader_n, end_counts, lowest_lo, lowest_counts,
            swing_lo, swing_counts, final_lo, final_counts, path_lo, path_counts, swing, drivers, token_counts,
            token_empty, golden_counts, short, moved)


def _trimmed(counts: np.ndarray, low: int) -> IntHistogram:
    """The ``IntHistogram`` of counts of the values ``low, low + 1, ...``, cut to the values that occur."""
    nonzero = np.flatnonzero(counts)
    if nonzero.size == 0:
        return IntHistogram()
    return IntHistogram(counts[nonzero[0] : nonzero[-1] + 1].copy(), int(low) + int(nonzero[0]))


def _histogram_of_counts(counts: np.ndarray) -> IntHistogram:
    """An ``IntHistogram`` of int8 values counted at ``value + VALUE_OFFSET``."""
    return _trimmed(counts, -VALUE_OFFSET)


# --- from a records file, in bounded batches ---------------------------------------------------


def record_batches(
    path: Path, players: int, rounds: int, fields_wanted=TALLY_FIELDS, batch_games: int = READ_BATCH_GAMES
) -> Iterator[dict[str, np.ndarray]]:
    """The records file's games in order, ``batch_games`` at most at a time, as record arrays."""
    import pyarrow.parquet as pq

    columns = {name: field_columns(name, players, rounds) for name in fields_wanted}
    with pq.ParquetFile(path) as parquet:
        for batch in parquet.iter_batches(batch_size=batch_games, columns=[c for cs in columns.values() for c in cs]):
            yield {name: field_array(batch, name, cols, players, rounds) for name, cols in columns.items()}


def tally_records_file(path: Path, players: int, rounds: int, batch_games: int = READ_BATCH_GAMES) -> ReportTally:
    """The report tally of every game in a records file, reading it in batches of ``batch_games``."""
    tally = ReportTally.empty(players, rounds)
    for batch in record_batches(path, players, rounds, TALLY_FIELDS, batch_games):
        tally = tally.merge(ReportTally.of(batch))
    return tally


def field_array(batch, name: str, columns: list[str], players: int, rounds: int) -> np.ndarray:
    """One record field of a pyarrow table or batch of flat columns, as an array with a leading games axis."""
    dtype = RECORD_FIELDS[name][1]
    shape = field_shape(name, players, rounds)
    if not shape:
        return batch.column(columns[0]).to_numpy().astype(dtype, copy=False)
    stacked = np.column_stack([batch.column(c).to_numpy() for c in columns]).astype(dtype, copy=False)
    return stacked.reshape((len(stacked),) + shape)
