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

from problems.constraints import (
    constraint_reaches,
    constraints_markdown,
    statement_with_constraints,
    violations_in_tests,
)
from problems.package import Package, package_read
from problems.services import BANK_DIR

CUSTOM = [
    pytest.param(p, id=p.name)
    for p in sorted(p for p in BANK_DIR.iterdir() if (p / "problem.toml").exists())
    if (package := package_read(p)).grading.driver == "custom" and package.kind_spec.runs_code
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


# ---------------------------------------------------------------- declared constraints (36.10)

# The bank's problems that do not (yet) declare their input constraints, each with its reason.
# Design problems have no test inputs and are not listed.
UNDECLARED = {
    "continuous-batching-engine": "a cross-field rule (len(prompt) + max_tokens <= 256) the "
    "declarative form cannot say; its driver's check_input holds it",
    "extra-trees-debug": "a debug problem whose bounds are loose ('a few thousand samples')",
    "padding-attention-mask": "three entry points with different input shapes per test group",
    "paged-kv-engine": "cross-field rules (a request fits the pool) held by its driver's "
    "check_input",
    "prefill-decode-scheduler": "arrivals are tuples checked by its driver's check_input",
    "sliding-window-p99": "an op's third value is `ms` for record and `p` for percentile, with "
    "different bounds; and a bound on samples in the window at once, which depends on time",
    "stream-batcher": "events of several shapes checked by its driver's check_input",
}

PACKAGES = [package_read(p) for p in sorted(BANK_DIR.iterdir()) if (p / "problem.toml").exists()]
DECLARING = [pytest.param(p, id=p.slug) for p in PACKAGES if p.constraints]


def test_every_problem_declares_its_constraints_or_says_why_not() -> None:
    gradable = {p.slug for p in PACKAGES if p.kind_spec.runs_code}
    declaring = {p.slug for p in PACKAGES if p.constraints}
    assert gradable - declaring == set(UNDECLARED), "declare the constraints, or list why not"
    assert all(reason.strip() for reason in UNDECLARED.values())
    assert len(declaring) >= 5


@pytest.mark.parametrize("package", DECLARING)
def test_every_bank_input_obeys_the_declared_constraints(package: Package) -> None:
    """Public and hidden, listed and generated (a `generate` input's parameters are declared
    too, as internal constraints)."""
    assert violations_in_tests(package.constraints, package.public_tests) == []
    assert violations_in_tests(package.constraints, package.hidden_tests) == []
    tests = (*package.public_tests, *package.hidden_tests)
    unreached = [
        c.name
        for c in package.constraints
        if not any(constraint_reaches(c, t.input) for t in tests)
    ]
    assert unreached == [], "a declared path no test has: misspelt?"


@pytest.mark.parametrize("package", DECLARING)
def test_the_statement_shows_the_declared_constraints_once(package: Package) -> None:
    shown = statement_with_constraints(package.statement_md, package.constraints)
    assert shown.count("## Constraints") == 1
    listed = constraints_markdown(package.constraints)
    assert listed and listed in shown
    # Not hand-written as well: no rendered line is in the statement file itself.
    for line in listed.splitlines():
        assert line not in package.statement_md
