"""Contention: what a candidate waits for while the platform is busy, side by side in one run.

`python -m bench contention` (or `python -m bench.contention --runs 15 --keystrokes 300 ...`)
starts ONE fresh platform the way `make run` does: a throwaway ONSITE_VAR_DIR with its own
SQLite file, `manage.py migrate`, `loadproblems` (the whole bank, every version left pending
validation), `seeddemo`, then `platform/run.py` with its own Redis port (run.py starts that
Redis) and web port. Before the start it seeds, in the same database, a candidate (API token
and session cookie), four load users (Submits are rate-limited per user) and a live interview
session on token-bucket (candidate edits, interviewer watches). Then, in this order:

1. **First Run after the fresh start.** As soon as the web server answers HTTP, the candidate
   Runs the token-bucket reference (POST /api/submissions, mode "run") and follows it on
   /ws/submissions/<id>/ to its `done` event: click-to-verdict (target <= 5 s). The results
   record the bank's validation state at the click (pending/running counts: `loadproblems`
   leaves every version pending; the beat's sweep hands them to the background lane within
   ONSITE_SWEEP_INTERVAL_SECONDS) and how many worker processes had reported in.
2. **Idle A.** The background lane is paused (Celery's `cancel_consumer` on cpu.background and
   gpu.background, sent to the two background workers only), normally before the beat's first
   sweep has handed any validation out. Once nothing is in flight: the editor types with
   nothing else running (editor idle), --warmup Runs not counted (the workers just started),
   then N Runs one after another.
3. **Bank validating.** The background lane is resumed (`add_consumer`); once a validation
   runs on each background worker, N interleaved pairs: (a) a Run while only the bank
   validates, (b) eight token-bucket Submits enqueued at once on the submit lane, and a Run
   clicked as soon as both foreground cpu slots have taken one (it waits for the shorter of
   two whole Submits: no slot is preempted), the other Submits drained before the next pair.
   A kind whose versions are all validated is asked again (version_validation_request), so
   the whole bank stays "being validated".
4. **Editor, every sandbox slot busy.** Eight cpu Submits kept waiting, one gpu Submit (the
   continuous-batching reference) kept waiting, both background workers validating: the
   editor types until it has --keystrokes edits sent while the sampler saw every slot busy.
   Then, **with an outside CPU hog** beside it (--hogs-per-core busy processes per core at the
   default priority, started by nothing of the platform: what else runs on a shared host),
   the editor types --keystrokes more while every slot is still busy. The benchmark's own
   client (editor, watcher, sampler) stands in for browsers that are not on this host: once
   the platform has started, it raises its own priority (--client-nice, where it may), so
   that what is measured is the platform's delay, not the client's queueing behind the hog.
5. **Idle B.** The lane paused again and the load Submits stopped; a validation still in
   flight gets --drain-timeout seconds to finish, then is stopped (Celery `revoke` with
   terminate: its pool process is signalled, the message goes back to the paused queue, the
   version's lease runs out); the Submits drain. Then editor idle and N Runs. Idle is A and B
   pooled (A, loaded, B: against the drift of a shared machine); a block that cannot drain is
   skipped and says so.

What idle means, and why this choice: idle is the platform with its validation lane stopped,
not one whose bank has finished validating. Validating all 16 versions (128 gradings at
the background lane's low CPU weight) takes far longer than this benchmark's budget on 2 cores
(one version, continuous-batching, runs 20 Submit gradings of a PyTorch engine: minutes). The
loaded phases still see the real fresh-start backlog (the versions `loadproblems` left
pending), not a synthetic one. Interleaving: the validating-only and the eight-Submits Runs
alternate pair by pair (the headline's paired ratio); idle against loaded can only be A-B-A
blocks, since stopping and restarting validation takes a version's worth of work each time.

Samples: every Run's click-to-verdict with its state at the click (running/waiting runs per
lane, validations running, load average); every keystroke's send-to-watcher latency with its
window and whether the sampler (the database, every 0.25 s) saw every slot busy / nothing
running at that moment; every load Submit's grading time and longest test. Raw samples go to
bench/results/contention.json; one summary line per figure, the last line the headline ratio
(Run p95 while the bank validates and eight Submits wait / idle p95). Targets: first Run <= 5 s;
loaded Run p95 <= 1.5 x idle p95 + one test's time (the longest test of the Submit, median over
the load Submits); editor p99 with every slot busy <= 50 ms, and with the outside hog beside it
<= 150 ms; no edit lost or reordered (every edit the editor sent is stored, in the order sent,
and reaches the watcher, never before one it follows). Every process it started is
stopped at the end, on error and on Ctrl-C (process groups, then any survivor by pid), and the
sandbox containers its workers made (labelled with its own ONSITE_SANDBOX_OWNER) are removed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import logging
import os
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from bench.sessions import EDIT, Pair, Target, _handshake, _watch, free_port, percentile
from core.heap import LONG_PAUSE_MS

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "contention.json"
PY = sys.executable
RUN_PROBLEM = "token-bucket"  # the small problem: 4 public tests on Run, 21 on Submit
GPU_PROBLEM = "continuous-batching-engine"  # keeps the gpu foreground slot busy in phase 4
LOAD_USERS = 4
SAMPLE_SECONDS = 0.25
RUN_TIMEOUT_SECONDS = 120.0
# What the phases after the pairs need (editor under load, drain, idle B), kept from the budget.
PHASE_RESERVE_SECONDS = 200.0
STOP_SECONDS = 45.0  # the budget's share for stopping everything
TARGET_FIRST_RUN_S = 5.0
TARGET_EDITOR_P99_MS = 50.0  # every slot busy, the platform's own load only
TARGET_EDITOR_HOG_P99_MS = 150.0  # the same, with an outside CPU hog beside it
HOG_WINDOW = "loaded+hog"
T = TypeVar("T")


# ------------------------------------------------------------------------------ summary maths


def run_figures(latencies_ms: list[float]) -> dict[str, Any]:
    """p50/p95 (nearest rank, as bench.sessions.percentile) of one state's click-to-verdict."""
    return {
        "n": len(latencies_ms),
        "p50_ms": percentile(latencies_ms, 0.5),
        "p95_ms": percentile(latencies_ms, 0.95),
        "max_ms": max(latencies_ms) if latencies_ms else float("nan"),
    }


def editor_figures(latencies_ms: list[float], sent: int) -> dict[str, Any]:
    return {
        "sent": sent,
        "delivered": len(latencies_ms),
        "p50_ms": percentile(latencies_ms, 0.5),
        "p99_ms": percentile(latencies_ms, 0.99),
    }


def edit_integrity(sent: int, seen: int, out_of_order: int, order: dict[str, Any],
                   edit_len: int) -> dict[str, Any]:
    """No edit lost or reordered: every edit sent was stored, in the order sent, and reached
    the watcher, none of them before one it follows."""
    stored_all = order.get("stored") == sent and order.get("clock") == sent * edit_len
    ok = stored_all and bool(order.get("in_order")) and seen == sent and out_of_order == 0
    return {"sent": sent, "stored": order.get("stored"), "stored_in_order":
            order.get("in_order"), "seen_by_watcher": seen, "out_of_order_at_watcher":
            out_of_order, "met": ok}


