"""Runs shared by tests in several folders: small Las Vegas and $ Fever runs with their reports."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import main

CONFIGS = Path(__file__).resolve().parent.parent / "configs"
SMALL_DICE_GAMES = 2000
SMALL_DICE_SEED = 5


class SmallDiceRun:
    def __init__(self, directory: Path, summary: dict, output: str):
        self.directory = directory
        self.summary = summary  # as `lvsim run --json` printed it
        self.output = output

    @property
    def report(self) -> Path:
        return self.directory / "report.html"


@pytest.fixture(scope="session")
def small_dice_run(tmp_path_factory) -> SmallDiceRun:
    """``lvsim run configs/vegas-dice.toml --json`` on a few thousand games; the run writes its report itself."""
    out = tmp_path_factory.mktemp("small-dice-run") / "results"
    result = CliRunner().invoke(main, [
        "run", str(CONFIGS / "vegas-dice.toml"), "--games", str(SMALL_DICE_GAMES), "--seed", str(SMALL_DICE_SEED),
        "--out", str(out), "--json",
    ])
    assert result.exit_code == 0, result.output
    return SmallDiceRun(out, json.loads(result.stdout), result.output)


@pytest.fixture(scope="session")
def small_fever_run(tmp_path_factory) -> SmallDiceRun:
    """``lvsim run configs/fever.toml --json`` on a thousand games; the run writes its report itself."""
    out = tmp_path_factory.mktemp("small-fever-run") / "results"
    result = CliRunner().invoke(main, [
        "run", str(CONFIGS / "fever.toml"), "--games", "1000", "--seed", "5", "--out", str(out), "--json",
    ])
    assert result.exit_code == 0, result.output
    return SmallDiceRun(out, json.loads(result.stdout), result.output)
