"""Tables of a sweep: summaries flattened into rows, paired differences streamed from records."""

import math

import numpy as np
import pandas as pd
import pytest

from analysis.stats import Z95, t95, wilson_interval
from analysis.strength import paired_score_interval
from sim.lasvegan.summary import summarize_records
from analysis.sweep import metric_columns, paired_differences, sort_cells, summary_row
from sim.config import Config
from sim.lasvegan.params import Rules
from sim.lasvegan.records import concat_records, records_to_frame
from tests.analysis.test_summary import fake_records


def cfg(players):
    return Config(rules=Rules(players=players))


def write_records(path, rec):
    records_to_frame(rec).to_parquet(path, index=False, row_group_size=1000)
    return path


def per_game(rec, players):
    win = rec["win_share"]
    return {
        "first_player_advantage": win[:, 0] - 1 / players,
        "elimination_rate": (rec["elim_round"] > 0).astype(float),
        "mean_rounds": rec["rounds_played"].astype(float),
        "tie_rate": ((win > 0).sum(axis=1) > 1).astype(float),
    }


def test_summary_row_flattens_lists_tables_and_intervals():
    row = summary_row(summarize_records(fake_records(500, players=3), policies=["random"] * 3, seed=4))
    s = summarize_records(fake_records(500, players=3))
    assert row["win_share_s2"] == s["win_share"][2]
    assert (row["win_share_s2_lo"], row["win_share_s2_hi"]) == tuple(s["win_share_ci"][2])
    assert (row["first_player_advantage_lo"], row["first_player_advantage_hi"]) == tuple(
        s["first_player_advantage_ci"])
    assert row["end_round_share_r1"] == s["end_round_share"][0]  # rounds counted from 1
    assert row["swing_p95"] == s["swing"]["p95"] and row["amount_mean_golden"] == s["amount_mean"]["golden"]
    assert row["final_cabbages_mean_s0_hi"] == s["final_cabbages_mean_ci"][0][1]
    assert row["policy_s1"] == "random" and row["seed"] == 4
    assert not any(key.endswith("_ci") for key in row)
    assert all(not isinstance(v, (list, dict)) for v in row.values())
    assert list(row) == metric_columns(cfg(3))


def test_cells_sort_by_a_column_either_way_keeping_cell_order_for_ties():
    table = pd.DataFrame({"cell": [0, 1, 2, 3], "tie_rate": [0.2, 0.1, 0.2, math.nan]})
    assert sort_cells(table, "tie_rate")["cell"].tolist() == [1, 0, 2, 3]
    assert sort_cells(table, "-tie_rate")["cell"].tolist() == [0, 2, 1, 3]
    with pytest.raises(KeyError):
        sort_cells(table, "nothing")


def test_paired_differences_match_the_per_game_differences(tmp_path):
    a = fake_records(3000, seed=1)
    b = fake_records(3000, seed=1)
    # B is A with a tenth of its games replaced: the two are strongly correlated.
    other = fake_records(3000, seed=2)
    changed = np.arange(3000) % 10 == 0
    for k in b:
        b[k][changed] = other[k][changed]
    diffs = paired_differences(write_records(tmp_path / "b.parquet", b), cfg(4), write_records(tmp_path / "a.parquet", a), cfg(4))
    va, vb = per_game(a, 4), per_game(b, 4)
    # Mean |swing| per round is a ratio of sums: cabbages moved over seat-rounds played, each game's linearised.
    (ma, sa), (mb, sb) = ((np.abs(r["delta"].astype(float)).sum(axis=(1, 2)), 4.0 * r["rounds_played"]) for r in (a, b))
    ra, rb = ma.sum() / sa.sum(), mb.sum() / sb.sum()
    ua, ub = (ma - ra * sa) / sa.mean(), (mb - rb * sb) / sb.mean()
    swing = diffs.pop("mean_abs_swing")
    n, x = len(ua), ub - ua
    assert swing["difference"] == pytest.approx(rb - ra, abs=1e-12)
    half, wide = t95(n) * x.std(ddof=1) / math.sqrt(n), t95(n) * math.sqrt((ua.var(ddof=1) + ub.var(ddof=1)) / n)
    assert (swing["difference_lo"], swing["difference_hi"]) == pytest.approx((rb - ra - half, rb - ra + half), rel=1e-9)
    assert (swing["unpaired_lo"], swing["unpaired_hi"]) == pytest.approx((rb - ra - wide, rb - ra + wide), rel=1e-9)
    assert swing["tighter"] > 1.5
    for metric, d in diffs.items():
        x = vb[metric] - va[metric]
        n = len(x)
        assert d["games"] == n
        assert d["difference"] == pytest.approx(x.mean(), abs=1e-12)
        if metric in ("elimination_rate", "tie_rate"):
            # Rates of 0s and 1s: Tango's score interval paired, Newcombe's from the Wilson intervals unpaired.
            _, low, high = paired_score_interval(int((x > 0).sum()), int((x < 0).sum()), n)
            cell, base = vb[metric].mean(), va[metric].mean()
            (c_lo, c_hi), (b_lo, b_hi) = wilson_interval(int(vb[metric].sum()), n), wilson_interval(int(va[metric].sum()), n)
            unpaired = (x.mean() - math.hypot(cell - c_lo, b_hi - base), x.mean() + math.hypot(c_hi - cell, base - b_lo))
        else:
            half = t95(n) * x.std(ddof=1) / math.sqrt(n)
            low, high = x.mean() - half, x.mean() + half
            wide = t95(n) * math.sqrt((va[metric].var(ddof=1) + vb[metric].var(ddof=1)) / n)
            unpaired = (x.mean() - wide, x.mean() + wide)
        assert (d["difference_lo"], d["difference_hi"]) == pytest.approx((low, high), abs=1e-12)
        assert (d["unpaired_lo"], d["unpaired_hi"]) == pytest.approx(unpaired)
        assert d["tighter"] == pytest.approx((unpaired[1] - unpaired[0]) / (high - low))
        assert d["tighter"] > 1.5  # nine games in ten are the same game


