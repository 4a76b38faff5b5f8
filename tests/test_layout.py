"""The repository's shape, and the rule that nothing may shadow the standard `platform`."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
import yaml

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
    def config(*overrides: str) -> str:
        files = ["docker-compose.yml", *overrides]
        argv = ["docker-compose", *(arg for f in files for arg in ("-f", str(ROOT / f)))]
        result = subprocess.run([*argv, "config"], cwd=ROOT, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return result.stdout

    base = config()
    for service in ("web:", "worker-cpu:", "worker-gpu:", "redis:", "postgres:", "nginx:"):
        assert service in base
    # Published ports bind the loopback only (a TLS proxy in front serves the outside).
    services = yaml.safe_load(base)["services"]
    published = [p for svc in services.values() for p in svc.get("ports", [])]
    assert published and all(str(p).startswith("127.0.0.1:") for p in published)
    # The GPU reservation is the GPU hosts' override (a host without one could not start it).
    assert "capabilities:" not in base
    gpu = config("platform/prod/compose.gpu.yml")
    assert "capabilities:" in gpu and "gpu" in gpu
