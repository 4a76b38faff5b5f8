"""Run untrusted Python in locked-down Docker containers. Django-free (never import django here).

Public API (docs/architecture.md, "Sandbox library API")::

    Limits, Driver, TestInput, TestOutcome, RunResult, SandboxError, Status, run(...)

plus the warm pool (``WarmPool``, ``configure_default_pool``) and the orphan ``reap``er.
"""

from sandbox.execute import run
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
    "reap",
    "run",
]
