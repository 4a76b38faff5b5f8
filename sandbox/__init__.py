"""Run untrusted Python in locked-down Docker containers. Django-free (never import django here).

Public API (docs/architecture.md, "Sandbox library API")::

    Limits, Driver, TestInput, TestOutcome, RunResult, SandboxError, Status, run(...)

plus the warm pool (``WarmPool``, ``configure_default_pool``), the orphan ``reap``er, and
``preload_names``: the harness's rule for which heavy libraries (numpy, pandas, torch) code
imports, for a worker that wants them loaded before its first grading too.
"""

from sandbox.execute import run
from sandbox.harness.runner import preload_names
from sandbox.pool import WarmPool, configure_default_pool, default_pool, reap
from sandbox.types import (
    Driver,
    Limits,
    RunResult,
    SandboxError,
    Status,
    TestInput,
    TestOutcome,
)

__all__ = [
    "Driver",
    "Limits",
    "RunResult",
    "SandboxError",
    "Status",
    "TestInput",
    "TestOutcome",
    "WarmPool",
    "configure_default_pool",
    "default_pool",
    "preload_names",
    "reap",
    "run",
]
