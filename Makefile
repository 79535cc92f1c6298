# make run   — set up .venv if needed, then play the default config (configs/default.toml)
# make test  — set up .venv if needed, then run the whole test suite

VENV := .venv
BIN := $(VENV)/bin
# Reinstall only when the project's dependencies change.
STAMP := $(VENV)/.installed

# The first python3 on PATH that is 3.11 or newer; only looked up when .venv is created.
PYTHON ?= $(shell for p in python3 python3.13 python3.12 python3.11; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
	&& { echo $$p; break; }; done)

.PHONY: run test setup

run: setup
	$(BIN)/lvsim run

test: setup
	$(BIN)/python -m pytest -q -n auto

setup: $(STAMP)

$(BIN)/python:
	@test -n "$(PYTHON)" || { echo "make: Python 3.11 or newer is needed (python3 on PATH)" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $@
