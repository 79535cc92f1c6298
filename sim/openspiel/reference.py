"""A batch of games with a seat the jitted core cannot play, played by the reference engine.

``play_games`` takes what a game's ``nb.play_games`` takes and gives the
same records: each game is the reference engine's
(``PlayLoop.play_game``) on the same ``(seed, game)`` streams, which the
conformance suite holds equal to the kernel's game for every jitted
policy. ``sim.game.laid_out`` sends a batch here when a seat plays a
``reference_only`` policy. The game's ``state`` module gives the loop
(``PLAY_LOOP``), the layout (``LAYOUT``) and a seat's player
(``seat_player(rules, policy_id, params)``).
"""

from __future__ import annotations

import importlib

import numpy as np

from sim.batches import check_batch


def play_games(package: str, rules, seed: int, first_game: int, n_games: int, policy_ids: np.ndarray,
               policy_params: np.ndarray, threads: int | None = None, chunk: int | None = None):
    """Games ``first_game ..`` of ``seed`` in the kernel's record layout; one thread (``threads``, ``chunk`` unused)."""
    check_batch(seed, first_game, n_games)
    module = importlib.import_module(f"{package}.state")
    rec = module.LAYOUT.empty(n_games, rules)
    players = [module.seat_player(rules, int(i), np.asarray(p, dtype=np.float64))
               for i, p in zip(policy_ids, policy_params)]
    for k in range(n_games):
        one = module.PLAY_LOOP.play_game(rules, seed, first_game + k, players)
        for name in module.LAYOUT.fields:
            rec[name][k] = one[name]
    return rec
