"""Every custom driver in the bank checks its own input (`check_input`, docs/architecture.md,
"Drivers"), and every bank test's input, public and hidden (generated and stress ones too),
passes it. The bank is ours and trusted, so this imports each driver in-process for speed; an
author's driver is only ever run in the sandbox (studio.services.inputcheck)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from problems.package import package_read
from problems.services import BANK_DIR

CUSTOM = [
    pytest.param(p, id=p.name)
    for p in sorted(p for p in BANK_DIR.iterdir() if (p / "problem.toml").exists())
    if (package := package_read(p)).grading.driver == "custom" and not package.is_design
]


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _driver(folder: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The package's driver.py, with its support.py importable as `support` (as in the
    sandbox) for as long as the test runs."""
    if (folder / "support.py").exists():
        monkeypatch.setitem(sys.modules, "support", _load(folder / "support.py", "support"))
    return _load(folder / "driver.py", f"_bank_driver_{folder.name.replace('-', '_')}")


@pytest.mark.parametrize("folder", CUSTOM)
def test_every_bank_input_passes_its_drivers_check(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    driver = _driver(folder, monkeypatch)
    assert callable(getattr(driver, "check_input", None)), f"{folder.name}: no check_input"
    package = package_read(folder)
    refused = {
        test.name: problem
        for test in (*package.public_tests, *package.hidden_tests)
        if (problem := driver.check_input(test.input)) is not None
    }
    assert refused == {}


@pytest.mark.parametrize("folder", CUSTOM)
def test_each_bank_check_refuses_what_is_not_its_format(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    driver = _driver(folder, monkeypatch)
    package = package_read(folder)
    sample: dict[str, Any] = package.public_tests[0].input
    for bad in (None, 3, "text", [sample], {}, {**sample, "no_such_key": 1}):
        problem = driver.check_input(bad)
        assert isinstance(problem, str) and problem, f"{folder.name} took {bad!r}"
    # Each required value turned into a wrong type is refused too.
    for key in sample:
        problem = driver.check_input({**sample, key: {"wrong": "type"}})
        assert isinstance(problem, str) and problem, f"{folder.name} took a bad {key!r}"
