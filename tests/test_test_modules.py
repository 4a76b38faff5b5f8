"""No test module imports another (issue 37.7): what tests share lives in helper modules
(`tests/factories.py`, `tests/sockets.py`, `tests/interviews/worlds.py`, ...) or in a
`conftest.py` as fixtures, so running one test file never collects another's tests and a
helper has one home."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.processes import ROOT

TESTS = ROOT / "tests"


def _test_modules() -> list[Path]:
    return sorted(TESTS.rglob("test_*.py"))


def _imported_modules(path: Path, root: Path) -> Iterator[tuple[int, str]]:
    """Every module an import statement of `path` names (also inside functions), as a dotted
    name from the repository root; `from package import name` yields `package.name` too, since
    the name may be a module."""
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            yield node.lineno, module
            for alias in node.names:
                yield node.lineno, f"{module}.{alias.name}"


def _test_module_of(dotted: str) -> str | None:
    """The test module a dotted name is or lies in (`tests.a.test_b.name` → `tests.a.test_b`)."""
    parts = dotted.split(".")
    if parts[0] != "tests":
        return None
    for index, part in enumerate(parts):
        if part.startswith("test_"):
            return ".".join(parts[: index + 1])
    return None


def violations(paths: list[Path], root: Path = ROOT) -> list[str]:
    found: list[str] = []
    for path in paths:
        for line, module in _imported_modules(path, root):
            target = _test_module_of(module)
            entry = f"{path.relative_to(root)}:{line} imports {target}"
            if target and entry not in found:
                found.append(entry)
    return found


def test_no_test_module_imports_another() -> None:
    found = violations(_test_modules())
    assert found == [], (
        "a test module imports another; move what it shares into a helper module or a "
        "conftest.py fixture:\n" + "\n".join(found)
    )


def test_the_check_sees_every_form_of_import(tmp_path: Path) -> None:
    planted = tmp_path / "tests" / "privacy" / "test_planted_for_the_import_check.py"
    planted.parent.mkdir(parents=True)
    planted.write_text(
        "from tests.interviews.test_review import x\n"
        "from tests.interviews import test_review\n"
        "from .test_matrix import y\n"
        "def f():\n"
        "    import tests.grading.test_pipeline\n"
        "from tests.interviews.worlds import build_world\n"
    )
    found = violations([planted], root=tmp_path)
    name = "tests/privacy/test_planted_for_the_import_check.py"
    assert found == [
        f"{name}:1 imports tests.interviews.test_review",
        f"{name}:2 imports tests.interviews.test_review",
        f"{name}:3 imports tests.privacy.test_matrix",
        f"{name}:5 imports tests.grading.test_pipeline",
    ]
