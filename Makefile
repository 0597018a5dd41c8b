# The two commands a fresh machine needs are `make run` and `make test`; every
# other target is a step they share. Stamp files keep repeated runs fast: a step
# reruns only when the file it installs from changes.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
# Packages held to `mypy --strict` by the test command.
TYPED ?= engine render storage handlers emulator/client.py bot.py demo.py

PY_STAMP := $(VENV)/.installed
NODE_STAMP := emulator/node_modules/.installed

.PHONY: venv install system-deps translations emulator run demo test lint bench

venv: $(PY)

$(PY):
	$(PYTHON) -m venv $(VENV)

install: $(PY_STAMP)

$(PY_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

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

test: system-deps install translations emulator lint
	$(BIN)/pytest

bench: install translations emulator
	$(PY) -m engine bench
	$(PY) -m engine selfplay
	$(PY) -m render bench
	$(PY) bench/load.py
