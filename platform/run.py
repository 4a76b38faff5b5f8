"""Start the platform's processes and keep them together; Ctrl-C stops every one of them.

Run by `make run` after the build steps. Starts Redis when none answers at REDIS_URL (on this
machine only), then the Celery workers by lane (grading/lanes.py: for each queue kind, one
worker for the interactive and submit lanes and one for the background lane; an io worker
with the beat for webhooks, e-mail and the sweeps) and the ASGI server, and prints the URL.
It supervises them: a child that exits is started again with backoff (Redis with the same
data directory and append-only file), and the log says so; Ctrl-C (or SIGTERM) stops every
one of them.

CPU priorities (one host), set here at start-up: the web server and Redis run above the
default priority (nice WEB_NICE, where this process may raise a priority: root or
CAP_SYS_NICE; else at the default, and the log says so), so a keystroke outranks anything
else on the host at the default priority; the workers are niced (background ones more), and
the sandboxes are created under their own cgroup with a low CPU weight, so a page, a
keystroke and a Run outrank batch work for the CPU.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from grading.lanes import FOREGROUND, IO_QUEUE, LANE_ORDER, Lane, worker_queues  # noqa: E402

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


@dataclass
class Child:
    """One supervised process: restarted with backoff whenever it exits (until we stop)."""

    name: str
    argv: list[str]
    nice: int = 0
    env: dict[str, str] | None = None
    proc: subprocess.Popen[bytes] | None = None
    restarts: int = 0
    started_at: float = 0.0
    restart_at: float | None = None

    def start(self) -> None:
        self.proc = spawn(self.name, self.argv, nice=self.nice, env=self.env)
        self.started_at = time.monotonic()
        self.restart_at = None

    def exited(self) -> int | None:
        return None if self.proc is None else self.proc.poll()


# Backoff between restarts of one child: 0.5 s, 1 s, 2 s… capped; a child that stayed up for
# STABLE_SECONDS starts again from the base (a crash loop backs off, a rare crash does not).
RESTART_BASE_SECONDS = 0.5
RESTART_MAX_SECONDS = 30.0
STABLE_SECONDS = 60.0


def restart_delay(child: Child, now: float) -> float:
    if now - child.started_at >= STABLE_SECONDS:
        child.restarts = 0
    delay = min(RESTART_MAX_SECONDS, RESTART_BASE_SECONDS * 2**child.restarts)
    child.restarts += 1
    return delay


def supervise_once(children: list[Child], now: float) -> None:
    """Schedule a restart for each child that exited; restart those whose delay is over."""
    for child in children:
        code = child.exited()
        if code is not None and child.restart_at is None:
            delay = restart_delay(child, now)
            child.restart_at = now + delay
            print(
                f"[run] {child.name} exited (code {code}); restarting it in {delay:g} s "
                f"(restart {child.restarts})",
                flush=True,
            )
        if child.restart_at is not None and now >= child.restart_at:
            child.start()
            if child.name == "redis":
                print("[run] redis restarted with the same data directory and AOF", flush=True)


def redis_argv(url: str) -> list[str] | None:
    """The argv of a Redis of our own when none answers at a local REDIS_URL; None when one
    answers (then it is someone else's to run, and not supervised here)."""
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
    return [
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
    ]


def wait_for_redis(url: str, child: Child) -> None:
    for _ in range(100):
        if redis_answers(url):
            return
        if child.exited() is not None:
            break
        time.sleep(0.1)
    sys.exit("[run] redis-server did not start")


def spawn(
    name: str, argv: list[str], *, nice: int = 0, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    print(f"[run] starting {name}: {' '.join(argv)}", flush=True)

    def set_priority() -> None:
        if nice:
            # A raised priority (negative) needs root or CAP_SYS_NICE: without it the child
            # keeps the default, which is still above every worker's.
            with contextlib.suppress(PermissionError):
                os.nice(nice)

    # Its own process group: we decide when it stops, not the terminal's Ctrl-C.
    proc = subprocess.Popen(
        argv,
        cwd=ROOT,
        start_new_session=True,
        preexec_fn=set_priority,
        env={**os.environ, **(env or {})},
    )
    got = child_nice(proc.pid)
    if got is not None and got != os.nice(0) + nice:
        print(f"[run] {name} runs at nice {got}, not {nice} (raising a priority needs root or "
              "CAP_SYS_NICE)", flush=True)
    return proc


def child_nice(pid: int) -> int | None:
    """The nice value of a running process (field 19 of /proc/<pid>/stat), or None."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])
    except (OSError, IndexError, ValueError):
        return None


# Nice values: the web server and Redis above the default (a keystroke goes through both),
# the workers below it; and the CPU weights of the sandboxes inside their cgroup (whose own
# weight is a quarter of one default process). Nice -10 weighs 9.3 default processes,
# nice 5 a third of one, 10 a tenth, 15 a thirtieth.
WEB_NICE = REDIS_NICE = -10
FOREGROUND_NICE, BACKGROUND_NICE, IO_NICE = 5, 15, 10
SANDBOX_CGROUP = "onsite-sandboxes"
SANDBOX_CGROUP_SHARES = 256  # cgroup v1 cpu.shares; the default of every process is 1024
INTERACTIVE_SHARES, FOREGROUND_SHARES, BACKGROUND_SHARES = 1024, 512, 64  # within that cgroup


def sandbox_cgroup() -> str | None:
    """Create the sandboxes' parent cgroup with a low CPU weight where this host lets us (root,
    cgroup v1 cpu controller or cgroup v2 with cpu enabled); its path for Docker, or None."""
    v1 = Path("/sys/fs/cgroup/cpu")
    v2 = Path("/sys/fs/cgroup")
    try:
        if (v1 / "cpu.shares").exists():
            group = v1 / SANDBOX_CGROUP
            group.mkdir(exist_ok=True)
            (group / "cpu.shares").write_text(str(SANDBOX_CGROUP_SHARES))
        elif "cpu" in (v2 / "cgroup.subtree_control").read_text().split():
            group = v2 / SANDBOX_CGROUP
            group.mkdir(exist_ok=True)
            (group / "cpu.weight").write_text(str(max(1, SANDBOX_CGROUP_SHARES * 100 // 1024)))
        else:
            return None
    except OSError as exc:
        print(f"[run] sandboxes keep Docker's CPU weight ({exc})", flush=True)
        return None
    return f"/{SANDBOX_CGROUP}"


# Slots reserved for the interactive lane, per kind: a Run never waits for a Submit to end.
# (gpu: none by default, its one slot serves both; one device, one grading.)
INTERACTIVE_SLOTS = {"cpu": "1", "gpu": "0"}


def worker_children(celery: list[str], cgroup: str | None) -> list[Child]:
    """For each queue kind: ONSITE_<KIND>_WORKERS foreground slots, of which
    ONSITE_<KIND>_INTERACTIVE_WORKERS serve the interactive lane alone (the rest take
    interactive, then submit work), and a worker for the background lane
    (ONSITE_<KIND>_BACKGROUND_WORKERS=0 folds it into the foreground one, which then takes
    the three lanes in order); and the io worker with the beat."""
    children = []

    def grading_worker(
        name: str, kind: str, lanes: tuple[Lane, ...], slots: int, nice: int, shares: int
    ) -> None:
        queues = worker_queues(kind, lanes)
        argv = [*celery, "-Q", queues, "-n", f"{name.removeprefix('worker-')}@%h", "-c", str(slots)]
        children.append(Child(name, argv, nice=nice, env=sandbox_env(cgroup, shares)))

    for kind, default_slots in (("cpu", "2"), ("gpu", "1")):
        prefix = f"ONSITE_{kind.upper()}"
        slots = max(1, int(os.environ.get(f"{prefix}_WORKERS", default_slots)))
        wanted = int(os.environ.get(f"{prefix}_INTERACTIVE_WORKERS", INTERACTIVE_SLOTS[kind]))
        reserved = max(0, min(wanted, slots - 1))  # at least one slot takes Submits
        background = int(os.environ.get(f"{prefix}_BACKGROUND_WORKERS", "1"))
        if reserved:
            grading_worker(f"worker-{kind}-interactive", kind, (Lane.INTERACTIVE,), reserved,
                           FOREGROUND_NICE, INTERACTIVE_SHARES)
        grading_worker(f"worker-{kind}", kind, FOREGROUND if background else LANE_ORDER,
                       slots - reserved, FOREGROUND_NICE, FOREGROUND_SHARES)
        if background:
            grading_worker(f"worker-{kind}-background", kind, (Lane.BACKGROUND,), background,
                           BACKGROUND_NICE, BACKGROUND_SHARES)
    children.append(
        Child(
            "worker-io",
            [*celery, "-Q", IO_QUEUE, "-n", "io@%h", "--pool", "threads", "-c", "4",
             "-B", "--schedule", str(VAR / "celerybeat-schedule")],
            nice=IO_NICE,
        )
    )
    return children


def sandbox_env(cgroup: str | None, shares: int) -> dict[str, str]:
    env = {"ONSITE_SANDBOX_CPU_SHARES": str(shares)}
    if cgroup:
        env["ONSITE_SANDBOX_CGROUP_PARENT"] = cgroup
    return env


def stop(children: list[subprocess.Popen[bytes]]) -> None:
    for child in children:
        if child.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    for child in children:
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            child.wait()


WORKERS_READY_SECONDS = 180.0


def parent_pid(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def foreground_ready(url: str, workers: list[Child]) -> bool:
    """Whether every foreground worker has a process that reported itself warm (grading/
    worker.py publishes once its pool and the offered problems' shapes, torch included, are
    ready): only then can a first Run, of any kind, start at once."""
    import redis

    parents = {child.proc.pid for child in workers if child.proc is not None}
    try:
        client = redis.Redis.from_url(url, socket_timeout=1)
        keys = [k.decode() if isinstance(k, bytes) else k for k in client.keys("onsite:pool:*")]
        values = client.mget(keys) if keys else []
    except redis.RedisError:
        return False
    reported = {parent_pid(int(key.rsplit(":", 1)[1]))
                for key, raw in zip(keys, values, strict=True)
                if raw and json.loads(raw).get("warm", True)}
    return parents <= reported


# The workers a first Run goes to: the cpu kind's foreground slots and the gpu kind's.
FOREGROUND_WORKERS = ("worker-cpu", "worker-cpu-interactive", "worker-gpu")


def wait_for_foreground(url: str, children: list[Child]) -> None:
    workers = [c for c in children if c.name in FOREGROUND_WORKERS]
    deadline = time.monotonic() + WORKERS_READY_SECONDS
    while time.monotonic() < deadline and not foreground_ready(url, workers):
        if any(c.exited() is not None for c in workers):
            return  # the supervisor restarts it; the web need not wait for that
        time.sleep(0.3)


def web_child() -> Child:
    """The ASGI server: pages, the API and every websocket (a keystroke's path)."""
    argv = [str(BIN / "daphne"), "-b", HOST, "-p", str(PORT), "config.web:application"]
    return Child("web", argv, nice=WEB_NICE)


def main() -> int:
    children: list[Child] = []
    argv = redis_argv(REDIS_URL)
    if argv is not None:
        redis_child = Child("redis", argv, nice=REDIS_NICE)
        redis_child.start()
        children.append(redis_child)
        wait_for_redis(REDIS_URL, redis_child)
    celery = [str(BIN / "celery"), "-A", "config", "worker", "--loglevel", "INFO"]
    children += worker_children(celery, sandbox_cgroup())
    for child in children:
        if child.proc is None:
            child.start()
    # The web answers once the foreground workers can take a Run: a candidate's first click
    # must not wait for a worker to boot and warm its sandboxes.
    wait_for_foreground(REDIS_URL, children)
    web = web_child()
    web.start()
    children.append(web)
    stopping = False

    def on_signal(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    time.sleep(1.0)
    print(f"\n[run] Onsite is up: http://{HOST}:{PORT}/  (Ctrl-C stops everything)\n", flush=True)
    while not stopping:
        supervise_once(children, time.monotonic())
        time.sleep(0.2)
    print("[run] stopping…", flush=True)
    stop([child.proc for child in children if child.proc is not None])
    return 0


if __name__ == "__main__":
    sys.exit(main())
