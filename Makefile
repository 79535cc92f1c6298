# make run   — set up .venv if needed, then play the default config (configs/default.toml)
# make test  — set up .venv if needed (with the openspiel extra), then run the whole test suite
# make test-fast — the suite without the tests marked slow (long Monte Carlo, differential and first-compile runs);
#                  it ends with a line saying how many it left out, of which kinds
# make lint  — ruff over the code

VENV := .venv
BIN := $(VENV)/bin
# Reinstall only when the project's dependencies change.
STAMP := $(VENV)/.installed
# The tests' environment: make run's, with OpenSpiel (the ismcts policy, sim/openspiel; not needed to run) and
# the test suite's own game, installed as a plugin from its own package (examples/highcard): the suites then
# prove that a game from outside this package runs every command.
TEST_GAME := examples/highcard
TEST_STAMP := $(VENV)/.installed-tests

# The first python3 on PATH that is 3.11 or newer; only looked up when .venv is created.
PYTHON ?= $(shell for p in python3 python3.13 python3.12 python3.11; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
	&& { echo $$p; break; }; done)

.PHONY: run test test-fast lint setup test-setup browser clean

run: setup
	$(BIN)/lvsim run

# Under -n, tests/conftest.py compiles every game's kernels before the workers start (sim/precompile.py);
# --dist loadgroup keeps the tests of one xdist_group (kernels no run plays) on one worker, compiled once.
test: test-setup browser
	$(COMPILE_SOURCES)
	$(PYTEST) -q -n auto --dist loadgroup --durations=15

test-fast: test-setup
	$(COMPILE_SOURCES)
	$(PYTEST) -q -n auto --dist loadgroup -m "not slow"

lint: setup
	$(BIN)/ruff check sim analysis tests bench

setup: $(STAMP)

test-setup: $(TEST_STAMP)

# Compiled kernels, byte code and test caches; the environment and reports stay.
clean:
	rm -rf .kernel-cache .pytest_cache .hypothesis
	find sim analysis tests bench -name __pycache__ -type d -prune -exec rm -rf {} +

# The report's browser test renders it in Debian's Chromium. Install it when it
# is missing and apt may be used (root); otherwise say so: that test then skips.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "make: installing chromium for the report's browser test"; \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
	    || echo "make: could not install chromium: the report's browser test will be skipped"; \
	  else \
	    echo "make: chromium is not installed (installing it needs root and apt-get): the report's browser test will be skipped"; \
	  fi; }

$(BIN)/python:
	@test -n "$(PYTHON)" || { echo "make: Python 3.11 or newer is needed (python3 on PATH)" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)

# pip byte-compiles what it installs one file at a time (about 20 s of a fresh set-up); compileall does the
# same on every core, leaving out the libraries' own test suites (a third of their files, never imported here).
# A file it does not compile is compiled, or refused, when imported, as pip leaves it.
PIP_INSTALL := $(BIN)/python -m pip install --quiet
# The project's own sources byte-compiled on every core (unchanged files are skipped): the suite starts some
# hundred Python processes (its workers, commands run as subprocesses, Dask workers), each of which compiles
# them again when the environment writes no byte code (PYTHONDONTWRITEBYTECODE).
COMPILE_SOURCES := -@$(BIN)/python -m compileall -q -j 0 sim analysis tests examples bench >/dev/null
# pytest rewrites the asserts of every test module it imports (about 5 s of each worker's start) and keeps the
# result beside the module's byte code, in tests/__pycache__, unless the environment writes no byte code: the
# suite lets it, so that each worker and each later run loads them instead.
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest
SITE_PACKAGES = $(shell $(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
COMPILE_LIBRARIES = -@$(BIN)/python -m compileall -q -j 0 -x 'site-packages/.*/tests?/' "$(SITE_PACKAGES)" >/dev/null

$(STAMP): pyproject.toml | $(BIN)/python
	$(PIP_INSTALL) --no-compile -e ".[dev]"
	$(COMPILE_LIBRARIES)
	@touch $@

# One pip call for all of it (each call resolves and builds the project again), which also sets up make run.
$(TEST_STAMP): pyproject.toml $(TEST_GAME)/pyproject.toml | $(BIN)/python
	$(PIP_INSTALL) --no-compile -e ".[dev,openspiel]" -e $(TEST_GAME)
	$(COMPILE_LIBRARIES)
	@touch $(STAMP) $@
