"""The shipped $ Fever sweep over pay tables, through the game-generic sweep."""

import json
from pathlib import Path

import pandas as pd
import pytest

from sim.sweep import load_sweep, run_sweep
from tests.helpers import copy_sweep_on_quick_base

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
SHIPPED = CONFIGS / "sweep_fever_paytable.toml"


def test_the_shipped_sweep_adds_patterns_to_the_stand_in_pay_table():
    sweep = load_sweep(SHIPPED)
    assert sweep.game.id == "fever"
    tables = [c.config.rules.paytable for c in sweep.cells]
    assert [len(t) for t in tables] == [8, 9, 10]
    assert tables[1][:8] == tables[0] == tables[2][:8]


def test_the_sweep_writes_its_table_and_report(tmp_path):
    copy_sweep_on_quick_base(tmp_path, CONFIGS / "fever.toml", SHIPPED)
    out = tmp_path / "out"
    run_sweep(load_sweep(tmp_path / "sweep.toml", games=200), out, report=True)
    table = pd.read_parquet(out / "sweep.parquet")
    assert len(table) == 3
    # Cells played on the same deals: their summaries are those of separate runs of their configs.
    for cell in range(3):
        summary = json.loads((out / "cells" / f"{cell:03d}" / "summary.json").read_text(encoding="utf-8"))
        assert table["turns_per_game"][cell] == summary["turns_per_game"]
        assert len(summary["points_by_combination"]) == 8 + (cell > 0) + (cell > 1)
    # The first-player advantage is over finished games: its paired difference is that of the two cells' own.
    paired = pd.read_parquet(out / "paired.parquet")
    rows = paired[paired["metric"] == "first_player_advantage"]
    assert len(rows) == 2
    for row in rows.itertuples():
        mine, base = (table["first_player_advantage"][c] for c in (row.cell, row.baseline))
        assert row.difference == pytest.approx(mine - base, abs=1e-12)
        assert row.difference_lo <= row.difference <= row.difference_hi
    page = (out / "sweep.html").read_text(encoding="utf-8")
    assert "turns per finished game" in page and "games the turn cap ends" in page
    assert page.count("data:image/png;base64,") >= 1
