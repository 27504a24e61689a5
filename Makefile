# ragportal: `make run` serves the portal with the demo corpus; `make test` runs the suite.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
HOST ?= 127.0.0.1
PORT ?= 8000
JSQUAD ?= ../shared/data/jsquad-valid

.PHONY: run run-prod run-prod-services test eval eval-portal lint venv dev-deps migrate demo clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# Not --quiet: on a fresh clone this is the first minute of `make run`, and pip's lines show it working.
# pip prints nothing while it unpacks the wheels (about a minute): a line every 10 s says it still works.
$(VENV)/.runtime: requirements.txt | $(PY)
	@echo "== installing the Python packages (first run only, about a minute) =="
	@( while sleep 10; do echo "== still installing the Python packages =="; done ) & ticker=$$!; \
	$(PIP) install --progress-bar off -r requirements.txt; status=$$?; \
	kill $$ticker; exit $$status
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
	@echo "== demo users and documents (a fresh clone indexes the demo corpus here; progress every few seconds) =="
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

# gunicorn believes X-Forwarded-Proto (the request came over HTTPS) only from these proxy
# addresses. gunicorn's own default trusts 127.0.0.1 and ::1, i.e. any local process; here
# nothing is trusted unless RAG_TRUST_X_FORWARDED_PROTO=1 (a TLS proxy on this machine:
# 127.0.0.1,::1). A proxy on another machine: FORWARDED_ALLOW_IPS=its address (README).
comma := ,
FORWARDED_ALLOW_IPS ?= $(if $(filter 1,$(RAG_TRUST_X_FORWARDED_PROTO)),127.0.0.1$(comma)::1,)

define require_secret_key
@test -n "$$SECRET_KEY" || { echo "make $@: SECRET_KEY is not set. Set it (and ALLOWED_HOSTS, the host names users type), e.g. export SECRET_KEY=\"\$$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))')\"" >&2; exit 1; }
endef

run-prod: venv
	$(require_secret_key)
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
	  --timeout $(WEB_TIMEOUT) --graceful-timeout 30 --access-logfile - --forwarded-allow-ips="$(FORWARDED_ALLOW_IPS)"

# Production mode on one machine with PostgreSQL and a Chroma server (scripts/services, data in
# SERVICES_DIR): run-prod with 3 web processes and 2 indexing workers; the services stop with it.
SERVICES_DIR ?= var/services

run-prod-services: venv
	$(require_secret_key)
	@scripts/services start $(SERVICES_DIR)
	@trap 'scripts/services stop $(SERVICES_DIR)' EXIT INT TERM; \
	eval "$$(scripts/services env $(SERVICES_DIR))"; \
	$(MAKE) --no-print-directory run-prod INDEX_WORKERS=2

# One pytest run: the default suite and the integration tests (tests/integration, marked
# `integration`) against PostgreSQL and a Chroma server, those of RAGPORTAL_TEST_POSTGRES and
# RAGPORTAL_TEST_CHROMA (.ci/run starts them), else throw-away ones started here when Debian's
# postgresql is installed (stopped afterwards); without either, the integration tests skip.
test: dev-deps
	@if [ -n "$$RAGPORTAL_TEST_POSTGRES" ] || ! scripts/services check 2>/dev/null; then \
	  $(PY) -m pytest; \
	else \
	  dir=$$(mktemp -d); trap 'scripts/services stop "$$dir"; rm -rf "$$dir"' EXIT INT TERM; \
	  SERVICES_THROWAWAY=1 scripts/services start "$$dir" && eval "$$(scripts/services test-env "$$dir")" && $(PY) -m pytest; \
	fi

eval: venv
	DEBUG=1 $(PY) manage.py evaluate --corpus documents/demo_corpus/golden/corpus.jsonl --queries documents/demo_corpus/golden/queries.jsonl --glossary documents/demo_corpus/glossary.json --compare
	DEBUG=1 $(PY) manage.py evaluate --corpus $(JSQUAD)/jsquad-valid-corpus.jsonl --queries $(JSQUAD)/jsquad-valid-queries.jsonl --compare

# The golden questions through the answering service, on a throw-away copy of the demo; every answer in var/.
eval-portal: venv
	DEBUG=1 $(PY) manage.py evaluate_portal --json var/eval-portal.json

# The style the project states (STYLE.md), as CI checks it: ruff's rules and formatting, and mypy
# on the app code (settings in pyproject.toml).
lint: dev-deps
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) var
