"""The summary of a batch of Las Vegas games, built from mergeable partial statistics.

A :class:`Tally` (:mod:`analysis.tally`) of chunks of games merges exactly;
:func:`summarize` turns it into a JSON-ready dict.

Definitions:

* win share: each of the k winners after the tie-break gets 1/k of a win;
  its interval is Student's t over games with the sample variance;
* first-player advantage: seat 0's win share minus 1/players (seat 0 holds
  the first-player card in round 1);
* first-card advantage: in one played round, the dollars the holder of the
  first-player card wins minus the players' average winnings that round
  (its fair share); the interval is over games (a game's rounds are summed
  first, since they are not independent);
* ``first_card_share``: the holder's share of all the dollars players win,
  against 1/players;
* winner margin: dollars between the richest seat and the next (0 on a tie);
* ``tie_cancel_rate``: share of casino payouts (casinos with dice on them)
  where tied numbers of dice removed at least one owner;
* ``unclaimed_share`` / ``white_dice_share``: shares of the dollars laid out
  on the casinos that nobody won, or that the white dice won (both go back
  under the pile);
* ``tie_rate``: games whose win is shared after the tie-break;
  ``money_tie_rate``: games where the richest seats tied on money (the
  tie-break then decided, or the win was shared);
* ``short_casino_rate``: share of casinos set up below the minimum because
  the pile ran out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from analysis.common import (
    json_ready, run_fields, seat_fields, share, win_share_metrics, win_unit,
)
from analysis.stats import (
    FirstGames, IntHistogram, cluster_ratio_interval, mean_and_sd, mean_interval, wilson_interval,
)
from analysis.tally import MergeableTally, win_unit_sums
from sim.vegasdice import enums as E
from sim.vegasdice.records import LAYOUT as RECORD_LAYOUT, empty_records

PERCENTILES = (50, 95)


@dataclass(eq=False)
class Tally(MergeableTally):
    """Sufficient statistics of a batch of games; ``merge`` adds two batches exactly.

    Every number is an integer (Python ints for sums of dollars, which can
    grow past 64 bits when squared). Win shares are counted in units of
    1/lcm(1..players) of a win, so that 1/k of a win is whole for any tie.
    The margins' histogram counts steps of ``margin_step`` dollars, the
    greatest common divisor of every margin seen (0 while all are 0); the
    final money histograms likewise count steps of ``money_step``.

    It is also the report's tally: the win cross sums (win share by
    policy), the final money histograms, the dollars won by place from the
    first-player card's holder and the first game of each winner's margin
    (the example games) are kept for the report alone.
    """

    SHAPE = ("players", "rounds")

    players: int
    rounds: int
    games: int
    win_units: tuple[int, ...]  # [seat]
    win_units_sq: tuple[int, ...]  # [seat]
    tie_games: int
    money_tie_games: int
    money_total: tuple[int, ...]  # [seat], dollars
    money_total_sq: tuple[int, ...]  # [seat]
    bills_total: tuple[int, ...]  # [seat]
    margin_step: int
    margin: IntHistogram  # winner margins in steps of margin_step dollars
    margin_total: int
    margin_total_sq: int
    played_rounds: int
    first_card_total: int  # sum over games of sum over rounds of players * holder's - all players' winnings
    first_card_total_sq: int
    first_card_won: int  # dollars the card holder won
    players_won: int  # dollars every player won
    laid_out: int
    white_won: int
    unclaimed: int
    payouts: int
    tie_cancels: int
    short_casinos: int
    casinos_set_up: int
    turns: int
    win_cross: tuple[int, ...]  # [seat * players + seat]: sums of products of two seats' win units
    money_step: int
    money_seat: tuple[IntHistogram, ...]  # [seat]: final money in steps of money_step dollars
    played_rounds_sq: int  # sum over games of (rounds played)^2
    place_won_total: tuple[int, ...]  # [place from the card's holder]: sum over games of that place's winnings
    place_won_sq: tuple[int, ...]  # sum over games of its square
    place_won_xy: tuple[int, ...]  # sum over games of it times the game's rounds played
    by_margin: FirstGames  # key (winner's margin in dollars,)
    # Each game's dollars laid out (L), won by the white dice (W), unclaimed (U), its payouts (P) and the payouts
    # a tie cancelled (T): the sums of squares and products the shares' intervals need (games as clusters).
    share_moments: tuple[int, ...]  # ΣL², ΣW², ΣWL, ΣU², ΣUL, ΣP², ΣT², ΣTP

    WHAT = "Las Vegas tally"
    ADDED = ("share_moments",)
    LAYOUT = RECORD_LAYOUT

    @classmethod
    def of(cls, rec: Mapping[str, np.ndarray]) -> "Tally":
        """The tally of one batch of game records (see ``sim.vegasdice.records``)."""
        games, rounds, players = rec["won"].shape
        casinos = rec["casino_laid_out"].shape[2]
        units = np.rint(rec["win_share"] * win_unit(players)).astype(np.int64)
        played = rec["first_player"] >= 0  # [game, round]
        money_total, money_sq = _sums(rec["money"])
        margin = rec["margin"].astype(np.int64)
        step = int(np.gcd.reduce(margin)) if games else 0
        (margin_total,), (margin_sq,) = _sums(margin[:, None])
        won = rec["won"].astype(np.int64)
        holder = np.take_along_axis(won, np.maximum(rec["first_player"], 0).astype(np.int64)[:, :, None], 2)[:, :, 0]
        holder = np.where(played, holder, 0)
        advantage = (players * holder - won.sum(axis=2)).sum(axis=1)  # per game
        (first_total,), (first_sq,) = _sums(advantage[:, None])
        money = rec["money"].astype(np.int64)
        money_step = int(np.gcd.reduce(money.ravel())) if money.size else 0
        # The seat at each place clockwise from the round's card holder.
        places = (np.maximum(rec["first_player"], 0).astype(np.int64)[:, :, None] + np.arange(players)) % players
        by_place = np.where(played[:, :, None], np.take_along_axis(won, places, 2), 0).sum(axis=1)  # [game, place]
        rounds_played = played.sum(axis=1).astype(np.int64)
        place_total, place_sq = _sums(by_place)
        return cls(
            players=players,
            rounds=rounds,
            games=games,
            **win_unit_sums(units),
            money_tie_games=int(np.count_nonzero(rec["money_tied"] > 1)),
            money_total=money_total,
            money_total_sq=money_sq,
            bills_total=tuple(int(v) for v in rec["bills"].astype(np.int64).sum(axis=0)),
            margin_step=step,
            margin=IntHistogram.of(margin // step if step else margin),
            margin_total=margin_total,
            margin_total_sq=margin_sq,
            played_rounds=int(np.count_nonzero(played)),
            first_card_total=first_total,
            first_card_total_sq=first_sq,
            first_card_won=int(holder.sum()),
            players_won=int(won.sum()),
            laid_out=int(rec["laid_out"].astype(np.int64).sum()),
            white_won=int(rec["white_won"].astype(np.int64).sum()),
            unclaimed=int(rec["unclaimed"].astype(np.int64).sum()),
            payouts=int(rec["payouts"].astype(np.int64).sum()),
            tie_cancels=int(rec["tie_cancels"].astype(np.int64).sum()),
            short_casinos=int(rec["short_casinos"].astype(np.int64).sum()),
            casinos_set_up=int(np.count_nonzero(played)) * casinos,
            turns=int(rec["turns"].astype(np.int64).sum()),
            money_step=money_step,
            money_seat=tuple(IntHistogram.of(money[:, s] // money_step if money_step else money[:, s])
                             for s in range(players)),
            played_rounds_sq=int((rounds_played * rounds_played).sum()),
            place_won_total=place_total,
            place_won_sq=place_sq,
            place_won_xy=_cross_sums(by_place, rounds_played),
            by_margin=FirstGames.of(margin[:, None], rec["game"]),
            share_moments=_share_moments(rec),
        )

    @classmethod
    def empty(cls, players: int, rounds: int) -> "Tally":
        """The tally of no games: the starting point of a run's merges."""
        return cls.of(empty_records(0, players, rounds, E.MIN_CASINOS))

    def merged_field(self, name: str, other: "Tally"):
        """Histograms of money are counted in steps of the greatest common divisor of both tallies' steps."""
        if name in ("margin_step", "money_step"):
            return math.gcd(getattr(self, name), getattr(other, name))
        if name == "margin":
            step = math.gcd(self.margin_step, other.margin_step)
            return _in_steps(self.margin, self.margin_step, step).merge(
                _in_steps(other.margin, other.margin_step, step))
        if name == "money_seat":
            step = math.gcd(self.money_step, other.money_step)
            return tuple(_in_steps(x, self.money_step, step).merge(_in_steps(y, other.money_step, step))
                         for x, y in zip(self.money_seat, other.money_seat))
        return super().merged_field(name, other)

    @property
    def report(self) -> "Tally":
        """What the report needs beyond the summary: the tally itself (stored as ``tally.json``)."""
        return self


