"""The shipped Las Vegas sweep: white dice on and off at 2, 3 and 4 players, through the game-generic sweep."""

from pathlib import Path

import pandas as pd
import pytest

from sim.sweep import load_sweep, run_sweep
from tests.helpers import copy_sweep_on_quick_base

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
SHIPPED = CONFIGS / "sweep_vegas_dice.toml"


def test_the_shipped_sweep_is_white_dice_on_and_off_at_each_player_count():
    sweep = load_sweep(SHIPPED)
    assert sweep.game.id == "vegas-dice"
    assert [(c.config.rules.players, c.config.rules.n_white) for c in sweep.cells] == [
        (2, 4), (3, 2), (4, 2), (2, 0), (3, 0), (4, 0)]
    # "auto" and 0 in one column: held as the sweep file spells them, all text.
    assert sweep.column("rules.white_dice") == ["auto"] * 3 + ["0"] * 3
    assert sweep.values("rules.players") == [2, 3, 4]


@pytest.mark.slow("end to end")
def test_the_sweep_writes_its_table_and_a_report_with_the_white_dice(tmp_path):
    copy_sweep_on_quick_base(tmp_path, CONFIGS / "vegas-dice.toml", SHIPPED)
    out = tmp_path / "out"
    results = run_sweep(load_sweep(tmp_path / "sweep.toml", games=150), out, report=True)
    table = pd.read_parquet(out / "sweep.parquet")
    # The white dice's share is compared as a ratio over the same games: printed, or named as left out to fit.
    paired = pd.read_parquet(out / "paired.parquet")
    white = paired[paired["metric"] == "white_dice_share"].set_index("cell")["difference"]
    assert white.tolist() == pytest.approx([-table["white_dice_share"][c] for c in (0, 1, 2)])
    from analysis.sweep import sweep_text

    text = sweep_text(results.table, results.paired, ["rules.white_dice", "rules.players"], game=results.sweep.game,
                      baseline=0)
    paired_text = text.split("Paired differences")[1]
    assert "money won by the white dice (pp)" in paired_text
    assert table["rules.white_dice"].tolist() == ["auto"] * 3 + ["0"] * 3
    assert (table.loc[table["rules.white_dice"] == "0", "white_dice_share"] == 0).all()
    assert (table.loc[table["rules.white_dice"] == "auto", "white_dice_share"] > 0).all()
    page = (out / "sweep.html").read_text(encoding="utf-8")
    assert "money won by the white dice" in page and "Against rules.white_dice" in page
    assert page.count("data:image/png;base64,") >= 3
