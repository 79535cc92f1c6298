"""Adaptive precision: how many games a sweep's cell plays to narrow one metric's 95% interval."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from sim.config import Config

# Without --max-games, adaptive precision stops a cell at this many times its games.
DEFAULT_MAX_GAMES_FACTOR = 10
# Aim past the estimated games needed: the estimate wobbles with the sample,
# and an extra small batch costs more than a few extra games.
GROWTH_MARGIN = 1.1
# A cell that grows grows by at least this fraction, so a cell never creeps
# towards its target in a long run of tiny batches.
MIN_GROWTH = 0.25
# What --target-ci narrows unless --target-metric says otherwise.
DEFAULT_TARGET_METRIC = "first_player_advantage"


@dataclass(frozen=True)
class CellPlan:
    """How many games a cell plays: its config's games, or more until precise enough.

    With ``target_ci`` set, games are added until the half-width of the
    95% interval of ``metric`` (the first-player advantage, or e.g. the
    worst seat's advantage) is at most ``target_ci`` or the cell has played
    ``max_games``. Each batch continues the game indices, so the result
    equals a single run of the final total.
    """

    games: int
    target_ci: float | None = None
    max_games: int | None = None
    metric: str = DEFAULT_TARGET_METRIC

    @classmethod
    def of(cls, config: Config, target_ci: float | None, max_games: int | None,
           metric: str = None) -> "CellPlan":
        if target_ci is None:
            return cls(config.games)
        cap = max_games if max_games is not None else DEFAULT_MAX_GAMES_FACTOR * config.games
        return cls(min(config.games, cap), target_ci, cap, metric or DEFAULT_TARGET_METRIC)

    def more_games(self, summary: Mapping[str, Any]) -> int:
        """Games to add after the games of ``summary``; 0 when the cell is done."""
        if self.target_ci is None:
            return 0
        n = summary["games"]
        half = half_width(summary, self.metric)
        if half <= self.target_ci or n >= self.max_games:
            return 0
        # The half-width shrinks as 1/sqrt(games).
        needed = math.ceil(n * (half / self.target_ci) ** 2 * GROWTH_MARGIN) if math.isfinite(half) else 2 * n
        total = min(self.max_games, max(needed, n + math.ceil(MIN_GROWTH * n)))
        return total - n

    def as_dict(self) -> dict[str, Any]:
        plan = {"target_ci": self.target_ci, "max_games": self.max_games}
        if self.metric != DEFAULT_TARGET_METRIC:  # cells of earlier sweeps, without the key, still resume
            plan["target_metric"] = self.metric
        return plan


def half_width(summary: Mapping[str, Any], metric: str = None) -> float:
    """Half-width of the 95% interval of ``metric`` (the first-player advantage); inf while undefined."""
    low, high = summary[f"{metric or DEFAULT_TARGET_METRIC}_ci"]
    return math.inf if low is None else (high - low) / 2
