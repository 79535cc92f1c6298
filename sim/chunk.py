"""A chunk of games played, the unit of work of every run: what a cluster's worker imports.

Nothing here reaches beyond the config and its game: a worker unpickling
a chunk's task imports the simulator's kernels and no more (not the runner's
files, pandas or Arrow), so that a fresh worker plays its first chunk
sooner. ``sim.runner`` plays the same chunks in this process.
"""

from __future__ import annotations

import threading

import numpy as np

from sim.config import Config

# One batch at a time per worker process: a batch already plays on the
# threads its task asks for, so tasks run side by side would only share the cores.
_KERNEL_LOCK = threading.Lock()


def play_chunk(config: Config, first_game: int, n_games: int, threads: int | None = None):
    """Play games ``first_game .. first_game + n_games - 1`` of ``config``; return ``(records, tally)``.

    The unit of work of every run, in this process or on a cluster worker:
    it depends on nothing but its arguments. ``threads`` applies when the
    config sets none.
    """
    rec = play_records(config, first_game, n_games, threads)
    return rec, config.game_spec.tally(rec)


def play_records(config: Config, first_game: int, n_games: int, threads: int | None = None) -> dict[str, np.ndarray]:
    """The records of :func:`play_chunk`, without their tally."""
    game = config.game_spec
    rules = config.rules
    policy_ids, policy_params = game.parse_seats(config.seats, rules.players)
    return game.play_games(
        rules, config.seed, first_game, n_games, policy_ids, policy_params,
        threads=config.threads if config.threads is not None else threads,
    )


def play_chunk_on_worker(config: Config, first_game: int, n_games: int, threads: int | None):
    """``play_chunk`` for a worker: one kernel at a time per worker process."""
    with _KERNEL_LOCK:
        return play_chunk(config, first_game, n_games, threads)


def warm_up_worker(config: Config) -> None:
    """Load the config's kernels on a worker: one game played."""
    play_chunk_on_worker(config, 0, 1, 1)