def test_paired_differences_do_not_depend_on_how_the_records_are_read(tmp_path):
    a = write_records(tmp_path / "a.parquet", fake_records(2500, seed=3))
    b = write_records(tmp_path / "b.parquet", fake_records(2500, seed=4))
    whole = paired_differences(b, cfg(4), a, cfg(4))
    assert paired_differences(b, cfg(4), a, cfg(4), batch_games=7) == whole
    assert paired_differences(b, cfg(4), a, cfg(4), batch_games=999) == whole


def test_a_cell_with_more_games_is_compared_on_the_games_both_played(tmp_path):
    short = fake_records(1200, seed=5)
    long = concat_records([short, fake_records(800, seed=6)])
    diffs = paired_differences(write_records(tmp_path / "long.parquet", long), cfg(4),
                               write_records(tmp_path / "short.parquet", short), cfg(4))
    # The first 1200 games are the same games: every difference is exactly 0. A rate of 0s and 1s keeps the
    # width of 0 discordant games of 1200, as any rate of 0 in 1200 does; a mean's interval has width 0, which is
    # not "infinitely tighter".
    edge = Z95**2 / (1200 + Z95**2)
    for metric, d in diffs.items():
        assert d["games"] == 1200 and d["difference"] == 0
        if metric in ("elimination_rate", "tie_rate"):
            assert (d["difference_lo"], d["difference_hi"]) == pytest.approx((-edge, edge), abs=1e-9)
            assert d["tighter"] > 1
        else:
            assert d["difference_lo"] == d["difference_hi"] == 0 and d["tighter"] is None


def test_cells_of_different_player_counts_compare_the_advantage_over_each_ones_fair_share(tmp_path):
    three, four = fake_records(1500, players=3, seed=6), fake_records(1500, players=4, seed=7)
    diffs = paired_differences(write_records(tmp_path / "4.parquet", four), cfg(4),
                               write_records(tmp_path / "3.parquet", three), cfg(3))
    expected = per_game(four, 4)["first_player_advantage"] - per_game(three, 3)["first_player_advantage"]
    assert diffs["first_player_advantage"]["difference"] == pytest.approx(expected.mean(), abs=1e-12)


def test_the_table_of_paired_differences_takes_each_cell_from_a_baseline_with_its_players_and_seed(tmp_path):
    from dataclasses import replace

    from analysis.sweep import paired_table

    three = write_records(tmp_path / "3.parquet", fake_records(400, players=3, seed=8))
    other = write_records(tmp_path / "3b.parquet", fake_records(400, players=3, seed=9))
    five = write_records(tmp_path / "5.parquet", fake_records(400, players=5, seed=10))
    records = {0: three, 1: other, 2: five}
    configs = {0: cfg(3), 1: cfg(3), 2: cfg(5)}
    table = paired_table(records, configs, {0: 0, 1: 0, 2: 2})
    assert set(zip(table["cell"], table["baseline"])) == {(1, 0)}
    # A cell of 5 players is not compared with one of 3: its games are dealt otherwise.
    with pytest.raises(ValueError, match="cell 002 .*5 players.* cell 000 .*3 players"):
        paired_table(records, configs, {0: 0, 1: 0, 2: 0})
    # Nor a cell of another seed.
    with pytest.raises(ValueError, match="cell 001 .*seed 2.* cell 000 .*seed 1"):
        paired_table(records, {**configs, 1: replace(cfg(3), seed=2)}, {0: 0, 1: 0, 2: 2})
    # Greedy seats against random ones play the same deals: compared like any rule change.
    greedy = paired_table(records, {**configs, 1: replace(cfg(3), seats="greedy")}, {0: 0, 1: 0, 2: 2})
    assert greedy.equals(table)
