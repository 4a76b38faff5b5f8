"""Warm pool of pre-started sandbox containers, and the reaper of orphaned ones.

A pooled container has its harness running, numpy imported (and whatever else its shape
preloads: torch for a PyTorch problem) and ``@@ready`` seen; it serves
exactly one run and is then destroyed (never reused: a run may have left anything behind).
A background thread refills the pool, out of the way of the runs: while a run of this pool is
in flight (and for ``refill_quiet_seconds`` after the last one) a shape that still has a ready
container is not refilled, so a container starting (a torch import is 1.3 s of CPU) does not
compete with the run for the cores; a shape with none left is refilled at once. When the pool
is empty the run starts a container cold.

Containers are keyed by what is fixed at creation (``ContainerSpec``: image, memory, cpus,
pids, tmpfs, nofile, gpu, preloaded libraries); per-test limits travel in the job.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import queue
import threading
import time
from collections.abc import Mapping
from typing import Any

import docker

from sandbox.docker_runner import (
    LABEL,
    LABEL_POOL,
    Attached,
    ContainerSpec,
    connect,
    docker_errors,
    remove_container,
    start_attached,
)
from sandbox.types import Limits, SandboxError

log = logging.getLogger(__name__)

DEFAULT_IDLE_MAX_SECONDS = 600.0
# A spec nobody asked for in this long is dropped from the pool (its containers removed).
DEFAULT_FORGET_SECONDS = 3600.0
# How long after the last run of a pool ended its refills wait (a custom-input run is two runs
# back to back, the reference's then the candidate's).
DEFAULT_REFILL_QUIET_SECONDS = 0.5
# Reaper defaults: a run never legitimately lasts 30 minutes; idle pool containers are retired
# by their pool after DEFAULT_IDLE_MAX_SECONDS, so twice that plus margin means "orphaned".
REAP_MAX_AGE_SECONDS = 1800.0
REAP_IDLE_MAX_AGE_SECONDS = 2 * DEFAULT_IDLE_MAX_SECONDS + 600.0


class WarmPool:
    """Pre-started containers per ``ContainerSpec``; each used for one run, then destroyed."""

    def __init__(
        self,
        size: int = 2,
        *,
        idle_max_seconds: float = DEFAULT_IDLE_MAX_SECONDS,
        start_timeout_seconds: float = 60.0,
        forget_seconds: float = DEFAULT_FORGET_SECONDS,
        refill_quiet_seconds: float = DEFAULT_REFILL_QUIET_SECONDS,
        client: docker.DockerClient | None = None,
    ) -> None:
        if size < 1:
            raise ValueError("a pool needs size >= 1 (use no pool for size 0)")
        self.size = size
        self.idle_max_seconds = idle_max_seconds
        self.start_timeout_seconds = start_timeout_seconds
        self.forget_seconds = forget_seconds
        self.refill_quiet_seconds = refill_quiet_seconds
        self.hits = 0
        self.misses = 0
        self._client = client
        self._cond = threading.Condition()
        self._idle: dict[ContainerSpec, list[Attached]] = {}
        self._wanted: dict[ContainerSpec, float] = {}  # spec -> last time it was asked for
        self._serving: set[str] = set()  # ids of containers handed to a run, not yet retired
        self._quiet_since = time.monotonic()  # when the last run in flight ended
        self._closed = False
        self._thread: threading.Thread | None = None
        # A pool belongs to the process that made it: after fork (Celery prefork) the refill
        # thread is gone and the sockets are shared, so a child must not use its parent's pool.
        self._pid = os.getpid()
        self._retired: queue.Queue[Attached] = queue.Queue()
        self._remover: threading.Thread | None = None

    # -- public -----------------------------------------------------------------------------

    def prewarm(
        self,
        image: str,
        limits: Limits,
        gpu: bool = False,
        *,
        driver: Mapping[str, Any] | None = None,
        modules: Mapping[str, str] | None = None,
    ) -> ContainerSpec:
        """Ask the pool to keep ``size`` containers ready for runs of this shape: a problem's
        ``driver`` and ``modules`` add the libraries its code imports, preloaded (as ``run``
        asks for them: ``ContainerSpec.for_job``)."""
        spec = ContainerSpec.for_job(image, limits, gpu, driver or {"kind": "function"}, modules)
        with self._cond:
            self._want(spec)
        return spec

    def acquire(self, spec: ContainerSpec) -> Attached | None:
        """A ready container for ``spec``, or None (then run cold); triggers a refill."""
        if self._closed or os.getpid() != self._pid:
            return None
        stale: list[Attached] = []
        found: Attached | None = None
        with self._cond:
            self._want(spec)
            queue = self._idle.get(spec, [])
            while queue:
                candidate = queue.pop(0)
                if self._fresh(candidate) and candidate.is_alive():
                    found = candidate
                    break
                stale.append(candidate)
            if found is None:
                self.misses += 1
            else:
                self.hits += 1
                self._serving.add(found.container_id)
            self._cond.notify_all()
        for attached in stale:
            attached.destroy()
        return found

    def idle_count(self, spec: ContainerSpec | None = None) -> int:
        with self._cond:
            if spec is not None:
                return len(self._idle.get(spec, []))
            return sum(len(q) for q in self._idle.values())

    def idle_container_ids(self, spec: ContainerSpec) -> list[str]:
        with self._cond:
            return [a.container_id for a in self._idle.get(spec, [])]

    def wait_idle(self, spec: ContainerSpec, count: int, timeout: float) -> bool:
        """Block until ``count`` containers for ``spec`` are ready (False on timeout)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self._idle.get(spec, [])) < count:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._closed:
                    return False
                self._cond.wait(remaining)
            return True

    def wait_warm(self, timeout: float) -> bool:
        """Block until every shape asked for has a container ready (False on timeout): what
        a worker waits for before it reports itself warm (grading/worker.py)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while any(not self._idle.get(spec) for spec in self._wanted):
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._closed:
                    return False
                self._cond.wait(remaining)
            return True

    def retire(self, attached: Attached) -> None:
        """Hand back a container that served its one run: removed in the background.

        Its attach socket closes at once (the harness sees EOF and, as PID 1, ends the
        container with everything in it); only the slow part, Docker removing the stopped
        container, happens off the run's path. `drain()` waits for it; the reaper covers a
        process that dies before the removal ran."""
        attached.close_socket()
        with self._cond:
            if attached.container_id in self._serving:
                self._serving.discard(attached.container_id)
                if not self._serving:
                    self._quiet_since = time.monotonic()
                self._cond.notify_all()
        if self._closed or os.getpid() != self._pid:
            attached.destroy()
            return
        with self._cond:
            if self._remover is None or not self._remover.is_alive():
                self._remover = threading.Thread(
                    target=self._remove_loop, daemon=True, name="sandbox-pool-remover"
                )
                self._remover.start()
        self._retired.put(attached)

    def drain(self, timeout: float = 30.0) -> bool:
        """Wait until every retired container has been removed (False on timeout)."""
        deadline = time.monotonic() + timeout
        while self._retired.unfinished_tasks:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True

    def _remove_loop(self) -> None:
        while True:
            attached = self._retired.get()
            try:
                attached.destroy()
            except Exception:  # the reaper removes whatever this could not
                log.exception("sandbox pool could not remove a retired container")
            finally:
                self._retired.task_done()

    def close(self) -> None:
        """Stop refilling and remove every idle container of this pool."""
        with self._cond:
            self._closed = True
            idle = [a for q in self._idle.values() for a in q]
            self._idle.clear()
            self._cond.notify_all()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            # Bounded: a container the thread is still starting is destroyed by the thread
            # itself once it sees the pool closed (or stops alone when this process exits).
            thread.join(timeout=5.0)
        if os.getpid() == self._pid:
            for attached in idle:
                attached.destroy()
            self.drain()
        if self._client is not None and os.getpid() == self._pid:
            with contextlib.suppress(Exception):
                self._client.close()

    # -- internals --------------------------------------------------------------------------

    def _want(self, spec: ContainerSpec) -> None:
        self._wanted[spec] = time.monotonic()
        self._idle.setdefault(spec, [])
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._refill_loop, name="sandbox-pool", daemon=True
            )
            self._thread.start()
        self._cond.notify_all()

    def _fresh(self, attached: Attached) -> bool:
        # Retire well before the harness's own idle exit and the reaper's idle age.
        return time.monotonic() - attached.created_at < self.idle_max_seconds

    def _get_client(self) -> docker.DockerClient:
        if self._client is None:
            self._client = connect()
        return self._client

    def _next_work(self) -> tuple[ContainerSpec | None, list[Attached], float]:
        """Under the lock: retire stale containers, forget unused specs, pick a spec to fill;
        with none to fill now, also how long to wait before looking again."""
        now = time.monotonic()
        stale: list[Attached] = []
        for spec in list(self._wanted):
            queue = self._idle.get(spec, [])
            keep = [a for a in queue if self._fresh(a)]
            stale.extend(a for a in queue if not self._fresh(a))
            self._idle[spec] = keep
            if now - self._wanted[spec] > self.forget_seconds:
                stale.extend(keep)
                del self._wanted[spec]
                del self._idle[spec]
        wait = min(30.0, self.idle_max_seconds / 4)
        quiet_in = self._quiet_since + self.refill_quiet_seconds - now
        for spec in self._wanted:
            ready = len(self._idle[spec])
            if ready >= self.size:
                continue
            if ready == 0 or (not self._serving and quiet_in <= 0):
                return spec, stale, 0.0
            # Deferred: a run is in flight (its retire wakes us) or has just ended.
            if not self._serving:
                wait = min(wait, quiet_in)
        return None, stale, wait

    def _refill_loop(self) -> None:
        backoff = 0.0
        while True:
            with self._cond:
                if self._closed:
                    return
                spec, stale, wait = self._next_work()
                if spec is None and not stale:
                    self._cond.wait(timeout=max(0.01, wait))
                    continue
            for attached in stale:
                attached.destroy()
            if spec is None:
                continue
            if backoff:
                time.sleep(backoff)
            try:
                client = self._get_client()
                attached = start_attached(
                    client,
                    spec,
                    pooled=True,
                    deadline=time.monotonic() + self.start_timeout_seconds,
                    # The harness exits by itself a while after the pool would retire it.
                    idle_seconds=self.idle_max_seconds + 120.0,
                )
            except SandboxError as exc:
                backoff = min(30.0, max(1.0, backoff * 2))
                log.warning("sandbox pool could not start a container: %s", exc)
                continue
            except Exception:  # never let the refill thread die silently
                backoff = min(30.0, max(1.0, backoff * 2))
                log.exception("sandbox pool refill failed")
                continue
            backoff = 0.0
            kept = False
            with self._cond:
                if not self._closed and spec in self._wanted:
                    self._idle[spec].append(attached)
                    kept = True
                    self._cond.notify_all()
            if not kept:
                attached.destroy()


# -- the process-wide default pool ---------------------------------------------------------

_default_lock = threading.Lock()
_default_pool: WarmPool | None = None
_default_kwargs: dict[str, Any] | None = None


def configure_default_pool(size: int, **kwargs: Any) -> WarmPool | None:
    """Set the pool ``run()`` uses when given none; size 0 disables it. Returns the pool."""
    global _default_pool, _default_kwargs
    with _default_lock:
        old = _default_pool
        _default_pool = None
        _default_kwargs = {"size": size, **kwargs} if size > 0 else None
    if old is not None:
        old.close()
    return default_pool()


def default_pool() -> WarmPool | None:
    """The configured default pool of *this* process (a forked child gets its own)."""
    global _default_pool
    with _default_lock:
        if _default_kwargs is None:
            return None
        if _default_pool is None or _default_pool._pid != os.getpid():
            _default_pool = WarmPool(**_default_kwargs)
        return _default_pool


def shutdown_default_pool() -> None:
    """Remove the default pool's idle containers (registered at exit)."""
    global _default_pool
    with _default_lock:
        pool, _default_pool = _default_pool, None
    if pool is not None and pool._pid == os.getpid():
        pool.close()


