"""``run()``: one sandboxed run of a solution on a list of tests."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sandbox.docker_runner import (
    Attached,
    ContainerSpec,
    connect,
    encode_job,
    new_run_id,
    start_attached,
)
from sandbox.pool import WarmPool, default_pool
from sandbox.types import (
    Driver,
    Limits,
    RunResult,
    SandboxError,
    TestInput,
    TestOutcome,
    validate_request,
)


def stop_group_numbers(tests: Sequence[TestInput]) -> list[int | None]:
    """Each test's stop group as a number (in order of first appearance), None where it has
    none: the harness learns which tests stop together, never what the groups are called."""
    numbers: dict[str, int] = {}
    return [
        None if t.stop_group is None else numbers.setdefault(t.stop_group, len(numbers))
        for t in tests
    ]


def run(
    *,
    solution: str,
    driver: Driver,
    tests: Sequence[TestInput],
    limits: Limits,
    image: str,
    gpu: bool = False,
    on_outcome: Callable[[TestOutcome], None] | None = None,
    modules: Mapping[str, str] | None = None,
    pool: WarmPool | None = None,
) -> RunResult:
    """Run ``solution`` on ``tests`` in a fresh locked-down container of ``image``.

    ``driver`` says how to call the solution (docs/architecture.md, "Drivers"); ``modules``
    are extra importable modules (name -> source) written next to the solution, e.g. a custom
    driver's ``support``. Each outcome is passed to ``on_outcome`` as soon as its frame
    arrives. ``pool`` (or the configured default pool) supplies a pre-started container when
    one is ready; otherwise the container starts cold. Either way it serves this run only and
    is removed before returning.

    Raises ``SandboxError`` on a platform fault (Docker down, image missing, harness broken) and
    ``ValueError`` on a malformed request. Candidate misbehaviour never raises: it is a status.
    """
    validate_request(driver, modules)
    tests = list(tests)
    started = time.monotonic()
    deadline = started + limits.total_wall_seconds(len(tests))
    spec = ContainerSpec.for_job(image, limits, gpu, driver, modules)
    job: dict[str, Any] = {
        "solution": solution,
        "driver": dict(driver),
        "modules": dict(modules or {}),
        # Inputs only, addressed by index: test names stay in the worker.
        "inputs": [t.input for t in tests],
        "stop_groups": stop_group_numbers(tests),
        "limits": limits.harness_limits(),
    }
    line, nonce = encode_job(job)  # before any container exists: bad inputs cost nothing
    if not tests:
        return RunResult(run_id=new_run_id(), outcomes=(), wall_ms=0.0, cold_start=False)
    pool = pool if pool is not None else default_pool()
    attached: Attached | None = pool.acquire(spec) if pool is not None else None
    cold = attached is None
    client = None
    try:
        if attached is None:
            client = connect()
            attached = start_attached(client, spec, pooled=False, deadline=deadline)
        outcomes = attached.execute(
            job=line,
            nonce=nonce,
            tests=tests,
            limits=limits,
            deadline=deadline,
            on_outcome=on_outcome,
        )
        run_id = attached.run_id
    finally:
        if attached is not None:
            if cold or pool is None:
                attached.destroy()
            else:
                pool.retire(attached)  # removed in the background, off the run's latency
        if client is not None:
            with contextlib.suppress(Exception):
                client.close()
    if len(outcomes) != len(tests):  # defensive: execute fills every test
        raise SandboxError(f"the harness reported {len(outcomes)} of {len(tests)} tests")
    return RunResult(
        run_id=run_id,
        outcomes=tuple(outcomes),
        wall_ms=round((time.monotonic() - started) * 1000.0, 3),
        cold_start=cold,
    )
