# Sizewise. `make build` and `make test` work on a fresh machine: they create .venv and install the project.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: build test lint typecheck check-content calibrate clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

build: $(STAMP)
	$(PY) -m generator build

check-content: $(STAMP)
	$(PY) -m generator check-content

lint: $(STAMP)
	$(PY) -m ruff check generator tests

typecheck: $(STAMP)
	$(PY) -m mypy

calibrate: $(STAMP)
	$(PY) -m generator calibrate

test: $(STAMP)
	$(PY) -m generator check-content
	$(PY) -m ruff check generator tests
	$(PY) -m mypy
	$(PY) -m pytest -q

clean:
	rm -rf $(VENV) dist .pytest_cache .mypy_cache .ruff_cache
