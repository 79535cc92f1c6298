"""Where a run came from: what ``meta.json`` says to reproduce it and to tell its versions."""

from __future__ import annotations

import platform
import shlex
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd

from sim import __version__
from sim.config import Config
from sim.layout import CONFIG_FILE, RECORDS_FILE, SUMMARY_FILE, TALLY_FILE
from sim.runner.played import GamesPlayed


def run_meta(config: Config, played: GamesPlayed, out_dir: Path, started_at: datetime, wall_seconds: float) -> dict:
    """Everything needed to reproduce the run and to tell where it came from."""
    import numba
    import pyarrow

    return {
        "config_name": config.name,
        "game": config.game,
        "seed": config.seed,
        "games": played.games,
        "players": config.players,
        "seats": list(config.seat_policies),
        "first_game": 0,
        "chunk_games": played.chunk_games,
        "threads": played.threads,
        "played": played.where,
        "seconds": played.seconds,
        "wall_seconds": wall_seconds,
        "started_at": started_at.isoformat(timespec="seconds"),
        "command": shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "reproduce": f"lvsim run {shlex.quote(str(out_dir / CONFIG_FILE))}",
        "files": {"records": RECORDS_FILE, "config": CONFIG_FILE, "summary": SUMMARY_FILE, "tally": TALLY_FILE},
        "versions": {
            "lvsim": __version__,
            "source_commit": _source_commit(),
            "python": platform.python_version(),
            "numba": numba.__version__,
            "numpy": np.__version__,
            "pandas": pd.__version__,
            "pyarrow": pyarrow.__version__,
        },
        "platform": platform.platform(),
    }


def _source_commit() -> str | None:
    """The commit of the source tree the package runs from, if it is a checkout."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None
