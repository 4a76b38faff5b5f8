"""The one place where the sandbox library meets Django settings and problem limits."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from django.conf import settings

from problems.package import Limits as ProblemLimits
from sandbox import Limits
from sandbox.image import image_tag


def sandbox_limits(raw: Mapping[str, Any]) -> Limits:
    """A problem version's stored limits as the library's Limits; what a version does not
    set takes the package format's default (problems.package.Limits, the one place)."""
    declared = ProblemLimits(**{k: raw[k] for k in ProblemLimits.__dataclass_fields__ if k in raw})
    return Limits(
        test_wall_seconds=float(declared.test_wall_seconds),
        test_cpu_seconds=float(declared.test_cpu_seconds),
        memory_mb=int(declared.memory_mb),
        output_bytes=int(declared.output_bytes),
        startup_margin_seconds=settings.ONSITE_SANDBOX_STARTUP_MARGIN_SECONDS,
    )


def statement_time_limits(raw_limits: Mapping[str, Any]) -> dict[str, float]:
    """What a statement shows of a version's limits: the CPU limit of each test (every
    process of the test counts) and the wall-clock backstop the sandbox derives from it."""
    limits = sandbox_limits(raw_limits)
    return {"cpu_seconds": limits.test_cpu_seconds, "wall_seconds": limits.test_backstop_seconds}


def run_budget_seconds(raw_limits: Mapping[str, Any], n_tests: int) -> float:
    """The longest one run of `n_tests` may take (the worker's deadline for it); the formula
    itself is the sandbox library's, so the harness and the worker agree."""
    return sandbox_limits(raw_limits).total_wall_seconds(n_tests)


# What a job that grades one program after another (a validation, a regrade) takes beyond its
# runs: loading the version, storing each result.
BATCH_OVERHEAD_SECONDS = 60.0


def job_budget_seconds(
    raw_limits: Mapping[str, Any], n_tests: int, *, runs: int = 1, batch: bool = False
) -> float:
    """The longest a job may take (grading.jobs' `budget_seconds`; Celery's limits lie above
    it): `runs` runs of `n_tests` tests each, every one to its wall limit, and a batch job's
    overhead. The one budget formula of every job: a submission's grading, a validation, a
    regrade."""
    overhead = BATCH_OVERHEAD_SECONDS if batch else 0.0
    return runs * run_budget_seconds(raw_limits, n_tests) + overhead


@cache
def sandbox_image(queue: str) -> str:
    """The image for a queue: configured, or the one the recipe in sandbox/recipe builds."""
    configured: str = getattr(settings, f"ONSITE_SANDBOX_IMAGE_{queue.upper()}", "")
    return configured or image_tag(flavor=queue)


def sandbox_gpu(queue: str) -> bool:
    """Pass GPUs into the container only on the gpu queue, and only where they exist."""
    if queue != "gpu" or settings.ONSITE_SANDBOX_GPU == "off":
        return False
    return settings.ONSITE_SANDBOX_GPU == "on" or _engine_has_nvidia()


@cache
def _engine_has_nvidia() -> bool:
    import docker

    try:
        return "nvidia" in docker.from_env().info().get("Runtimes", {})
    except docker.errors.DockerException:
        return False
