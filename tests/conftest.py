"""Runs shared by tests in several folders: small Las Vegan, Las Vegas and $ Fever runs with their reports."""

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import main

CONFIGS = Path(__file__).resolve().parent.parent / "configs"

# Plays a few games of one game (its id the argument), so that its core is compiled into the kernel cache.
_COMPILE = """
import sys
from sim.bench import bench_core
from sim.games import get_game
game = get_game(sys.argv[1])
bench_core(game, game.Rules.from_mapping({}), "random", 10, 1)
"""


def pytest_configure(config):
    """With several workers (``-n``), compile every game's core once, the games side by side, before the
    workers start: each worker would otherwise compile the same cores at the same time on a fresh machine.
    A game whose core fails to compile here fails in its own tests, with their messages."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    from sim.games import all_games

    compiling = [subprocess.Popen([sys.executable, "-c", _COMPILE, game.id], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL) for game in all_games()]
    for process in compiling:
        process.wait()


@dataclass
class SmallRun:
    directory: Path
    summary: dict  # as `lvsim run --json` printed it
    output: str

    @property
    def report(self) -> Path:
        return self.directory / "report.html"


def _small_run(tmp_path_factory, name: str, config: list[str], games: int, seed: int) -> SmallRun:
    """``lvsim run [CONFIG] --json`` of ``games`` games; the run writes its report itself."""
    out = tmp_path_factory.mktemp(name) / "results"
    result = CliRunner().invoke(
        main, ["run", *config, "--games", str(games), "--seed", str(seed), "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    return SmallRun(out, json.loads(result.stdout), result.output)


@pytest.fixture(scope="session")
def small_run(tmp_path_factory) -> SmallRun:
    """A few thousand rulebook Las Vegan games (the default config)."""
    return _small_run(tmp_path_factory, "small-run", [], 2000, 11)


@pytest.fixture(scope="session")
def small_dice_run(tmp_path_factory) -> SmallRun:
    """A few thousand games of configs/vegas-dice.toml."""
    return _small_run(tmp_path_factory, "small-dice-run", [str(CONFIGS / "vegas-dice.toml")], 2000, 5)


@pytest.fixture(scope="session")
def small_fever_run(tmp_path_factory) -> SmallRun:
    """A thousand games of configs/fever.toml."""
    return _small_run(tmp_path_factory, "small-fever-run", [str(CONFIGS / "fever.toml")], 1000, 5)
