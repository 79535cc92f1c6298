"""The installed numba is one the kernels are tested on.

Two speed-ups reach past numba's documented interface, so a numba outside the
range ``pyproject.toml`` pins could break them, or quietly take the speed
away, without another test failing:

- ``_nrt=False``, a private option of ``numba.njit``, compiles the policies the
  game kernel calls on every decision (``greedy``, ``cautious``, ``expert``:
  ``sim/lasvegan/heuristics.py``, ``sim/lasvegan/expert.py``) without reference
  counts on the observation, which otherwise cost atomic updates on every
  call. With it, at 4 players on one thread (CPU time, best of four):
  ``greedy`` 62,000 -> 69,000 games/s, ``expert`` 31,000 -> 37,000.
- ``sim/bits.py`` writes LLVM IR with llvmlite's builder through
  ``numba.extending.intrinsic`` and ``numba.core.cgutils``: per-decision
  tables on the stack and vector divisions the card and placement scores read.

Before widening the range: run this suite and ``bench/bench_expert.py --skip
profile,duels`` on the new numba, and measure both again.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numba
from packaging.requirements import Requirement
from packaging.version import Version

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def pinned_numba() -> Requirement:
    dependencies = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
    return next(Requirement(d) for d in dependencies if Requirement(d).name == "numba")


def test_the_numba_pin_has_an_upper_bound():
    pin = pinned_numba()
    assert any(s.operator == "<" for s in pin.specifier), (
        f"pyproject.toml pins {pin}: give it the upper bound of the versions tested (this module says why)")


def test_the_installed_numba_is_within_the_tested_range():
    pin = pinned_numba()
    installed = Version(numba.__version__)
    assert pin.specifier.contains(installed, prereleases=True), (
        f"numba {installed} is outside the tested range {pin} (pyproject.toml): sim/lasvegan/heuristics.py and "
        "expert.py compile with numba's private _nrt=False and sim/bits.py builds LLVM IR through "
        "numba.core.cgutils; check both still compile and still pay (tests/test_numba_range.py says how), "
        "then widen the range")