def run_target(idle_p95_ms: float, loaded_p95_ms: float, one_test_ms: float) -> dict[str, Any]:
    """Loaded Run p95 <= 1.5 x idle p95 + one test's time."""
    limit = 1.5 * idle_p95_ms + one_test_ms
    return {"limit_ms": limit, "met": loaded_p95_ms <= limit}


def paired_ratios(pairs: list[tuple[float | None, float | None]]) -> dict[str, Any]:
    """Median and min-max of b/a over the pairs where both were measured."""
    ratios = [b / a for a, b in pairs if a and b]
    if not ratios:
        return {"n": 0, "median": float("nan"), "min": float("nan"), "max": float("nan")}
    return {"n": len(ratios), "median": statistics.median(ratios), "min": min(ratios),
            "max": max(ratios)}


def ms(value: float) -> str:
    return "n/a" if value != value else f"{value:.0f} ms"  # NaN-safe


# ------------------------------------------------------------------------------ processes


def platform_env(work: Path, web_port: int, redis_port: int, owner: str) -> dict[str, str]:
    """`make run`'s environment, pointed at throwaway places (whatever the caller had set)."""
    var = work / "var"
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    env = {k: v for k, v in os.environ.items() if k not in ("ONSITE_CACHE_URL",)}
    env.update({
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "ONSITE_VAR_DIR": str(var),
        "DATABASE_URL": f"sqlite:///{var / 'onsite.sqlite3'}",
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "ONSITE_PORT": str(web_port),
        "ONSITE_HOST": "127.0.0.1",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(40),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "ONSITE_SANDBOX_OWNER": owner,
        "PYTHONUNBUFFERED": "1",
    })
    return env


def slot_counts(env: dict[str, str]) -> dict[str, int]:
    """Grading slots per (kind, foreground/background), as platform/run.py starts them; the
    cpu slots a Submit may take are the foreground ones less those kept for the interactive
    lane (platform/run.py INTERACTIVE_SLOTS)."""
    cpu = int(env.get("ONSITE_CPU_WORKERS", "2"))
    reserved = max(0, min(int(env.get("ONSITE_CPU_INTERACTIVE_WORKERS", "1")), cpu - 1))
    return {
        "cpu.fg": cpu,
        "cpu.submit": cpu - reserved,
        "gpu.fg": int(env.get("ONSITE_GPU_WORKERS", "1")),
        "cpu.bg": int(env.get("ONSITE_CPU_BACKGROUND_WORKERS", "1")),
        "gpu.bg": int(env.get("ONSITE_GPU_BACKGROUND_WORKERS", "1")),
    }


def manage(env: dict[str, str], log: Path, *args: str) -> float:
    started = time.monotonic()
    with log.open("ab") as out:
        subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=env, stdout=out,
                       stderr=subprocess.STDOUT, check=True)
    return time.monotonic() - started


def _stat(pid: int) -> tuple[int, int] | None:
    """(process group, start time) of a live process, or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] == "Z":
        return None
    return int(fields[2]), int(fields[19])


def descendants(pid: int) -> dict[int, int]:
    """Every process below `pid` now, with its start time (to never kill a reused pid)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    found: dict[int, int] = {}
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            stat = _stat(child)
            if stat is not None:
                found[child] = stat[1]
            todo.append(child)
    return found


def stop_platform(proc: subprocess.Popen[bytes], owner: str) -> None:
    """SIGTERM run.py (it stops its children, 15 s grace); then SIGKILL whatever it started that
    is still alive (each child is a process group of its own), and remove our containers."""
    seen = descendants(proc.pid)
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + 30
    while proc.poll() is None and time.monotonic() < deadline:
        seen.update(descendants(proc.pid))
        time.sleep(0.2)
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    for pid, started in seen.items():
        stat = _stat(pid)
        if stat is not None and stat[1] == started:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    remove_containers(owner)


def remove_containers(owner: str) -> int:
    try:
        import docker

        client = docker.from_env()
    except Exception:  # no engine: nothing of ours can be left
        return 0
    removed = 0
    try:
        for container in client.containers.list(all=True,
                                                filters={"label": f"onsite.owner={owner}"}):
            with contextlib.suppress(Exception):
                container.remove(force=True)
                removed += 1
    finally:
        client.close()
    return removed


# ------------------------------------------------------------------------------ seeding


@dataclass
class Seeded:
    candidate_token: str
    candidate_cookie: str
    interviewer_cookie: str
    session_id: int
    load_tokens: list[str]
    run_code: str
    submit_code: str
    gpu_code: str


# Back to the default priority when this benchmark itself runs niced (where it may), then spin.
HOG = ("import contextlib, os\nwith contextlib.suppress(OSError):\n"
       "    os.setpriority(os.PRIO_PROCESS, 0, 0)\nwhile True:\n    pass\n")


