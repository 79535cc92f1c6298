"""The report's tally: tables from mergeable statistics equal tables from the records themselves."""


import pandas as pd
import pytest

import sim
from sim.lasvegan import tables
from sim.lasvegan.report_tally import ReportTally
from sim.config import Config
from sim.lasvegan.params import Rules
from tests.analysis import records_tables as direct

RULE_SETS = {
    "rulebook": Rules(),
    "3p-two-rounds": Rules(players=3, rounds=2),
    "5p-playing-on": Rules(players=5, end_on_elimination=False),
    "2p-unlimited": Rules(players=2, reserve="unlimited"),
    "3p-extra-cabbages": Rules(players=3, seat_cabbages=[0, 2, 1]),
}
TABLES = (
    "win_share_by_seat", "win_share_by_last_leader", "round_change_by_leader_position", "game_ends",
    "swing_histogram", "swing_by_seat", "final_cabbages_by_seat", "swing_drivers", "token_placements",
    "golden_placements", "rule_holes",
)


@pytest.fixture(scope="module", params=list(RULE_SETS), ids=list(RULE_SETS))
def played(request):
    rules = RULE_SETS[request.param]
    # The main table only: the tables read its tally and records.
    config = Config(name="t", games=6000, seed=5, rules=rules, seats="random", skill_gap_games=0, strength_games=0,
                    strength_slow_games=0, sensitivity_games=0)
    return sim.run(config, out=None, progress=False)


def same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_dtype=False,
                                  rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("table", TABLES)
def test_every_table_from_the_tally_equals_the_table_from_the_records(played, table):
    same(getattr(tables, table)(played.tally), getattr(direct, table)(played.records))


def test_tables_that_need_the_rules_agree_too(played):
    starting = played.config.rules.starting_cabbages
    # A seat is out when it has lost what it was dealt, its extra cabbages included.
    each = played.config.rules.seat_starting
    same(tables.ran_out_by_seat(played.tally, each), direct.ran_out_by_seat(played.records, each))
    same(tables.trajectory_quantiles(played.tally, starting), direct.trajectory_quantiles(played.records, starting))
    seats = ["greedy", "random", "greedy", "cautious", "random"][: played.config.players]
    same(tables.win_share_by_policy(played.tally, seats), direct.win_share_by_policy(played.records, seats))


def test_the_example_games_are_picked_alike(played):
    assert tables.typical_game(played.tally) == direct.typical_game(played.records)
    assert tables.quickest_elimination(played.tally) == direct.quickest_elimination(played.records)


@pytest.mark.parametrize("cut", [1, 999, 3000, 5999])
def test_tallies_of_chunks_merge_to_the_tally_of_the_whole(played, cut):
    rec = played.records
    head = ReportTally.of({k: v[:cut] for k, v in rec.items()})
    tail = ReportTally.of({k: v[cut:] for k, v in rec.items()})
    assert head.merge(tail) == played.tally == ReportTally.of(rec)
    assert head.merge(tail) != head


def test_a_stored_tally_reads_back_equal(played, tmp_path):
    played.tally.write(tmp_path / "tally.json")
    assert ReportTally.read(tmp_path / "tally.json") == played.tally


def test_a_malformed_tally_is_refused(tmp_path):
    (tmp_path / "tally.json").write_text('{"players": 4}', encoding="utf-8")
    with pytest.raises(ValueError, match="not a report tally"):
        ReportTally.read(tmp_path / "tally.json")


def test_tables_take_records_too_for_notebooks(played):
    same(tables.win_share_by_seat(played.records), tables.win_share_by_seat(played.tally))


@pytest.mark.slow("end to end")
def test_a_run_that_keeps_no_records_still_has_every_table():
    config = Config(name="t", games=3000, seed=2, skill_gap_games=0, strength_games=0, strength_slow_games=0,
                    sensitivity_games=0)
    slim = sim.run(config, out=None, keep_records=False, progress=False)
    full = sim.run(config, out=None, progress=False)
    assert slim.records is None
    assert slim.tally == full.tally
    with pytest.raises(ValueError, match="kept no records"):
        slim.to_pandas()


def test_the_records_file_is_tallied_in_bounded_batches(tmp_path, monkeypatch):
    """Rebuilding a tally from the records file never holds more than one batch of games."""
    import pyarrow.parquet as pq

    out = tmp_path / "r"
    config = Config(name="t", games=5000, seed=4, skill_gap_games=0, strength_games=0, strength_slow_games=0,
                    sensitivity_games=0)
    results = sim.run(config, out=out, progress=False, report=False)
    batches = []
    real_iter = pq.ParquetFile.iter_batches

    def spying_iter(self, *args, **kwargs):
        for batch in real_iter(self, *args, **kwargs):
            batches.append(batch.num_rows)
            yield batch

    def no_whole_reads(*args, **kwargs):
        raise AssertionError("the whole records file was read at once")

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", spying_iter)
    monkeypatch.setattr(pq, "read_table", no_whole_reads)
    tally = ReportTally.of_records_file(out / "records.parquet", config.rules, batch_games=700)
    assert tally == results.tally
    assert max(batches) <= 700 and sum(batches) == 5000 and len(batches) >= 8


@pytest.mark.slow("end to end")
def test_a_results_directory_without_its_tally_gets_the_same_report(tmp_path):
    import shutil

    from sim.lasvegan.report import build_report
    from analysis.results import load_results

    out = tmp_path / "r"
    sim.run(Config(name="t", games=3000, seed=6, skill_gap_games=0, strength_games=0, strength_lookahead_games=0),
            out=out, progress=False, report=False)
    bare = tmp_path / "bare"
    shutil.copytree(out, bare)
    (bare / "tally.json").unlink()
    with_tally, rebuilt = load_results(out), load_results(bare)
    assert rebuilt.tally == with_tally.tally
    assert build_report(rebuilt) == build_report(with_tally)
