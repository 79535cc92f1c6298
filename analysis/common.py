"""What every game's summary shares: win shares, seat advantages, ties, JSON-ready values, text cells.

Each game's summary (``sim/<game>/summary.py``) builds on these, so the
headline metrics every game has — ``win_share(_ci)``, ``first_player_advantage(_ci)``,
``worst_seat_advantage(_ci)``, ``worst_seat_advantage_corrected(_ci)``, ``tie_rate(_ci)`` — are
computed one way.
"""

from __future__ import annotations

import functools
import math
import textwrap
from typing import Any, Mapping, Sequence

import numpy as np

from analysis.stats import mean_and_sd, mean_interval, wilson_interval, win_share_interval, win_unit  # noqa: F401  (win_unit: games import it from here)
from sim.errors import and_listed, counted
from sim.metrics import SEAT_METRICS, Metric
from sim.wording import wrapped


def share(count: int, total: int) -> float:
    return count / total if total else math.nan


def run_fields(*, game: str, players: int, games: int, seed: int | None, seconds: float | None,
               policies: Sequence[str] | None, title: str | None = None, **shape: int) -> dict[str, Any]:
    """What every summary opens with: the game (and its title), the players, what else sizes the
    records (``rounds=``, ``patterns=``), the games, seed and seats' policies, and how fast they were played."""
    return {
        "game": game,
        **({"title": title} if title is not None else {}),
        "players": players,
        **shape,
        "games": games,
        "seed": seed,
        "policies": list(policies) if policies is not None else None,
        "seconds": seconds,
        "games_per_second": games / seconds if seconds else None,
    }


# The keys of the seat metrics in a summary, each beside its interval, in the order every summary lists them.
SEAT_KEYS = tuple(f"{m.name}{end}" for m in SEAT_METRICS for end in ("", "_ci"))


def seat_fields(headline: dict[str, Any]) -> dict[str, Any]:
    """The seat metrics of :func:`win_share_metrics` (win share, first-player and worst-seat advantage), in order."""
    return {key: headline[key] for key in SEAT_KEYS}


def win_share_metrics(win_units: Sequence[int], win_units_sq: Sequence[int], unit: int, games: int,
                      tie_games: int) -> dict[str, Any]:
    """Win share by seat, first-player and worst-seat advantage and tie rate, with 95% intervals.

    Win shares are counted in ``unit`` units per win (1/k of a win is whole for any tie).
    """
    n, players = games, len(win_units)
    win = [mean_and_sd(u, q, n) for u, q in zip(win_units, win_units_sq)]
    win_share = [m / unit for m, _ in win]
    win_share_ci = [list(win_share_interval(m, sd, n, unit)) for m, sd in win]
    fair = 1 / players
    worst, worst_ci = worst_seat_advantage(win_share, win_share_ci, fair)
    corrected = worst_seat_advantage_corrected(win_share, [sd / unit / math.sqrt(n) if n > 1 else math.nan
                                                           for _, sd in win], fair, worst_ci)
    return {
        "win_share": win_share,
        "win_share_ci": win_share_ci,
        "first_player_advantage": win_share[0] - fair,
        "first_player_advantage_ci": [x - fair for x in win_share_ci[0]],
        "worst_seat_advantage": worst,
        "worst_seat_advantage_ci": worst_ci,
        "worst_seat_advantage_corrected": corrected,
        "worst_seat_advantage_corrected_ci": worst_ci,
        "tie_rate": share(tie_games, n),
        "tie_rate_ci": list(wilson_interval(tie_games, n)),
    }


def first_player_values(win_share: np.ndarray, unit: int, players: int) -> np.ndarray:
    """Seat 0's win share minus the fair ``1/players`` in each game (``win_share[game, seat]``), in ``unit`` units
    per win: integers, whole for any tie when ``unit`` is a multiple of :func:`win_unit`."""
    return np.rint(win_share[:, 0] * unit).astype(np.int64) - unit // players


def tie_values(win_share: np.ndarray) -> np.ndarray:
    """1 in each game whose win is shared, else 0."""
    return ((win_share > 0).sum(axis=1) > 1).astype(np.int64)