def start_hogs(per_core: int) -> list[subprocess.Popen[bytes]]:
    """`per_core` busy processes per CPU at the default priority (nice 0, whatever ours is):
    an outside load the platform did not start and cannot lower."""
    count = per_core * (os.cpu_count() or 1)
    hogs = []
    for _ in range(count):
        hogs.append(subprocess.Popen(
            [PY, "-c", HOG],
            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    return hogs


def stop_hogs(hogs: list[subprocess.Popen[bytes]]) -> None:
    for hog in hogs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(hog.pid, signal.SIGKILL)
    for hog in hogs:
        hog.wait()


def edit_order(session_id: int, client: int, edit_len: int) -> dict[str, Any]:
    """What the database holds of the editor's edits, in sequence order: how many, whether
    each starts where the one before it ended (none lost, none reordered), and the clock
    reached."""
    from bench.sessions import update_start
    from interviews.services import doc_updates

    starts = [start[1] for _, data in doc_updates(session_id)
              if (start := update_start(data)) is not None and start[0] == client]
    in_order = all(b == a + edit_len for a, b in itertools.pairwise(starts))
    return {"stored": len(starts), "in_order": in_order and (not starts or starts[0] == 0),
            "clock": starts[-1] + edit_len if starts else 0}


def seed() -> Seeded:
    """Bench users in the migrated, loaded database (this process, Django set up on it)."""
    from datetime import timedelta

    from django.contrib.auth.models import Group, User
    from django.test import Client

    from core.roles import CANDIDATE, INTERVIEWER
    from core.tokens import token_create
    from interviews import services
    from problems.models import Problem

    def user(name: str, role: str) -> User:
        created = User.objects.create_user(name, password=secrets.token_hex(8))
        created.groups.add(Group.objects.get_or_create(name=role)[0])
        return created

    def cookie_for(who: User) -> str:  # as bench.sessions._seed does
        client = Client()
        client.force_login(who)
        return f"sessionid={client.cookies['sessionid'].value}"

    candidate = user("bench-candidate", CANDIDATE)
    interviewer = user("bench-interviewer", INTERVIEWER)
    session = services.session_schedule_live(interviewer=interviewer, problem_slug=RUN_PROBLEM,
                                             duration=timedelta(hours=2), candidate=candidate)
    assert session.invite_token is not None
    services.session_join(token=session.invite_token, user=candidate)
    load = [token_create(user=user(f"bench-load-{n}", CANDIDATE), name="bench")[1]
            for n in range(LOAD_USERS)]

    def reference(slug: str) -> str:
        version = Problem.objects.get(slug=slug).live_version
        assert version is not None
        return version.reference_code

    return Seeded(
        candidate_token=token_create(user=candidate, name="bench")[1],
        candidate_cookie=cookie_for(candidate),
        interviewer_cookie=cookie_for(interviewer),
        session_id=session.pk,
        load_tokens=load,
        run_code=reference(RUN_PROBLEM),
        submit_code=reference(RUN_PROBLEM),
        gpu_code=reference(GPU_PROBLEM),
    )


# ------------------------------------------------------------------------------ state (database)


def snapshot() -> dict[str, Any]:
    """Runs running and waiting per queue (kind.lane), validations running per kind, pending."""
    from django.utils import timezone

    from grading.models import Submission
    from problems.models import ProblemVersion

    waiting = (Submission.Status.QUEUED, Submission.Status.RETRYING)
    rows = Submission.objects.filter(status__in=(Submission.Status.RUNNING, *waiting))
    running: Counter[str] = Counter()
    queued: Counter[str] = Counter()
    for status, kind, lane in rows.values_list("status", "problem__queue", "lane"):
        (running if status == Submission.Status.RUNNING else queued)[f"{kind}.{lane}"] += 1
    versions = ProblemVersion.objects.filter(
        validation__in=(ProblemVersion.Validation.RUNNING, ProblemVersion.Validation.PENDING))
    validating: Counter[str] = Counter()
    pending: Counter[str] = Counter()
    now = timezone.now()
    for state, kind, lease in versions.values_list("validation", "problem__queue",
                                                   "lease_until"):
        if state == ProblemVersion.Validation.PENDING:
            pending[kind] += 1
        elif lease is None or lease >= now:  # a live holder renews its lease every 5 s
            validating[kind] += 1
        # else: a validation we stopped (its lease ran out); the sweep hands it out again
    return {"running": dict(running), "waiting": dict(queued), "validating": dict(validating),
            "pending": dict(pending)}


def busy(snap: dict[str, Any]) -> dict[str, int]:
    running = snap["running"]
    return {
        "cpu.fg": running.get("cpu.interactive", 0) + running.get("cpu.submit", 0),
        "gpu.fg": running.get("gpu.interactive", 0) + running.get("gpu.submit", 0),
        "cpu.bg": snap["validating"].get("cpu", 0) + running.get("cpu.background", 0),
        "gpu.bg": snap["validating"].get("gpu", 0) + running.get("gpu.background", 0),
    }


def all_busy(snap: dict[str, Any], slots: dict[str, int]) -> bool:
    used = busy(snap)
    return all(count >= slots[name] for name, count in used.items())


def nothing_running(snap: dict[str, Any]) -> bool:
    return not (snap["running"] or snap["waiting"] or snap["validating"])


def validation_states() -> dict[str, int]:
    from problems.models import ProblemVersion

    return dict(Counter(ProblemVersion.objects.values_list("validation", flat=True)))


def request_validation(kind: str) -> int:
    """Ask for a validation of every live version of `kind` (the studio's button)."""
    from problems.models import Problem
    from studio.services.validations import version_validation_request

    count = 0
    for problem in Problem.objects.filter(queue=kind, live_version__isnull=False):
        assert problem.live_version is not None
        count += version_validation_request(version=problem.live_version)
    return count


def submit_costs(ids: list[int]) -> list[dict[str, Any]]:
    """Each load Submit's grading time (claimed to finished) and its longest test."""
    from django.db.models import Max

    from grading.models import Submission

    out = []
    for sub in Submission.objects.filter(pk__in=ids).annotate(longest=Max("results__time_ms")):
        grading = (sub.finished_at - sub.started_at).total_seconds() * 1000 if (
            sub.finished_at and sub.started_at) else None
        out.append({"id": sub.pk, "problem": sub.problem.slug, "status": sub.status,
                    "verdict": sub.verdict, "grading_ms": grading,
                    "longest_test_ms": sub.longest, "total": sub.total})
    return out


def first_estimate(sid: int) -> dict[str, float] | None:
    """The wait the candidate is first told (grading/queueing.py), read right after the POST:
    the figure and the range (the same figure twice when none is shown); None once it has
    already started."""
    from grading import queueing
    from grading.models import Submission

    try:
        position = queueing.queue_position(Submission.objects.get(pk=sid))
    except Submission.DoesNotExist:
        return None
    if position is None:
        return None
    low, high = position.as_event().get("wait_range", [position.wait_seconds] * 2)
    return {"mid": position.wait_seconds, "low": float(low), "high": float(high)}


ESTIMATE_FLOOR_S = 0.1  # a wait under this counts as this (a ratio to zero means nothing)


def estimate_figures(estimates: dict[int, dict[str, float] | None]) -> dict[str, Any]:
    """The first estimate against the actual wait (created to claimed), for every submission
    told or made to wait at least a second: the median of estimate / actual (target
    0.67-1.5), and how many waited within the range shown."""
    from grading.models import Submission

    pairs: list[dict[str, Any]] = []
    ratios: list[float] = []
    for sub in Submission.objects.filter(pk__in=[k for k, v in estimates.items() if v]):
        told = estimates[sub.pk]
        if told is None or not sub.started_at:
            continue
        waited = (sub.started_at - sub.created_at).total_seconds()
        if max(told["mid"], waited) < 1.0:
            continue
        ratio = max(told["mid"], ESTIMATE_FLOOR_S) / max(waited, ESTIMATE_FLOOR_S)
        ratios.append(round(ratio, 3))
        pairs.append({"id": sub.pk, "mode": sub.mode, "estimate_s": round(told["mid"], 2),
                      "range_s": [round(told["low"], 2), round(told["high"], 2)],
                      "waited_s": round(waited, 2), "ratio": ratios[-1],
                      "in_range": told["low"] * 0.9 <= waited <= told["high"] * 1.1})
    median = statistics.median(ratios) if ratios else float("nan")
    return {"n": len(pairs), "median_ratio": median,
            "min_ratio": min(ratios, default=float("nan")),
            "max_ratio": max(ratios, default=float("nan")),
            "in_range": sum(1 for p in pairs if p["in_range"]),
            "met": 0.67 <= median <= 1.5 if ratios else None, "pairs": pairs}


def run_split(ids: list[int]) -> dict[int, dict[str, Any]]:
    """Per Run: time waiting for a slot (created to claimed) and grading (claimed to done)."""
    from grading.models import Submission

    out = {}
    for sub in Submission.objects.filter(pk__in=ids):
        def span(a: Any, b: Any) -> float | None:
            return (b - a).total_seconds() * 1000 if a and b else None

        out[sub.pk] = {"wait_ms": span(sub.created_at, sub.started_at),
                       "grading_ms": span(sub.started_at, sub.finished_at)}
    return out


# ------------------------------------------------------------------------------ the bench


@dataclass
class Bench:
    env: dict[str, str]
    seeded: Seeded
    web_port: int
    slots: dict[str, int]
    started: float  # perf_counter at the platform's start
    deadline: float  # perf_counter after which no more samples are taken
    rate: float
    snap: dict[str, Any] = field(default_factory=dict)
    timeline: list[list[Any]] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)
    submits: list[int] = field(default_factory=list)
    keystrokes: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    window: str = "off"  # the editor types while this is not "off"
    pair: Pair = field(default_factory=Pair)
    background: list[str] = field(default_factory=list)  # background workers' names
    load_turn: int = 0
    truncated: bool = False
    estimates: dict[int, dict[str, float] | None] = field(default_factory=dict)  # id -> first
    hogs_per_core: int = 2
    order: dict[str, Any] = field(default_factory=dict)  # the stored edits (edit_order)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    @property
    def origin(self) -> str:
        return self.base

    def now(self) -> float:
        return time.perf_counter() - self.started

    def remaining(self) -> float:
        return self.deadline - time.perf_counter()

    def over_budget(self, reserve: float = 0.0) -> bool:
        """Past the deadline less `reserve` (the seconds the phases after this one need)."""
        if self.remaining() < reserve:
            self.truncated = True
            return True
        return False

    def note(self, what: str, **extra: Any) -> None:
        event = {"t": round(self.now(), 3), "what": what, "load_avg": os.getloadavg()[0], **extra}
        self.events.append(event)
        print(f"[contention] {event['t']:7.1f} s  {what} "
              + " ".join(f"{k}={v}" for k, v in extra.items()), flush=True)

    # -------------------------------------------------------------- helpers

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(fn, *args)

    async def sampler(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            snap = await self.db(snapshot)
            self.snap = snap
            used = busy(snap)
            self.timeline.append([round(self.now(), 2), used, snap["waiting"],
                                  sum(snap["pending"].values())])
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), SAMPLE_SECONDS)

    async def fresh(self) -> dict[str, Any]:
        snap = await self.db(snapshot)
        self.snap = snap
        return snap

    def _post(self, token: str, problem: str, code: str, mode: str) -> int:
        import requests

        response = requests.post(f"{self.base}/api/submissions",
                                 json={"problem": problem, "code": code, "mode": mode},
                                 headers={"Authorization": f"Token {token}"}, timeout=30)
        if response.status_code != 201:
            raise RuntimeError(f"POST /api/submissions: {response.status_code} {response.text}")
        sid = int(response.json()["id"])
        self.estimates[sid] = first_estimate(sid)
        return sid

    async def submit(self, count: int, *, gpu: bool = False, mode: str = "submit") -> list[int]:
        """`count` Submits (or load Runs) at once from the load users (rate limits are per
        user)."""
        problem, code = (GPU_PROBLEM, self.seeded.gpu_code) if gpu else (
            RUN_PROBLEM, self.seeded.submit_code)
        tokens = []
        for _ in range(count):
            tokens.append(self.seeded.load_tokens[self.load_turn % LOAD_USERS])
            self.load_turn += 1
        ids = await asyncio.gather(*(asyncio.to_thread(self._post, t, problem, code, mode)
                                     for t in tokens))
        self.submits += ids
        return list(ids)

    async def click_run(self, state: str, problem: str = RUN_PROBLEM, code: str | None = None,
                        **extra: Any) -> dict[str, Any]:
        """The candidate's Run (of `problem`'s `code`, the token-bucket reference by default):
        POST, then the submission's websocket until `done`."""
        from websockets.asyncio.client import connect

        snap = await self.fresh()
        sample: dict[str, Any] = {"state": state, "problem": problem, "t": round(self.now(), 3),
                                  "load_avg": os.getloadavg()[0], "busy": busy(snap) if snap
                                  else {}, "waiting": snap.get("waiting", {}) if snap else {},
                                  "validations_pending": sum(snap.get("pending", {}).values())
                                  if snap else None, **extra}
        clicked = time.perf_counter()
        try:
            sid = await asyncio.to_thread(self._post, self.seeded.candidate_token, problem,
                                          self.seeded.run_code if code is None else code, "run")
            sample["id"] = sid
            sample["post_ms"] = (time.perf_counter() - clicked) * 1000
            url = f"ws://127.0.0.1:{self.web_port}/ws/submissions/{sid}/"
            headers = {"Cookie": self.seeded.candidate_cookie, "Origin": self.origin}
            async with asyncio.timeout(RUN_TIMEOUT_SECONDS), connect(
                    url, additional_headers=headers) as ws:
                async for frame in ws:
                    event = json.loads(frame)
                    if event.get("type") == "done":
                        sample["verdict"] = event.get("verdict")
                        break
            sample["latency_ms"] = (time.perf_counter() - clicked) * 1000
        except Exception as exc:  # recorded, not fatal: one lost Run is a sample too
            sample["error"] = f"{type(exc).__name__}: {exc}"[:300]
            sample["latency_ms"] = None
        self.runs.append(sample)
        return sample

    async def wait_for(self, what: str, check: Callable[[dict[str, Any]], bool],
                       timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check(await self.fresh()):
                return True
            await asyncio.sleep(SAMPLE_SECONDS)
        self.note(f"gave up waiting: {what}", timeout_s=timeout)
        return False

    # -------------------------------------------------------------- the background lane

    def _control(self) -> Any:
        from config.celery import app

        return app.control

    def _find_background(self, timeout: float) -> list[str]:
        wanted = [kind for kind in ("cpu", "gpu") if self.slots[f"{kind}.bg"]]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            names = [name for reply in self._control().ping(timeout=1.0) for name in reply]
            found = [n for n in names if n.split("@")[0] in {f"{k}-background" for k in wanted}]
            if len(found) == len(wanted):
                return found
        raise RuntimeError(f"the background workers did not answer within {timeout} s")

    def _lane(self, resume: bool) -> None:
        control = self._control()
        for name in self.background:
            queue = f"{name.split('-')[0]}.background"
            if resume:
                control.add_consumer(queue, destination=[name], reply=True, timeout=5)
            else:
                control.cancel_consumer(queue, destination=[name], reply=True, timeout=5)

    def _stop_in_flight(self) -> list[str]:
        """Stop the validations the (paused) background workers still run: their pool process
        is signalled, the message goes back to the queue, the version's lease runs out."""
        control = self._control()
        active = control.inspect(destination=self.background, timeout=2.0).active() or {}
        ids = [task["id"] for tasks in active.values() for task in tasks]
        for task_id in ids:
            control.revoke(task_id, terminate=True, signal="SIGTERM")
        return ids

    async def lane(self, *, resume: bool) -> None:
        if not self.background:
            self.background = await asyncio.to_thread(self._find_background, 90.0)
        await asyncio.to_thread(self._lane, resume)
        self.note("background lane " + ("resumed" if resume else "paused"),
                  workers=",".join(self.background))

    async def keep_validating(self) -> None:
        """The whole bank stays being validated: a kind with nothing pending or running is
        asked again."""
        snap = await self.fresh()
        for kind in ("cpu", "gpu"):
            if self.slots[f"{kind}.bg"] and not (snap["pending"].get(kind)
                                                 or snap["validating"].get(kind)):
                asked = await self.db(request_validation, kind)
                self.note("validation asked again", kind=kind, versions=asked)

    # -------------------------------------------------------------- the editor

    async def editor(self, stop: asyncio.Event) -> None:
        """The candidate types EDIT `rate` times a second while a window is open; each send
        is labelled with the window and the sampler's view of the slots at that moment."""
        import pycrdt
        from websockets.asyncio.client import connect

        from interviews import collab

        url = f"ws://127.0.0.1:{self.web_port}/ws/sessions/{self.seeded.session_id}/doc/"
        doc: pycrdt.Doc[Any] = pycrdt.Doc()
        text = doc.get(collab.TEXT_NAME, type=pycrdt.Text)
        self.pair.editor_client = doc.client_id
        headers = {"Cookie": self.seeded.candidate_cookie, "Origin": self.origin}
        async with connect(url, additional_headers=headers, max_size=None) as ws:
            await _handshake(ws, doc)

            async def acks() -> None:
                async for frame in ws:
                    if isinstance(frame, str) and json.loads(frame).get("type") == "ack":
                        self.pair.acked_at.append(time.perf_counter())

            reader = asyncio.create_task(acks())
            next_at = time.perf_counter()
            while not stop.is_set():
                if self.window == "off":
                    await asyncio.sleep(0.05)
                    next_at = time.perf_counter()
                    continue
                before = doc.get_state()
                text += EDIT
                update = doc.get_update(before)
                snap = self.snap
                self.keystrokes.append({
                    "t": round(self.now(), 3), "wall": round(time.time(), 3), "window": self.window,
                    "all_busy": bool(snap) and all_busy(snap, self.slots),
                    "nothing_running": bool(snap) and nothing_running(snap),
                })
                self.pair.sent_at.append(time.perf_counter())
                await ws.send(collab.update_frame(update))
                next_at += 1 / self.rate
                await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
            reader.cancel()

    def counted(self, window: str, *, loaded: bool) -> int:
        key = "all_busy" if loaded else "nothing_running"
        return sum(1 for k in self.keystrokes if k["window"] == window and k[key])

    async def type_window(self, window: str, keystrokes: int, *, loaded: bool,
                          reserve: float = 0.0) -> None:
        """Type until `keystrokes` sends of this window met its condition (bounded)."""
        self.window = window
        deadline = time.monotonic() + 3 * keystrokes / self.rate + 30
        try:
            while self.counted(window, loaded=loaded) < keystrokes:
                if time.monotonic() > deadline or self.over_budget(reserve):
                    self.note("editor window cut short", window=window,
                              counted=self.counted(window, loaded=loaded))
                    break
                await asyncio.sleep(0.2)
        finally:
            self.window = "off"
        await asyncio.sleep(1.0)  # the last edits reach the watcher outside any window

    # -------------------------------------------------------------- phases

    async def drain(self, grace: float) -> bool:
        """Nothing in flight: validations get `grace` seconds to finish, then are stopped;
        Runs and Submits always finish (bounded). Then a few seconds for the workers to settle
        (a stopped validation's pool process is replaced and warms its containers)."""
        finished = await self.wait_for("validations in flight to finish",
                                       lambda s: not s["validating"], grace)
        if not finished:
            stopped = await asyncio.to_thread(self._stop_in_flight)
            self.note("stopped the validations in flight", tasks=len(stopped))
            await self.wait_for("stopped validations' leases to run out",
                                lambda s: not s["validating"], 60)
        drained = await self.wait_for("nothing in flight", nothing_running,
                                      max(30.0, min(180.0, self.remaining() - 60)))
        await asyncio.sleep(3.0)
        return drained and nothing_running(await self.fresh())

    async def idle_block(self, name: str, runs: int, keystrokes: int, grace: float,
                         warmup: int = 0) -> bool:
        drained = await self.drain(grace)
        self.note(f"{name}: " + ("drained" if drained else "NOT drained: skipped"))
        if not drained:
            return False
        await self.type_window(name, keystrokes, loaded=False)
        for _ in range(warmup):
            await self.click_run("warmup", block=name)
        for _ in range(runs):
            if self.over_budget():
                break
            await self.click_run("idle", block=name)
        return True

    async def validating_pairs(self, runs: int) -> None:
        for number in range(runs):
            if self.over_budget(reserve=PHASE_RESERVE_SECONDS):
                self.note("pairs cut short", done=number)
                break
            await self.keep_validating()
            if not await self.wait_for("submits drained",
                                       lambda s: not any(k.endswith(".submit") for k in
                                                         (*s["running"], *s["waiting"])), 90):
                continue
            await self.click_run("validating", pair=number)
            await self.submit(8)
            await self.wait_for("every submit slot on a Submit",
                                lambda s: s["running"].get("cpu.submit", 0)
                                >= self.slots["cpu.submit"], 30)
            await self.click_run("loaded", pair=number)

    async def keep_slots_busy(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            snap = await self.fresh()
            want_cpu = 8 - snap["waiting"].get("cpu.submit", 0)
            want_gpu = (1 if self.slots["gpu.fg"] else 0) - snap["waiting"].get("gpu.submit", 0)
            # The slots kept for the interactive lane take no Submit: other people's Runs
            # keep them busy.
            reserved = self.slots["cpu.fg"] - self.slots["cpu.submit"]
            want_runs = 2 * reserved - snap["waiting"].get("cpu.interactive", 0)
            if want_cpu > 0:
                await self.submit(want_cpu)
            if want_runs > 0:
                await self.submit(want_runs, mode="run")
            if want_gpu > 0:
                await self.submit(want_gpu, gpu=True)
            await self.keep_validating()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.5)

    async def loaded_editor(self, keystrokes: int) -> None:
        stop = asyncio.Event()
        feeder = asyncio.create_task(self.keep_slots_busy(stop))
        try:
            if await self.wait_for("every slot busy",
                                   lambda s: all_busy(s, self.slots), 120):
                self.note("every slot busy", busy=busy(self.snap))
            await self.type_window("loaded", keystrokes, loaded=True,
                                   reserve=PHASE_RESERVE_SECONDS / 2)
            if self.hogs_per_core:
                hogs = start_hogs(self.hogs_per_core)
                try:
                    self.note("outside CPU hog started", processes=len(hogs))
                    await self.type_window(HOG_WINDOW, keystrokes, loaded=True,
                                           reserve=PHASE_RESERVE_SECONDS / 2)
                finally:
                    stop_hogs(hogs)
                    self.note("outside CPU hog stopped")
        finally:
            stop.set()
            await feeder


async def wait_web(base: str, timeout: float) -> None:
    import requests

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            await asyncio.to_thread(requests.get, f"{base}/", timeout=1)
            return
        except requests.RequestException:
            await asyncio.sleep(0.05)
    raise RuntimeError(f"the web server did not answer within {timeout} s")


async def measure(bench: Bench, args: argparse.Namespace) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(max_workers=24))
    await wait_web(bench.base, 120)
    web_up = bench.now()
    snap = await bench.fresh()
    pools = await asyncio.to_thread(_pool_reports)
    states = await bench.db(validation_states)
    first = await bench.click_run("first", web_up_s=round(web_up, 3), worker_processes=pools,
                                  validation_states=states)
    bench.note("first Run", latency_ms=first["latency_ms"], web_up_s=round(web_up, 2),
               pending=sum(snap["pending"].values()),
               validating=sum(snap["validating"].values()))

    stop = asyncio.Event()
    sampler = asyncio.create_task(bench.sampler(stop))
    watcher_ready = asyncio.Event()
    target = Target(
        name="platform",
        editor_urls=[],
        watcher_urls=[f"ws://127.0.0.1:{bench.web_port}/ws/sessions/"
                      f"{bench.seeded.session_id}/doc/"],
        editor_headers=[],
        watcher_headers={"Cookie": bench.seeded.interviewer_cookie, "Origin": bench.origin},
        protocol=True,
    )
    editor = asyncio.create_task(bench.editor(stop))
    watcher = asyncio.create_task(_watch(target, 0, bench.pair, watcher_ready, stop))
    try:
        await asyncio.wait_for(watcher_ready.wait(), 60)
        await bench.lane(resume=False)
        idle_a = await bench.idle_block("idle A", args.runs, args.keystrokes // 2,
                                        args.drain_timeout, warmup=args.warmup)
        await bench.lane(resume=True)
        await bench.keep_validating()
        await bench.wait_for("a validation on every background worker",
                             lambda s: busy(s)["cpu.bg"] >= bench.slots["cpu.bg"]
                             and busy(s)["gpu.bg"] >= bench.slots["gpu.bg"], 120)
        bench.note("bank validating", validating=bench.snap.get("validating"),
                   pending=bench.snap.get("pending"))
        await bench.validating_pairs(args.runs)
        await bench.loaded_editor(args.keystrokes)
        await bench.lane(resume=False)
        idle_b = await bench.idle_block("idle B", args.runs,
                                        args.keystrokes - args.keystrokes // 2,
                                        args.drain_timeout)
    finally:
        bench.window = "off"
        await asyncio.sleep(1.0)
        stop.set()
        for task in (sampler, editor, watcher):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 10)
    bench.order = await bench.db(edit_order, bench.seeded.session_id, bench.pair.editor_client,
                                 len(EDIT))
    return {"idle_a": idle_a, "idle_b": idle_b}


