# verdict: the two commands of the README, and a few more.
#   make run   - set up .venv, audit the example lab with the built-in pack, then serve the API on it
#   make test  - set up .venv, lint and format check (ruff), type-check (mypy) and run the tests (pytest; TESTS=files
#                for some of them)
SHELL := /bin/bash
VENV  := .venv
PY    := $(VENV)/bin/python
# Where run and serve listen: BIND, else VERDICT_BIND (the environment's or the command line's), else loopback 8080.
BIND  ?= $(or $(VERDICT_BIND),127.0.0.1:8080)
# The first Python >= 3.12 on PATH (pyenv reads .python-version in this folder).
PYTHON ?= $(shell for p in python3.13 python3.12 python3; do \
	  command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null \
	  && { echo $$p; break; }; done)

.PHONY: run serve audit test lint typecheck bench clean

# make run and make test started at once (two terminals) build it once: the second waits on the lock, then finds it
# built (flock is util-linux's; without it, as before).
$(VENV)/.installed: pyproject.toml
	@if [ -z "$(PYTHON)" ]; then echo "verdict needs Python >= 3.12 (none found on PATH)" >&2; exit 2; fi
	@exec 9>.venv.lock; if command -v flock >/dev/null; then flock 9; fi; \
	if [ -f $@ ] && [ $@ -nt pyproject.toml ]; then exit 0; fi; \
	set -ex; \
	$(PYTHON) -m venv $(VENV); \
	$(PY) -m pip install --quiet --upgrade pip; \
	$(PY) -m pip install --quiet -e '.[test]'; \
	touch $@

run: $(VENV)/.installed
	@VERDICT_BIND=$(BIND) $(VENV)/bin/verdict serve --check-bind
	$(VENV)/bin/verdict audit examples/lab-cluster.yaml --format table --fail-on never -q
	VERDICT_BIND=$(BIND) $(VENV)/bin/verdict serve

serve: $(VENV)/.installed
	VERDICT_BIND=$(BIND) $(VENV)/bin/verdict serve

audit: $(VENV)/.installed
	$(VENV)/bin/verdict audit examples/lab-cluster.yaml --format table

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(VENV)/.installed
	$(VENV)/bin/mypy rules api app.py

# TESTS: the test files (or pytest's node ids) to run, all of them when unset: make test TESTS=tests/test_quantity.py
TESTS ?=

test: lint typecheck
	$(VENV)/bin/pytest $(TESTS)

# Issue 11's figures (bench/README.md): generated clusters, the scheduling figure, the HTTP load (needs wrk; the same
# body, then a different body every request, which no cached report answers), then
# the older micro-benchmarks.
bench: $(VENV)/.installed
	$(PY) bench/run.py --sizes 1k,5k
	$(PY) bench/run.py --schedule
	if command -v wrk >/dev/null; then $(PY) bench/http_load.py && $(PY) bench/http_load.py --distinct; else echo "wrk not installed: HTTP load skipped"; fi
	$(PY) bench/load_pack.py
	$(PY) bench/yaml_read.py
	$(PY) bench/request_cpu.py
	for b in bench/bench_*.py; do $(PY) $$b; done

clean:
	rm -rf $(VENV) .venv.lock .pytest_cache .mypy_cache .ruff_cache
