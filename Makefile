# ragportal: `make run` serves the portal with the demo corpus; `make test` runs the suite.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
HOST ?= 127.0.0.1
PORT ?= 8000
JSQUAD ?= ../shared/data/jsquad-valid

.PHONY: run run-prod test eval eval-portal lint venv dev-deps migrate demo clean

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

# Production mode on one machine (README): DEBUG off, hashed static files served by
# whitenoise, gunicorn in the foreground and indexing workers stopped with it. The
# embedded Chroma directory takes one web process (threads) and one worker; with a
# Chroma server (CHROMA_HOST) it is 3 web processes and 2 workers.
WEB_WORKERS ?= $(if $(CHROMA_HOST),3,1)
WEB_THREADS ?= 4
INDEX_WORKERS ?= $(if $(CHROMA_HOST),2,1)
# Long enough for a process's first question, which loads the embedding model.
WEB_TIMEOUT ?= 120

run-prod: venv
	@test -n "$$SECRET_KEY" || { echo "make run-prod: SECRET_KEY is not set. Set it (and ALLOWED_HOSTS, the host names users type), e.g. export SECRET_KEY=\"\$$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))')\"" >&2; exit 1; }
	@export DEBUG=0 RAG_STATIC_MANIFEST=1 OMP_NUM_THREADS=1; set -e; \
	$(PY) manage.py migrate --noinput; \
	$(PY) manage.py collectstatic --noinput -v0; \
	if [ -n "$(DEMO)" ]; then $(PY) manage.py load_demo --url http://$(HOST):$(PORT)/; fi; \
	workers=; \
	for i in $$(seq $(INDEX_WORKERS)); do \
	  $(PY) manage.py index_worker $(if $(filter 1,$(INDEX_WORKERS)),--sole-worker) & workers="$$workers $$!"; \
	done; \
	trap 'kill $$workers 2>/dev/null; wait $$workers' EXIT INT TERM; \
	$(VENV)/bin/gunicorn ragportal.wsgi --bind $(HOST):$(PORT) --workers $(WEB_WORKERS) --threads $(WEB_THREADS) \
	  --timeout $(WEB_TIMEOUT) --graceful-timeout 30 --access-logfile -

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
