"""The lockfiles tell the truth (issue 37.7): what `requirements.txt` and
`frontend/package-lock.json` pin is what is installed, and the lock satisfies what is declared
(`pyproject.toml`'s Python range, `frontend/package.json`'s ranges). No version is written here:
an upgrade that updates the lock and the environment together passes; one that forgets either
fails, naming the package."""

from __future__ import annotations

import json
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.processes import ROOT

FRONTEND = ROOT / "frontend"
PIN = re.compile(r"(?P<name>[A-Za-z0-9_.\-]+)==(?P<version>\S+)")


def requirement_pins(path: Path) -> dict[str, str]:
    """`name==version` for every requirement line (comments and blank lines aside); any other
    line form is a failure of the lock itself."""
    pins: dict[str, str] = {}
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = PIN.fullmatch(line)
        assert match, f"{path.name}:{number}: {line!r} is not pinned as name==version"
        pins[canonicalize_name(match["name"])] = match["version"]
    return pins


def test_every_python_pin_is_what_the_environment_has() -> None:
    pins = requirement_pins(ROOT / "requirements.txt")
    assert pins
    wrong = []
    for name, pinned in sorted(pins.items()):
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            wrong.append(f"{name}: pinned {pinned}, not installed")
            continue
        # A local build label (torch's `+cpu` wheel) is the same release.
        if Version(installed).public != Version(pinned).public:
            wrong.append(f"{name}: pinned {pinned}, installed {installed}")
    assert wrong == [], "requirements.txt and the environment disagree:\n" + "\n".join(wrong)


def test_every_installed_python_package_is_in_the_lock() -> None:
    pins = requirement_pins(ROOT / "requirements.txt")
    tools = {"pip", "setuptools", "wheel"}  # the virtualenv's own, never the project's
    installed = {canonicalize_name(dist.metadata["Name"]) for dist in metadata.distributions()}
    unlocked = sorted(installed - set(pins) - tools)
    assert unlocked == [], f"installed but not in requirements.txt: {unlocked}"


def test_this_python_is_in_the_declared_range() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    running = ".".join(map(str, sys.version_info[:3]))
    assert running in SpecifierSet(project["requires-python"])


def _satisfies(version: str, declared: str) -> bool:
    """npm's range forms that package.json uses: exact, `^`, `~` (anything else fails, naming
    the range, so the test learns it before a lock can slip by)."""
    got = Version(version)
    if declared[:1] in "^~":
        base = Version(declared[1:])
        if got < base:
            return False
        if declared[0] == "~":
            return got.release[:2] == base.release[:2]
        significant = next((i for i, part in enumerate(base.release) if part), 2)
        return got.release[: significant + 1] == base.release[: significant + 1]
    if re.fullmatch(r"\d+\.\d+\.\d+(-[\w.]+)?", declared):
        return version == declared
    pytest.fail(f"package.json range {declared!r} is not one this check understands")


def test_the_npm_lock_matches_package_json() -> None:
    declared = json.loads((FRONTEND / "package.json").read_text())
    lock = json.loads((FRONTEND / "package-lock.json").read_text())
    root = lock["packages"][""]
    wrong = []
    for field in ("dependencies", "devDependencies"):
        if root.get(field, {}) != declared.get(field, {}):
            wrong.append(f"package-lock.json's root {field} differ from package.json's")
        for name, declared_range in declared.get(field, {}).items():
            locked = lock["packages"].get(f"node_modules/{name}", {}).get("version")
            if locked is None:
                wrong.append(f"{name}: declared {declared_range}, not in the lock")
            elif not _satisfies(locked, declared_range):
                wrong.append(f"{name}: declared {declared_range}, locked {locked}")
    assert wrong == [], "\n".join(wrong)


def test_node_modules_hold_what_the_npm_lock_says() -> None:
    if not (FRONTEND / "node_modules").is_dir():
        pytest.skip("frontend/node_modules is not installed (cd frontend && npm ci)")
    lock = json.loads((FRONTEND / "package-lock.json").read_text())
    wrong = []
    for path, entry in sorted(lock["packages"].items()):
        if not path:
            continue
        manifest = FRONTEND / path / "package.json"
        if not manifest.is_file():
            # An optional package for another platform (esbuild's per-OS binaries) is skipped.
            if not entry.get("optional"):
                wrong.append(f"{path}: locked {entry.get('version')}, not installed")
            continue
        installed = json.loads(manifest.read_text()).get("version")
        if installed != entry.get("version"):
            wrong.append(f"{path}: locked {entry.get('version')}, installed {installed}")
    assert wrong == [], "package-lock.json and node_modules disagree:\n" + "\n".join(wrong)