def _pool_reports() -> int:
    from grading.workerstore import pool_stats_read

    return len(pool_stats_read())


# ------------------------------------------------------------------------------ report


GC_PAUSE_RE = re.compile(r"onsite\.gc: garbage collection of generation (\d) paused the process "
                         r"for (\d+) ms")


def gc_pauses(log: Path) -> list[dict[str, int]]:
    """The web's long garbage collections, as it logged them (core/heap.py: each one that held
    the process for core.heap.LONG_PAUSE_MS or more)."""
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return []
    return [{"generation": int(g), "ms": int(m)} for g, m in GC_PAUSE_RE.findall(text)]


def report(bench: Bench, blocks: dict[str, Any], config: dict[str, Any],
           log: Path | None = None) -> dict[str, Any]:
    runs = bench.runs
    splits = run_split([r["id"] for r in runs if "id" in r])
    for sample in runs:
        sample.update(splits.get(sample.get("id", -1), {}))

    def lat(state: str) -> list[float]:
        return [r["latency_ms"] for r in runs if r["state"] == state and r["latency_ms"]]

    first = next((r for r in runs if r["state"] == "first"), {})
    idle, validating, loaded = (run_figures(lat(s)) for s in ("idle", "validating", "loaded"))
    pairs: dict[int, dict[str, float | None]] = {}
    for r in runs:
        if "pair" in r:
            pairs.setdefault(r["pair"], {})[r["state"]] = r["latency_ms"]
    paired = paired_ratios([(p.get("validating"), p.get("loaded")) for p in pairs.values()])
    costs = submit_costs(bench.submits)
    cpu_costs = [c for c in costs if c["problem"] == RUN_PROBLEM and c["grading_ms"]]
    one_test = statistics.median([c["longest_test_ms"] for c in cpu_costs
                                  if c["longest_test_ms"] is not None] or [float("nan")])
    submit_ms = statistics.median([c["grading_ms"] for c in cpu_costs] or [float("nan")])
    target = run_target(idle["p95_ms"], loaded["p95_ms"], one_test)

    # Keystrokes: sent index i matches the watcher's seen_at[i].
    pair = bench.pair
    for index, key in enumerate(bench.keystrokes):
        seen = pair.seen_at.get(index)
        key["latency_ms"] = (seen - pair.sent_at[index]) * 1000 if seen is not None else None
    idle_keys = [k for k in bench.keystrokes if k["window"].startswith("idle")
                 and k["nothing_running"]]
    loaded_keys = [k for k in bench.keystrokes if k["window"] == "loaded" and k["all_busy"]]
    hog_keys = [k for k in bench.keystrokes if k["window"] == HOG_WINDOW and k["all_busy"]]
    editor_idle = editor_figures([k["latency_ms"] for k in idle_keys if k["latency_ms"]
                                  is not None], len(idle_keys))
    editor_loaded = editor_figures([k["latency_ms"] for k in loaded_keys if k["latency_ms"]
                                    is not None], len(loaded_keys))
    editor_hog = editor_figures([k["latency_ms"] for k in hog_keys if k["latency_ms"]
                                 is not None], len(hog_keys))
    integrity = edit_integrity(len(pair.sent_at), len(pair.seen_at), pair.out_of_order,
                               bench.order, len(EDIT))
    loads = [e["load_avg"] for e in bench.events] + [r["load_avg"] for r in runs]
    return {
        "config": config,
        "slots": bench.slots,
        "blocks": blocks,
        "truncated": bench.truncated,
        "load_avg": {"min": min(loads, default=None), "max": max(loads, default=None),
                     "median": statistics.median(loads) if loads else None},
        "first_run": first,
        "runs": {"idle": idle, "validating": validating, "loaded": loaded,
                 "paired_loaded_over_validating": paired,
                 "loaded_over_idle_p95": loaded["p95_ms"] / idle["p95_ms"]
                 if idle["p95_ms"] else float("nan"),
                 "validating_over_idle_p95": validating["p95_ms"] / idle["p95_ms"]
                 if idle["p95_ms"] else float("nan"),
                 "one_test_ms": one_test, "submit_grading_p50_ms": submit_ms,
                 "target": target},
        "queue_estimates": estimate_figures(bench.estimates),
        "web_gc_pauses": gc_pauses(log) if log is not None else [],
        "editor": {"idle": editor_idle, "loaded": editor_loaded, "hog": editor_hog,
                   "p99_ratio": editor_loaded["p99_ms"] / editor_idle["p99_ms"]
                   if editor_idle["p99_ms"] else float("nan"),
                   "hog_p99_ratio": editor_hog["p99_ms"] / editor_idle["p99_ms"]
                   if editor_idle["p99_ms"] else float("nan"),
                   "target_p99_ms": TARGET_EDITOR_P99_MS,
                   "met": editor_loaded["p99_ms"] <= TARGET_EDITOR_P99_MS,
                   "hog_target_p99_ms": TARGET_EDITOR_HOG_P99_MS,
                   "hog_met": editor_hog["p99_ms"] <= TARGET_EDITOR_HOG_P99_MS,
                   "hogs_per_core": bench.hogs_per_core,
                   "integrity": integrity},
        "samples": {"runs": runs, "keystrokes": bench.keystrokes, "submits": costs,
                    "events": bench.events,
                    "timeline": {"columns": ["t", "busy", "waiting", "pending"],
                                 "rows": bench.timeline}},
    }


