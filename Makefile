# The README's commands. `make test` works on a fresh clone: it builds .venv first.
# Arguments go through ARGS, e.g. `make play ARGS="--seed 5"` or `make run ARGS="--shards 0"`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
ARGS ?=

.PHONY: install test test-lowest lint typecheck run play migrate clean

$(STAMP): pyproject.toml setup.py
	$(PY) -m venv --clear $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check bot tests bench migrations

typecheck: $(STAMP)
	$(BIN)/mypy

# Two or more workers (pytest-xdist, one per core; each its own PostgreSQL database): the suite
# takes about half as long. A test file stays on one worker (`loadfile`), so what a file's tests
# share is built once. TEST_WORKERS=0 runs it in this process.
TEST_WORKERS ?= auto
test: lint typecheck
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile $(ARGS)

# The lower bounds in pyproject.toml, proven: a fresh environment with the lowest version each
# bound allows of every direct dependency (uv's lowest-direct resolution), and a fast slice of
# the tests that uses each of them: SQLAlchemy, aiosqlite, asyncpg and Alembic (migrations on
# both databases, the ledger, a move), pydantic-settings (every setting), prometheus-client and
# aiohttp (metrics, the endpoint), discord.py and SimCord (the examples, the whole bot). Run it
# after changing a dependency or its bound.
LOWEST := $(VENV)-lowest
LOWEST_TESTS := tests/db/test_migrations.py tests/services/test_ledger.py tests/ops/test_move.py \
	tests/ops/test_settings.py tests/ops/test_hygiene.py tests/ops/test_defaults.py \
	tests/play/test_examples.py
test-lowest: $(STAMP)
	rm -rf $(LOWEST)
	$(BIN)/uv venv --quiet --python $(BIN)/python $(LOWEST)
	$(BIN)/uv pip install --quiet --python $(LOWEST)/bin/python --resolution lowest-direct -e '.[dev]'
	$(LOWEST)/bin/python -c 'import importlib.metadata as m; print("lowest:", *(f"{d}=={m.version(d)}" for d in ("discord.py", "SQLAlchemy", "aiosqlite", "alembic", "pydantic", "pydantic-settings", "prometheus-client", "aiohttp", "simcord", "asyncpg")))'
	$(LOWEST)/bin/pytest -p no:cacheprovider $(LOWEST_TESTS)

run: $(STAMP)
	$(BIN)/pbp-dice run $(ARGS)

migrate: $(STAMP)
	$(BIN)/pbp-dice migrate

# The offline table: the real bot in a simulated Discord, no token needed (docs/offline-table.md).
play: $(STAMP)
	$(BIN)/pbp-dice play $(ARGS)

clean:
	rm -rf $(VENV) $(LOWEST) .mypy_cache .ruff_cache .pytest_cache build *.egg-info
