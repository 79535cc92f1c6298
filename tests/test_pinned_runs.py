"""Las Vegan results do not change under refactors: fixed runs, pinned bit for bit.

``tests/data/pinned_runs.json`` holds the summary and a digest of every
record field of a few fixed ``(seed, config)`` runs, written by
``tests/data/pin_runs.py``. A refactor of the machinery or a faster kernel
must give exactly these.
"""

import json

import pytest

from tests.data.pin_runs import PIN_FILE, pin

PINS = json.loads(PIN_FILE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(PINS))
def test_run_gives_the_pinned_summary_and_records(name):
    pinned = PINS[name]
    now = pin(pinned["config"])
    assert now["records"] == pinned["records"]
    assert now["summary"] == pinned["summary"]