def _share_moments(rec: Mapping[str, np.ndarray]) -> tuple[int, ...]:
    """:attr:`Tally.share_moments` of a batch of records."""
    laid, white, unclaimed, payouts, cancels = (rec[f].astype(np.int64).sum(axis=1)
                                                for f in ("laid_out", "white_won", "unclaimed", "payouts", "tie_cancels"))
    pairs = ((laid, laid), (white, white), (white, laid), (unclaimed, unclaimed), (unclaimed, laid),
             (payouts, payouts), (cancels, cancels), (cancels, payouts))
    return tuple(s for x, y in pairs for s in _product_sums(x[:, None], y[:, None]))


def _share_interval(x: int, y: int, xx: int, xy: int, yy: int, games: int) -> list[float | None]:
    """The 95% interval of the share ``x / y`` of sums over games, the games as clusters."""
    _, low, high = cluster_ratio_interval(x, y, xx, xy, yy, games)
    return [low, high]


def _sums(x: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Exact column sums and sums of squares of an integer array [games, k], as Python ints."""
    return _cross_sums(x, np.ones(len(x), dtype=np.int64)), _product_sums(x, x)


def _cross_sums(x: np.ndarray, y: np.ndarray) -> tuple[int, ...]:
    """Exact column sums of ``x[g, k] * y[g]`` as Python ints."""
    return _product_sums(x, np.asarray(y)[:, None])


def _product_sums(x: np.ndarray, y: np.ndarray) -> tuple[int, ...]:
    """Exact column sums of the integer arrays' product ``x * y``: in 64 bits when they cannot overflow, else in
    Python integers (sums of dollars squared can grow past 64 bits)."""
    x, y = np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64)
    if x.size and int(np.abs(x).max()) * int(np.abs(y).max()) * len(x) >= 2**62:
        x, y = x.astype(object), y.astype(object)
    return tuple(int(v) for v in (x * y).sum(axis=0))


def _in_steps(hist: IntHistogram, step: int, new_step: int) -> IntHistogram:
    """A histogram of multiples of ``step`` recounted in steps of ``new_step`` (which divides it)."""
    if step == new_step or step == 0 or hist.count == 0:
        return hist
    return hist.scaled(step // new_step)


def summarize(
    tally: Tally,
    *,
    game: str = E.GAME_ID,
    seed: int | None = None,
    seconds: float | None = None,
    policies: list[str] | tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """The summary dict of a run: plain JSON values, seat lists in seat order.

    Intervals are 95% ``[low, high]``; rates are fractions; money is in
    dollars; a value that is undefined (an interval from a single game) is None.
    """
    n, players = tally.games, tally.players
    headline = win_share_metrics(tally.win_units, tally.win_units_sq, tally.win_unit, n, tally.tie_games)
    money = [mean_and_sd(t, q, n) for t, q in zip(tally.money_total, tally.money_total_sq)]
    margin_mean, margin_sd = mean_and_sd(tally.margin_total, tally.margin_total_sq, n)
    # Per game, the sum over its rounds of players x the card holder's winnings
    # minus all players' winnings; per round and in dollars: / (players x rounds).
    card_mean, card_sd = mean_and_sd(tally.first_card_total, tally.first_card_total_sq, n)
    per_round = tally.played_rounds / n if n else math.nan
    laid_sq, white_sq, white_xy, unclaimed_sq, unclaimed_xy, payouts_sq, tie_sq, tie_xy = tally.share_moments
    scale = players * per_round if per_round else math.nan
    summary = {
        **run_fields(game=game, title=E.TITLE, players=players, rounds=tally.rounds, games=n, seed=seed,
                     seconds=seconds, policies=policies),
        **seat_fields(headline),
        "first_card_advantage": card_mean / scale,
        "first_card_advantage_ci": [x / scale for x in mean_interval(card_mean, card_sd, n)],
        "first_card_share": share(tally.first_card_won, tally.players_won),
        "money_mean": [m for m, _ in money],
        "money_mean_ci": [list(mean_interval(m, sd, n)) for m, sd in money],
        "money_sd": [sd for _, sd in money],
        "bills_mean": [share(b, n) for b in tally.bills_total],
        "winner_margin": {
            "mean": margin_mean,
            "sd": margin_sd,
            **{f"p{q}": tally.margin.percentile(q) * tally.margin_step for q in PERCENTILES},
        },
        "tie_rate": headline["tie_rate"],
        "tie_rate_ci": headline["tie_rate_ci"],
        "money_tie_rate": share(tally.money_tie_games, n),
        "money_tie_rate_ci": list(wilson_interval(tally.money_tie_games, n)),
        "tie_cancel_rate": share(tally.tie_cancels, tally.payouts),
        "tie_cancel_rate_ci": _share_interval(tally.tie_cancels, tally.payouts, tie_sq, tie_xy, payouts_sq, n),
        "unclaimed_share": share(tally.unclaimed, tally.laid_out),
        "unclaimed_share_ci": _share_interval(tally.unclaimed, tally.laid_out, unclaimed_sq, unclaimed_xy, laid_sq, n),
        "white_dice_share": share(tally.white_won, tally.laid_out),
        "white_dice_share_ci": _share_interval(tally.white_won, tally.laid_out, white_sq, white_xy, laid_sq, n),
        "laid_out_per_round": share(tally.laid_out, tally.played_rounds),
        "short_casino_rate": share(tally.short_casinos, tally.casinos_set_up),
        "rounds_played_mean": per_round,
        "turns_per_round": share(tally.turns, tally.played_rounds),
    }
    return json_ready(summary)


# --- text --------------------------------------------------------------------

# The strength profile's rows in the text summary.
TEXT_STRENGTH_METRICS = ("first_player_advantage", "worst_seat_advantage", "tie_rate")


def summary_table(summary: Mapping[str, Any]) -> str:
    """The summary as the text table ``lvsim run`` prints: every estimate with its 95% interval, the winner's
    margin by its spread."""
    from analysis.common import (
        num, pct, pct_ci, played_line, seat_lines, skill_gap_lines, strength_lines, table_row, title_line,
    )

    lines = [title_line(E.TITLE, summary), "", *seat_lines(summary)]
    lines.append(table_row("first-player card", _dollars(summary["first_card_advantage"]),
                           "won per round by its holder beyond the fair share",
                           ci=_dollars_ci(summary["first_card_advantage_ci"])))
    lines += ["", "Money by seat, mean (95% CI)"]
    for s, (m, ci) in enumerate(zip(summary["money_mean"], summary["money_mean_ci"])):
        lines.append(table_row(f"seat {s}", _dollars(m), _dollars_ci(ci)))
    lines += ["", "Money"]
    bills = "  ".join(f"{s}: {num(b, 1)}" for s, b in enumerate(summary["bills_mean"]))
    lines.append(f"  {'bills by seat':<25}{bills}")
    margin = summary["winner_margin"]
    lines.append(table_row("winner's margin", _dollars(margin["mean"]),
                           f"median {_dollars(margin['p50'])}, p95 {_dollars(margin['p95'])}"))
    lines += ["", "Games"]
    lines.append(table_row("tie rate", pct(summary["tie_rate"]),
                           "of games, after the tie-break", ci=pct_ci(summary["tie_rate_ci"])))
    lines.append(table_row("money tie rate", pct(summary["money_tie_rate"]),
                           "of games, before it", ci=pct_ci(summary["money_tie_rate_ci"])))
    lines.append(table_row("ties cancelling", pct(summary["tie_cancel_rate"]),
                           "of casino payouts", ci=pct_ci(summary["tie_cancel_rate_ci"])))
    lines.append(table_row("won by white dice", pct(summary["white_dice_share"]),
                           "of the money laid out", ci=pct_ci(summary["white_dice_share_ci"])))
    lines.append(table_row("unclaimed", pct(summary["unclaimed_share"]),
                           "of the money laid out", ci=pct_ci(summary["unclaimed_share_ci"])))
    if summary.get("short_casino_rate"):
        # A share of the casinos set up: a game's casinos are not independent, and the summary keeps no interval.
        lines.append(table_row("casinos short", pct(summary["short_casino_rate"]), "of casinos set up"))
    lines += skill_gap_lines(summary)
    from sim.games import get_game

    lines += strength_lines(summary, [get_game(summary["game"]).metric[m] for m in TEXT_STRENGTH_METRICS])
    lines += ["", played_line(summary)]
    return "\n".join(lines)


def _dollars(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"{'-' if x < 0 else ''}${abs(x):,.0f}"


def _dollars_ci(ci) -> str:
    """``[-$2,410, -$1,254]``: an interval in whole dollars; empty when it has no ends."""
    return "" if ci is None or None in ci else f"[{_dollars(ci[0])}, {_dollars(ci[1])}]"
