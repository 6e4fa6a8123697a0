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

# The suites that run real servers, browsers, Ray clusters or signal timing run one at a time
# (timing-sensitive: two of them side by side on a 2-core machine starve each other);
# everything else runs on both cores.
SERIAL := tests/test_web.py tests/test_audit_web.py tests/test_server_play.py \
	tests/test_server_robust.py tests/test_server_persist.py tests/test_server_cli.py \
	tests/test_audit_server.py tests/test_economy_crash.py tests/test_cli_faults.py \
	tests/test_ray.py tests/test_accounts.py

test: lint
	$(BIN)/pytest -n 2 tests $(addprefix --ignore=,$(SERIAL))
	$(BIN)/pytest $(SERIAL)

bench: $(DEV)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
