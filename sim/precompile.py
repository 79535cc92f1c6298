"""Compiling the kernels of several games before they are needed, one process per game, a few at a time.

numba compiles a kernel on one thread, under one lock per process, so the
kernels of two games compile side by side only in two processes. Each
process plays a small run of its game (main table, skill-gap
duels, strength profile: every policy the game's kernel dispatches, and the
tallies and statistics a summary reads) and leaves the kernels in the
shared kernel cache (``sim._kernel_cache``), from which every later process
loads them in a second or two. The test suite does this once before its
workers start, so that two workers do not each compile the same kernels
into an empty cache at the same time.

A game whose kernel of play calls some policies directly also has a
kernel per such policy, for a table of that policy alone (Las Vegan's
``KERNELS_ALONE``): its job ``GAME:alone`` plays one such table of each in a
fresh process, where they compile rather than the kernel of every policy.
The jobs are handed out longest first, each to the next free process, so
that the processes end together.

A run whose own table is one of those policies alone, and which then
plays its other tables (skill gap, strength profile, decisions) on the
kernel of every policy, would compile the two one after the other on one
core: as soon as it is heard compiling,
:class:`sim.estimates.compiling.Alongside` compiles the kernel of every
policy in a second process (job ``GAME:every``), and the run loads it from
the kernel cache when its other tables start.

``python -m sim.precompile [JOB ...]`` compiles the given jobs' kernels
(every registered game's run, without any) in this process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence

# Small enough to play in a moment once compiled, large enough that every summary's statistics are worked out.
_GAMES = 64
_SKILL_GAP_DEALS = 4
_STRENGTH_GAMES = 32
_STRENGTH_SLOW_GAMES = 4


ALONE = ":alone"


def stamp(job: str) -> Path | None:
    """The file saying that ``job``'s kernels are in the kernel cache of these sources; None without a cache."""
    where = os.environ.get("NUMBA_CACHE_DIR")
    return Path(where) / f"compiled-{job.replace(ALONE, '-alone')}" if where else None


def compiled(job: str) -> bool:
    found = stamp(job)
    return found is not None and found.is_file()


def _stamped(job: str) -> None:
    found = stamp(job)
    if found is not None:
        try:
            found.touch()
        except OSError:  # a cache that cannot be written: the kernels are compiled, only not said to be
            pass


def _play_small(game_id: str, name: str, **sizes) -> None:
    """A small run of ``game_id`` on one thread, writing nothing: ``sizes`` say which of its tables it plays."""
    from sim.config import Config
    from sim.runner import run

    run(Config(name=name, game=game_id, games=_GAMES, seed=1, threads=1, sensitivity_games=0, **sizes), out=None,
        progress=False, report=False)


def compile_game(game_id: str) -> float:
    """Compile (or load) the kernels a run of ``game_id`` plays, in this process; the seconds it took."""
    began = time.perf_counter()
    _play_small(game_id, f"compile-{game_id}", skill_gap_games=_SKILL_GAP_DEALS, strength_games=_STRENGTH_GAMES,
                strength_slow_games=_STRENGTH_SLOW_GAMES)
    _stamped(game_id)
    return time.perf_counter() - began


def alone_policies(game_id: str) -> list[str]:
    """The policies of ``game_id`` with a kernel of their own for a table of them alone
    (:func:`~sim.estimates.compiling.kernels_alone`), but its default policy, whose kernel a run of its default
    config compiles."""
    from sim.estimates.compiling import kernels_alone
    from sim.games import get_game

    game, alone = get_game(game_id), kernels_alone(game_id)
    return [name for name, policy_id in game.policies.ids.items()
            if policy_id in alone and name != game.default_policy]


def compile_alone(game_id: str) -> float:
    """Compile (or load) the kernels of a table of each of :func:`alone_policies`, in this process (one that has
    not played the game's kernel of every policy); the seconds it took."""
    began = time.perf_counter()
    for policy in alone_policies(game_id):
        _play_small(game_id, f"compile-{game_id}-{policy}", seats=policy, skill_gap_games=0, strength_games=0,
                    strength_slow_games=0)
    _stamped(game_id + ALONE)
    return time.perf_counter() - began


def compile_every(game_id: str) -> float:
    """Compile (or load) ``game_id``'s kernel of every policy, in this process: one game of
    :func:`~sim.estimates.compiling.mixed_seats`."""
    from sim.estimates.compiling import mixed_seats
    from sim.games import get_game

    began = time.perf_counter()
    game, seats = get_game(game_id), mixed_seats(game_id)
    if seats is not None:
        rules = game.Rules()
        game.play_games(rules, 1, 0, 1, *game.parse_seats(seats, rules.players), threads=1)
    return time.perf_counter() - began


def jobs(game_ids: Sequence[str]) -> list[str]:
    """The compile jobs of ``game_ids``, longest first: each game's run by its declared ``compile_seconds`` (a
    game declaring none counts as the shortest declared), then the tables alone of the games that have them."""
    from sim.games import get_game

    declared = {g: get_game(g).compile_seconds for g in game_ids}
    shortest = min((s for s in declared.values() if s is not None), default=1.0)
    runs = sorted(game_ids, key=lambda g: -(declared[g] or shortest))
    return runs + [g + ALONE for g in runs if alone_policies(g)]


def compile_in_processes(game_ids: Sequence[str], processes: int = 2) -> list[str]:
    """Compile the kernels of the jobs of ``game_ids`` not yet in the kernel cache, one process per job and
    ``processes`` at a time, each job to the next free one; the jobs it compiled. A process that fails leaves
    its kernels to compile when first played."""
    if stamp("") is None:  # no kernel cache: nothing compiled here would reach another process
        return []
    todo = [job for job in jobs(game_ids) if not compiled(job)]
    waiting, running = list(todo), []
    while waiting or running:
        while waiting and len(running) < max(1, processes):
            running.append(subprocess.Popen([sys.executable, "-m", "sim.precompile", waiting.pop(0)],
                                            stdout=subprocess.DEVNULL))
        time.sleep(0.05)
        running = [child for child in running if child.poll() is None]
    return todo


def main(argv: Sequence[str]) -> int:
    from sim.games import GAME_IDS

    from sim.estimates import compiling

    compiling.alongside_allowed = False  # each job compiles what it is given, and no more at once
    for job in argv or GAME_IDS:
        if job.endswith(compiling.EVERY):
            compile_every(job[:-len(compiling.EVERY)])
            continue
        game_id, alone, _ = job.partition(ALONE)
        (compile_alone if alone else compile_game)(game_id)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
