"""What every test shares: small Las Vegan, Las Vegas and $ Fever runs with their reports, and temporary files
kept in pytest's temporary directories.

The code under test writes to the system's temporary directory (``tempfile``): the traceback of an internal
error (``sim.boundary``; tests cause them on purpose), a Dask cluster's scratch space, a subprocess's files.
For the whole session that directory is one of pytest's (``TMPDIR`` too, so subprocesses follow), and the
session fails if an ``lvsim-traceback-*`` file appeared in the system's own. Matplotlib keeps its font cache
in the repository's ``.pytest_cache``, not the home directory.

Under xdist the kernels of every game are compiled once before the workers start (``sim.precompile``), and a
run that leaves out the ``slow`` tests (``make test-fast``) ends with a line saying how many, of which kinds.
"""

import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

# One BLAS thread in every test process (its subprocesses and Dask workers inherit it): OpenBLAS's threads spin
# while they wait, and with both cores busy a test summing batches of a million games took 21 s instead of 9 s.
# Set before numpy is first imported (it reads it once).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from sim.cli import main  # noqa: E402

CONFIGS = Path(__file__).resolve().parent.parent / "configs"
# The system's temporary directory, before the session points tempfile elsewhere.
SYSTEM_TMP = Path(tempfile.gettempdir())
LEFT_BEHIND = "lvsim-traceback-*"


def _left_in_system_tmp() -> set[str]:
    try:
        return {p.name for p in SYSTEM_TMP.glob(LEFT_BEHIND)}
    except OSError:
        return set()


_BEFORE = pytest.StashKey[set]()


def pytest_configure(config):
    config.stash[_BEFORE] = _left_in_system_tmp()
    if hasattr(config, "workerinput"):
        # The workers fill the cores already: a run left to its default threads (all numba may use) plays on
        # one here, not on as many threads again competing for the same cores. A test that asks for threads
        # still gets them, and commands run as subprocesses keep the default.
        import sim  # noqa: F401  (sets the kernel cache before numba loads)
        import numba

        numba.set_num_threads(1)
    cache = getattr(config, "cache", None)  # absent under -p no:cacheprovider: matplotlib's default then
    if cache is not None and "MPLCONFIGDIR" not in os.environ:
        os.environ["MPLCONFIGDIR"] = str(cache.mkdir("matplotlib"))


def pytest_sessionstart(session):
    """Under xdist, the controller compiles every game's kernels before the workers start, two processes at a
    time (``sim.precompile``): the workers then load them from the kernel cache instead of each compiling the same
    kernels at once. Kernels already in the cache are loaded by no one here."""
    config = session.config
    if hasattr(config, "workerinput") or not (getattr(config.option, "numprocesses", None) or 0):
        return
    if getattr(config.option, "dist", None) == "loadgroup" and not _groups_a_test(session):
        raise pytest.UsageError("--dist loadgroup would spread each xdist_group over every worker: this pytest-xdist "
                                "cannot group under this pytest (see pyproject.toml's dev extra)")
    from sim.games import GAME_IDS
    from sim.precompile import compile_in_processes

    began = time.perf_counter()
    done = compile_in_processes(GAME_IDS, processes=2)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if done and reporter is not None:
        reporter.write_line(f"compiled the kernels of {', '.join(done)} before the tests, two processes at a time, "
                            f"in {time.perf_counter() - began:.0f} s")


class _Probe(pytest.Item):
    def runtest(self):
        pass


def _groups_a_test(session) -> bool:
    """Whether a test's group, written as pytest-xdist's workers write it under --dist loadgroup (a suffix to the
    test's ``_nodeid``), reaches the id pytest reports and schedules by: under pytest 9 it does not, and every
    group is then spread over the workers in silence."""
    probe = _Probe.from_parent(session, name="probe")
    plain = probe.nodeid
    probe._nodeid = f"{plain}@group"
    return probe.nodeid != plain


# What a slow test of each file is, for the line that says what a run without them left out.
SLOW_KINDS = {
    "test_differential": "jitted core against reference engine",
    "test_coverage": "interval coverage",
    "test_strength": "interval coverage",
    "test_sequential": "error rate",
    "test_sensitivity": "interval coverage",
    "test_duel": "duel",
    "test_policies": "duel",
    "test_kernel_cache": "first compile",
    "test_estimates": "first compile",
    "test_determinism": "cluster",
    "test_sweep": "cluster or kill-and-resume",
    "test_tune": "cluster or kill-and-resume",
    "test_report_browser": "browser",
    "test_workbench_browser": "browser",
}
_SLOW_LEFT_OUT = pytest.StashKey[dict]()

# The suite's longest tests (20-40 s each), collected last, and the files whose quick tests take longest together
# (one xdist group each, 12-27 s of make test-fast): started first, so that the run does not end with one worker
# playing them while the other has nothing left to do.
STARTED_FIRST = ("tests/workbench/test_workbench_browser.py::", "tests/test_sweep.py::",
                 "tests/test_estimates_inside_intervals.py::", "tests/test_badinput.py::")


