"""The whole platform as subprocesses, for the end-to-end tests.

A session-scoped `platform` fixture (started once per test run, on first use; under
pytest-xdist once per worker that gets a browser module) starts, against
a throwaway SQLite file and its own
redis-server: migrate, loadproblems (token-bucket only), seeddemo, then daphne (HTTP and
websockets) and a Celery worker on the cpu and gpu queues. Every process runs in its own
process group, so teardown reaches the children it forked (Celery's pool) and nothing is left
running after the run. Each browser module's tests run back to back on one worker (an
xdist group, tests/conftest.py). Process output goes to log
files whose tails are shown when something fails to start.
"""

from __future__ import annotations

import contextlib
import email
import email.policy
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from playwright.sync_api import Browser, BrowserContext, Page, expect

from grading.lanes import all_queues

# `browser` is the frontend tests' fixture (Debian's chromium), shared here by import.
from tests.csp import CspGuard
from tests.frontend.conftest import browser, bundle_ensure
from tests.services import free_port

__all__ = ["CspGuard", "Platform", "browser", "platform"]

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
PROBLEM_DIR = ROOT / "problems" / "bank" / "token-bucket"
DEMO_PASSWORD = "e2e-" + secrets.token_urlsafe(12)
START_SECONDS = 90.0


def log_tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def wait_until(check: Callable[[], bool], *, seconds: float, what: str, log: Path) -> None:
    """Polls `check` until it holds; fails the session with the log's tail if it never does."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    pytest.fail(f"{what} did not become ready in {seconds:.0f} s; {log.name}:\n{log_tail(log)}")


@dataclass
class Processes:
    """Long-running children, each the leader of its own process group."""

    logs: Path
    env: dict[str, str]
    running: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start(self, name: str, argv: list[str]) -> tuple[subprocess.Popen[bytes], Path]:
        log = self.logs / f"{name}.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                argv,
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group: teardown signals the whole tree
            )
        self.running.append(proc)
        return proc, log

    def run(self, name: str, argv: list[str]) -> None:
        """A one-shot command that must succeed (migrate, loadproblems, seeddemo)."""
        log = self.logs / f"{name}.log"
        with log.open("wb") as out:
            done = subprocess.run(
                argv, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT, timeout=300
            )
        if done.returncode != 0:
            pytest.fail(f"{' '.join(argv)} exited {done.returncode}:\n{log_tail(log)}")

    def stop_all(self) -> None:
        """SIGTERM each group, wait, then SIGKILL what is left, newest first."""
        for proc in reversed(self.running):
            self._signal(proc, signal.SIGTERM)
        for proc in reversed(self.running):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self._signal(proc, signal.SIGKILL)
                proc.wait(timeout=15)
            # Celery's pool children may outlive their parent by a moment: clear the group.
            self._signal(proc, signal.SIGKILL)
        self.running.clear()

    @staticmethod
    def _signal(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)  # the group this fixture created for that child


@dataclass(frozen=True)
class Platform:
    base_url: str
    password: str
    logs: Path

    def shell(self, script: str) -> str:
        """Runs `script` in `manage.py shell` on the platform's own database (rows straight in,
        what the UI would take minutes for); returns what it printed."""
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings",
               "DATABASE_URL": f"sqlite:///{self.logs / 'db.sqlite3'}",
               "DJANGO_SECRET_KEY": "seed-only"}  # fmt: skip
        done = subprocess.run([sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout


def redis_ready(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def http_ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return int(response.status) == 200
    except (urllib.error.URLError, OSError):
        return False


class Inbox:
    """What the platform's real SMTP server (aiosmtpd, on loopback) received, in order."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.messages: list[EmailMessage] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        self.messages.append(parsed)
        return "250 OK"


@pytest.fixture(scope="session")
def inbox() -> Iterator[Inbox]:
    """A real SMTP server for the whole run: the platform's processes send their mail here."""
    handler = Inbox(free_port())
    controller = Controller(handler, hostname="127.0.0.1", port=handler.port)
    controller.start()
    try:
        yield handler
    finally:
        controller.stop()


