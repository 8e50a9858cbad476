# The README's commands. `make test` works on a fresh clone: it builds .venv first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test lint typecheck run play clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check bot tests bench migrations

typecheck: $(STAMP)
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/pytest

run: $(STAMP)
	$(BIN)/python -m bot

# The offline table: the real bot in a simulated Discord, no token needed (docs/offline-table.md).
play: $(STAMP)
	$(BIN)/python -m bot play

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
