"""A pytest plugin (loaded with `-p tests.services`, before pytest-django reads settings):
starts a real Redis for the whole run, since settings read REDIS_URL once, unless
ONSITE_TEST_REDIS_URL names one to use. Subprocesses inherit the variable and reuse it."""

from __future__ import annotations

import atexit
import os
import random
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def ephemeral_ports() -> tuple[int, int]:
    """The kernel's range for the source ports of outgoing connections (and for bind to 0)."""
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def free_port() -> int:
    """A free loopback port for a server a test starts, chosen below the ephemeral range: between
    this check and the server's own bind, no outgoing connection of a parallel worker (Redis, the
    database, HTTP clients) can take it as its source port, which a port from bind(0) cannot
    promise. (CI once saw nginx lose its plain-HTTP port that way.)"""
    low = ephemeral_ports()[0]
    pick = random.SystemRandom()
    for _ in range(500):
        port = pick.randrange(max(1024, low - 12000), low)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_redis(port: int | None = None) -> tuple[str, subprocess.Popen[bytes]]:
    """A throwaway redis-server on a free loopback port, stopped when the run ends."""
    port = port or free_port()
    data = tempfile.mkdtemp(prefix="onsite-redis-")
    proc = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            data,
        ],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    break
        except OSError:
            time.sleep(0.05)
    atexit.register(lambda: (proc.terminate(), proc.wait(), shutil.rmtree(data, True)))
    return url, proc


_REDIS_PROC: subprocess.Popen[bytes] | None = None


def _redis_port() -> int:
    return int(os.environ["ONSITE_TEST_REDIS_URL"].rsplit(":", 1)[1].split("/")[0])


def stop_redis() -> None:
    """Kill the suite's Redis (losing everything it held: no persistence). Only possible when
    this plugin started it; `start_redis_again` brings it back on the same port."""
    if _REDIS_PROC is None:
        raise RuntimeError("the suite's Redis was given (ONSITE_TEST_REDIS_URL), not started")
    _REDIS_PROC.kill()
    _REDIS_PROC.wait()


def start_redis_again() -> None:
    global _REDIS_PROC
    _, _REDIS_PROC = start_redis(_redis_port())


def restart_redis() -> None:
    """Kill the suite's Redis and start it again at once on the same port."""
    stop_redis()
    start_redis_again()


# One Redis per pytest process: with pytest-xdist each worker (PYTEST_XDIST_WORKER) starts its
# own instead of sharing the controller's, so Celery queues, channel layers and rate limits of
# concurrent workers never mix. Subprocesses of a worker have its id and reuse its Redis.
_RUN = os.environ.get("PYTEST_XDIST_WORKER", "main")
_GIVEN = bool(os.environ.get("ONSITE_TEST_REDIS_URL")) and "ONSITE_TEST_REDIS_FOR" not in os.environ
if not _GIVEN and os.environ.get("ONSITE_TEST_REDIS_FOR") != _RUN:
    os.environ["ONSITE_TEST_REDIS_URL"], _REDIS_PROC = start_redis()
    os.environ["ONSITE_TEST_REDIS_FOR"] = _RUN
    # The sandbox containers this run (and its Celery workers) create carry this owner label,
    # so a test can count its own containers on an engine other runs share.
    os.environ["ONSITE_SANDBOX_OWNER"] = f"test-{os.getpid()}"
os.environ["REDIS_URL"] = os.environ["ONSITE_TEST_REDIS_URL"]
os.environ.setdefault("ONSITE_VAR_DIR", str(ROOT / "var"))