@pytest.fixture(scope="session")
def platform(
    tmp_path_factory: pytest.TempPathFactory, sandbox_images: dict[str, str], inbox: Inbox
) -> Iterator[Platform]:
    """The running platform; its URL, the demo password, and where the logs are.

    `sandbox_images` (tests/conftest.py) builds the sandbox images first when missing.
    """
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    bundle_ensure()
    work = tmp_path_factory.mktemp("e2e")
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
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(inbox.port),
        # No warm container pool: the worker starts one container per grading, so nothing of
        # the sandbox outlives the worker.
        "ONSITE_SANDBOX_POOL_SIZE": "0",
        "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONUNBUFFERED": "1",
    }
    procs = Processes(logs=work, env=env)
    try:
        _, redis_log = procs.start(
            "redis",
            ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(work)],
        )  # fmt: skip
        wait_until(lambda: redis_ready(redis_port), seconds=20, what="redis", log=redis_log)

        python = str(VENV_BIN / "python")
        procs.run("migrate", [python, "manage.py", "migrate", "--noinput"])
        # Only the problem the flow uses: the test stays about the pages, not the whole bank.
        procs.run("loadproblems", [python, "manage.py", "loadproblems", str(PROBLEM_DIR)])
        procs.run("seeddemo", [python, "manage.py", "seeddemo", "--password", DEMO_PASSWORD])

        _, worker_log = procs.start(
            "celery",
            [str(VENV_BIN / "celery"), "-A", "config", "worker", "-Q", ",".join(all_queues()),
             "-c", "1",
             "--pool", "prefork", "--without-gossip", "--without-mingle", "--without-heartbeat",
             "--loglevel", "INFO", "-B", "--schedule", str(work / "beat-schedule")],
        )  # fmt: skip
        _, web_log = procs.start(
            "daphne",
            [str(VENV_BIN / "daphne"), "-b", "127.0.0.1", "-p", str(web_port),
             "config.web:application"],
        )  # fmt: skip
        base_url = f"http://127.0.0.1:{web_port}"
        wait_until(
            lambda: http_ready(f"{base_url}/accounts/login/"),
            seconds=START_SECONDS, what="daphne", log=web_log,
        )  # fmt: skip
        wait_until(
            lambda: " ready." in worker_log.read_text(errors="replace"),
            seconds=START_SECONDS, what="the celery worker", log=worker_log,
        )  # fmt: skip
        yield Platform(base_url=base_url, password=DEMO_PASSWORD, logs=work)
    finally:
        procs.stop_all()


class People:
    """The browser contexts of the people in one test (one each), logged in through the login
    page; uncaught errors in any of their pages are collected."""

    def __init__(
        self,
        browser: Browser,
        platform: Platform,
        *,
        viewport: dict[str, int] | None = None,
        timezone_id: str | None = None,
    ) -> None:
        self.browser, self.platform = browser, platform
        self.viewport = viewport or {"width": 1440, "height": 1000}
        self.timezone_id = timezone_id
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []

    def log_in(self, username: str, next_url: str = "/sessions/") -> Page:
        options: dict[str, Any] = {"base_url": self.platform.base_url, "viewport": self.viewport}
        if self.timezone_id:
            options["timezone_id"] = self.timezone_id
        context = self.browser.new_context(**options)
        self.contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: self.errors.append(f"{username}: {error}"))
        page.goto(f"/accounts/login/?next={next_url}")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", self.platform.password)
        page.click("form.login-form button[type=submit]")
        expect(page).to_have_url(self.platform.base_url + next_url)
        page.wait_for_load_state("load")  # the URL is there at commit, the scripts only now
        return page


@contextlib.contextmanager
def people_at(browser: Browser, platform: Platform, **options: Any) -> Iterator[People]:
    """People for one test; afterwards their contexts close and no page may have failed."""
    opened = People(browser, platform, **options)
    yield opened
    for context in opened.contexts:
        context.close()
    assert opened.errors == [], f"uncaught errors in the pages: {opened.errors}"


# Every page of an e2e test reports what the Content-Security-Policy (core/csp.py) refused
# (tests/csp.py): `csp_guard` is the autouse fixture of tests/conftest.py.


@pytest.fixture
def people(browser: Browser, platform: Platform) -> Iterator[People]:
    with people_at(browser, platform) as opened:
        yield opened


@pytest.fixture
def page(browser: Browser, platform: Platform) -> Iterator[Page]:
    """One signed-out page on the platform at 1440 px; an uncaught error in it fails the test."""
    context = browser.new_context(
        base_url=platform.base_url, viewport={"width": 1440, "height": 1000}
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == [], f"uncaught errors in the page: {errors}"