# Fixtures that play (and report) a run, built once by each worker whose tests ask for one: the tests asking for
# one of them are an xdist group of its name, kept on one worker, so that it is played once.
PLAYED_ONCE = ("small_run", "small_dice_run", "small_fever_run", "fever_run", "rulebook_play", "fewer_cabbages_play")


def played_fixture(item) -> str | None:
    """The first of :data:`PLAYED_ONCE` that ``item`` asks for, by name or as its ``fixture`` parameter."""
    asked = {*getattr(item, "fixturenames", ()), getattr(getattr(item, "callspec", None), "params", {}).get("fixture")}
    return next((name for name in PLAYED_ONCE if name in asked), None)


@pytest.hookimpl(hookwrapper=True)
def pytest_collection_modifyitems(session, config, items):
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        played = played_fixture(item)
        if played is not None:
            item.add_marker(pytest.mark.xdist_group(played))
        elif item.get_closest_marker("slow") is None:
            # The quick tests of a file on one worker: what the file's tests share (its module's fixtures and
            # imports, the kernels they load) is then built once, not once per worker (make test-fast: 3m44 s of
            # CPU in 120 s, against 3m22 s in 109 s). The slow ones are spread one by one, to balance the workers.
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
    # Only a selection by marker (`-m "not slow"`, as make test-fast asks) leaves slow tests out; `-k` picks others.
    by_marker = "slow" in (config.getoption("markexpr") or "")
    slow = [item for item in items if by_marker and item.get_closest_marker("slow") is not None]
    yield
    items.sort(key=lambda item: not item.nodeid.startswith(STARTED_FIRST))
    kept = set(map(id, items))
    kinds: dict[str, int] = {}
    for item in slow:
        if id(item) not in kept:
            marker = item.get_closest_marker("slow")
            kind = marker.args[0] if marker.args else SLOW_KINDS.get(item.path.stem, item.path.stem)
            kinds[kind] = kinds.get(kind, 0) + 1
    config.stash[_SLOW_LEFT_OUT] = kinds
    if hasattr(config, "workeroutput"):  # an xdist worker: its controller says it
        config.workeroutput["slow_left_out"] = kinds


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """(xdist) Every worker collects the whole suite: any one says which slow tests the selection left out."""
    left_out = getattr(node, "workeroutput", {}).get("slow_left_out")
    if left_out is not None:
        node.config.stash[_SLOW_LEFT_OUT] = left_out


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    kinds = config.stash.get(_SLOW_LEFT_OUT, {})
    if kinds:
        n = sum(kinds.values())
        listed = ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items(), key=lambda kv: -kv[1]))
        terminalreporter.write_line(f"left out {n} slow test{'s' if n != 1 else ''} ({listed}): "
                                    "make test runs them", yellow=True)


def pytest_sessionfinish(session, exitstatus):
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller checks once, after them all
        return
    left = sorted(_left_in_system_tmp() - session.config.stash.get(_BEFORE, set()))
    if left:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.ensure_newline()
            reporter.write_line(f"the tests left {', '.join(left)} in {SYSTEM_TMP}: a test's files belong in its "
                                "temporary directory (tests/conftest.py)", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session", autouse=True)
def system_tmp_in_pytests_tmp(tmp_path_factory):
    """``tempfile``'s directory, and ``TMPDIR`` for subprocesses, in pytest's temporary directory for the session."""
    here = tmp_path_factory.mktemp("tmp")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TMPDIR", str(here))
        patch.setattr(tempfile, "tempdir", str(here))
        yield here


@dataclass
class SmallRun:
    directory: Path
    summary: dict  # as `lvsim run --json` printed it
    output: str
    figures: list  # the report's figures, as the run drew them (tests/analysis/figure_text.py)

    @property
    def report(self) -> Path:
        return self.directory / "report.html"


def _small_run(tmp_path_factory, name: str, config: list[str], games: int, seed: int) -> SmallRun:
    """``lvsim run [CONFIG] --json`` of ``games`` games; the run writes its report itself, its figures caught."""
    from tests.analysis.figure_text import catch_figures

    out = tmp_path_factory.mktemp(name) / "results"
    with pytest.MonkeyPatch.context() as patch:
        figures = catch_figures(patch)
        result = CliRunner().invoke(
            main, ["run", *config, "--games", str(games), "--seed", str(seed), "--out", str(out), "--json"]
        )
    assert result.exit_code == 0, result.output
    return SmallRun(out, json.loads(result.stdout), result.output, figures)


@pytest.fixture(scope="session")
def small_run(tmp_path_factory) -> SmallRun:
    """A few thousand rulebook Las Vegan games (the default config)."""
    return _small_run(tmp_path_factory, "small-run", [], 2000, 11)


@pytest.fixture(scope="session")
def small_dice_run(tmp_path_factory) -> SmallRun:
    """A few thousand games of configs/vegas-dice.toml."""
    return _small_run(tmp_path_factory, "small-dice-run", [str(CONFIGS / "vegas-dice.toml")], 2000, 5)


@pytest.fixture(scope="session")
def small_fever_run(tmp_path_factory) -> SmallRun:
    """A thousand games of configs/fever.toml."""
    return _small_run(tmp_path_factory, "small-fever-run", [str(CONFIGS / "fever.toml")], 1000, 5)
