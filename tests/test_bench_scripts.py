"""Every script in ``bench/`` still loads: the names it imports from the project exist.

A script is loaded as a module (its ``main`` guarded by ``__name__``), so
nothing is measured here; a rename in ``sim`` that a script was not moved
along with fails this test instead of the next person who measures."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.mark.parametrize("script", sorted(p.name for p in BENCH.glob("bench_*.py")))
def test_a_bench_script_loads(script, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))  # the scripts import one another by name
    spec = importlib.util.spec_from_file_location(f"bench_script_{script[:-3]}", BENCH / script)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    assert callable(getattr(module, "main", None)), f"bench/{script} has no main()"
