"""`make run`'s last step, platform/run.py: starts Redis (when none answers), the workers and
the ASGI server, prints the URL, restarts a child that exits (Redis with its data), and stops
every process it started on Ctrl-C."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import types
import urllib.request
from pathlib import Path
from typing import Any, cast

import pytest
import redis

from tests.processes import ROOT
from tests.services import free_port

pytestmark = pytest.mark.slow


def descendants(pid: int) -> set[int]:
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True).stdout
    children: dict[int, list[int]] = {}
    for line in out.splitlines():
        child, parent = map(int, line.split())
        children.setdefault(parent, []).append(child)
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"


def redis_server_pid(parent: int) -> int:
    for pid in descendants(parent):
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"redis-server"):
                return pid
    raise AssertionError("no redis-server under run.py")


def test_restarts_back_off_and_a_stable_child_starts_again_from_the_base() -> None:
    run = load_run_module()
    child = run.Child("redis", ["redis-server"], started_at=0.0)
    assert [run.restart_delay(child, 1.0) for _ in range(8)] == [
        0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0
    ]  # fmt: skip
    child.started_at = 100.0
    assert run.restart_delay(child, 100.0 + run.STABLE_SECONDS) == 0.5


def load_run_module() -> Any:
    spec = importlib.util.spec_from_file_location("onsite_run", ROOT / "platform" / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["onsite_run"] = module  # dataclasses looks the module up by name
    spec.loader.exec_module(module)
    return module


def test_the_web_waits_for_every_foreground_worker_warm_the_gpu_one_too() -> None:
    """A first Run of a PyTorch problem after a fresh start must not pay the gpu worker's warm-up
    (torch imported, a container of each shape ready): the web starts once every foreground
    worker, the gpu kind's included, has a process that reported itself warm."""
    run = load_run_module()
    assert {"worker-cpu", "worker-cpu-interactive", "worker-gpu"} <= set(run.FOREGROUND_WORKERS)
    # A database of the suite's Redis that no other test writes pool reports to.
    url = os.environ["REDIS_URL"].rsplit("/", 1)[0] + "/11"
    client = redis.Redis.from_url(url, socket_timeout=2)
    key = f"onsite:pool:{os.getpid()}"  # this process stands in for a worker's pool process
    worker = run.Child("worker-gpu", ["celery"])
    worker.proc = cast(Any, types.SimpleNamespace(pid=os.getppid()))  # ...and its parent
    try:
        assert not run.foreground_ready(url, [worker])  # not reported yet
        client.set(key, json.dumps({"queues": ["gpu.interactive"], "warm": False}))
        assert not run.foreground_ready(url, [worker])  # reported, still warming
        client.set(key, json.dumps({"queues": ["gpu.interactive"], "warm": True}))
        assert run.foreground_ready(url, [worker])
        client.set(key, json.dumps({"queues": ["gpu.interactive"]}))  # a report before the flag
        assert run.foreground_ready(url, [worker])
    finally:
        client.delete(key)


@pytest.mark.slow
def test_run_prints_the_url_serves_and_ctrl_c_stops_everything(tmp_path: Path) -> None:
    port, redis_port = free_port(), free_port()
    env = dict(
        os.environ,
        ONSITE_VAR_DIR=str(tmp_path),
        ONSITE_PORT=str(port),
        REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
        DATABASE_URL=f"sqlite:///{tmp_path}/db.sqlite3",
        ONSITE_SANDBOX_POOL_SIZE="0",
        ONSITE_CPU_WORKERS="1",
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True
    )
    log = (tmp_path / "run.log").open("w+")
    proc = subprocess.Popen(
        [sys.executable, "platform/run.py"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 240  # five workers boot on two cores before the web
        while time.monotonic() < deadline and "Onsite is up" not in Path(log.name).read_text():
            time.sleep(0.3)
        assert f"http://127.0.0.1:{port}/" in Path(log.name).read_text()
        # The URL comes once the cpu worker can take a Run (it reported its slot).
        reported = redis.Redis(port=redis_port, socket_timeout=2).keys("onsite:pool:*")
        assert reported, Path(log.name).read_text()[-2000:]
        deadline = time.monotonic() + 60
        status = None
        while time.monotonic() < deadline and status != 200:
            try:
                status = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).status
            except OSError:
                time.sleep(0.5)
        assert status == 200
        started = descendants(proc.pid)
        assert len(started) >= 4  # redis, two workers (with their pool children), daphne
        # A Redis crash: restarted with the same data directory and append-only file.
        client = redis.Redis(port=redis_port, socket_timeout=2)
        client.set("onsite-run-test", "kept")
        redis_pid = redis_server_pid(proc.pid)
        os.kill(redis_pid, signal.SIGKILL)  # the redis-server our run.py started
        deadline = time.monotonic() + 30
        value = None
        while time.monotonic() < deadline and value is None:
            try:
                value = client.get("onsite-run-test")
            except redis.RedisError:
                time.sleep(0.2)
        text = Path(log.name).read_text()
        assert value == b"kept", text[-2000:]
        assert "redis exited (code -9); restarting it in 0.5 s" in text
        assert "redis restarted with the same data directory and AOF" in text
        assert redis_server_pid(proc.pid) != redis_pid
        started = descendants(proc.pid)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    time.sleep(0.5)
    assert [pid for pid in started if alive(pid)] == []
    assert "stopping" in Path(log.name).read_text()
