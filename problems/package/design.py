"""The package part of the design kind: a statement, a reference text and board, a rubric of
design criteria; nothing runs, so no tests, code or coverage map."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from problems.package.board import DESIGN_BOARD, read_board
from problems.package.fields import read_text
from problems.package.model import (
    DESIGN_CRITERIA,
    Grading,
    Limits,
    Package,
    PackageError,
    RubricCriterion,
    criterion_title,
)
from problems.package.rules import Rule
from problems.package.writer import meta_dict, toml_dump

DESIGN_TEXT = "reference/design.md"
# What a design package may not have: it is run by nobody, so code and tests would only
# mislead (and a coverage map maps statement clauses to tests, which it has none of; its
# rubric's seven criteria with anchored levels are what package_rules checks instead).
DESIGN_REFUSED_FILES = (
    "tests", "starter.py", "reference.py", "driver.py", "checker.py", "support.py", "wrong",
    "coverage.toml",
)
DESIGN_REFUSED_KEYS = ("grading", "limits", "wrong", "custom_reference")
# The grading a design version stores (ProblemVersion's driver and compare columns are
# required): nothing grades it, see grading.services' refusal.
DESIGN_GRADING = Grading(driver="custom", entry="", compare="exact")


def read(root: Path, meta: dict[str, Any], toml_path: Path, common: dict[str, Any]) -> Package:
    """A design package's own parts (`common` holds what every kind has)."""
    for key in DESIGN_REFUSED_KEYS:
        if key in meta:
            raise PackageError(toml_path, key, "a design problem has none (nothing is graded)")
    for name in DESIGN_REFUSED_FILES:
        if (root / name).exists():
            raise PackageError(
                root / name, "file", "a design problem has no tests, code or coverage map"
            )
    board_path = root / DESIGN_BOARD
    return Package(
        **common,
        starter_code="",
        reference_code=read_text(root / DESIGN_TEXT),
        limits=Limits(),
        grading=DESIGN_GRADING,
        public_tests=(),
        hidden_tests=(),
        wrong=(),
        reference_board=read_board(board_path),
    )


def _anchored(criterion: RubricCriterion) -> bool:
    """Whether a rubric row has its four levels written out (not left empty)."""
    return bool(criterion.strong.strip()) and all(
        len(level.strip()) > len("4: ") for level in criterion.levels
    )


def rules(package: Package) -> list[Rule]:
    """A design problem's rules: nothing runs, so its checks are all it has. A design
    version validates when every one is met (studio.services.validations)."""
    anchored = {r.criterion for r in package.rubric if _anchored(r)}
    missing = [c for c in DESIGN_CRITERIA if c not in anchored]
    return [
        Rule("statement", int(bool(package.statement_md.strip())), 1, "needs a statement"),
        Rule("reference design text", int(bool(package.reference_code.strip())), 1,
             "needs a reference design text (reference/design.md)"),
        Rule("reference board elements", len(package.reference_board), 1,
             "needs a reference board (reference/board.json)"),
        Rule("clarifying questions", len(package.clarifications), 4,
             "needs at least 4 clarifying questions"),
        Rule("hints", len(package.hints), 1, "needs at least 1 hint"),
        Rule("follow-ups", len(package.follow_ups), 1, "needs at least 1 follow-up"),
        Rule("design criteria with anchored levels",
             len(DESIGN_CRITERIA) - len(missing), len(DESIGN_CRITERIA),
             "rubric lacks anchored levels for: "
             + ", ".join(criterion_title(c) for c in missing)),
    ]



def write(package: Package, folder: Path) -> Path:
    """Write a design package's files into `folder`."""
    (folder / "reference").mkdir(parents=True, exist_ok=True)
    meta = {k: v for k, v in meta_dict(package).items() if k not in DESIGN_REFUSED_KEYS}
    (folder / "problem.toml").write_text(toml_dump(meta), encoding="utf-8")
    (folder / "statement.md").write_text(package.statement_md, encoding="utf-8")
    (folder / DESIGN_TEXT).write_text(package.reference_code, encoding="utf-8")
    board = json.dumps(list(package.reference_board), indent=1, ensure_ascii=False)
    (folder / DESIGN_BOARD).write_text(board + "\n", encoding="utf-8")
    return folder


def summary(package: Package) -> str:
    """One line of `python -m problems.package check`."""
    return (f"{package.kind}, {len(package.clarifications)} clarifications, "
            f"{len(package.reference_board)} board elements")


STATEMENT_TEMPLATE = """# {title}

Describe the system to design and what it must do.

Figures to estimate from:

- how many users or clients, and requests per second at peak;
- the size of a request and of a response;
- the hardware each part runs on and what one unit of it handles.

Draw the architecture on the board and keep your estimates in the notes pane.
"""
REFERENCE_TEMPLATE = """# Reference design: {title}

## Requirements
## Estimates
## API and data model
## Architecture
## Scaling and bottlenecks
## Failure modes
## Tradeoffs
"""


def new_package(*, slug: str, title: str, difficulty: str, queue: str, kind: str,
                topics: tuple[str, ...], entry: str) -> Package:
    """A new design problem's package: a statement and reference text to fill in, an empty
    board; no tests or code. It is well formed from the first save, and its package checks
    (rubric, clarifications, hints...) list what it still needs."""
    return Package(
        slug=slug, title=title, difficulty=difficulty, queue="cpu", kind=kind,
        topics=tuple(topics), hints=(), follow_ups=(),
        statement_md=STATEMENT_TEMPLATE.format(title=title), starter_code="",
        reference_code=REFERENCE_TEMPLATE.format(title=title), limits=Limits(),
        grading=DESIGN_GRADING, public_tests=(), hidden_tests=(), wrong=(),
        clarifications=(), rubric=(),
    )
