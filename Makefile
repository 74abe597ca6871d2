# Assay: `make run` starts the platform, `make test` runs the suite.
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: run test setup messages messages-update lint fmt bench migrations-check clean

setup: $(VENV)/.installed static/vendor/.copied messages

$(VENV)/.installed: pyproject.toml clients/python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[dev]'
	$(VENV)/bin/pip install --quiet -e ./clients/python
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

static/vendor/.copied: node_modules/.installed scripts/vendor_assets.py
	$(PY) scripts/vendor_assets.py
	touch $@

# The .mo catalogues are built from the committed .po files on every set-up (polib: no system
# gettext needed; they are not committed). docs/i18n.md says how to translate new strings.
messages: $(VENV)/.installed
	$(PY) scripts/i18n_update.py --compile

# Extract new strings, fill known translations, list what is left (needs xgettext: gettext).
messages-update: $(VENV)/.installed
	$(PY) scripts/i18n_update.py

# `PORT=8001 make run`, or `ADDR=0.0.0.0:8000 make run` to listen on every interface.
PORT ?= 8000
ADDR ?= 127.0.0.1:$(PORT)

run: setup
	$(PY) manage.py assay_run --addr $(ADDR)

test: setup
	$(PY) -m pytest $(PYTEST_ARGS)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

fmt: setup
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

migrations-check: setup
	$(PY) manage.py makemigrations --check --dry-run

bench: setup
	@for script in bench/*_bench.py; do echo "== $$script"; $(PY) $$script || exit 1; done

clean:
	rm -rf $(VENV) node_modules static/vendor var
