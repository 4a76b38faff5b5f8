"""Value types of the sandbox API (see docs/architecture.md, "Sandbox library API")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

Driver = dict  # {"kind": "function"|"ops", "entry": ...} or {"kind": "custom", "source": ...}

# TLE is decided on CPU time (every process of a test, from the container's cgroup). The wall
# limit is only a backstop for programs that block or sleep, derived from the CPU limit, and it
# counts only time a test was not waiting for a CPU (schedstat's run delay), so that load (other
# sandboxes sharing the cores) cannot turn a correct program into a wall-clock TLE:
# backstop = max(author's wall, FACTOR * cpu + EXTRA). A test's hard stop, waiting included, is
# WALL_HARD_FACTOR backstops (generous: at load average 25 on a 2-core host, a test needing
# under 1 s of CPU waited more than 10 s for it): its share of the run's budget.
WALL_BACKSTOP_FACTOR = 3.0
WALL_BACKSTOP_EXTRA_SECONDS = 2.0
WALL_HARD_FACTOR = 10.0
# Slack per test on top of its hard stop: the wipe before it, the fork, the kill and the
# frame. One formula (Limits.test_budget_seconds) gives both the harness's bound on each test
# and the worker's deadline, so a test that stops or starves its supervisor costs only itself.
PER_TEST_SLACK_SECONDS = 1.0


class SandboxError(Exception):
    """A platform fault: Docker down, image missing, harness broken. Never the candidate's."""


class Status(StrEnum):
    """How one test ended inside the sandbox (the protocol's ``status`` vocabulary)."""

    OK = "ok"  # returned normally; the output is compared outside
    ERROR = "error"  # raised: ``error`` holds the traceback, ``exc_type`` the class name
    TIMEOUT = "timeout"  # wall-clock limit
    CPU = "cpu"  # CPU-time limit
    MEMORY = "memory"  # the memory cgroup saw its limit hit (an OOM kill, or a MemoryError at it)
    OUTPUT = "output"  # stdout/stderr or the result over its cap
    CRASH = "crash"  # died without a result (signal, os._exit, harness lost)
    SKIPPED = "skipped"  # not run: an earlier test of its stop group ended at a time limit


STATUSES = frozenset(s.value for s in Status)


@dataclass(frozen=True)
class Limits:
    """Resource limits of one run; per-test limits apply to each test's process."""

    test_wall_seconds: float = 2.0
    test_cpu_seconds: float = 2.0
    memory_mb: int = 256
    output_bytes: int = 65536
    result_bytes: int = 1_048_576
    pids: int = 64
    tmpfs_mb: int = 64
    nofile: int = 256
    cpus: float = 1.0
    # Container start + harness imports (cold start) before the first test may begin.
    startup_margin_seconds: float = 30.0

    def __post_init__(self) -> None:
        positive = {
            "test_wall_seconds": self.test_wall_seconds,
            "test_cpu_seconds": self.test_cpu_seconds,
            "memory_mb": self.memory_mb,
            "output_bytes": self.output_bytes,
            "result_bytes": self.result_bytes,
            "pids": self.pids,
            "tmpfs_mb": self.tmpfs_mb,
            "nofile": self.nofile,
            "cpus": self.cpus,
            "startup_margin_seconds": self.startup_margin_seconds,
        }
        for name, value in positive.items():
            if not value > 0:
                raise ValueError(f"Limits.{name} must be positive, got {value!r}")
        if self.memory_mb < 32:
            raise ValueError("Limits.memory_mb must be at least 32 (Python itself needs ~10 MB)")
        if self.pids < 8:
            raise ValueError("Limits.pids must be at least 8 (init, harness, test, helpers)")
        if self.nofile < 32:
            raise ValueError("Limits.nofile must be at least 32")

    @property
    def test_backstop_seconds(self) -> float:
        """The wall-clock backstop of one test (blocked or sleeping programs), from its CPU
        limit; ``test_wall_seconds`` is a floor the author may raise it to."""
        derived = WALL_BACKSTOP_FACTOR * self.test_cpu_seconds + WALL_BACKSTOP_EXTRA_SECONDS
        return round(max(self.test_wall_seconds, derived), 3)

    @property
    def test_budget_seconds(self) -> float:
        """Wall time one test may take from the harness's start of it to its frame: its hard
        stop (waiting for a CPU included) plus the slack."""
        return round(WALL_HARD_FACTOR * self.test_backstop_seconds + PER_TEST_SLACK_SECONDS, 3)

    def total_wall_seconds(self, test_count: int) -> float:
        """Wall limit of a whole run of ``test_count`` tests, enforced from the worker side."""
        return self.startup_margin_seconds + max(0, test_count) * self.test_budget_seconds

    def harness_limits(self) -> dict[str, Any]:
        """The per-test limits the harness enforces, as sent in the job."""
        return {
            "test_wall_seconds": self.test_backstop_seconds,
            "test_budget_seconds": self.test_budget_seconds,
            "test_cpu_seconds": self.test_cpu_seconds,
            "output_bytes": self.output_bytes,
            "result_bytes": self.result_bytes,
        }


@dataclass(frozen=True)
class TestInput:
    """One test as it enters the sandbox: never its expected output.

    Tests that share a ``stop_group`` stop at the first of them that ends at a time limit
    (``timeout`` or ``cpu``): the later ones are not run, and are reported ``skipped``. A test
    without one always runs. Like the name, the group stays in the worker: the harness only
    gets a number per test."""

    __test__ = False  # not a pytest class

    name: str
    input: Any
    stop_group: str | None = None


@dataclass(frozen=True)
class TestOutcome:
    """What the harness reported for one test (``status`` is a ``Status`` value)."""

    __test__ = False

    index: int
    name: str
    status: str
    output: Any
    time_ms: float
    cpu_ms: float
    stdout: str
    error: str
    exc_type: str = ""
    stderr: str = ""  # captured apart from stdout (the two share the output cap)
    # For an error: where the test's process was ("driver", "load": importing the solution,
    # "run") and whose frames raised it ("candidate", or "grader": the driver's alone).
    # Reported by the test's own process, so display only: never part of a verdict.
    phase: str = ""
    raised_by: str = ""
    # stdout and stderr together, in the order the test wrote them: (stream, text) pieces,
    # "stdout" or "stderr"; empty when only one stream has anything (each is then whole above).
    streams: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class RunResult:
    """A finished run: one outcome per test, in test order."""

    run_id: str
    outcomes: tuple[TestOutcome, ...]
    wall_ms: float
    cold_start: bool


def validate_request(driver: Mapping[str, Any], modules: Mapping[str, str] | None) -> None:
    """Reject malformed drivers/modules early (caller bugs raise ValueError, not SandboxError)."""
    kind = driver.get("kind")
    if kind in ("function", "ops"):
        if not isinstance(driver.get("entry"), str) or not driver["entry"]:
            raise ValueError(f"a {kind} driver needs an 'entry' name")
    elif kind == "custom":
        if not isinstance(driver.get("source"), str):
            raise ValueError("a custom driver needs its 'source'")
    else:
        raise ValueError(f"unknown driver kind {kind!r}")
    for name, source in (modules or {}).items():
        if not (isinstance(name, str) and name.isidentifier()) or name in (
            "solution",
            "_onsite_driver",
        ):
            raise ValueError(f"module name {name!r} is not allowed")
        if not isinstance(source, str):
            raise ValueError(f"module {name!r} must be source text")