def print_summary(data: dict[str, Any], out: Path) -> None:
    first, runs, editor, load = data["first_run"], data["runs"], data["editor"], data["load_avg"]
    latency = first.get("latency_ms")
    states = first.get("validation_states", {})
    print(f"first Run after a fresh start: {ms(latency or float('nan'))} click-to-verdict "
          f"(web answered {first.get('web_up_s')} s after the start; bank validation "
          f"{states}; {first.get('worker_processes')} worker processes reported) -- target "
          f"<= {TARGET_FIRST_RUN_S:g} s: "
          f"{'met' if latency and latency <= TARGET_FIRST_RUN_S * 1000 else 'NOT met'}")
    for state, label in (("idle", "idle"), ("validating", "while the bank validates"),
                         ("loaded", "while the bank validates and 8 Submits wait")):
        fig = runs[state]
        print(f"Run click-to-verdict {label}: p50 {ms(fig['p50_ms'])}, p95 {ms(fig['p95_ms'])} "
              f"(n={fig['n']})")
    paired = runs["paired_loaded_over_validating"]
    print(f"Run with 8 Submits / without, paired: median {paired['median']:.2f}x "
          f"(min {paired['min']:.2f}, max {paired['max']:.2f}, n={paired['n']}); a token-bucket "
          f"Submit grades in {ms(runs['submit_grading_p50_ms'])} (p50), its longest test "
          f"{ms(runs['one_test_ms'])}")
    target = runs["target"]
    print(f"Run p95 loaded {ms(runs['loaded']['p95_ms'])} vs 1.5 x idle p95 + one test = "
          f"{ms(target['limit_ms'])}: {'met' if target['met'] else 'NOT met'}")
    hog_label = (f"every slot busy and an outside CPU hog ({editor.get('hogs_per_core')} busy "
                 "processes per core, default priority)")
    for state, label in (("idle", "idle (nothing running)"), ("loaded", "every slot busy"),
                         ("hog", hog_label)):
        fig = editor[state]
        print(f"editor keystroke-to-watcher {label}: p50 {fig['p50_ms']:.1f} ms, p99 "
              f"{fig['p99_ms']:.1f} ms (delivered {fig['delivered']}/{fig['sent']})")
    print(f"editor p99 every slot busy / idle = {editor['p99_ratio']:.2f}x; target p99 <= "
          f"{TARGET_EDITOR_P99_MS:g} ms: {'met' if editor['met'] else 'NOT met'}")
    print(f"editor p99 with the outside hog / idle = {editor['hog_p99_ratio']:.2f}x; target "
          f"p99 <= {TARGET_EDITOR_HOG_P99_MS:g} ms: "
          f"{'met' if editor['hog_met'] else 'NOT met'}")
    whole = editor["integrity"]
    print(f"edits: {whole['sent']} sent, {whole['stored']} stored (in the order sent: "
          f"{whole['stored_in_order']}), {whole['seen_by_watcher']} seen by the watcher, "
          f"{whole['out_of_order_at_watcher']} out of order there -- none lost or reordered: "
          f"{'met' if whole['met'] else 'NOT met'}")
    pauses = data.get("web_gc_pauses") or []
    print(f"web: {len(pauses)} garbage collections held the process for "
          f"{LONG_PAUSE_MS:g} ms or more"
          + (f" (longest {max(p['ms'] for p in pauses)} ms)" if pauses else ""))
    est = data.get("queue_estimates") or {}
    if est.get("n"):
        print(f"estimate/actual wait: median ratio {est['median_ratio']:.2f} (target 0.67–1.5): "
              f"{'met' if est['met'] else 'NOT met'}; min {est['min_ratio']:.2f}, max "
              f"{est['max_ratio']:.2f}, n={est['n']} pairs, {est['in_range']} waited within "
              f"the range shown")
    else:
        print("estimate/actual wait: no submission was told or made to wait a second or more")
    print(f"load average (1 min) during the run: median {load['median']}, min {load['min']}, "
          f"max {load['max']}; raw samples in {out}"
          + ("; CUT SHORT by --budget" if data["truncated"] else ""))
    print(f"contention: Run p95 while the bank validates and 8 Submits wait / idle p95 = "
          f"{runs['loaded_over_idle_p95']:.2f}x (while only the bank validates: "
          f"{runs['validating_over_idle_p95']:.2f}x)")


