"""A small run shared by the report tests: its results directory and its ``--json`` summary."""

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import main

SMALL_RUN_GAMES = 2000
SMALL_RUN_SEED = 11


@dataclass
class SmallRun:
    directory: Path
    summary: dict  # as `lvsim run --json` printed it

    @property
    def report(self) -> Path:
        return self.directory / "report.html"


@pytest.fixture(scope="session")
def small_run(tmp_path_factory) -> SmallRun:
    """``lvsim run --json`` of a few thousand rulebook games; the run writes its report itself."""
    out = tmp_path_factory.mktemp("small-run") / "results"
    result = CliRunner().invoke(
        main, ["run", "--games", str(SMALL_RUN_GAMES), "--seed", str(SMALL_RUN_SEED), "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    return SmallRun(out, json.loads(result.stdout))
