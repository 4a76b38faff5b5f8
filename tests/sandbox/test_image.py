"""The image recipe: pinned requirements, recipe-hash tags (no build here; conftest builds)."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from sandbox import image


def names(lines: list[str]) -> set[str]:
    return {re.split(r"[=<>!~]", line, maxsplit=1)[0].lower().replace("_", "-") for line in lines}


def test_every_requirement_is_pinned() -> None:
    for flavor in image.FLAVORS:
        lines = image.requirement_lines(image.requirements_file(flavor))
        assert lines and all(re.fullmatch(r"[A-Za-z0-9_.-]+==\S+", line) for line in lines)
    cpu = image.requirement_lines(image.requirements_file("cpu"))
    gpu = image.requirement_lines(image.requirements_file("gpu"))
    assert set(cpu) < set(gpu)
    # What a candidate may import, by name: the versions are the recipe's, never this test's.
    assert {"numpy", "pandas", "python-dateutil", "six"} <= names(cpu)
    assert "torch" in names(gpu) - names(cpu)


def pinned_version(lines: list[str], name: str) -> str:
    return next(line.split("==", 1)[1] for line in lines if names([line]) == {name})


def test_torch_dependencies_are_all_pinned() -> None:
    torch = pinned_version(image.requirement_lines(image.requirements_file("gpu")), "torch")
    wheels = sorted(Path("/opt/wheels").glob(f"torch-{torch}*.whl"))
    if not wheels:
        pytest.skip("no local torch wheel to read METADATA from")
    with zipfile.ZipFile(wheels[0]) as wheel:
        meta = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        text = wheel.read(meta).decode()
    required = {
        re.split(r"[\s=<>!~;\[]", line.split(":", 1)[1].strip(), maxsplit=1)[0].lower()
        for line in text.splitlines()
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    }
    pinned = names(image.requirement_lines(image.requirements_file("gpu")))
    assert {r.replace("_", "-") for r in required} <= pinned


def test_tags_hash_the_recipe() -> None:
    cpu, gpu = image.image_tag("cpu"), image.image_tag("gpu")
    assert cpu.startswith("onsite-sandbox:cpu-") and gpu.startswith("onsite-sandbox:gpu-")
    assert cpu == image.image_tag("cpu")  # stable
    assert image.base_tag().startswith("onsite-base:")
    with pytest.raises(ValueError):
        image.image_tag("tpu")


def test_tag_command_prints_without_building(capsys: pytest.CaptureFixture[str]) -> None:
    assert image.main(["tag", "--flavor", "gpu"]) == 0
    assert capsys.readouterr().out.strip() == image.image_tag("gpu")
