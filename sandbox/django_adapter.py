"""The one place where the sandbox library meets Django settings."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from django.conf import settings

from sandbox import Limits
from sandbox.image import image_tag


def sandbox_limits(raw: Mapping[str, Any]) -> Limits:
    """A problem version's stored limits as the library's Limits."""
    return Limits(
        test_wall_seconds=float(raw.get("test_wall_seconds", 2.0)),
        test_cpu_seconds=float(raw.get("test_cpu_seconds", 2.0)),
        memory_mb=int(raw.get("memory_mb", 256)),
        output_bytes=int(raw.get("output_bytes", 65536)),
        startup_margin_seconds=settings.ONSITE_SANDBOX_STARTUP_MARGIN_SECONDS,
    )


@cache
def sandbox_image(queue: str) -> str:
    """The image for a queue: configured, or the one the recipe in platform/sandbox builds."""
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
