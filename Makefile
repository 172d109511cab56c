# Sizewise. `make build` and `make test` work on a fresh machine: they create .venv and install the project.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
TOOLS := tools/node_modules/.installed
TSC := tools/node_modules/.bin/tsc
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: build test check lint typecheck typecheck-js check-content calibrate clean i18n serve golden browser audit bench lock

# pip and the setuptools that builds the project are pinned too (constraints-build.txt): an install
# never runs an installer or build backend newer than the one the lock was made with.
$(STAMP): pyproject.toml constraints.txt constraints-build.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -c constraints-build.txt pip
	$(PY) -m pip install -q -e '.[test]' -c constraints.txt --build-constraint constraints-build.txt
	touch $(STAMP)

# constraints.txt pins every package the project installs to the version `make lock` last resolved.
lock:
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(PYTHON) -m venv "$$tmp" && \
	"$$tmp/bin/python" -m pip install -q -c constraints-build.txt pip && \
	"$$tmp/bin/python" -m pip install -q -e '.[test]' --build-constraint constraints-build.txt && \
	{ echo "# Exact versions of every package the project installs; regenerate with: make lock"; \
	  "$$tmp/bin/python" -m pip freeze --exclude-editable; } > constraints.txt

build: $(STAMP)
	$(PY) -m generator build

check-content: $(STAMP)
	$(PY) -m generator check-content

lint: $(STAMP)
	$(PY) -m ruff check generator tests

typecheck: $(STAMP)
	$(PY) -m mypy

# The browser code is checked as TypeScript would check it (// @ts-check, JSDoc types, strict).
typecheck-js: $(TOOLS)
	$(TSC) -p tools/tsconfig.json

i18n: $(STAMP)
	$(PY) -m babel.messages.frontend extract -F babel.cfg -k _ -k N_ -k ngettext:1,2 --no-location --sort-output --omit-header -o locales/messages.pot .
	for l in fr zh; do \
	  if [ -f locales/$$l/LC_MESSAGES/messages.po ]; then \
	    $(PY) -m babel.messages.frontend update -i locales/messages.pot -d locales -l $$l --no-fuzzy-matching; \
	  else \
	    $(PY) -m babel.messages.frontend init -i locales/messages.pot -d locales -l $$l; \
	  fi; \
	done

# The bench compares with Hugo when it is installed: Debian's package, where apt works.
bench: $(STAMP)
	@if ! command -v hugo >/dev/null && command -v apt-get >/dev/null; then \
	  { $(SUDO) apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends hugo >/dev/null; } || \
	  echo "hugo could not be installed: the bench skips the Hugo comparison"; \
	fi
	$(PY) -m generator.publish.bench

golden: $(STAMP)
	$(PY) -m tests.golden.regenerate

serve: $(STAMP)
	$(PY) -m generator serve

calibrate: $(STAMP)
	$(PY) -m generator calibrate

# The web gates need a real Chromium with CJK fonts (Debian packages) and tools from npm.
browser:
	@if ! command -v chromium >/dev/null || ! dpkg -s fonts-noto-cjk >/dev/null 2>&1; then \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium fonts-noto-cjk >/dev/null; \
	fi

$(TOOLS): tools/package.json tools/package-lock.json
	cd tools && npm ci --no-audit --no-fund --loglevel=error
	touch $(TOOLS)

audit: $(STAMP) $(TOOLS) browser
	$(PY) -m tests.web.audit

# The fast loop, under a minute: lint, format, the CI workflow (actionlint), types (Python and
# JavaScript), unit and golden tests; no full-catalog build and no browser.
check: $(STAMP) $(TOOLS)
	$(PY) -m ruff check generator tests
	$(PY) -m ruff format --check generator tests
	$(VENV)/bin/actionlint
	$(PY) -m mypy
	$(TSC) -p tools/tsconfig.json
	$(PY) -m pytest -m "not slow and not browser" -q -x -n 0

test: $(STAMP) $(TOOLS) browser
	$(PY) -m generator check-content
	$(PY) -m ruff check generator tests
	$(PY) -m ruff format --check generator tests
	$(VENV)/bin/actionlint
	$(PY) -m mypy
	$(TSC) -p tools/tsconfig.json
	$(PY) -m pytest -q

clean:
	rm -rf $(VENV) dist reports tools/node_modules .pytest_cache .mypy_cache .ruff_cache
