"""What a game measures, declared once: each metric's name, how it reads, and the parts it plays.

A metric is one value of a run's summary (``summary.json``), with its 95%
interval under ``<name>_ci`` when it has one. Its :class:`Metric` says
what it is — label, kind, how the interval is computed, which way is
better, the smallest difference that matters — and which parts of the
machinery read it:

* ``headline``: a number a designer judges rules by. The strength profile
  shows it under every player strength and says, from its paired
  difference on the same deals, whether it clearly moves by more than
  ``material``, clearly stays within it, or cannot yet be told
  (``analysis.strength``).
* ``paired``: a sweep compares it between cells game by game, on its
  value in each game (``of_games``).
* ``hole``: a rate of a hole in the rules, and what it counts; a sweep and
  a tune flag rules under which it rises.
* ``of_games``: its value in each game of a batch of records, or for a
  ratio of sums its numerator and denominator in each game. From these
  the values a sweep, a strength profile and ``lvsim confirm`` pair game
  by game are derived (``analysis.declared``), and, for a game that
  writes no summary of its own, its tally, summary and text table.

The metrics every game has — win share, first-player advantage, the worst
seat's advantage, tie rate — are declared here, once; each game's
``sim/<game>/game.py`` lists them (``Metric.but`` adjusts one for the
game) beside its own, and ``sim.game.Game`` derives every view the
machinery asks for from that list.

The command line imports this module: no numpy, no pandas.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable

# What a metric is, and so how it is shown.
RATE = "rate"  # a share of games, rounds, turns or money: shown as a percentage
ADVANTAGE = "advantage"  # a difference of win shares: shown signed, in percentage points
MEAN = "mean"  # a mean in the game's own units (rounds, turns, cabbages)
KINDS = (RATE, ADVANTAGE, MEAN)

# How a metric's 95% interval is computed (``analysis.stats``, ``analysis.common``).
WILSON = "wilson"  # Wilson score interval of a count (of games, rounds, payouts)
STUDENT_T = "student t"  # Student t over games, with the sample variance
CLUSTER = "cluster"  # a ratio of sums, cluster-robust with games as clusters
SEATS = "seats"  # from every seat's own interval (the worst seat's advantage, its bias-corrected one kept inside)
NO_INTERVAL = "none"
INTERVALS = (WILSON, STUDENT_T, CLUSTER, SEATS, NO_INTERVAL)

# What a list-valued metric is indexed by (a sweep's columns number seats from 0, rounds from 1).
SEAT = "seat"
ROUND = "round"


@dataclass(frozen=True)
class Metric:
    """One metric of a game's summary: how it reads and what the machinery does with it."""

    name: str  # its key in summary.json
    label: str  # how a table or a sentence names it
    kind: str  # RATE, ADVANTAGE or MEAN
    interval: str  # how its 95% interval is computed: WILSON, STUDENT_T, CLUSTER, SEATS or NO_INTERVAL
    higher_is_better: bool | None = None  # None: neither way (an advantage is best at 0, a length is a taste)
    headline: bool = False  # judged against player strength (and, later, against each printed number)
    material: float | None = None  # the smallest difference that changes a decision, in the metric's units
    paired: bool = False  # compared game by game between a sweep's cells
    hole: str = ""  # a rate of a rule hole: what it counts
    short: str = ""  # a shorter name for narrow places (a sweep's columns, the text summary)
    axis: str = ""  # a sweep figure's axis label, when not the label and its unit
    per: str = ""  # a list in the summary: SEAT or ROUND; "" for one value
    # records -> the metric in each game, integers: 1 or 0 for a rate of games, a value for a mean, (numerators,
    # denominators) for a ratio of sums (a rate of rounds, a share of money); per SEAT, a column per seat.
    of_games: Callable[[Any], Any] | None = field(default=None, compare=False)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"metric {self.name}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.interval not in INTERVALS:
            raise ValueError(f"metric {self.name}: interval {self.interval!r} is not one of {', '.join(INTERVALS)}")
        if self.headline and self.material is None:
            raise ValueError(f"metric {self.name}: a headline metric says the smallest difference that matters")
        if self.of_games is not None and self.per not in ("", SEAT):
            raise ValueError(f"metric {self.name}: a value in each game is one number, or one per seat")

    def but(self, **changes) -> "Metric":
        """This metric with some of its declaration changed for one game (a game's own material, say)."""
        return dataclasses.replace(self, **changes)

    @property
    def title(self) -> str:
        return self.short or self.label

    @property
    def style(self) -> str:
        """How a value is written: ``pct`` (a percentage), ``pts`` (signed percentage points) or ``num``."""
        return {RATE: "pct", ADVANTAGE: "pts"}.get(self.kind, "num")

    @property
    def scale(self) -> float:
        """What a value is multiplied by where it is shown (100 for a percentage or percentage points)."""
        return 100 if self.kind in (RATE, ADVANTAGE) else 1

    @property
    def signed(self) -> bool:
        return self.kind == ADVANTAGE

    @property
    def axis_label(self) -> str:
        unit = {RATE: " (%)", ADVANTAGE: " (percentage points)"}.get(self.kind, "")
        return self.axis or self.label + unit


# --- the metrics every game has (analysis.common computes them one way) -------------------------

WIN_SHARE = Metric("win_share", "win share", RATE, STUDENT_T, per=SEAT)
FIRST_PLAYER_ADVANTAGE = Metric(
    "first_player_advantage", "first-player advantage", ADVANTAGE, STUDENT_T, headline=True, material=0.02,
    paired=True,
)
WORST_SEAT_ADVANTAGE = Metric(
    "worst_seat_advantage", "worst seat's advantage", ADVANTAGE, SEATS, higher_is_better=False, headline=True,
    material=0.02,
)
# The worst seat's advantage less the upward bias a maximum over noisy seats has, clamped into the same interval
# (analysis.common.worst_seat_advantage_corrected): an estimate below its interval's low end is known to be too low.
WORST_SEAT_ADVANTAGE_CORRECTED = Metric(
    "worst_seat_advantage_corrected", "worst seat's advantage, bias taken out", ADVANTAGE, SEATS,
    higher_is_better=False,
)
TIE_RATE = Metric("tie_rate", "tie rate", RATE, WILSON, headline=True, material=0.02, paired=True)

SEAT_METRICS = (WIN_SHARE, FIRST_PLAYER_ADVANTAGE, WORST_SEAT_ADVANTAGE, WORST_SEAT_ADVANTAGE_CORRECTED)


def by_name(metrics) -> dict[str, Metric]:
    """The metrics keyed by name, in their order; a name declared twice is refused."""
    out: dict[str, Metric] = {}
    for m in metrics:
        if m.name in out:
            raise ValueError(f"metric {m.name} is declared twice")
        out[m.name] = m
    return out
