"""Real platform processes for tests: Celery workers (and their environment) as subprocesses."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.db import connection

from grading.lanes import all_queues, worker_queues

ROOT = Path(__file__).resolve().parent.parent
# Where browser tests leave screenshots for a person to look at (git-ignored).
SCREENSHOTS = Path(os.environ.get("ONSITE_SHOTS_DIR") or ROOT / "var" / "screenshots")
BIN = Path(sys.executable).parent


def database_url() -> str:
    """The URL of the database the current test uses (the test database, not the real one)."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    host = f"{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
    return f"postgres://{db['USER']}:{db['PASSWORD']}@{host}/{db['NAME']}"


def platform_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.test_settings",
            "DATABASE_URL": database_url(),
            "REDIS_URL": settings.REDIS_URL,
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


def start_worker(
    log_path: Path,
    *,
    queues: str = ",".join(all_queues()),
    concurrency: int = 1,
    beat: bool = False,
    **env: str,
) -> subprocess.Popen[bytes]:
    argv = [
        str(BIN / "celery"),
        "-A",
        "config",
        "worker",
        "-Q",
        queues,
        "--concurrency",
        str(concurrency),
        "--loglevel",
        "INFO",
        "-n",
        f"test-{os.getpid()}-{time.time_ns()}@%h",
        "--without-gossip",
        "--without-mingle",
    ]
    if beat:
        argv += ["-B", "--schedule", str(log_path.with_suffix(".beat"))]
    log = log_path.open("ab")
    return subprocess.Popen(
        argv,
        cwd=ROOT,
        env=platform_env(**env),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def kind_queues(kind: str) -> str:
    """Every lane of one queue kind, and io (the beat's sweeps go there)."""
    return f"{worker_queues(kind)},io"


def broker_purge(queues: tuple[str, ...] = all_queues()) -> None:
    """Drop the tasks waiting in the run's broker: earlier tests enqueue jobs that no worker of
    theirs consumed, and a test that asserts on what its own workers received starts clean."""
    from config.celery import app

    with app.connection_for_write() as conn:
        for name in queues:
            conn.default_channel.queue_purge(name)


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM, timeout: float = 20) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@contextmanager
def worker(log_path: Path, **kwargs: object) -> Iterator[subprocess.Popen[bytes]]:
    proc = start_worker(log_path, **kwargs)  # type: ignore[arg-type]
    try:
        yield proc
    finally:
        stop(proc)


def wait_for(
    predicate: Callable[[], object],
    timeout: float = 60,
    interval: float = 0.2,
    what: str = "condition",
) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")
