"""`make run`'s last step, platform/run.py: starts Redis (when none answers), the workers and
the ASGI server, prints the URL, and stops every process it started on Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

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
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "Onsite is up" not in Path(log.name).read_text():
            time.sleep(0.3)
        assert f"http://127.0.0.1:{port}/" in Path(log.name).read_text()
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
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    time.sleep(0.5)
    assert [pid for pid in started if alive(pid)] == []
    assert "stopping" in Path(log.name).read_text()