# ------------------------------------------------------------------------------ main


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.contention", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15,
                        help="Runs per state: idle A, idle B, and validating/loaded pairs")
    parser.add_argument("--keystrokes", type=int, default=300,
                        help="editor edits per state (idle: half in A, half in B)")
    parser.add_argument("--rate", type=float, default=10.0, help="edits per second")
    parser.add_argument("--warmup", type=int, default=4,
                        help="Runs before idle A's, not counted (the workers just started)")
    parser.add_argument("--drain-timeout", type=float, default=30.0,
                        help="seconds a validation in flight may take to finish before an idle "
                        "block stops it")
    parser.add_argument("--budget", type=float, default=15 * 60.0,
                        help="seconds for the whole benchmark; sampling is cut short to fit")
    parser.add_argument("--hogs-per-core", type=int, default=2,
                        help="busy processes per core at the default priority beside every "
                        "slot busy, for the editor's last window (0: no such window)")
    parser.add_argument("--client-nice", type=int, default=-10,
                        help="nice value of this benchmark's own client (editor, watcher, "
                        "sampler), where it may raise its priority: the browsers it stands in "
                        "for are not on this host")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--keep", action="store_true",
                        help="keep the throwaway directory (logs, database)")
    return parser.parse_args(argv)


@dataclass
class Platform:
    """One fresh platform started the way `make run` does (fresh_platform)."""

    name: str  # the benchmark's name: its messages, its throwaway directory, its containers
    work: Path  # the throwaway directory (var dir, database, platform.log)
    owner: str  # ONSITE_SANDBOX_OWNER: the label of the sandbox containers its workers make
    env: dict[str, str]
    web_port: int
    slots: dict[str, int]
    log: Path
    seeded: Seeded | None = None
    proc: subprocess.Popen[bytes] | None = None
    timings: dict[str, float] = field(default_factory=dict)
    load_avg_before: tuple[float, float, float] | None = None
    keep: bool = False  # keep the throwaway directory at the end (set on error)

    def start(self) -> None:
        """Migrate, load the whole bank (left pending validation), seed the demo data and this
        benchmark's users (seed), then start platform/run.py."""
        from sandbox.image import ensure

        for flavor in ("cpu", "gpu"):  # `make run` builds them in `make setup`
            ensure(flavor)
        env, log = self.env, self.log
        self.timings = {"migrate_s": manage(env, log, "migrate", "--noinput", "-v", "0"),
                        "loadproblems_s": manage(env, log, "loadproblems"),
                        "seeddemo_s": manage(env, log, "seeddemo")}
        os.environ.update(env)
        import django

        django.setup()
        # Seeding broadcasts the session's start; nothing listens before the platform
        # (and its Redis) start, and that is expected: keep its warning out of the output.
        realtime_log = logging.getLogger("core.realtime")
        realtime_log.disabled = True
        try:
            self.seeded = seed()
        finally:
            realtime_log.disabled = False
        self.load_avg_before = os.getloadavg()
        with log.open("ab") as out:
            self.proc = subprocess.Popen([PY, "platform/run.py"], cwd=ROOT, env=env, stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True)


