"""Docker side of the sandbox: a locked-down container per run, talked to over its attach socket.

Every Docker or OS error is wrapped into ``SandboxError``. The worker enforces the run's total
wall deadline itself, and ends a run early when no frame comes within one test's budget (the
harness enforces the per-test limits inside), reads at most a capped number of bytes, and always
removes the container.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import secrets
import select
import socket
import struct
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import docker
import docker.errors
import requests.exceptions
from docker.types import DeviceRequest, LogConfig, Ulimit

from sandbox.harness.runner import PRELOADABLE, preload_names
from sandbox.types import STATUSES, Limits, SandboxError, Status, TestInput, TestOutcome

log = logging.getLogger(__name__)

HARNESS_COMMAND = ["python3", "-I", "/opt/onsite/harness/runner.py"]
WORKDIR = "/work"
LABEL = "onsite.sandbox"
LABEL_RUN = "onsite.run"
LABEL_POOL = "onsite.pool"
# Which process group made a container (``onsite.owner``): the value of ONSITE_SANDBOX_OWNER,
# else the host's name. Lets one worker (or one test run) find its own containers on a Docker
# engine that several share.
LABEL_OWNER = "onsite.owner"
OWNER_ENV = "ONSITE_SANDBOX_OWNER"
RUN_USER = "65534:65534"
MIB = 1024 * 1024
# Harness exit codes that mean the platform failed (see sandbox/harness/runner.py).
HARNESS_FAULT_CODES = {
    2: "bad job",
    3: "internal error",
    4: "refused to run",
    5: "idle/stdin",
    6: "no memfd_create: inputs cannot be kept apart",
}
# How long a cold container may idle before the harness gives up on its job (it gets the job
# immediately; this only matters when the worker died in between).
COLD_IDLE_SECONDS = 120.0
STDERR_KEEP = 8192
MAX_ERROR_CHARS = 8000

DockerErrors = (docker.errors.DockerException, requests.exceptions.RequestException, OSError)


@contextlib.contextmanager
def docker_errors(what: str) -> Iterator[None]:
    """Re-raise any Docker/transport/OS error as SandboxError, saying what was being done."""
    try:
        yield
    except SandboxError:
        raise
    except DockerErrors as exc:
        raise SandboxError(f"{what}: {type(exc).__name__}: {exc}") from exc


def connect(timeout: float = 30.0) -> docker.DockerClient:
    """A Docker client from the environment (DOCKER_HOST...), checked with a ping."""
    with docker_errors("cannot reach the Docker engine"):
        client = docker.from_env(timeout=math.ceil(timeout))
        client.ping()
        return client


# The OCI runtime of sandbox containers: a runtime the engine has registered, or "auto" (the
# default): crun where the engine has it (grading throughput 0.63 of bare processes against
# runc's 0.55 in `make bench`; platform/bin/ensure-docker.sh registers it where the cgroups
# allow), else runc. GPU containers on an engine with the NVIDIA runtime keep runc under
# "auto": the toolkit's documented path. Same lock-down either way.
RUNTIME_ENV = "ONSITE_SANDBOX_RUNTIME"
DEFAULT_RUNTIME = "runc"
PREFERRED_RUNTIME = "crun"
_ENGINE_RUNTIMES: dict[str, frozenset[str]] = {}  # DOCKER_HOST -> the runtimes it has


def engine_runtimes(client: docker.DockerClient | None = None) -> frozenset[str]:
    """The OCI runtimes the engine of this environment has registered, asked once per engine.
    Without a client, an engine that cannot be reached gives an empty set (not remembered: the
    run then fails on its own, with a clear error); with one, its error is a SandboxError."""
    key = os.environ.get("DOCKER_HOST", "")
    if key not in _ENGINE_RUNTIMES:
        if client is None:
            try:
                own = connect()
            except SandboxError:
                return frozenset()
            try:
                return engine_runtimes(own)
            finally:
                own.close()
        with docker_errors("docker info"):
            _ENGINE_RUNTIMES[key] = frozenset(client.info().get("Runtimes") or {})
    return _ENGINE_RUNTIMES[key]


def has_nvidia_runtime(client: docker.DockerClient) -> bool:
    """Whether the engine has the nvidia runtime (GPUs can be handed to containers)."""
    return "nvidia" in engine_runtimes(client)


# CPU weight of this process's sandboxes, and the cgroup they are created under: a host that
# runs the web server beside the workers gives the sandboxes less weight than the web (and
# background work less than interactive), so a page stays live while every slot is busy.
# Weights change wall time only: verdicts are judged on CPU time.
CPU_SHARES_ENV = "ONSITE_SANDBOX_CPU_SHARES"
CGROUP_PARENT_ENV = "ONSITE_SANDBOX_CGROUP_PARENT"


def configured_cpu_shares() -> int | None:
    raw = os.environ.get(CPU_SHARES_ENV, "").strip()
    return max(2, int(raw)) if raw else None


def configured_cgroup_parent() -> str | None:
    return os.environ.get(CGROUP_PARENT_ENV, "").strip() or None


def configured_runtime(gpu: bool = False) -> str:
    wanted = os.environ.get(RUNTIME_ENV, "").strip() or "auto"
    if wanted != "auto":
        return wanted
    runtimes = engine_runtimes()
    if gpu and "nvidia" in runtimes:
        return DEFAULT_RUNTIME  # the GPU path the NVIDIA toolkit documents
    return PREFERRED_RUNTIME if PREFERRED_RUNTIME in runtimes else DEFAULT_RUNTIME


@dataclass(frozen=True)
class ContainerSpec:
    """What fixes a container at creation (the pool's key); per-test limits travel in the job.

    ``preload``: the libraries the harness imports (and warms up) before ``@@ready``, so a
    pooled container has them in memory before the solution arrives; numpy always is."""

    image: str
    gpu: bool
    memory_mb: int
    cpus: float
    pids: int
    tmpfs_mb: int
    nofile: int
    runtime: str = DEFAULT_RUNTIME
    preload: tuple[str, ...] = ()

    @classmethod
    def for_run(
        cls,
        image: str,
        limits: Limits,
        gpu: bool,
        runtime: str | None = None,
        preload: Iterable[str] = (),
    ) -> ContainerSpec:
        wanted = set(preload) | ({"torch"} if gpu else set())
        return cls(
            runtime=runtime or configured_runtime(gpu),
            image=image,
            gpu=gpu,
            memory_mb=limits.memory_mb,
            cpus=limits.cpus,
            pids=limits.pids,
            tmpfs_mb=limits.tmpfs_mb,
            nofile=limits.nofile,
            # numpy is imported by every harness anyway: it never makes a shape of its own.
            preload=tuple(name for name in PRELOADABLE if name in wanted and name != "numpy"),
        )

    @classmethod
    def for_job(
        cls,
        image: str,
        limits: Limits,
        gpu: bool,
        driver: Mapping[str, Any],
        modules: Mapping[str, str] | None = None,
    ) -> ContainerSpec:
        """The container for a run of this problem code: it preloads what the problem's own
        driver and modules import (the harness's rule, `preload_names`). The solution's imports
        are left out on purpose: they would split the pool by candidate; the harness still
        imports them once after the job arrives, before the first test."""
        names = preload_names("", driver, modules or {})
        return cls.for_run(image, limits, gpu, preload=names)


def container_environment(spec: ContainerSpec, idle_seconds: float) -> dict[str, str]:
    """The container's whole environment: fixed values only, nothing from the worker's env."""
    threads = str(max(1, math.ceil(spec.cpus)))
    env = {
        "ONSITE_SANDBOX": "1",
        "ONSITE_WORKDIR": WORKDIR,
        "ONSITE_IDLE_SECONDS": f"{idle_seconds:g}",
        # The container's cgroup is its own: the harness may take a test's CPU time from it.
        "ONSITE_OWN_CGROUP": "1",
        "HOME": WORKDIR,
        "LANG": "C.UTF-8",
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "OMP_NUM_THREADS": threads,
        "OPENBLAS_NUM_THREADS": threads,
        "MKL_NUM_THREADS": threads,
        "NUMEXPR_MAX_THREADS": threads,
    }
    if spec.preload:
        env["ONSITE_PRELOAD"] = ",".join(spec.preload)
    return env


def tmpfs_options(spec: ContainerSpec) -> str:
    inodes = max(1024, spec.tmpfs_mb * 64)
    return f"rw,nosuid,nodev,noexec,size={spec.tmpfs_mb}m,nr_inodes={inodes},mode=1777"


def create_container(
    client: docker.DockerClient,
    spec: ContainerSpec,
    run_id: str,
    *,
    pooled: bool,
    idle_seconds: float,
) -> str:
    """Create (not start) the locked-down container; returns its id."""
    api = client.api
    with docker_errors("cannot create the sandbox container"):
        use_gpu = spec.gpu and has_nvidia_runtime(client)
        file_bytes = spec.tmpfs_mb * MIB
        host_config = api.create_host_config(
            network_mode="none",
            read_only=True,
            # /dev/shm as our own tmpfs too: Docker's shm mount has no inode cap, and empty
            # files (no blocks, so no size limit) would eat kernel memory until the OOM killer.
            tmpfs={
                "/tmp": tmpfs_options(spec),  # noqa: S108
                WORKDIR: tmpfs_options(spec),
                "/dev/shm": tmpfs_options(spec),  # noqa: S108
            },
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            pids_limit=spec.pids,
            mem_limit=spec.memory_mb * MIB,
            memswap_limit=spec.memory_mb * MIB,  # equal: no swap
            nano_cpus=int(spec.cpus * 1e9),
            cpu_shares=configured_cpu_shares(),
            cgroup_parent=configured_cgroup_parent(),
            ulimits=[
                Ulimit(name="nofile", soft=spec.nofile, hard=spec.nofile),
                Ulimit(name="fsize", soft=file_bytes, hard=file_bytes),
                Ulimit(name="core", soft=0, hard=0),
            ],
            # No docker-init: the harness is PID 1 itself. Signals it has no handler for are
            # then not delivered from inside the container (a test cannot SIGKILL or SIGSTOP
            # it), and as a non-dumpable PID 1 its memory and stdout are out of reach, where
            # docker-init's would be writable through /proc/1/mem and /proc/1/fd/1 by any
            # process of the same user. The harness reaps orphans itself.
            init=False,
            log_config=LogConfig(type=LogConfig.types.NONE),
            shm_size=min(spec.tmpfs_mb, 64) * MIB,
            ipc_mode="private",
            privileged=False,
            runtime=spec.runtime,
            # GPUs only when asked for and the engine can provide them; otherwise the CPU path.
            device_requests=[DeviceRequest(count=-1, capabilities=[["gpu"]])] if use_gpu else None,
        )
        created = api.create_container(
            image=spec.image,
            command=HARNESS_COMMAND,
            user=RUN_USER,
            working_dir=WORKDIR,
            environment=container_environment(spec, idle_seconds),
            labels={
                LABEL: "1",
                LABEL_RUN: run_id,
                LABEL_POOL: "1" if pooled else "0",
                LABEL_OWNER: container_owner(),
                "onsite.image": spec.image,
            },
            stdin_open=True,
            # detach=False with stdin_open sets StdinOnce: stdin closes when our attach socket
            # does, and the harness exits on stdin EOF while waiting for its job. A worker killed
            # with SIGKILL thus leaves containers that stop by themselves (the reaper removes them).
            detach=False,
            tty=False,
            network_disabled=True,
            hostname="sandbox",
            host_config=host_config,
        )
        return str(created["Id"])


def remove_container(client: docker.DockerClient, container_id: str) -> None:
    """Force-remove; a container already gone is fine. Failures are logged (the reaper retries)."""
    try:
        client.api.remove_container(container_id, force=True, v=True)
    except docker.errors.NotFound:
        pass
    except DockerErrors as exc:
        log.warning("could not remove sandbox container %s: %s", container_id[:12], exc)


class _Demux:
    """Splits Docker's multiplexed attach stream (8-byte header: stream, 0, 0, 0, size BE)."""

    def __init__(self) -> None:
        self._pending = bytearray()

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        self._pending += data
        frames: list[tuple[int, bytes]] = []
        while len(self._pending) >= 8:
            stream, size = struct.unpack(">BxxxL", self._pending[:8])
            if len(self._pending) < 8 + size:
                break
            frames.append((stream, bytes(self._pending[8 : 8 + size])))
            del self._pending[: 8 + size]
        return frames


class Attached:
    """A started sandbox container whose harness printed ``@@ready``, with its attach socket."""

    def __init__(
        self, client: docker.DockerClient, container_id: str, run_id: str, spec: ContainerSpec
    ) -> None:
        self.client = client
        self.container_id = container_id
        self.run_id = run_id
        self.spec = spec
        self.created_at = time.monotonic()
        self._sock_io: Any = None
        self._sock: socket.socket | None = None
        self._demux = _Demux()
        self._stdout = bytearray()
        self._stderr = bytearray()
        self._eof = False
        self.bytes_read = 0

    # -- socket ---------------------------------------------------------------------------

    def attach(self) -> None:
        with docker_errors("cannot attach to the sandbox container"):
            sock_io = self.client.api.attach_socket(
                self.container_id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
            )
        self._sock_io = sock_io
        raw = getattr(sock_io, "_sock", sock_io)
        if not isinstance(raw, socket.socket):
            raise SandboxError("unsupported Docker transport (no raw attach socket)")
        self._sock = raw

    def _recv(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for data; False at EOF. Demultiplexes into the buffers."""
        if self._eof or self._sock is None:
            return False
        readable, _, _ = select.select([self._sock], [], [], max(0.0, timeout))
        if not readable:
            return True
        try:
            self._sock.settimeout(5.0)
            data = self._sock.recv(1 << 16)
        except (BlockingIOError, InterruptedError, TimeoutError):
            return True
        except OSError:
            data = b""
        if not data:
            self._eof = True
            return False
        self.bytes_read += len(data)
        for stream, payload in self._demux.feed(data):
            if stream == 2:
                self._stderr += payload
                del self._stderr[:-STDERR_KEEP]
            else:
                self._stdout += payload
        return True

    def _next_line(self, max_line: int) -> bytes | None:
        newline = self._stdout.find(b"\n")
        if newline < 0:
            if len(self._stdout) > max_line:  # a runaway line: drop what we have of it
                self._stdout.clear()
            return None
        line = bytes(self._stdout[:newline])
        del self._stdout[: newline + 1]
        return line if len(line) <= max_line else b""

    def stderr_tail(self) -> str:
        return bytes(self._stderr[-2000:]).decode("utf-8", "replace").strip()

    def is_alive(self) -> bool:
        """A pooled container is usable only if its socket is open and silent."""
        if self._sock is None or self._eof or self._stdout.strip():
            return False
        try:
            readable, _, _ = select.select([self._sock], [], [], 0)
        except (OSError, ValueError):
            return False
        return not readable  # the harness says nothing after @@ready: data or EOF means trouble

    # -- lifecycle --------------------------------------------------------------------------

    def start_and_wait_ready(self, deadline: float) -> None:
        with docker_errors("cannot start the sandbox container"):
            self.client.api.start(self.container_id)
        while True:
            line = self._next_line(1 << 16)
            if line is not None:
                if line.strip() == b"@@ready":
                    return
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SandboxError(
                    f"the harness was not ready in time; stderr: {self.stderr_tail()}"
                )
            if not self._recv(min(remaining, 1.0)):
                code = self._exit_code()
                raise SandboxError(
                    f"the harness exited before it was ready (exit {code}); "
                    f"stderr: {self.stderr_tail()}"
                )

    def _exit_code(self) -> int | None:
        with docker_errors("cannot inspect the sandbox container"):
            try:
                result = self.client.api.wait(self.container_id, timeout=5)
            except requests.exceptions.ReadTimeout:
                return None
            return int(result.get("StatusCode", -1))

    def _oom_killed(self) -> bool:
        with docker_errors("cannot inspect the sandbox container"):
            state = self.client.api.inspect_container(self.container_id).get("State") or {}
        return bool(state.get("OOMKilled"))

    def close_socket(self) -> None:
        """Close the attach socket: the harness sees stdin EOF and the container ends."""
        for closer in (self._sock, self._sock_io):
            if closer is not None:
                with contextlib.suppress(OSError):
                    closer.close()
        self._sock = None

    def destroy(self) -> None:
        self.close_socket()
        remove_container(self.client, self.container_id)

    # -- the run ----------------------------------------------------------------------------

    def execute(
        self,
        *,
        job: bytes,
        nonce: str,
        tests: Sequence[TestInput],
        limits: Limits,
        deadline: float,
        on_outcome: Callable[[TestOutcome], None] | None,
    ) -> list[TestOutcome]:
        """Send the encoded job, stream outcomes as frames arrive, return one per test."""
        assert self._sock is not None
        with docker_errors("cannot send the job to the harness"):
            self._sock.settimeout(max(1.0, deadline - time.monotonic()))
            self._sock.sendall(job)
        prefix = f"@@{nonce} ".encode("ascii")
        frame_cap = 6 * (limits.result_bytes + limits.output_bytes) + 65536
        byte_cap = self.bytes_read + len(tests) * frame_cap + (1 << 20)
        outcomes: list[TestOutcome] = []
        # The harness ends every test within its budget, so a frame more than a budget (and
        # the startup margin) after the last one means the sandbox stalled (frozen, starved of
        # its supervisor): the run ends then instead of at the total deadline.
        stall_seconds = limits.test_budget_seconds + limits.startup_margin_seconds
        progress_at = time.monotonic()

        def emit(outcome: TestOutcome) -> None:
            nonlocal progress_at
            progress_at = time.monotonic()
            outcomes.append(outcome)
            if on_outcome is not None:
                on_outcome(outcome)

        while len(outcomes) < len(tests):
            line = self._next_line(frame_cap)
            if line is not None:
                frame = _parse_frame(line, prefix)
                if frame is None:
                    continue  # not ours (no nonce) or garbage
                if frame.get("type") == "done":
                    # Every frame before "done" that did not arrive intact is a test without
                    # a result (not a platform fault: only code inside could garble them).
                    self._fill(outcomes, tests, Status.CRASH, "no result for this test", emit)
                    break
                outcome = _outcome_from_frame(frame, len(outcomes), tests, limits)
                if outcome is not None:
                    emit(outcome)
                continue
            if self.bytes_read > byte_cap:
                self._fill(
                    outcomes, tests, Status.OUTPUT, "the sandbox wrote more than allowed", emit
                )
                break
            now = time.monotonic()
            remaining = min(deadline, progress_at + stall_seconds) - now
            if remaining <= 0:
                message = (
                    "the run's total time limit was exceeded"
                    if now >= deadline
                    else "the sandbox stopped answering: no result within this test's share "
                    "of the run's total time limit"
                )
                self._fill(outcomes, tests, Status.TIMEOUT, message, emit)
                break
            if not self._recv(min(remaining, 1.0)):
                code = self._exit_code()
                if code in HARNESS_FAULT_CODES:
                    raise SandboxError(
                        f"harness failed ({HARNESS_FAULT_CODES[code]}, exit {code}): "
                        f"{self.stderr_tail()}"
                    )
                # The harness cannot be signalled from inside, but the OOM killer can pick it
                # when a test steers memory away from its own process: that test is MLE.
                if self._oom_killed():
                    self._fill(
                        outcomes,
                        tests[: len(outcomes) + 1],
                        Status.MEMORY,
                        "memory limit exceeded (the sandbox was OOM-killed)",
                        emit,
                    )
                self._fill(
                    outcomes,
                    tests,
                    Status.CRASH,
                    f"not run: the sandbox ended before this test (exit {code})",
                    emit,
                )
                break
        return outcomes

    @staticmethod
    def _fill(
        outcomes: list[TestOutcome],
        tests: Sequence[TestInput],
        status: Status,
        message: str,
        emit: Callable[[TestOutcome], None],
    ) -> None:
        for index in range(len(outcomes), len(tests)):
            emit(
                TestOutcome(
                    index=index,
                    name=tests[index].name,
                    status=status.value,
                    output=None,
                    time_ms=0.0,
                    cpu_ms=0.0,
                    stdout="",
                    error=message,
                    exc_type="",
                )
            )


def _parse_frame(line: bytes, prefix: bytes) -> dict[str, Any] | None:
    # The prefix may follow garbage that another process wrote to the same stream without a
    # newline; the nonce is secret, so wherever it starts, what follows is ours.
    start = line.find(prefix)
    if start < 0:
        return None
    try:
        frame = json.loads(line[start + len(prefix) :])
    except (ValueError, RecursionError):
        return None
    return frame if isinstance(frame, dict) else None


def _outcome_from_frame(
    frame: dict[str, Any], expected_index: int, tests: Sequence[TestInput], limits: Limits
) -> TestOutcome | None:
    """Validate a test frame; out-of-order or duplicate frames are ignored."""
    if frame.get("type") != "test" or frame.get("index") != expected_index:
        return None
    name = tests[expected_index].name  # the harness never knows test names
    status = frame.get("status")
    if status not in STATUSES:
        status = Status.CRASH.value

    def text(key: str, cap: int) -> str:
        value = frame.get(key)
        return value[:cap] if isinstance(value, str) else ""

    def choice(key: str, allowed: tuple[str, ...]) -> str:
        value = frame.get(key)
        return value if value in allowed else ""

    def number(key: str) -> float:
        value = frame.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return 0.0
        return float(value) if math.isfinite(value) else 0.0

    return TestOutcome(
        index=expected_index,
        name=name,
        status=str(status),
        output=frame.get("output") if status == Status.OK else None,
        time_ms=number("time_ms"),
        cpu_ms=number("cpu_ms"),
        stdout=text("stdout", limits.output_bytes),
        error=text("error", MAX_ERROR_CHARS),
        exc_type=text("exc_type", 200),
        stderr=text("stderr", limits.output_bytes),
        phase=choice("phase", ("driver", "load", "run")),
        raised_by=choice("by", ("candidate", "grader")),
        streams=_streams(frame.get("streams"), limits.output_bytes),
    )


MAX_STREAM_PIECES = 2000


def _streams(value: Any, cap: int) -> tuple[tuple[str, str], ...]:
    """The frame's ordered [stream, text] pieces, checked and bounded (`cap` characters in
    all, at most MAX_STREAM_PIECES pieces); anything malformed is no order at all."""
    if not isinstance(value, list) or len(value) > MAX_STREAM_PIECES:
        return ()
    out: list[tuple[str, str]] = []
    left = cap
    for piece in value:
        if (not isinstance(piece, list) or len(piece) != 2
                or piece[0] not in ("stdout", "stderr") or not isinstance(piece[1], str)):
            return ()
        if left <= 0:
            break
        out.append((piece[0], piece[1][:left]))
        left -= len(piece[1])
    return tuple(out)


def container_owner() -> str:
    """The ``onsite.owner`` label of the containers this process creates."""
    return os.environ.get(OWNER_ENV) or socket.gethostname()


def new_run_id() -> str:
    return uuid.uuid4().hex


def encode_job(job: dict[str, Any]) -> tuple[bytes, str]:
    """The job line with a fresh nonce as its first key (the harness lifts it out of the raw
    bytes before parsing); returns (line, nonce). ValueError if an input is not JSON."""
    nonce = secrets.token_hex(16)
    try:
        text = json.dumps({"nonce": nonce, **job}, ensure_ascii=True, allow_nan=True)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"test inputs must be JSON-serialisable: {exc}") from exc
    return text.encode("ascii") + b"\n", nonce


def start_attached(
    client: docker.DockerClient,
    spec: ContainerSpec,
    *,
    pooled: bool,
    deadline: float,
    idle_seconds: float = COLD_IDLE_SECONDS,
) -> Attached:
    """Create, attach, start a container and wait for ``@@ready``; removed again on failure."""
    run_id = new_run_id()
    container_id = create_container(client, spec, run_id, pooled=pooled, idle_seconds=idle_seconds)
    attached = Attached(client, container_id, run_id, spec)
    try:
        attached.attach()  # before start, so no early output is lost
        attached.start_and_wait_ready(deadline)
    except BaseException:
        attached.destroy()
        raise
    return attached
