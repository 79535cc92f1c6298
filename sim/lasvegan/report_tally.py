"""Everything the Las Vegan report shows, as mergeable integer statistics of chunks of games.

A :class:`ReportTally` (:mod:`analysis.tally`: merged exactly, stored, rebuilt from a records file) lets a run
report in memory bounded by its chunk size. Nothing in it approximates the records: the tables built from it
(``sim.lasvegan.tables``) equal those built from the records, percentiles and intervals included; the
cluster-robust intervals need a game's sums ``x`` and counts ``y`` only through ``Σx, Σy, Σx², Σxy, Σy²``, kept
as exact integers (:class:`Moments`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np
from numba import njit

from analysis.common import win_unit
from analysis.stats import FirstGames, IntHistogram, Moments
from analysis.tally import MergeableTally
from sim.lasvegan import enums as E
from sim.lasvegan.records import LAYOUT as RECORD_LAYOUT, empty_records

# The record fields a report tally is made of.
TALLY_FIELDS = (
    "game", "final_cabbages", "win_share", "rounds_played", "elim_round", "seven_no_slot", "zero_playing_on",
    "round_leader", "delta", "amount", "shortfall", "machine", "machine_token", "machine_value",
    "golden_side", "golden_value",
)


@dataclass(eq=False)
class ReportTally(MergeableTally):
    """Sufficient statistics of the report's tables for a batch of games; ``merge`` adds batches exactly.

    Win shares are in units of 1/lcm(1..players) of a win, so every number
    is an integer. Seats and positions are axes of the arrays; ``R`` rounds,
    ``P`` players, ``K`` machine kinds.
    """

    SHAPE = ("players", "rounds")

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

    WHAT = "report tally"
    LAYOUT = RECORD_LAYOUT
    RECORD_FIELDS = TALLY_FIELDS

    @property
    def win_units_sq(self) -> np.ndarray:
        return np.diagonal(self.win_cross)  # [P]: Σ u_s²

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
            token_values=[_trimmed(token_counts[k], -VALUE_OFFSET) for k in range(2)],
            token_empty=token_empty,
            golden_by_side=[_trimmed(golden_counts[i], -VALUE_OFFSET) for i in range(3)],
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
