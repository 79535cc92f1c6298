"""How much skill matters: policies against each other on the same dice.

A *duel* seats a list of policies and plays every game once per rotation of
that list (in rotation ``k`` seat ``s`` gets ``seats[(s + k) % players]``).
Each policy thus plays every game from every seat it is given, so the
advantage of a seat and the luck of the dice cancel out. The bill pile is
the same in every rotation because the table's stream depends only on
``(seed, game)``; the rolls follow the same stream, so they match for as
long as the players hold the same numbers of dice.

A policy's win share is the wins of all its seats, averaged over rotations
and games; the confidence interval is taken over games, the rotations of
one game being averaged first since they are not independent.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from analysis.stats import mean_interval
from sim.errors import ConfigError
from sim.vegasdice.nb import play_games
from sim.vegasdice.params import Rules
from sim.vegasdice.policies import parse_seats

BATCH = 65_536
MONTECARLO_BATCH = 256


def duel(rules: Rules, seats: Sequence[str], games: int, seed: int, threads: int | None = None,
         field: str = "--seats") -> dict:
    """Play ``games`` games once per rotation of ``seats``; the win share of each policy.

    Returns ``{"games", "players", "seed", "policies": {name: {"seats",
    "fair_share", "win_share", "win_share_ci"}}}`` with names in order of
    first appearance in ``seats``. The interval is nan with fewer than two games.
    """
    players = rules.players
    seats = [s.strip() if isinstance(s, str) else s for s in seats]
    parse_seats(seats, players, field=field)
    if games < 1:
        raise ConfigError("games", f"must be at least 1, got {games}")
    names = list(dict.fromkeys(seats))
    per_game = np.zeros((len(names), games))
    batch = MONTECARLO_BATCH if any("montecarlo" in s for s in seats) else BATCH
    for k in range(players):
        rotated = [seats[(s + k) % players] for s in range(players)]
        ids, params = parse_seats(rotated, players, field=field)
        for first in range(0, games, batch):
            n = min(batch, games - first)
            rec = play_games(rules, seed, first, n, ids, params, threads=threads)
            for s, name in enumerate(rotated):
                per_game[names.index(name), first:first + n] += rec["win_share"][:, s]
    per_game /= players
    policies = {}
    for p, name in enumerate(names):
        n_seats = seats.count(name)
        x = per_game[p]
        sd = float(x.std(ddof=1)) if games > 1 else math.nan
        low, high = mean_interval(float(x.mean()), sd, games)
        policies[name] = {
            "seats": n_seats,
            "fair_share": n_seats / players,
            "win_share": float(x.mean()),
            "win_share_ci": [low, high],
        }
    return {"games": games, "players": players, "seed": seed, "policies": policies}
