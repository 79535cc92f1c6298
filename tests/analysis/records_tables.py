"""The report tables computed directly from per-game records: the reference the tallies are checked against.

Every function takes the records (a dict of arrays with a leading games
axis, see ``sim.lasvegan.records``) and returns one tidy table. Every
estimate comes with a 95% interval in ``low``/``high`` columns:

* rates of independent games — Wilson score interval;
* means of one value per game — mean ± t·sd/√n, t Student's with n − 1 degrees of freedom;
* means and shares over rounds or seats — normal approximation with a
  cluster-robust standard error, games as clusters (the rounds and seats of
  one game are not independent), see :func:`analysis.stats.ratio_interval`.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from analysis.stats import ratio_interval, sample_mean_interval, wilson_interval
from sim.lasvegan import enums as E

Records = Mapping[str, np.ndarray]

KINDS = ("colour", "points", "golden")  # axis 1 of the records' ``amount``
TRAJECTORY_QUANTILES = (5, 25, 50, 75, 95)

# The record fields the report reads; everything here works from these.
REPORT_FIELDS = (
    "game", "final_cabbages", "win_share", "rounds_played", "elim_round", "seven_no_slot", "zero_playing_on",
    "round_leader", "delta", "amount", "shortfall", "machine", "machine_token", "machine_value",
    "golden_side", "golden_value",
)


def played_rounds(rec: Records) -> np.ndarray:
    """``[game, round]``: True for the rounds each game played."""
    rounds = rec["delta"].shape[1]
    return np.arange(rounds)[None, :] < rec["rounds_played"][:, None]


def _interval_row(mean: float, low: float, high: float) -> dict:
    return {"mean": mean, "low": low, "high": high}


def _wilson_row(count: int, n: int) -> dict:
    low, high = wilson_interval(int(count), int(n))
    return {"count": int(count), "n": int(n), "rate": count / n if n else np.nan, "low": low, "high": high}


# --- who wins ---------------------------------------------------------------


def win_share_by_seat(rec: Records) -> pd.DataFrame:
    """Win share of each seat (tied seats share a win), normal interval over games."""
    shares = rec["win_share"]
    rows = [{"seat": s, **_interval_row(*sample_mean_interval(shares[:, s]))} for s in range(shares.shape[1])]
    return pd.DataFrame(rows)


def last_round_leader(rec: Records) -> np.ndarray:
    """The seat that led the last round each game played."""
    last = rec["rounds_played"].astype(np.int64) - 1
    return rec["round_leader"][np.arange(len(last)), last].astype(np.int64)


def win_share_by_last_leader(rec: Records) -> pd.DataFrame:
    """Win share by place at the table counted from the seat that led the game's last round.

    Position 0 is that leader (the winner of the previous round's last
    trick; seat 0 in a one-round game), position 1 the next seat clockwise.
    """
    shares = rec["win_share"]
    games, players = shares.shape
    leader = last_round_leader(rec)
    rows = []
    for position in range(players):
        seat = (leader + position) % players
        rows.append({"position": position, **_interval_row(*sample_mean_interval(shares[np.arange(games), seat]))})
    return pd.DataFrame(rows)


def round_change_by_leader_position(rec: Records) -> pd.DataFrame:
    """Mean cabbage change in round r of the seat at each position from that round's leader.

    One row per (round, position) over the games that played the round;
    each game gives one value per cell, so the normal interval is over games.
    """
    delta = rec["delta"]
    games, rounds, players = delta.shape
    played = played_rounds(rec)
    rows = []
    for r in range(rounds):
        in_play = np.flatnonzero(played[:, r])
        leader = rec["round_leader"][in_play, r].astype(np.int64)
        for position in range(players):
            change = delta[in_play, r, (leader + position) % players]
            rows.append({"round": r + 1, "position": position, "games": len(in_play),
                         **_interval_row(*sample_mean_interval(change))})
    return pd.DataFrame(rows)


def win_share_by_policy(rec: Records, seats: Sequence[str]) -> pd.DataFrame:
    """Share of the wins each policy takes, against its fair share (its seats / players).

    A policy's value in one game is the sum of its seats' win shares, so the
    interval is over games. With every seat on the same policy this is 1.
    """
    shares = rec["win_share"]
    players = shares.shape[1]
    rows = []
    for name in dict.fromkeys(seats):
        mine = [s for s, seat_policy in enumerate(seats) if seat_policy == name]
        rows.append({"policy": name, "seats": ", ".join(map(str, mine)), "fair": len(mine) / players,
                     **_interval_row(*sample_mean_interval(shares[:, mine].sum(axis=1)))})
    return pd.DataFrame(rows)


# --- how games end ------------------------------------------------------------

END_REASONS = ("a seat ran out in this round", "a seat ran out earlier and played on", "nobody ran out")


def game_ends(rec: Records) -> pd.DataFrame:
    """Games by the round they ended in and why: one row per (round, reason), Wilson intervals.

    "a seat ran out in this round": a seat reached 0 cabbages in the
    game's last round; "… earlier and played on": a seat reached 0 before
    and the game went on (elimination not ending the game); "nobody ran out".
    """
    n = len(rec["game"])
    rounds = rec["delta"].shape[1]
    last = rec["rounds_played"].astype(np.int64)
    elim = rec["elim_round"].astype(np.int64)
    reason = np.where(elim == 0, 2, np.where(elim == last, 0, 1))
    counts = np.zeros((rounds, len(END_REASONS)), dtype=np.int64)
    np.add.at(counts, (last - 1, reason), 1)
    rows = [
        {"round": r + 1, "reason": END_REASONS[k], **_wilson_row(counts[r, k], n)}
        for r in range(rounds)
        for k in range(len(END_REASONS))
    ]
    return pd.DataFrame(rows)


def cabbage_trajectory(rec: Records, starting: int | Sequence[int]) -> np.ndarray:
    """``[game, round + 1, seat]``: cabbages at the start and after each round.

    A game that ended early keeps its final count for the rounds it did not
    play (its deltas there are 0).
    """
    delta = rec["delta"].astype(np.int64)
    games, rounds, players = delta.shape
    out = np.empty((games, rounds + 1, players), dtype=np.int64)
    out[:, 0] = starting
    np.cumsum(delta, axis=1, out=out[:, 1:])
    out[:, 1:] += starting
    return out


def ran_out_by_seat(rec: Records, starting: int | Sequence[int]) -> pd.DataFrame:
    """Share of games in which each seat reached 0 cabbages at some point, Wilson intervals."""
    reached_zero = (cabbage_trajectory(rec, starting) == 0).any(axis=1)
    n = len(rec["game"])
    return pd.DataFrame([{"seat": s, **_wilson_row(reached_zero[:, s].sum(), n)} for s in range(reached_zero.shape[1])])


# --- cabbage swings ------------------------------------------------------------


def swing_histogram(rec: Records) -> pd.DataFrame:
    """How often each per-round cabbage change occurs: one value per seat and round played."""
    values = rec["delta"][played_rounds(rec)].ravel().astype(np.int64)
    if values.size == 0:
        return pd.DataFrame({"change": [], "count": [], "share": []})
    low = int(values.min())
    counts = np.bincount(values - low)
    change = np.arange(low, low + len(counts))
    return pd.DataFrame({"change": change, "count": counts, "share": counts / values.size})


def swing_by_seat(rec: Records) -> pd.DataFrame:
    """Per seat: mean cabbage change per round played (cluster interval) and its spread."""
    played = played_rounds(rec)
    delta = rec["delta"].astype(np.int64)
    rounds_played = played.sum(axis=1)
    rows = []
    for s in range(delta.shape[2]):
        values = delta[:, :, s][played]
        rows.append({
            "seat": s,
            **_interval_row(*ratio_interval(delta[:, :, s].sum(axis=1), rounds_played)),
            "sd": float(values.std(ddof=1)) if values.size > 1 else np.nan,
            "p05": float(np.percentile(values, 5)) if values.size else np.nan,
            "p95": float(np.percentile(values, 95)) if values.size else np.nan,
        })
    return pd.DataFrame(rows)


def final_cabbages_by_seat(rec: Records) -> pd.DataFrame:
    """Per seat: mean final cabbages (normal interval over games) and percentiles."""
    final = rec["final_cabbages"].astype(np.int64)
    rows = []
    for s in range(final.shape[1]):
        p05, p25, p50, p75, p95 = np.percentile(final[:, s], TRAJECTORY_QUANTILES)
        rows.append({"seat": s, **_interval_row(*sample_mean_interval(final[:, s])),
                     "p05": p05, "p25": p25, "p50": p50, "p75": p75, "p95": p95})
    return pd.DataFrame(rows)


def trajectory_quantiles(rec: Records, starting: int) -> pd.DataFrame:
    """Cabbages of a seat (all seats pooled) at the start and after each round: percentiles and mean.

    ``still_playing`` is the share of games that played that round.
    """
    traj = cabbage_trajectory(rec, starting)
    games, points, players = traj.shape
    pooled = traj.transpose(1, 0, 2).reshape(points, games * players)
    qs = np.percentile(pooled, TRAJECTORY_QUANTILES, axis=1) if games else np.full((5, points), np.nan)
    played = played_rounds(rec)
    table = pd.DataFrame({"after_round": np.arange(points)})
    for q, row in zip(TRAJECTORY_QUANTILES, qs):
        table[f"p{q:02d}"] = row
    table["mean"] = pooled.mean(axis=1) if games else np.nan
    table["still_playing"] = np.concatenate([[1.0], played.mean(axis=0)]) if games else np.nan
    return table


# --- what drives the swings ------------------------------------------------------


def swing_drivers(rec: Records) -> pd.DataFrame:
    """Where gains and losses come from: one row per machine kind.

    ``gain_share``/``loss_share``: the kind's part of all positive/negative
    amounts scored (a seat's amount from one kind in one round, before
    settlement); ``mean``: the kind's mean amount per seat and round played.
    Intervals are cluster-robust over games.
    """
    amount = rec["amount"].astype(np.int64) * played_rounds(rec)[:, :, None, None]
    gains = np.clip(amount, 0, None).sum(axis=(1, 3))  # [game, kind]
    losses = -np.clip(amount, None, 0).sum(axis=(1, 3))
    seat_rounds = rec["rounds_played"].astype(np.int64) * amount.shape[3]
    all_gains, all_losses = gains.sum(axis=1), losses.sum(axis=1)
    rows = []
    for k, kind in enumerate(KINDS):
        g = ratio_interval(gains[:, k], all_gains)
        loss = ratio_interval(losses[:, k], all_losses)
        m = ratio_interval(amount[:, :, k, :].sum(axis=(1, 2)), seat_rounds)
        rows.append({
            "kind": kind,
            "gains": int(gains[:, k].sum()), "gain_share": g[0], "gain_low": g[1], "gain_high": g[2],
            "losses": int(losses[:, k].sum()), "loss_share": loss[0], "loss_low": loss[1], "loss_high": loss[2],
            "mean": m[0], "low": m[1], "high": m[2],
        })
    return pd.DataFrame(rows)


def token_placements(rec: Records) -> pd.DataFrame:
    """Which face value ends up on which kind of ordinary machine, over all played rounds.

    One row per (machine kind, value) with ``value`` None for machines left
    without a token; ``share`` is within the machine kind.
    """
    played = played_rounds(rec)
    machine = rec["machine"][played].ravel()
    token = rec["machine_token"][played].ravel()
    value = rec["machine_value"][played].ravel()
    colour = machine < E.POINTS_BASE
    rows = []
    for kind, on_kind in (("colour", colour), ("points", ~colour)):
        total = int(on_kind.sum())
        placed = on_kind & (token >= 0)
        values, counts = np.unique(value[placed], return_counts=True)
        for v, c in zip(values, counts):
            rows.append({"machine": kind, "value": int(v), "count": int(c), "share": c / total if total else np.nan})
        empty = int((on_kind & (token < 0)).sum())
        rows.append({"machine": kind, "value": None, "count": empty, "share": empty / total if total else np.nan})
    return pd.DataFrame(rows, columns=["machine", "value", "count", "share"])


def golden_placements(rec: Records) -> pd.DataFrame:
    """The golden token by its face value: how often it went on MIN, on MAX, or stayed off."""
    played = played_rounds(rec)
    side = rec["golden_side"][played].ravel()
    value = rec["golden_value"][played].ravel()
    rows = []
    for v in np.unique(value):
        mine = value == v
        total = int(mine.sum())
        for name, code in (("MIN", E.MIN_SIDE), ("MAX", E.MAX_SIDE), ("not placed", E.NO_SIDE)):
            count = int((mine & (side == code)).sum())
            rows.append({"value": int(v), "side": name, "count": count, "share": count / total})
    return pd.DataFrame(rows, columns=["value", "side", "count", "share"])


# --- rule holes -----------------------------------------------------------------


def rule_holes(rec: Records) -> pd.DataFrame:
    """How often the game met a situation its rules do not settle, per game (Wilson intervals).

    ``events`` counts the occurrences themselves: rounds with a shortfall,
    sevens with no slot, seat-rounds started at 0 cabbages; ``amount`` the
    cabbages the reserve could not pay.
    """
    played = played_rounds(rec)
    shortfall = rec["shortfall"].astype(np.int64) * played
    n = len(rec["game"])
    holes = (
        ("shortfall", (shortfall > 0).any(axis=1), int((shortfall > 0).sum()), int(shortfall.sum())),
        ("seven_no_slot", rec["seven_no_slot"] > 0, int(rec["seven_no_slot"].astype(np.int64).sum()), None),
        ("zero_playing_on", rec["zero_playing_on"] > 0, int(rec["zero_playing_on"].astype(np.int64).sum()), None),
    )
    rows = [
        {"hole": name, **_wilson_row(int(games.sum()), n), "events": events, "amount": amount}
        for name, games, events, amount in holes
    ]
    return pd.DataFrame(rows)


# --- example games ----------------------------------------------------------------


def typical_game(rec: Records) -> tuple[int, str]:
    """A game that looks like most: its game index and why it was picked.

    Among games that last the most common number of rounds and end like
    most games do (with or without someone running out), the one whose
    total cabbage movement is closest to the median; the lowest index wins
    a tie, so the choice is reproducible.
    """
    rounds_played = rec["rounds_played"].astype(np.int64)
    common_length = int(np.bincount(rounds_played).argmax())
    ran_out = rec["elim_round"] > 0
    usually_out = bool(ran_out.mean() > 0.5)
    candidates = np.flatnonzero((rounds_played == common_length) & (ran_out == usually_out))
    if candidates.size == 0:
        candidates = np.flatnonzero(rounds_played == common_length)
    movement = np.abs(rec["delta"][candidates].astype(np.int64)).sum(axis=(1, 2))
    target = np.median(movement)
    pick = candidates[np.argmin(np.abs(movement - target))]  # argmin: first, i.e. lowest index
    why = (
        f"it lasts {common_length} round{'s' * (common_length != 1)}, the most common length, "
        f"{'with someone' if usually_out else 'without anyone'} running out of cabbages, like "
        f"{100 * (ran_out.mean() if usually_out else 1 - ran_out.mean()):.0f}% of games, "
        f"and its cabbages move by the median amount ({int(target)} in all)"
    )
    return int(rec["game"][pick]), why


def quickest_elimination(rec: Records) -> tuple[int, str] | None:
    """The game in which a seat ran out of cabbages earliest (lowest index on a tie), or None."""
    elim = rec["elim_round"].astype(np.int64)
    out = np.flatnonzero(elim > 0)
    if out.size == 0:
        return None
    first = int(elim[out].min())
    pick = out[elim[out] == first][0]
    same = int((elim == first).sum())
    why = (
        f"a seat ran out of cabbages in round {first}, the earliest any game saw "
        f"({same:,} game{'s' * (same != 1)} of {len(elim):,} did)"
    )
    return int(rec["game"][pick]), why
