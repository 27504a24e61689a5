# ragportal: `make run` serves the portal with the demo corpus; `make test` runs the suite.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
HOST ?= 127.0.0.1
PORT ?= 8000
JSQUAD ?= ../shared/data/jsquad-valid

.PHONY: run test eval eval-portal lint venv dev-deps migrate demo clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(PY)
	$(PIP) install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements-dev.txt requirements.txt $(VENV)/.runtime
	$(PIP) install --quiet -r requirements-dev.txt
	touch $@

venv: $(VENV)/.runtime

dev-deps: $(VENV)/.dev

migrate: venv
	DEBUG=1 $(PY) manage.py migrate --noinput

# The banner lists the demo logins at the address `run` serves (HOST and PORT).
demo: migrate
	DEBUG=1 $(PY) manage.py load_demo --url http://$(HOST):$(PORT)/

# One indexing worker beside the web server (one core, lower priority: questions stay fast), stopped with it.
run: demo
	DEBUG=1 OMP_NUM_THREADS=1 $(PY) manage.py index_worker --sole-worker & worker=$$!; \
	trap 'kill $$worker 2>/dev/null; wait $$worker' EXIT INT TERM; \
	DEBUG=1 $(PY) manage.py runserver $(HOST):$(PORT)

test: dev-deps
	$(PY) -m pytest

eval: venv
	DEBUG=1 $(PY) manage.py evaluate --corpus documents/demo_corpus/golden/corpus.jsonl --queries documents/demo_corpus/golden/queries.jsonl --compare
	DEBUG=1 $(PY) manage.py evaluate --corpus $(JSQUAD)/jsquad-valid-corpus.jsonl --queries $(JSQUAD)/jsquad-valid-queries.jsonl --compare

# The golden questions through the answering service, on a throw-away copy of the demo; every answer in var/.
eval-portal: venv
	DEBUG=1 $(PY) manage.py evaluate_portal --json var/eval-portal.json

lint: dev-deps
	$(VENV)/bin/ruff check .

clean:
	rm -rf $(VENV) var
