"""Problem packages on disk: read, validate and write them. Django-free.

A package is a folder (see docs/architecture.md). `package_read` returns a frozen `Package` or
raises `PackageError` naming the file and the field, so nothing is ever half-loaded.

The modules: `model` (constants, the error, the dataclasses), `fields` (bounded reads of files
and fields, the one JSON reader), `reader` (the parts every kind has), one part per kind
(`code` for implement and debug, with its `checks`; `design`, with its `board`), `coverage`
(a code package's coverage map), `rules` (bank-quality rules), `writer` (folders and TOML) and
`__main__` (the `check` command). Which part a package's kind uses is problems.kinds' to say.
This module names what callers import.
"""

from problems.package.board import (
    BOARD_TYPES,
    DESIGN_BOARD,
    MAX_BOARD_BYTES,
    MAX_BOARD_ELEMENTS,
    MAX_BOARD_ID_CHARS,
    MAX_BOARD_TEXT_CHARS,
    board_check,
)
from problems.package.checks import driver_input_check
from problems.package.design import (
    DESIGN_GRADING,
    DESIGN_REFUSED_FILES,
    DESIGN_REFUSED_KEYS,
    DESIGN_TEXT,
)
from problems.package.design import rules as design_rules
from problems.package.fields import MAX_PHRASE_CHARS, MAX_PHRASES, read_json
from problems.package.model import (
    COMPARES,
    CRITERIA,
    CRITERION_TITLES,
    DESIGN,
    DESIGN_CRITERIA,
    DRIVERS,
    KINDS,
    MAX_SLUG_CHARS,
    MAX_SOURCE_BYTES,
    MAX_TESTS_BYTES,
    MAX_TITLE_CHARS,
    SLUG_RE,
    TAGS,
    Clarification,
    Grading,
    KnownSolution,
    Limits,
    Package,
    PackageError,
    RubricCriterion,
    TestCase,
    WrongSolution,
    criterion_title,
    tag_label,
    test_as_json,
)
from problems.package.reader import package_read
from problems.package.rules import Rule, package_lint, package_rules
from problems.package.writer import package_write

__all__ = [
    "BOARD_TYPES",
    "COMPARES",
    "CRITERIA",
    "CRITERION_TITLES",
    "DESIGN",
    "DESIGN_BOARD",
    "DESIGN_CRITERIA",
    "DESIGN_GRADING",
    "DESIGN_REFUSED_FILES",
    "DESIGN_REFUSED_KEYS",
    "DESIGN_TEXT",
    "DRIVERS",
    "KINDS",
    "MAX_BOARD_BYTES",
    "MAX_BOARD_ELEMENTS",
    "MAX_BOARD_ID_CHARS",
    "MAX_BOARD_TEXT_CHARS",
    "MAX_PHRASES",
    "MAX_PHRASE_CHARS",
    "MAX_SLUG_CHARS",
    "MAX_SOURCE_BYTES",
    "MAX_TESTS_BYTES",
    "MAX_TITLE_CHARS",
    "SLUG_RE",
    "TAGS",
    "Clarification",
    "Grading",
    "KnownSolution",
    "Limits",
    "Package",
    "PackageError",
    "RubricCriterion",
    "Rule",
    "TestCase",
    "WrongSolution",
    "board_check",
    "criterion_title",
    "design_rules",
    "driver_input_check",
    "package_lint",
    "package_read",
    "package_rules",
    "package_write",
    "read_json",
    "tag_label",
    "test_as_json",
]
