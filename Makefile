# All targets create/update .venv themselves (idempotent).
# `make run` installs only the runtime dependencies; `make test`/`lint`/`bench` add the dev tools.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.installed-runtime
DEV := $(VENV)/.installed-dev
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run play test lint bench venv clean

$(RUNTIME): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUNTIME)

$(DEV): $(RUNTIME)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(DEV)

venv: $(DEV)

# The main job: the table server with the browser client, on the embedded SQLite default.
run: $(RUNTIME)
	$(BIN)/fjmj serve --host $(HOST) --port $(PORT)

# The terminal game.
play: $(RUNTIME)
	$(BIN)/fjmj play

lint: $(DEV)
	$(BIN)/ruff check src tests bench examples
	$(BIN)/ruff format --check src tests bench examples
	$(BIN)/mypy

test: lint
	$(BIN)/pytest -n 2 tests

bench: $(DEV)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
