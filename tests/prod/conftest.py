"""The production stack (docker-compose, host networking) for the tests in this folder.

These tests start the whole stack, so `make test` leaves them out: they are deselected unless
ONSITE_PROD_TEST=1 (set by `make prod-test`). One stack per run: `platform/prod/stack.sh up`
before the first test, `stack.sh down` after the last (also when a test fails), and the last
test checks that no container of the stack is left.
"""

from __future__ import annotations

import json
import os
import secrets
import ssl
import subprocess
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

# The browser tests' fixture, shared here by import: `browser` (Debian's chromium). The autouse
# `csp_guard` of tests/conftest.py fails a test whose pages hit a Content-Security-Policy
# violation (here, the policy the production stack serves through nginx).
from tests.frontend.conftest import browser

__all__ = ["Stack", "browser", "stack"]

ROOT = Path(__file__).resolve().parents[2]
STACK = ["bash", str(ROOT / "platform" / "prod" / "stack.sh")]
PROJECT = os.environ.get("ONSITE_PROD_PROJECT", "onsite-prod")
# The single-host override's defaults (platform/prod/compose.single-host.yml).
PORTS = {
    "nginx": int(os.environ.get("ONSITE_PROD_PORT", "8100")),  # HTTPS
    "nginx-http": int(os.environ.get("ONSITE_PROD_HTTP_PORT", "8180")),  # redirects to HTTPS
    # nginx's HTTPS ports pinned to one web process each
    "web": int(os.environ.get("ONSITE_PROD_WEB1_TLS_PORT", "8111")),
    "web-2": int(os.environ.get("ONSITE_PROD_WEB2_TLS_PORT", "8112")),
    "web-direct": int(os.environ.get("ONSITE_PROD_WEB1_PORT", "8101")),  # web itself, plain
}
# The certificate nginx serves: the one given, else the self-signed one stack.sh makes.
VAR = Path(os.environ.get("ONSITE_VAR_DIR") or ROOT / "var")
TLS_CERT = Path(os.environ.get("ONSITE_TLS_CERT_FILE") or VAR / "prod" / "tls" / "cert.pem")
# The worker-kill test needs a dead worker's lease to run out soon: a small margin over the
# run's wall limit, and a sweeper that looks every few seconds.
FAST_RECOVERY = {"ONSITE_LEASE_MARGIN_SECONDS": "5", "ONSITE_SWEEP_INTERVAL_SECONDS": "5"}
HERE = Path(__file__).resolve().parent


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "prod: starts the production stack (make prod-test)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave this folder's tests out of a normal run: they bring up the whole stack."""
    if os.environ.get("ONSITE_PROD_TEST") == "1":
        return
    ours = [item for item in items if HERE in Path(str(item.fspath)).parents]
    if ours:
        config.hook.pytest_deselected(items=ours)
        items[:] = [item for item in items if item not in ours]


@dataclass(frozen=True)
class Stack:
    url: str  # nginx over HTTPS, in front of both web processes
    http_url: str  # nginx's plain HTTP, which only redirects
    web_urls: tuple[str, str]  # each web process alone, through nginx's HTTPS
    password: str  # of the demo accounts
    token: str  # the candidate's API token

    def container(self, service: str) -> str:
        return container_of(service)


def compose_containers(*filters: str) -> list[str]:
    argv = ["docker", "ps", "-aq", "--filter", f"label=com.docker.compose.project={PROJECT}"]
    for extra in filters:
        argv += ["--filter", f"label={extra}"]
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split()


def container_of(service: str) -> str:
    found = compose_containers(f"com.docker.compose.service={service}")
    assert len(found) == 1, f"{service}: expected one container, found {found}"
    return found[0]


def manage(service: str, *args: str) -> str:
    """A management command inside one of the stack's app containers."""
    done = subprocess.run(
        ["docker", "exec", container_of(service), "python", "manage.py", *args],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def stack_down() -> None:
    subprocess.run([*STACK, "down"], check=True, timeout=300)


def tls_context() -> ssl.SSLContext:
    """Verifies the stack's certificate (and only it): HTTPS is checked, not waved through."""
    return ssl.create_default_context(cafile=str(TLS_CERT))


def api(stack: Stack, method: str, path: str, body: dict[str, object] | None = None) -> object:
    request = urllib.request.Request(
        stack.url + path,
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Token {stack.token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30, context=tls_context()) as response:
        return json.loads(response.read())


@pytest.fixture(scope="session")
def stack() -> Iterator[Stack]:
    # A stack already up (make prod-up) is converged: containers whose settings differ from
    # FAST_RECOVERY are recreated, the rest kept.
    env = {**os.environ, **FAST_RECOVERY}
    try:
        up = subprocess.run([*STACK, "up"], env=env, timeout=1800)
        assert up.returncode == 0, "platform/prod/stack.sh up failed (its output is above)"
        password = "prod-" + secrets.token_urlsafe(12)
        manage("web", "seeddemo", "--password", password)
        token = manage("web", "createtoken", "candidate").split()[-1]
        yield Stack(
            url=f"https://127.0.0.1:{PORTS['nginx']}",
            http_url=f"http://127.0.0.1:{PORTS['nginx-http']}",
            web_urls=(f"https://127.0.0.1:{PORTS['web']}", f"https://127.0.0.1:{PORTS['web-2']}"),
            password=password,
            token=token,
        )
    finally:
        stack_down()
