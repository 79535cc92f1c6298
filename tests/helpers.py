"""Assertions shared by the tests of several games."""

import numpy as np


def assert_same_records(a: dict, b: dict) -> None:
    """Two record dicts hold the same fields with equal arrays (field named on failure)."""
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def assert_records_independent_of_threads_and_chunking(run, rules, concat_records) -> None:
    """``run(rules, n, first=..., threads=..., chunk=...)`` gives the same 3000 records however they are split."""
    whole = run(rules, 3000, threads=2, chunk=64)
    assert_same_records(whole, run(rules, 3000, threads=1, chunk=3000))
    assert_same_records(whole, run(rules, 3000, threads=2, chunk=7))
    # Split into batches at arbitrary points: game indices carry the randomness.
    parts = [run(rules, 1000, first=0), run(rules, 1234, first=1000), run(rules, 766, first=2234)]
    assert_same_records(whole, concat_records(parts))
