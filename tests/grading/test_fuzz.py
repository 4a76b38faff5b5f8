"""Schemathesis against the real ASGI server (issue 13): 0 server errors, 0 schema violations.

The schema is read from `/api/schema` on daphne, started as the end-to-end tests start it
(tests/e2e/conftest.py's helpers) but without a Celery worker: fuzzed submissions only queue.
Every operation is fuzzed as a candidate and as an admin (token auth), with valid and invalid
data, a fixed seed and a bounded number of examples per operation, so the run is repeatable
and takes a couple of minutes.
Rate limits stay at their defaults: a 429 is a documented answer like any other.
"""

from __future__ import annotations

import itertools
import os
import re
import secrets
import shutil
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, seed, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from tests.e2e.conftest import Processes, http_ready, redis_ready, wait_until
from tests.services import free_port

# Minutes of CPU (a server, or PyTorch engines): the full suite, not `make test-fast`.
pytestmark = pytest.mark.slow

EXAMPLES_PER_OPERATION = 20  # per generation mode (valid, invalid)
SEED = 1313
VENV_BIN = os.path.dirname(sys.executable)
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def api_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """daphne on a fresh database with the demo accounts; their API tokens."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    work = tmp_path_factory.mktemp("fuzz")
    redis_port, web_port = free_port(), free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"sqlite:///{work / 'db.sqlite3'}",
        "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
        "CELERY_BROKER_URL": f"redis://127.0.0.1:{redis_port}/0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(40),
        "DJANGO_DEBUG": "0",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONUNBUFFERED": "1",
    }
    procs = Processes(logs=work, env=env)
    python = os.path.join(VENV_BIN, "python")
    try:
        _, redis_log = procs.start(
            "redis",
            [
                "redis-server",
                "--port",
                str(redis_port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(work),
            ],
        )
        wait_until(lambda: redis_ready(redis_port), seconds=20, what="redis", log=redis_log)
        procs.run("migrate", [python, "manage.py", "migrate", "--noinput"])
        procs.run(
            "loadproblems", [python, "manage.py", "loadproblems", "problems/bank/token-bucket"]
        )
        procs.run("seeddemo", [python, "manage.py", "seeddemo", "--password", "fuzz-pw-1"])
        tokens = {}
        for who in ("candidate", "admin"):
            procs.run(f"token-{who}", [python, "manage.py", "createtoken", who])
            text = (work / f"token-{who}.log").read_text()
            match = re.search(r"(onsite_\S+)", text)
            assert match, text
            tokens[who] = match.group(1)
        _, web_log = procs.start(
            "daphne",
            [
                os.path.join(VENV_BIN, "daphne"),
                "-b",
                "127.0.0.1",
                "-p",
                str(web_port),
                "config.web:application",
            ],
        )
        base_url = f"http://127.0.0.1:{web_port}"
        wait_until(
            lambda: http_ready(f"{base_url}/accounts/login/"),
            seconds=90,
            what="daphne",
            log=web_log,
        )
        yield {"base_url": base_url, "tokens": tokens, "log": web_log}
    finally:
        procs.stop_all()


def _fuzz(api_server: dict[str, Any], who: str) -> list[str]:
    """Every operation of the schema, fuzzed; the failures as text (empty: none)."""
    schema = schemathesis.openapi.from_url(f"{api_server['base_url']}/api/schema?format=json")
    headers = {"Authorization": f"Token {api_server['tokens'][who]}"}
    failures: list[str] = []
    calls: dict[int, int] = {}  # status code → how many answers
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 6, [op.label for op in operations]
    for operation, mode in itertools.product(operations, GenerationMode):

        @seed(SEED)
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        @given(case=operation.as_strategy(generation_mode=mode))
        def run(case: Any) -> None:
            response = case.call_and_validate(headers=headers, checks=CHECKS)
            calls[response.status_code] = calls.get(response.status_code, 0) + 1

        try:
            run()
        except Unsatisfiable:
            # Nothing invalid to send (an operation without parameters or body): not a failure.
            assert mode == GenerationMode.NEGATIVE, operation.label
        except (Exception, BaseExceptionGroup) as exc:  # the (shrunk) failing examples
            failures.append(f"{operation.label} ({mode.value}): {exc}")
    print(who, [op.label for op in operations], dict(sorted(calls.items())))
    # Bounded but not empty: every operation got examples (errors and successes alike).
    assert sum(calls.values()) >= 10 * len(operations), calls
    return failures


# pytest's own plugin of schemathesis does not support pytest 9 yet: the test drives
# hypothesis itself, one operation at a time.
def test_as_a_candidate_the_api_never_fails_and_answers_as_its_schema_says(
    api_server: dict[str, Any],
) -> None:
    assert _fuzz(api_server, "candidate") == []


def test_as_an_admin_the_api_never_fails_and_answers_as_its_schema_says(
    api_server: dict[str, Any],
) -> None:
    assert _fuzz(api_server, "admin") == []
