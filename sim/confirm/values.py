"""What ``lvsim confirm`` judges game by game: each metric's value in every game of a chunk of records.

A metric can be confirmed when each game gives a value whose mean is the
metric (``Game.per_game``: a rate, a mean, the first player's advantage),
a numerator and a denominator whose sums' ratio is the metric
(``Game.per_game_ratios``), or, for the worst seat's advantage, every
seat's win share; a skill-gap duel is judged deal by deal
(:func:`duel_values`). :func:`judgeable` names the metrics that can, so that
a command can refuse the rest up front.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from analysis.strength import paired_and_ratios

WORST_SEAT = "worst_seat_advantage"
# Targets read the worst seat bias-corrected in a tune; a confirmation plays until the interval of the worst
# seat itself decides, so both names judge the same quantity.
WORST_SEAT_NAMES = (WORST_SEAT, "worst_seat_advantage_corrected")


def ratios(game) -> tuple[str, ...]:
    """The metrics ``game`` gives as a ratio of per-game sums (``Game.per_game_ratios``), e.g. mean |swing| per
    round: read off an empty chunk of records, since the game declares them only by giving them."""
    if game.per_game_ratios is None:
        return ()
    rules = game.rules_from_mapping({})
    return tuple(game.per_game_ratios(game.records.empty(0, rules), rules.players))


def judgeable(game) -> tuple[str, ...]:
    """The metrics of ``game`` a confirmation can judge game by game, in the game's order."""
    paired = set(game.paired_metrics) | set(ratios(game))
    return tuple(m.name for m in game.metrics if m.name in paired or m.name in WORST_SEAT_NAMES)


def denominator(metric: str) -> str:
    """The key of a ratio metric's per-game denominators beside its numerators."""
    return f"{metric}/per"


def per_game(game, rec: Mapping[str, np.ndarray], players: int) -> dict[str, np.ndarray]:
    """``{metric: value in each game}`` for every paired metric; for a ratio its numerators, and its denominators
    under :func:`denominator`; and ``win_share_s<k>`` for each seat."""
    out, ratio_parts = paired_and_ratios(game, rec, players)
    for name, (num, den) in ratio_parts.items():
        out[name] = np.asarray(num, dtype=np.float64)
        out[denominator(name)] = np.asarray(den, dtype=np.float64)
    win = np.asarray(rec["win_share"], dtype=np.float64)
    for seat in range(players):
        out[f"win_share_s{seat}"] = win[:, seat]
    return out


def duel_values(game, rules, duel, seed: int, first: int, n: int, threads: int | None = None) -> np.ndarray:
    """A skill-gap duel's stronger policy's win share on each of deals ``first .. first + n``, averaged over the
    rotations of its one seat among the weaker ones, as ``lvsim duel`` counts it (``sim.duel``)."""
    players = rules.players
    seats = [duel.policy] + [duel.against] * (players - 1)
    share = np.zeros(n)
    for k in range(players):
        rotated = [seats[(s + k) % players] for s in range(players)]
        ids, params = game.parse_seats(rotated, players, field="skill_gap")
        rec = game.play_games(rules, seed, first, n, ids, params, threads=threads)
        share += np.asarray(rec["win_share"], dtype=np.float64)[:, rotated.index(duel.policy)]
    return share / players
