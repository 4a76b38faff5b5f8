"""Start the platform's processes and keep them together; Ctrl-C stops every one of them.

Run by `make run` after the build steps. Starts Redis when none answers at REDIS_URL (on this
machine only), then a Celery worker per queue (cpu with the sweeper's beat, gpu one at a time)
and the ASGI server, and prints the URL.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
VAR = Path(os.environ.get("ONSITE_VAR_DIR", ROOT / "var"))
BIN = Path(sys.executable).parent
HOST = os.environ.get("ONSITE_HOST", "127.0.0.1")
PORT = int(os.environ.get("ONSITE_PORT", "8000"))
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


def redis_answers(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_timeout=1).ping())
    except redis.RedisError:
        return False


def start_redis(url: str) -> subprocess.Popen[bytes] | None:
    """A Redis of our own when none answers at a local REDIS_URL; None when one answers."""
    if redis_answers(url):
        print(f"[run] using the Redis at {url}", flush=True)
        return None
    parsed = urlparse(url)
    if parsed.hostname not in ("127.0.0.1", "localhost"):
        sys.exit(f"[run] no Redis answers at {url}, and it is not on this machine")
    if shutil.which("redis-server") is None:
        sys.exit("[run] redis-server is not installed (apt-get install redis-server)")
    data = VAR / "redis"
    data.mkdir(parents=True, exist_ok=True)
    # Append-only persistence: queued submissions survive a Redis restart.
    proc = spawn(
        "redis",
        [
            "redis-server",
            "--port",
            str(parsed.port or 6379),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(data),
            "--appendonly",
            "yes",
            "--save",
            "",
            "--loglevel",
            "warning",
        ],
    )
    for _ in range(100):
        if redis_answers(url):
            return proc
        time.sleep(0.1)
    sys.exit("[run] redis-server did not start")


def spawn(name: str, argv: list[str]) -> subprocess.Popen[bytes]:
    print(f"[run] starting {name}: {' '.join(argv)}", flush=True)
    # Its own process group: we decide when it stops, not the terminal's Ctrl-C.
    return subprocess.Popen(argv, cwd=ROOT, start_new_session=True)


def stop(children: list[subprocess.Popen[bytes]]) -> None:
    for child in children:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    for child in children:
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()


def main() -> int:
    children: list[subprocess.Popen[bytes]] = []
    redis_proc = start_redis(REDIS_URL)
    if redis_proc is not None:
        children.append(redis_proc)
    celery = [str(BIN / "celery"), "-A", "config", "worker", "--loglevel", "INFO"]
    children.append(
        spawn(
            "worker-cpu",
            [
                *celery,
                "-Q",
                "cpu",
                "-n",
                "cpu@%h",
                "--concurrency",
                os.environ.get("ONSITE_CPU_WORKERS", "2"),
                "-B",
                "--schedule",
                str(VAR / "celerybeat-schedule"),
            ],
        )
    )
    children.append(
        spawn("worker-gpu", [*celery, "-Q", "gpu", "-n", "gpu@%h", "--concurrency", "1"])
    )
    children.append(
        spawn("web", [str(BIN / "daphne"), "-b", HOST, "-p", str(PORT), "config.asgi:application"])
    )
    stopping = False

    def on_signal(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    time.sleep(1.0)
    print(f"\n[run] Onsite is up: http://{HOST}:{PORT}/  (Ctrl-C stops everything)\n", flush=True)
    code = 0
    while not stopping:
        for child in children:
            if child.poll() is not None:
                print(
                    f"[run] a process exited ({child.args[0]}, code {child.returncode}); stopping",
                    flush=True,
                )
                stopping, code = True, 1
                break
        time.sleep(0.5)
    print("[run] stopping…", flush=True)
    stop(children)
    return code


if __name__ == "__main__":
    sys.exit(main())
