"""The gpu image's torch build follows the host: the CUDA torch of requirements-gpu-cuda.txt only
where an NVIDIA GPU is present (nvidia-smi lists one, or ONSITE_SANDBOX_CUDA=1), the CPU torch of
requirements-gpu.txt everywhere else (the versions are the recipe's, never this test's).
Nothing is built: a CUDA image is several GB and this machine has no GPU."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from sandbox import image

RECIPE = Path(image.__file__).parent / "recipe"


def torch_pin(recipe: str) -> str:
    """The torch version a recipe file pins (`torch==X` is how the recipe writes it)."""
    lines = (RECIPE / recipe).read_text().splitlines()
    return next(line.split("==", 1)[1].strip() for line in lines if line.startswith("torch=="))


CPU_TORCH = torch_pin("requirements-gpu.txt")
CUDA_TORCH = torch_pin("requirements-gpu-cuda.txt")
CUDA_WHEEL = Path(f"/opt/pypi-more/files/torch-{CUDA_TORCH}-cp311-cp311-manylinux_2_28_x86_64.whl")


def _fake_nvidia_smi(folder: Path, output: str, status: int = 0) -> None:
    script = folder / "nvidia-smi"
    script.write_text(f"#!/bin/sh\necho '{output}'\nexit {status}\n")
    script.chmod(0o755)


def test_a_host_without_a_gpu_keeps_the_cpu_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(image.CUDA_ENV, raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no nvidia-smi on this machine

    assert not image.host_has_nvidia_gpu()
    assert image.requirements_file("gpu").name == "requirements-gpu.txt"
    assert f"torch=={CPU_TORCH}" in image.requirement_lines(image.requirements_file("gpu"))


def test_nvidia_smi_listing_a_gpu_selects_the_cuda_recipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(image.CUDA_ENV, raising=False)
    _fake_nvidia_smi(tmp_path, "GPU 0: NVIDIA H200 (UUID: GPU-0)")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin:/bin")
    cpu_tag = image.image_tag("cpu")

    assert image.host_has_nvidia_gpu()
    lines = image.requirement_lines(image.requirements_file("gpu"))
    assert CUDA_TORCH != CPU_TORCH
    assert f"torch=={CUDA_TORCH}" in lines and f"torch=={CPU_TORCH}" not in lines
    assert image.requirements_file("cpu").name == "requirements-cpu.txt"
    assert image.image_tag("cpu") == cpu_tag  # the CPU image never changes with the host


def test_a_broken_nvidia_smi_or_the_override_decide_as_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_nvidia_smi(tmp_path, "NVIDIA-SMI has failed", status=9)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin:/bin")
    monkeypatch.delenv(image.CUDA_ENV, raising=False)
    assert not image.host_has_nvidia_gpu()

    monkeypatch.setenv(image.CUDA_ENV, "1")
    assert image.requirements_file("gpu").name == "requirements-gpu-cuda.txt"
    monkeypatch.setenv(image.CUDA_ENV, "0")
    assert image.requirements_file("gpu").name == "requirements-gpu.txt"


def test_the_cuda_recipe_pins_every_dependency_of_the_cuda_wheel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not CUDA_WHEEL.is_file():
        pytest.skip(f"{CUDA_WHEEL} is not on this machine")
    monkeypatch.setenv(image.CUDA_ENV, "1")
    pinned = {
        line.split("==")[0].lower().replace("_", "-")
        for line in image.requirement_lines(image.requirements_file("gpu"))
    }
    with zipfile.ZipFile(CUDA_WHEEL) as wheel:
        meta = wheel.read(f"torch-{CUDA_TORCH}.dist-info/METADATA").decode()
    needed = set()
    for line in meta.splitlines():
        if not line.startswith("Requires-Dist:") or "extra ==" in line:
            continue
        name = line.split(":", 1)[1].split(";")[0].strip()
        base = name.split("[")[0]
        for op in ("=", "<", ">", "~", "!"):
            base = base.split(op)[0]
        needed.add(base.strip().lower().replace("_", "-"))
        if "[" in name:  # cuda-toolkit[cublas, cudart, ...]: one nvidia-* wheel per extra
            extras = name.split("[", 1)[1].split("]")[0].split(",")
            for extra in extras:
                wheel_name = {"cudart": "nvidia-cuda-runtime", "cupti": "nvidia-cuda-cupti",
                              "nvrtc": "nvidia-cuda-nvrtc"}.get(extra.strip())  # fmt: skip
                needed.add(wheel_name or f"nvidia-{extra.strip()}")

    assert needed <= pinned, needed - pinned
