# All targets create/update .venv themselves (idempotent).
# `make run` installs only the runtime dependencies; `make test`/`lint`/`bench` add the dev tools.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.installed-runtime
DEV := $(VENV)/.installed-dev
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run play test lint bench venv clean screenshots

# The hot modules compiled with mypyc when a C compiler is present (setup.py): a change to
# one of them rebuilds them (about two minutes). pip's output goes to .venv/install.log.
COMPILED_SRC := $(shell $(PY) -c 'import re; print(" ".join("src/" + m.replace(".", "/") + ".py" for m in re.findall(r"\"(fujian_mahjong\.[\w.]+)\",", open("src/fujian_mahjong/_compiled.py").read())))')

$(RUNTIME): pyproject.toml setup.py src/fujian_mahjong/_compiled.py $(COMPILED_SRC)
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	@echo "setting up .venv (runtime dependencies; the first time also compiling the hot modules with mypyc, about 2 minutes; log: $(VENV)/install.log)"
	@$(BIN)/python -m pip install --quiet --upgrade pip > $(VENV)/install.log 2>&1 \
		&& $(BIN)/python -m pip install --quiet -e . >> $(VENV)/install.log 2>&1 \
		|| { tail -n 25 $(VENV)/install.log; echo "make: installing failed; the whole log is $(VENV)/install.log"; exit 1; }
	@touch $(RUNTIME)

$(DEV): $(RUNTIME)
	@echo "adding the dev tools to .venv (log: $(VENV)/install.log)"
	@FJMJ_NO_COMPILE=1 $(BIN)/python -m pip install --quiet -e '.[dev]' >> $(VENV)/install.log 2>&1 \
		|| { tail -n 25 $(VENV)/install.log; echo "make: installing failed; the whole log is $(VENV)/install.log"; exit 1; }
	@touch $(DEV)

venv: $(DEV)

# The main job: the table server with the browser client, on the embedded SQLite default.
run: $(RUNTIME)
	@$(BIN)/fjmj serve --host $(HOST) --port $(PORT)

# The terminal game.
play: $(RUNTIME)
	@$(BIN)/fjmj play

lint: $(DEV)
	$(BIN)/ruff check src tests bench examples
	$(BIN)/ruff format --check src tests bench examples
	$(BIN)/mypy

# The browser journeys, the signal-timing CLI tests and the multi-process server tests (real
# processes on PostgreSQL + Redis) run after the rest, in three groups side by side
# (tests/conftest.py, SERIAL_GROUPS): the browsers and the CLI's signals one at a time (one
# beside another on a 2-core machine starves it), the multi-process tests, which mostly wait
# on outages and leases, in two groups beside them; everything else — the server suites run in-process on
# a fake clock, the Ray tests one at a time in their group — runs on three workers (a third
# keeps both cores busy while one worker waits on a subprocess or PostgreSQL: 207 -> 151 s
# on a 2-core machine).
SERIAL := tests/test_web.py tests/test_web_table.py tests/test_web_square.py tests/test_web_lobby.py \
	tests/test_audit_web.py tests/test_cli_faults.py tests/test_cluster.py \
	tests/test_cluster_drain.py tests/test_cluster_outage.py tests/test_pg_outage.py \
	tests/test_cluster_faults.py

# The pure-Python fallback of the compiled modules (src/fujian_mahjong/_compiled.py): the
# compiled-vs-pure byte-identical hands and the golden logs run again without the build.
PURE := tests/test_determinism.py tests/test_compiled.py tests/test_views.py

# Each stage prints its time (.ci/stage).
STAGE := bash .ci/stage
# A command run just before the serial stage: CI (.ci/run) waits there for the newcomer's
# path it runs beside the first stages, so that nothing runs beside the serial stage.
BEFORE_SERIAL ?= true

test: $(DEV)
	@$(STAGE) lint $(MAKE) --no-print-directory lint
	@$(STAGE) js node --test tests/js/
	@$(STAGE) parallel $(BIN)/pytest -n 3 --dist loadgroup tests $(addprefix --ignore=,$(SERIAL))
	@$(STAGE) pure env FJMJ_PURE_PYTHON=1 $(BIN)/pytest -n 2 $(PURE)
	@$(BEFORE_SERIAL)
	@$(STAGE) serial $(BIN)/pytest -n 3 --dist loadgroup $(SERIAL)

# browser screenshots of the table (desktop and phone) into docs/screenshots/ (not run by test)
screenshots: $(DEV)
	$(BIN)/python tests/screenshots.py
	$(BIN)/python -m tests.screenshots_lobby

bench: $(DEV)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
