# The two commands a fresh machine needs are `make run` and `make test`; every
# other target is a step they share. Stamp files keep repeated runs fast: a step
# reruns only when the file it installs from changes.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
# Packages held to `mypy --strict` by the test command.
TYPED ?= engine players app tools render storage handlers common webapp emulator/client.py bot.py demo.py

PIP := $(PY) -m pip --quiet --disable-pip-version-check
# The exact version of every Python package, pip and setuptools included; pyproject.toml
# keeps the ranges. `make lock` regenerates it (scripts/lock.sh says how).
LOCK := constraints.txt

DEPS_STAMP := $(VENV)/.locked
PY_STAMP := $(VENV)/.installed
NODE_STAMP := emulator/node_modules/.installed

.PHONY: venv deps install lock system-deps translations emulator run demo test lint bench calendar-check

venv: $(PY)

$(PY):
	$(PYTHON) -m venv $(VENV)

deps: $(DEPS_STAMP)

install: $(PY_STAMP)

# Exactly the pinned packages, nothing resolved here: pip first, so the pinned pip installs
# the rest. The Dockerfile runs this step before it copies the source, as a cached layer.
$(DEPS_STAMP): $(LOCK) | $(PY)
	$(PIP) install --constraint $(LOCK) pip
	$(PIP) install --no-deps --requirement $(LOCK)
	touch $@

# The project itself, checked against the pins: without an index (and building with the
# pinned setuptools) pip can only use what is installed, so a requirement of pyproject.toml
# that the lock lacks or does not satisfy fails here instead of installing an unpinned version.
$(PY_STAMP): pyproject.toml $(DEPS_STAMP)
	$(PIP) install --no-index --no-build-isolation --editable '.[dev]' \
	  || { echo "$(LOCK) does not satisfy pyproject.toml: run \`make lock\` and commit $(LOCK)" >&2; exit 1; }
	touch $@

lock:
	bash scripts/lock.sh $(PYTHON)

system-deps:
	bash scripts/system-deps.sh

translations: install
	bash scripts/compile-translations.sh $(BIN)/pybabel

emulator: $(NODE_STAMP)

$(NODE_STAMP): emulator/package.json emulator/package-lock.json $(wildcard emulator/patches/*.patch)
	cd emulator && npm ci --no-audit --no-fund --loglevel=error
	touch $@

run: install translations
	$(PY) bot.py

demo: install translations emulator
	$(PY) demo.py

lint: install
	$(BIN)/ruff check --no-cache .
	$(BIN)/ruff format --no-cache --check .
	$(BIN)/mypy $(TYPED)

# The tests not marked serial on TEST_WORKERS processes (pytest-xdist; 0: in this process),
# then the serial ones alone (tests/conftest.py says which and why). Three workers on two cores:
# most of the suite waits on the emulator and on Telegram's pacing (docs/testing.md, "Parallel
# and serial").
TEST_WORKERS ?= 3

test: system-deps install translations emulator lint
	$(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal -m "not serial"
	$(BIN)/pytest -m serial

# The date-sensitive tests again, 400 days ahead (libfaketime): CI runs it after `make test`.
calendar-check: system-deps install translations emulator
	TEST_WORKERS=$(TEST_WORKERS) bash scripts/calendar-check.sh

bench: install translations emulator
	$(PY) bench/moves.py
	$(PY) bench/selfplay.py
	$(PY) bench/pictures.py
	$(PY) bench/load.py
	$(PY) bench/miniapp_load.py --tables 100 --seconds 60
	$(PY) bench/flood.py
	$(PY) bench/records.py
	$(PY) bench/backup.py
	$(PY) bench/storage_copy.py
	$(PY) bench/failover.py