def worst_seat_advantage(win_share: list[float], win_share_ci: list[list[float]], fair: float):
    """The largest distance of a seat's win share from the fair share, and a 95% range for it.

    The range runs from the largest distance every seat's interval still
    allows at the least (0 when every interval holds the fair share) to the
    largest it allows at the most: conservative, since it takes each seat's
    own interval rather than a joint one.
    """
    value = max(abs(w - fair) for w in win_share)
    if any(None in ci or any(math.isnan(x) for x in ci) for ci in win_share_ci):
        return value, [math.nan, math.nan]
    low = max(0.0 if lo <= fair <= hi else min(abs(lo - fair), abs(hi - fair)) for lo, hi in win_share_ci)
    high = max(max(abs(lo - fair), abs(hi - fair)) for lo, hi in win_share_ci)
    return value, [low, high]


# The bias correction of the worst seat's advantage: fixed draws of the seats' chance deviations, so that a
# summary is a pure function of its tally; how far towards 0 each seat's advantage is moved before the
# bias is measured, in units of the largest deviation fair seats show by chance.
CORRECTION_DRAWS = 8192
CORRECTION_SHRINK = 1.5


def worst_seat_advantage_corrected(win_share: Sequence[float], win_share_se: Sequence[float], fair: float,
                                   within: Sequence[float]) -> float:
    """The worst seat's advantage with the upward bias of a maximum over noisy seats taken out, kept inside
    ``within``: the 95% range :func:`worst_seat_advantage` gives the largest distance from the fair share.

    The bias chance adds is measured by simulating the seats' chance
    deviations (normal, each seat's standard error ``win_share_se``,
    correlated −1/(k−1) as deviations that sum to zero are) around a
    shrunken estimate of the advantages: each seat's moved towards 0 by
    ``CORRECTION_SHRINK`` times the largest deviation fair seats show by
    chance. The estimate is then clamped into the range it is printed with,
    so that a target judged on the range and ranked on the estimate stay in
    step. Why, and how it behaves as measured (``tests/test_tune.py``):
    ``docs/statistics.md``. A range with an unknown end (too few games)
    clamps nothing; nan when a standard error is unknown.
    """
    advantage = np.asarray(win_share, dtype=float) - fair
    se = np.asarray(win_share_se, dtype=float)
    k = len(advantage)
    if k < 2 or not (np.isfinite(advantage).all() and np.isfinite(se).all()):
        return math.nan
    noise = _seat_deviations(k) * se[:, None]  # [seat, draw]
    largest = float(np.abs(advantage).max())
    by_chance = float(np.abs(noise).max(axis=0).mean())
    shrunk = np.sign(advantage) * np.maximum(np.abs(advantage) - CORRECTION_SHRINK * by_chance, 0.0)
    bias = float(np.abs(shrunk[:, None] + noise).max(axis=0).mean()) - float(np.abs(shrunk).max())
    low, high = within
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return largest - bias
    return min(max(largest - bias, low), high)


@functools.lru_cache(maxsize=16)
def _seat_deviations(k: int) -> np.ndarray:
    """Fixed draws of k standard normal deviations with correlation −1/(k−1), seat by seat: ``k × CORRECTION_DRAWS``
    (one row a seat, so that each draw's largest seat is taken across the k rows at once: the same numbers)."""
    g = np.random.default_rng(20261201).standard_normal((CORRECTION_DRAWS, k))
    return np.ascontiguousarray(((g - g.mean(axis=1, keepdims=True)) * math.sqrt(k / (k - 1))).T)


