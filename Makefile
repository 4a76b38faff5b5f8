# The README names these targets. Every one is safe to run again: nothing that did not change
# is rebuilt.
SHELL := /bin/bash
PY := .venv/bin/python
export ONSITE_VAR_DIR ?= $(CURDIR)/var

.PHONY: setup run test test-fast test-postgres lint bench clean prod-up prod-down prod-test

setup:
	bash platform/bin/setup.sh

## Start the platform with the problem bank loaded and print the URL (Ctrl-C stops it).
run: setup
	$(PY) manage.py migrate --noinput -v 0
	$(PY) manage.py loadproblems
	@echo "Demo accounts:"
	@$(PY) manage.py seeddemo
	$(PY) platform/run.py

## The whole test suite, against real Redis, Docker, Celery and chromium, on TEST_WORKERS
## pytest-xdist workers (each with its own Redis and database; verdicts are judged on CPU
## time, so the load they add changes none).
TEST_WORKERS ?= 3
test: setup
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --durations=25

## The fast loop: pure logic and real Redis, no Docker, no browser, nothing marked slow; on
## TEST_FAST_WORKERS pytest-xdist workers. Our modules' bytecode is kept (__pycache__, git
## ignores it) even where PYTHONDONTWRITEBYTECODE is set: without it every worker compiles
## every module and rewrites every test module again (about 4 s of CPU each).
TEST_FAST_WORKERS ?= 2
test-fast:
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -q -n $(TEST_FAST_WORKERS) --dist loadgroup \
		-m "not docker and not e2e and not slow" --durations=10

## The suite against the PostgreSQL on this machine: every test that uses the database. The
## browser flows run their own platform on its own SQLite file and the sandbox's tests use no
## database, so they would only run again unchanged (`make test` runs them).
test-postgres: setup
	bash platform/bin/ensure-postgres.sh
	DATABASE_URL=postgres://onsite:onsite@127.0.0.1:5432/onsite \
		$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --durations=25 \
		-m "not e2e" --ignore=tests/sandbox

## The production shape on this machine (docs/scaling.md): PostgreSQL, Redis, two web
## processes behind nginx, two cpu workers, one gpu worker, beat; all on 127.0.0.1.
prod-up: setup
	bash platform/prod/stack.sh up

prod-down:
	bash platform/prod/stack.sh down

## The browser flows and a worker killed mid-grade against that stack; it is down afterwards.
prod-test: setup
	ONSITE_PROD_TEST=1 $(PY) -m pytest -q tests/prod

lint:
	$(PY) -m ruff check .
	$(PY) -m mypy .

bench: setup
	$(PY) -m bench

clean:
	rm -rf var/stamps frontend/node_modules frontend/static/frontend/bundle.* frontend/static/frontend/session.* frontend/static/frontend/studio.* \
		frontend/static/frontend/board.* frontend/static/frontend/fonts \
		frontend/static/frontend/axe.min.js