atexit.register(shutdown_default_pool)


# -- reaper ------------------------------------------------------------------------------------


def reap(
    *,
    max_age_seconds: float = REAP_MAX_AGE_SECONDS,
    idle_max_age_seconds: float = REAP_IDLE_MAX_AGE_SECONDS,
    client: docker.DockerClient | None = None,
    label: str | None = None,
) -> list[str]:
    """Remove sandbox containers older than their max age; returns the removed ids.

    Any container labelled ``onsite.sandbox=1`` is a candidate (running or exited): one made
    for a run gets ``max_age_seconds``, one made for a pool ``idle_max_age_seconds``. A worker
    killed with SIGKILL therefore leaves nothing behind for long. ``label`` ("key=value")
    narrows the sweep (tests use it to stay clear of other runs on the same engine).
    """
    own_client = client is None
    client = client or connect()
    filters = [f"{LABEL}=1"] + ([label] if label else [])
    removed: list[str] = []
    try:
        with docker_errors("cannot list sandbox containers"):
            containers = client.api.containers(all=True, filters={"label": filters})
        now = time.time()
        for info in containers:
            labels = info.get("Labels") or {}
            limit = idle_max_age_seconds if labels.get(LABEL_POOL) == "1" else max_age_seconds
            if now - float(info.get("Created", now)) > limit:
                remove_container(client, info["Id"])
                removed.append(str(info["Id"]))
    finally:
        if own_client:
            with contextlib.suppress(Exception):
                client.close()
    return removed
