"""Suite-wide fixtures. The real Redis comes from the plugin in tests/services.py."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def sandbox_images() -> dict[str, str]:
    """Both sandbox images, built once (skipped when their recipe's hash already exists)."""
    from sandbox.image import ensure

    return {flavor: ensure(flavor) for flavor in ("cpu", "gpu")}


@pytest.fixture(autouse=True)
def _images_for_docker_tests(request: pytest.FixtureRequest) -> None:
    """A test marked `docker` grades for real: make sure the images it runs exist."""
    if request.node.get_closest_marker("docker"):
        request.getfixturevalue("sandbox_images")