def json_ready(value):
    """Plain Python values for json.dumps: numpy scalars unwrapped, nan as None."""
    kind = type(value)
    if kind is float:  # the plain values a summary is mostly made of, first
        return None if value != value else value
    if kind is int or kind is str or value is None:
        return value
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [json_ready(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(value) else float(value)
    return value


def title_line(title: str, summary: dict) -> str:
    """``Las Vegan, 4 players, random policy, seed 1``: the first line of a summary table."""
    parts = [f"{title}, {counted(summary['players'], 'player')}"]
    policies = summary.get("policies")
    if policies:
        parts.append(f"{policies[0]} policy" if len(set(policies)) == 1 else "policies " + " / ".join(policies))
    if summary.get("seed") is not None:
        parts.append(f"seed {summary['seed']}")
    return ", ".join(parts)


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.2f}%"


def pct_ci(ci) -> str:
    return "" if ci is None or None in ci else f"[{100 * ci[0]:.2f}%, {100 * ci[1]:.2f}%]"


def pts(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:+.2f} pp"


def pts_ci(ci) -> str:
    return "" if ci is None or None in ci else f"[{100 * ci[0]:+.2f}, {100 * ci[1]:+.2f}]"


def num(x: float | None, digits: int = 2) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def num_ci(ci, digits: int = 2, missing: str = "") -> str:
    """``[0.02, 0.08]``: an interval to ``digits`` decimals; ``missing`` when it has no ends."""
    return missing if ci is None or None in ci else f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def _g4(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.4g}"


# Each metric style's value and interval as ``lvsim run`` writes them; a style the game leaves undeclared to 4
# significant digits.
_STYLED = {"pct": (pct, pct_ci), "pts": (pts, pts_ci), "num": (num, num_ci),
           None: (_g4, lambda ci: f"[{_g4(ci[0])}, {_g4(ci[1])}]")}


def _measured(x: float | None) -> float | None:
    return None if x is None or x != x else x  # nan: not measured


def value_ci(style: str, x: float | None, lo: float | None = None, hi: float | None = None) -> str:
    """A value and its 95% interval as ``lvsim run`` writes a metric of ``style`` (``Metric.style``): ``pct``
    ``84.56% [83.06%, 86.05%]``, ``pts`` ``+1.20 pp [-0.40, +2.80]``, ``num`` ``3.41 [3.38, 3.44]``; a value the
    game leaves undeclared to 4 significant digits. Without an interval, the value alone."""
    x = _measured(x)
    if x is None:
        return "n/a"
    interval = interval_text(style, lo, hi)
    return f"{_STYLED.get(style, _STYLED[None])[0](x)} {interval}".rstrip()


def interval_text(style: str, lo: float | None, hi: float | None) -> str:
    """A 95% interval as :func:`value_ci` writes it; empty without both ends."""
    lo, hi = _measured(lo), _measured(hi)
    return "" if lo is None or hi is None else _STYLED.get(style, _STYLED[None])[1]([lo, hi])


def table_row(label: str, value: str, note: str = "", ci: str = "") -> str:
    """A row of a summary table: the label, the value, its interval ``ci`` (when it has one), then ``note``."""
    return f"  {label:<25}{value:>9}  {ci}{'  ' if ci and note else ''}{note}".rstrip()


def seat_lines(summary: dict, heading: str = "Win share by seat (95% CI)", first_seat: str = "first player") -> list[str]:
    """The win-share block of a summary table: each seat's share, then the first-player advantage (and, when the
    seats play different policies, that it is not the first seat's edge alone)."""
    lines = [heading]
    for s, (w, ci) in enumerate(zip(summary["win_share"], summary["win_share_ci"])):
        lines.append(table_row(f"seat {s}" + (f" ({first_seat})" if s == 0 else ""), pct(w), pct_ci(ci)))
    lines.append(table_row("first-player advantage", pts(summary["first_player_advantage"]),
                           f"seat 0 minus 1/{summary['players']}, in percentage points",
                           ci=pts_ci(summary["first_player_advantage_ci"])))
    mixed = mixed_seats_words(summary)
    if mixed:
        lines += textwrap.wrap(f"{mixed[0].upper()}{mixed[1:]}.", 110, initial_indent="  ", subsequent_indent="  ")
    return lines


def mixed_seats_words(summary: Mapping[str, Any]) -> str:
    """When the seats play different policies, the words saying that seat 0's advantage mixes its place with its
    policy's strength ("the seats play different policies (seat 0 expert; the others greedy), ..."); empty when
    every seat plays one policy."""
    policies = list(summary.get("policies") or ())
    if len(set(policies)) < 2:
        return ""
    others = list(dict.fromkeys(policies[1:]))
    return (f"the seats play different policies (seat 0 {policies[0]}; the others {' and '.join(others)}), so this "
            "mixes the first seat's place with its policy's strength, as the worst seat's advantage mixes every "
            "seat's: play every seat one policy to measure what the seats' order gives")


def skill_gap_lines(summary: dict) -> list[str]:
    """The skill-gap block of a summary table (empty when the run skipped it)."""
    gap = summary.get("skill_gap")
    if not gap:
        return []
    lines = ["", "Skill gap (one seat against the others, seats rotated)"]
    for entry in gap.values():
        label = f"{entry['policy']} vs {entry['against']}"
        # Below the fewest deals an interval needs, the reason stands where the interval would.
        ci = entry.get("win_share_ci_reason") or pct_ci(entry["win_share_ci"])
        note = f"{ci}  fair {pct(entry['fair_share'])}, {entry['games']:,} deals"
        if entry.get("no_winner_share"):
            note += f", {pct(entry['no_winner_share'])} of games won by no one"
        lines.append(table_row(label, pct(entry["win_share"]), note))
    return lines


def strength_lines(summary: dict, metrics: Sequence[Metric]) -> list[str]:
    """The strength-profile block of a summary table: a row for each of ``metrics`` (the game's declared metrics
    the table shows), by its short name."""
    strength = summary.get("strength")
    if not strength or not strength.get("profiles"):
        return []
    profiles = strength["profiles"]
    width = 16
    # Its own deals: a column of the run's own policy is another sample than the run's table above.
    lines = ["", "Against player strength (every seat one policy, on deals of its own, the same for every column; "
                 "95% CI below each value)"]
    lines.append(f"  {'':<25}" + "".join(f"{p['policy']:>{width}}" for p in profiles))  # montecarlo:4, :16 apart
    show = {"pct": pct, "pts": pts, "num": num}
    for metric in metrics:
        key, kind = metric.name, metric.style
        cells = [show[kind](p["metrics"][key][0]) for p in profiles]
        lines.append(f"  {metric.title:<25}" + "".join(f"{c:>{width}}" for c in cells))
        intervals = [_strength_ci(kind, *p["metrics"][key][1:3]) for p in profiles]
        lines.append(f"  {'':<25}" + "".join(f"{c:>{width}}" for c in intervals))
    lines.append(f"  {'games':<25}" + "".join(f"{p['games']:>{width},}" for p in profiles))
    from analysis.strength import comparison_lines  # it reads the table rows above; imported late, as it is large

    lines += comparison_lines(strength, metrics)
    lines += paragraph(strength["verdict"]["sentence"])
    return lines


def paragraph(text: str, width: int = 118) -> list[str]:
    """``text`` as lines of a summary table, every one indented, none wider than ``width`` but for a quoted command
    kept whole (:func:`wrapped`)."""
    return wrapped(text, width, first="  ").splitlines()


def _strength_ci(kind: str, low: float | None, high: float | None) -> str:
    """A strength profile's 95% interval in a cell of the strength table, beneath its value."""
    if low is None or high is None or (isinstance(low, float) and math.isnan(low)):
        return "n/a"
    if kind == "pct":
        return f"[{100 * low:.1f}%, {100 * high:.1f}%]"
    if kind == "pts":
        return f"[{100 * low:+.1f}, {100 * high:+.1f}]"
    return f"[{low:.2f}, {high:.2f}]"


def played_line(summary: dict, more: str = "") -> str:
    """``Played N games in X s (G games/s)``, and the whole run's wall time when the caller timed it, then ``more``,
    wrapped at 120 columns."""
    speed = ""
    if summary.get("seconds") is not None:
        speed = f" in {summary['seconds']:.2f} s ({summary['games_per_second']:,.0f} games/s)"
    wall = ""
    if summary.get("wall_seconds") is not None:
        parts = ["the games"] + [name for key, name in (("skill_gap", "the skill-gap duels"),
                                                        ("strength", "the strength profile"),
                                                        ("sensitivity", "what moves the verdict"),
                                                        ("decisions_played", "which decisions matter"),
                                                        ("report_written", "the report"))
                                  if summary.get(key)]
        wall = f"; {summary['wall_seconds']:.1f} s wall time in all ({and_listed(parts)})"
    return wrapped(f"Played {summary['games']:,} games{speed}{wall}{more}")
