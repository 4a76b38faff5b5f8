"""A version as the files of its package, and the difference between two of them.

The studio shows each version's contents and a diff against any other version, and a refused
save shows what changed since its base: all of them as the package's files (problem.toml,
statement.md, the code, one test per line, a design's board one element per line), so a
change reads the way it would in a review of the package folder.
"""

from __future__ import annotations

import difflib
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from problems.package import DESIGN_BOARD, Package, TestCase, package_write, test_as_json

# The order files are shown in; wrong solutions follow, by name.
_ORDER = ("problem.toml", "statement.md", "starter.py", "reference.py", "driver.py",
          "checker.py", "support.py", "tests/public.json", "tests/hidden.json")


def _tests_text(tests: tuple[TestCase, ...]) -> str:
    """One test per line, the comma leading (still JSON): adding a test at the end changes
    one line, not the one before it too."""
    lines = [json.dumps(test_as_json(t), allow_nan=True, ensure_ascii=False) for t in tests]
    if not lines:
        return "[]\n"
    return "[ " + "\n, ".join(lines) + "\n]\n"


def _board_text(elements: tuple[dict[str, Any], ...]) -> str:
    """A design's reference board, one element per line as the tests are: moving one element
    changes its line alone, so a diff (and a refused save's "what changed") names it."""
    lines = [json.dumps(e, sort_keys=True, ensure_ascii=False) for e in elements]
    return "[ " + "\n, ".join(lines) + "\n]\n" if lines else ""


def package_files(package: Package) -> dict[str, str]:
    """The package's files, path → text (one test per line, so a diff names the test)."""
    with tempfile.TemporaryDirectory(prefix="onsite-files-") as scratch:
        folder = package_write(package, scratch)
        toml = (folder / "problem.toml").read_text(encoding="utf-8")
    files = {
        "problem.toml": toml,
        "statement.md": package.statement_md,
        "starter.py": package.starter_code,
        "reference.py": package.reference_code,
        "driver.py": package.driver_code,
        "checker.py": package.checker_code,
        "support.py": package.support_code,
        "tests/public.json": _tests_text(package.public_tests),
        "tests/hidden.json": _tests_text(package.hidden_tests),
        DESIGN_BOARD: _board_text(package.reference_board),
    }
    files |= {w.file: w.code for w in sorted(package.wrong, key=lambda w: w.file)}
    files |= {k.file: k.code for k in sorted(package.known, key=lambda k: k.file)}
    return {path: text for path, text in files.items() if text or path in _ORDER[:4]}


@dataclass(frozen=True)
class DiffLine:
    kind: str  # hunk | add | del | same
    text: str


@dataclass(frozen=True)
class FileDiff:
    path: str
    status: str  # changed | added | removed
    lines: tuple[DiffLine, ...]
    added: int
    removed: int


def _kind(line: str) -> str:
    if line.startswith("@@"):
        return "hunk"
    return {"+": "add", "-": "del"}.get(line[:1], "same")


def files_diff(old: dict[str, str], new: dict[str, str], *, context: int = 3) -> list[FileDiff]:
    """A unified diff per file that differs, in the package's order."""
    paths = sorted(set(old) | set(new), key=lambda p: (_rank(p), p))
    diffs: list[FileDiff] = []
    for path in paths:
        before, after = old.get(path, ""), new.get(path, "")
        if before == after:
            continue
        raw = difflib.unified_diff(
            before.splitlines(), after.splitlines(), lineterm="", n=context
        )
        lines = tuple(DiffLine(_kind(line), line) for line in list(raw)[2:])  # no ---/+++
        status = "added" if path not in old else "removed" if path not in new else "changed"
        diffs.append(FileDiff(
            path=path,
            status=status,
            lines=lines,
            added=sum(1 for line in lines if line.kind == "add"),
            removed=sum(1 for line in lines if line.kind == "del"),
        ))
    return diffs


def _rank(path: str) -> int:
    if path in _ORDER:
        return _ORDER.index(path)
    return len(_ORDER) + (0 if Path(path).parts[0] == "wrong" else 1)


def packages_diff(old: Package, new: Package) -> list[FileDiff]:
    return files_diff(package_files(old), package_files(new))
