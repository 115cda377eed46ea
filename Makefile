# Parley: `make run` starts the app, `make test` runs every check. Both set everything up first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
TEST_STAMP := $(VENV)/.test-deps-stamp

.PHONY: setup run test lint typecheck contracts pytest bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml packaging/linux/install-system-deps.sh
	PYTHON=$(PYTHON) bash packaging/linux/install-system-deps.sh
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

$(TEST_STAMP): $(STAMP) packaging/linux/install-system-deps.sh
	PYTHON=$(PYTHON) bash packaging/linux/install-system-deps.sh --test
	touch $(TEST_STAMP)

run: setup
	$(BIN)/parley $(ARGS)

lint: setup
	$(BIN)/ruff check app tests
	$(BIN)/ruff format --check app tests

typecheck: setup
	$(BIN)/mypy

contracts: setup
	$(BIN)/lint-imports

pytest: setup $(TEST_STAMP)
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

test: lint typecheck contracts pytest

bench: setup
	$(BIN)/python -m tests.bench

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