@contextlib.contextmanager
def fresh_platform(name: str, client_nice: int) -> Iterator[Platform]:
    """A fresh platform (Platform.start) for the body; at the end, on error and on Ctrl-C or
    SIGTERM (raised in the body as KeyboardInterrupt), every process it started is stopped, its
    sandbox containers removed, this process's environment and priority restored, and the
    throwaway directory removed unless `keep` was set."""
    work = Path(tempfile.mkdtemp(prefix=f"onsite-bench-{name}-"))
    owner = f"bench-{name}-{os.getpid()}"
    web_port, redis_port = free_port(), free_port()
    env = platform_env(work, web_port, redis_port, owner)
    platform = Platform(name=name, work=work, owner=owner, env=env, web_port=web_port,
                        slots=slot_counts(env), log=work / "platform.log")
    saved_env = dict(os.environ)
    saved_nice = os.nice(0)
    try:
        with sigterm_as_interrupt():
            platform.start()
            # This process stands in for the people's browsers, which are not on this host: it
            # must not queue behind the outside hog (or other jobs) either. Set after the
            # platform's start, so that the platform keeps the priorities it gives itself.
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, 0, client_nice)
            yield platform
    finally:
        if platform.proc is not None:
            stop_platform(platform.proc, owner)
        else:
            remove_containers(owner)
        os.environ.clear()
        os.environ.update(saved_env)
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, 0, saved_nice)
        if platform.keep:
            print(f"{name}: kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def measured_and_written(
    platform: Platform, measure_fn: Callable[[], Any],
    report_fn: Callable[[dict[str, Any]], dict[str, Any]], config: dict[str, Any], out: Path,
    print_fn: Callable[[dict[str, Any], Path], None],
) -> int:
    """A benchmark's last step on its fresh platform: run the measurement (`measure_fn` gives
    the coroutine), turn its samples into the report, write the raw samples to `out` (partial
    ones too, when the measurement failed: the platform is then kept for its log), print the
    summary; the exit code."""
    error = None
    measured: dict[str, Any] = {}
    try:
        measured = asyncio.run(measure_fn())
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
    config["load_avg_after"] = os.getloadavg()
    data = report_fn(measured)
    data["error"] = error
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1, default=str))
    if error:
        print(f"{platform.name}: failed: {error}; partial samples in {out}; platform "
              f"log {platform.log}", file=sys.stderr)
        platform.keep = True
        return 1
    print_fn(data, out)
    return 0


