"""The repository's shape, and the rule that nothing may shadow the standard `platform`."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.processes import ROOT

LAYOUT = [
    "manage.py",
    "config",
    "platform",
    "problems",
    "sandbox",
    "grading",
    "interviews",
    "frontend",
    "tests",
    "docker-compose.yml",
    "pyproject.toml",
    "Makefile",
    "README.md",
    ".ci/run",
]


def test_layout_is_as_designed() -> None:
    missing = [path for path in LAYOUT if not (ROOT / path).exists()]
    assert missing == []


def test_platform_folder_does_not_shadow_the_standard_module() -> None:
    assert not (ROOT / "platform" / "__init__.py").exists()
    code = "import platform, uuid, redis, celery; print(platform.system())"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "Linux"


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose not installed")
def test_compose_file_validates_with_the_production_services(tmp_path) -> None:
    result = subprocess.run(
        ["docker-compose", "-f", str(ROOT / "docker-compose.yml"), "config"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    for service in ("web:", "worker-cpu:", "worker-gpu:", "redis:", "postgres:"):
        assert service in result.stdout
    assert "capabilities:" in result.stdout and "gpu" in result.stdout
