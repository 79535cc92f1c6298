"""Runs shared by tests in several folders: small Las Vegan, Las Vegas and $ Fever runs with their reports."""

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import main

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


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