def main(argv: list[str] | None = None) -> int:
    began = time.perf_counter()
    args = parse([] if argv is None else list(argv))
    if _django_configured():
        # Another benchmark of this process already set Django up on its own database
        # (`python -m bench` runs them in turn): measure in a fresh interpreter.
        return subprocess.call([PY, "-m", "bench.contention", *(argv or [])], cwd=ROOT)
    if shutil.which("redis-server") is None:
        print("redis-server is not installed", file=sys.stderr)
        return 2
    slots = slot_counts(dict(os.environ))
    if not (slots["cpu.bg"] and slots["gpu.bg"]):
        print("this benchmark needs the background workers (ONSITE_*_BACKGROUND_WORKERS >= 1)",
              file=sys.stderr)
        return 2
    try:
        with fresh_platform("contention", args.client_nice) as platform:
            platform.keep = args.keep
            assert platform.seeded is not None
            env = platform.env
            bench = Bench(env=env, seeded=platform.seeded, web_port=platform.web_port,
                          slots=platform.slots, started=time.perf_counter(),
                          deadline=began + args.budget - STOP_SECONDS, rate=args.rate,
                          hogs_per_core=args.hogs_per_core)
            config = {"runs": args.runs, "keystrokes": args.keystrokes, "rate": args.rate,
                      "hogs_per_core": args.hogs_per_core, "client_nice": os.nice(0),
                      "warmup": args.warmup,
                      "drain_timeout": args.drain_timeout, "budget": args.budget,
                      "run_problem": RUN_PROBLEM, "gpu_problem": GPU_PROBLEM,
                      "sweep_interval_s": env.get("ONSITE_SWEEP_INTERVAL_SECONDS", "30"),
                      "cpus": os.cpu_count(), "load_avg_before": platform.load_avg_before,
                      "date": time.strftime("%Y-%m-%d %H:%M:%S %z"), **platform.timings}
            return measured_and_written(
                platform, lambda: measure(bench, args),
                lambda measured: report(bench, measured, config, platform.log), config, args.out,
                print_summary)
    except KeyboardInterrupt:
        print("contention: interrupted; stopping the platform", file=sys.stderr)
        return 130


def _django_configured() -> bool:
    if "django.conf" not in sys.modules:
        return False
    from django.conf import settings

    return bool(settings.configured)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
