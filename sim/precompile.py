"""Compiling the kernels of several games before they are needed, one process per share of the games.

numba compiles a kernel on one thread, under one lock per process, so the
kernels of two games compile side by side only in two processes. Each
process plays a small run of each of its games (main table, skill-gap
duels, strength profile: every policy the game's kernel dispatches, and the
tallies and statistics a summary reads) and leaves the kernels in the
shared kernel cache (``sim._kernel_cache``), from which every later process
loads them in a second or two. The test suite does this once before its
workers start, so that two workers do not each compile the same kernels
into an empty cache at the same time.

``python -m sim.precompile [GAME ...]`` compiles the given games' kernels
(every registered game's without any) in this process.
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


def stamp(game_id: str) -> Path | None:
    """The file saying that ``game_id``'s kernels are in the kernel cache of these sources; None without a cache."""
    where = os.environ.get("NUMBA_CACHE_DIR")
    return Path(where) / f"compiled-{game_id}" if where else None


def compiled(game_id: str) -> bool:
    found = stamp(game_id)
    return found is not None and found.is_file()


def compile_game(game_id: str) -> float:
    """Compile (or load) the kernels a run of ``game_id`` plays, in this process; the seconds it took."""
    from sim.config import Config
    from sim.runner import run

    began = time.perf_counter()
    config = Config(name=f"compile-{game_id}", game=game_id, games=_GAMES, seed=1, threads=1,
                    skill_gap_games=_SKILL_GAP_DEALS, strength_games=_STRENGTH_GAMES,
                    strength_slow_games=_STRENGTH_SLOW_GAMES, sensitivity_games=0)
    run(config, out=None, progress=False, report=False)
    found = stamp(game_id)
    if found is not None:
        try:
            found.touch()
        except OSError:  # a cache that cannot be written: the kernels are compiled, only not said to be
            pass
    return time.perf_counter() - began


def shares(game_ids: Sequence[str], processes: int) -> list[list[str]]:
    """``game_ids`` dealt to ``processes`` processes, longest compile first, each to the least loaded (a game
    that declares no ``compile_seconds`` counts as the shortest declared)."""
    from sim.games import get_game

    declared = {g: get_game(g).compile_seconds for g in game_ids}
    shortest = min((s for s in declared.values() if s is not None), default=1.0)
    loads = [0.0] * max(1, processes)
    out: list[list[str]] = [[] for _ in loads]
    for g in sorted(game_ids, key=lambda g: -(declared[g] or shortest)):
        i = loads.index(min(loads))
        out[i].append(g)
        loads[i] += declared[g] or shortest
    return [share for share in out if share]


def compile_in_processes(game_ids: Sequence[str], processes: int = 2) -> list[str]:
    """Compile the kernels of those of ``game_ids`` not yet in the kernel cache, ``processes`` processes side
    by side; the games it compiled. A process that fails leaves its games to compile when first played."""
    if stamp("") is None:  # no kernel cache: nothing compiled here would reach another process
        return []
    todo = [g for g in game_ids if not compiled(g)]
    if not todo:
        return []
    children = [subprocess.Popen([sys.executable, "-m", "sim.precompile", *share], stdout=subprocess.DEVNULL)
                for share in shares(todo, processes)]
    for child in children:
        child.wait()
    return todo


def main(argv: Sequence[str]) -> int:
    from sim.games import GAME_IDS

    for game_id in argv or GAME_IDS:
        compile_game(game_id)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
