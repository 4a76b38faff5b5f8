"""A problem's coverage map: each clause of its statement and the tests that exercise it.

`coverage.toml` sits in the package folder beside problem.toml. Every rule, every edge case the
statement names and every freedom it allows is a `[[clause]]`; each lists the tests (names in
tests/hidden.json, public.json names allowed too) that a solution violating the clause fails:

    [[clause]]
    id = "stop-token-zero"                              # kebab-case, unique in the file
    text = "A stop token may be any id, including 0."   # the statement's clause, paraphrased
    tests = ["edge cases: stop token 0, B=2"]

`coverage_read` returns typed clauses or raises `PackageError` naming the file and the field,
as the rest of the package reader does. A bank problem must have a complete map (its bank test
says so); a studio draft may have none, but one it has is checked on every read. Django-free.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from problems.package.fields import tables
from problems.package.model import MAX_SOURCE_BYTES, PackageError

COVERAGE_FILE = "coverage.toml"
CLAUSE_ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_CLAUSE_ID = 60
CLAUSE_KEYS = frozenset({"id", "text", "tests"})


@dataclass(frozen=True)
class Clause:
    """One clause of a statement and the names of the tests that exercise it."""

    id: str
    text: str
    tests: tuple[str, ...]


def coverage_parse(
    text: str, *, path: Path | str, test_names: Collection[str]
) -> tuple[Clause, ...]:
    """Parse coverage.toml `text` (read from `path`, named in errors) against the package's
    test names. Raises PackageError on bad TOML, a missing or malformed id/text/tests, a
    duplicate id, a clause naming no test, or a name that is no test of the package."""
    try:
        meta = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PackageError(path, "file", f"invalid TOML ({exc})") from exc
    unknown = sorted(set(meta) - {"clause"})
    if unknown:
        raise PackageError(path, unknown[0], "unknown key (only [[clause]] tables)")
    clauses: list[Clause] = []
    seen: set[str] = set()
    for where, item in tables(meta, "clause", path, hint=" ([[clause]])"):
        clause = _clause(item, where, path, test_names)
        if clause.id in seen:
            raise PackageError(path, where + "id", f"duplicate id {clause.id!r}")
        seen.add(clause.id)
        clauses.append(clause)
    if not clauses:
        raise PackageError(path, "clause", "no clauses (a map lists at least one)")
    return tuple(clauses)


def _clause(
    item: dict[str, Any], where: str, path: Path | str, test_names: Collection[str]
) -> Clause:
    extra = sorted(set(item) - CLAUSE_KEYS)
    if extra:
        raise PackageError(path, where + extra[0], "unknown key (id, text, tests)")
    for key in ("id", "text", "tests"):
        if key not in item:
            raise PackageError(path, where + key, "missing")
    clause_id, text, tests = item["id"], item["text"], item["tests"]
    if not (
        isinstance(clause_id, str)
        and len(clause_id) <= MAX_CLAUSE_ID
        and CLAUSE_ID_RE.match(clause_id)
    ):
        raise PackageError(
            path, where + "id", f"must be a short kebab-case string, got {clause_id!r}"
        )
    if not (isinstance(text, str) and text.strip()):
        raise PackageError(path, where + "text", "must be a non-empty string")
    if not (isinstance(tests, list) and all(isinstance(t, str) and t for t in tests)):
        raise PackageError(path, where + "tests", "must be a list of test names")
    if not tests:
        raise PackageError(path, where + "tests", f"clause {clause_id!r} names no test")
    for name in tests:
        if name not in test_names:
            raise PackageError(path, where + "tests", f"{name!r} is not a test of this package")
    return Clause(clause_id, text.strip(), tuple(tests))


def coverage_read(
    root: Path | str, *, test_names: Collection[str], required: bool
) -> tuple[Clause, ...]:
    """The coverage map of the package folder `root` (() when absent and not `required`)."""
    path = Path(root) / COVERAGE_FILE
    if not path.exists():
        if required:
            raise PackageError(path, "file", "missing (every bank problem maps its clauses)")
        return ()
    if path.stat().st_size > MAX_SOURCE_BYTES:
        raise PackageError(path, "file", f"larger than {MAX_SOURCE_BYTES} bytes")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise PackageError(path, "file", f"not UTF-8 ({exc.reason})") from exc
    return coverage_parse(text, path=path, test_names=test_names)
