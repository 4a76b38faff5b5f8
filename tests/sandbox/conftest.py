"""Sandbox tests: real Docker, the real CPU image (built once per session when missing)."""

from __future__ import annotations

import docker
import pytest

from sandbox.docker_runner import connect
from sandbox.image import ensure
from sandbox.types import SandboxError


@pytest.fixture(scope="session")
def docker_client() -> docker.DockerClient:
    """A client of the local engine; the Docker tests are skipped when none answers."""
    try:
        return connect()
    except SandboxError as exc:
        pytest.skip(f"no Docker engine: {exc}")


@pytest.fixture(scope="session")
def sandbox_image(docker_client: docker.DockerClient) -> str:
    """The CPU sandbox image's tag; built (debootstrap + wheels, ~1 min) only when missing."""
    return ensure("cpu")
