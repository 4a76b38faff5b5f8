"""What a problem asks for, declared once per kind: the registry every caller asks. Django-free.

A kind (implement, debug, design) says what it has and does: whether its code runs, whether
it has tests, whether its round is drawn on the shared board, the steps its studio validation
takes, the desk a session shows, the report sections it adds and the module of
`problems.package` that reads, checks and writes its own package parts. Callers ask the kind
(`kind_of(problem.kind).runs_code`), never compare its name: tests/problems/test_kinds.py
counts such comparisons outside this module and finds none.

A new kind is one module (its package part, with `read`, `write`, `rules`, `summary` and
`new_package`) plus its templates, and one `register` call.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

# The studio's validation steps (studio.services.validations runs them in this order).
GRADE_SOLUTIONS = "grade_solutions"  # reference, starter and known-wrong solutions on every test
PACKAGE_CHECKS = "package_checks"  # the package's rules, as one check of the report
LINT = "lint"  # the bank-quality rules, as the report's lint list


@dataclass(frozen=True)
class Kind:
    """One kind of problem and everything that differs by it."""

    name: str
    label: str  # as the studio's choices name it
    runs_code: bool  # a candidate's code is run and graded
    has_tests: bool  # public and hidden tests, known-wrong solutions, limits
    has_board: bool  # the round is drawn on the shared whiteboard, its board kept and reported
    validation_steps: tuple[str, ...]
    desk_template: str  # what a session shows where the work is done
    report_sections: tuple[str, ...]  # the report's sections this kind adds
    package_part: str  # the module of problems.package that reads and writes its parts
    # A solo round matches questions against the statement's figures too (estimates).
    matches_figures: bool = False
    # How a problem list and a problem page mark it ("" for none).
    badge: str = ""
    badge_title: str = ""
    badge_class: str = ""
    page_badge: str = ""

    def part(self) -> ModuleType:
        """Its package part (read, write, rules, summary, new_package)."""
        return importlib.import_module(self.package_part)

    def __str__(self) -> str:
        return self.name


_CODE_STEPS = (GRADE_SOLUTIONS, LINT)
_CODE_DESK = "frontend/_desk.html"

IMPLEMENT = Kind(
    name="implement", label="implement", runs_code=True, has_tests=True, has_board=False,
    validation_steps=_CODE_STEPS, desk_template=_CODE_DESK, report_sections=("code", "runs"),
    package_part="problems.package.code",
)
DEBUG = Kind(
    name="debug", label="debug", runs_code=True, has_tests=True, has_board=False,
    validation_steps=_CODE_STEPS, desk_template=_CODE_DESK, report_sections=("code", "runs"),
    package_part="problems.package.code",
    badge="debug", badge_title="The starter code has bugs to find",
    page_badge="debug: the starter code has bugs",
)
DESIGN_KIND = Kind(
    name="design", label="design (system design)", runs_code=False, has_tests=False,
    has_board=True, validation_steps=(PACKAGE_CHECKS, LINT),
    desk_template="interviews/_design_desk.html", report_sections=("board",),
    package_part="problems.package.design", matches_figures=True,
    badge="Design",
    badge_title="A system-design round on a shared whiteboard: nothing to run",
    badge_class="design",
)

_REGISTRY: dict[str, Kind] = {k.name: k for k in (IMPLEMENT, DEBUG, DESIGN_KIND)}

# The kinds a package may declare when this module is first imported (the models' and the
# studio's choices). `names()` is the live list, toy kinds of tests included.
KINDS: tuple[str, ...] = tuple(_REGISTRY)
DEFAULT = IMPLEMENT.name


def register(kind: Kind) -> Kind:
    """Add `kind` to the registry (a new kind; a test's toy kind)."""
    _REGISTRY[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    """Remove a kind `register` added (tests); the built-in kinds stay."""
    if name not in KINDS:
        _REGISTRY.pop(name, None)


def names() -> tuple[str, ...]:
    """Every registered kind's name, in registration order."""
    return tuple(_REGISTRY)


def find(name: Any) -> Kind | None:
    """The kind called `name`, or None (an unknown or missing name, as a form posts it)."""
    return _REGISTRY.get(name) if isinstance(name, str) else None


def kind_of(name: Any) -> Kind:
    """The kind called `name` (a problem's, a version's or a package's `kind`). A stored
    name no longer registered reads as the default kind rather than failing a page."""
    return find(name) or _REGISTRY[DEFAULT]


def names_where(**flags: bool) -> tuple[str, ...]:
    """The names of the kinds whose flags are as given (`names_where(has_board=True)`), for a
    database filter."""
    return tuple(k.name for k in _REGISTRY.values()
                 if all(getattr(k, flag) == value for flag, value in flags.items()))
