"""Dependencies run one way: core ← problems ← grading ← {interviews, studio, frontend}.

The test reads every app's imports (top level and inside functions), its string model
references ("app.Model") and its migrations' dependencies, and names the file and line of each
that points the wrong way. `sandbox` is a Django-free library: it imports nothing of ours, and
only `grading` and `bench` import it. `config` and `bench` may import anything.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# What each app may depend on (besides itself).
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "problems": {"core"},
    "grading": {"core", "problems", "sandbox"},
    "interviews": {"core", "problems", "grading"},
    "studio": {"core", "problems", "grading"},
    "frontend": {"core", "problems", "grading"},
    "sandbox": set(),
}
OURS = set(ALLOWED) | {"config", "bench", "tests"}
MODEL_REF = re.compile(r"""["']([a-z_]+)\.([A-Z]\w+)["']""")
MIGRATION_DEP = re.compile(r"""\(\s*["']([a-z_]+)["']\s*,\s*["']\d{4}_\w+["']\s*\)""")


def _sources(app: str) -> Iterator[Path]:
    for path in sorted((ROOT / app).rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        # The bank holds candidates' and authors' programs, not our code; the harness runs
        # inside the container.
        if "/bank/" in relative or "/node_modules/" in relative:
            continue
        yield path


def _edges(path: Path) -> Iterator[tuple[int, str, str]]:
    """(line, target app, what) for each reference of `path` to another of our packages."""
    text = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(text)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            top = name.split(".")[0]
            if top in OURS:
                yield node.lineno, top, f"import {name}"
    for number, line in enumerate(text.splitlines(), start=1):
        for match in MODEL_REF.finditer(line):
            if match.group(1) in ALLOWED:
                yield number, match.group(1), f"model reference {match.group(0)}"
        if "/migrations/" in path.as_posix():
            for match in MIGRATION_DEP.finditer(line):
                yield number, match.group(1), f"migration dependency {match.group(0)}"


def _violations() -> list[str]:
    found = []
    for app, allowed in ALLOWED.items():
        for path in _sources(app):
            for line, target, what in _edges(path):
                if target != app and target not in allowed:
                    found.append(f"{path.relative_to(ROOT)}:{line}: {app} -> {target} ({what})")
    return found


def test_apps_depend_one_way() -> None:
    assert _violations() == []


def test_only_grading_and_bench_import_the_sandbox_library() -> None:
    importers = set()
    for top in sorted(p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()):
        if top in ("tests", "sandbox"):
            continue
        for path in _sources(top):
            if any(target == "sandbox" for _, target, _ in _edges(path)):
                importers.add(top)
    assert importers <= {"grading", "bench"}


def test_the_checker_names_file_and_line(tmp_path: Path) -> None:
    # The rule itself is tested on a planted file: problems importing grading.
    planted = tmp_path / "planted.py"
    planted.write_text("import os\n\nfrom grading.models import Submission\n", encoding="utf-8")
    assert list(_edges(planted)) == [(3, "grading", "import grading.models")]
