"""The package model: its constants, its error and the frozen dataclasses a read returns."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from problems import kinds
from problems.constraints import Constraint

TAGS = ("correctness", "edge_cases", "performance")
COMPARES = ("exact", "float", "unordered", "checker")
DRIVERS = ("function", "ops", "custom")
# What a problem asks for is declared in problems.kinds (the registry); this is the list a
# package may name when the module is imported (problems.models re-exports it).
KINDS = kinds.KINDS
DESIGN = kinds.DESIGN_KIND.name
CRITERIA = (
    "clarifying_questions",
    "tradeoffs",
    "edge_cases",
    "correctness",
    "complexity",
    "code_quality",
    "communication",
    # A design round's criteria (tradeoffs above is one of them).
    "requirements",
    "estimation",
    "api_data_model",
    "architecture",
    "scaling",
    "failure_modes",
)
# What a design problem's rubric must cover, each with anchored levels (package_rules).
DESIGN_CRITERIA = (
    "requirements",
    "estimation",
    "api_data_model",
    "architecture",
    "scaling",
    "failure_modes",
    "tradeoffs",
)
# How each criterion is named on a page (the key is what packages and forms carry).
CRITERION_TITLES = {
    "clarifying_questions": "Clarifying questions",
    "tradeoffs": "Trade-offs",
    "edge_cases": "Edge cases",
    "correctness": "Correctness",
    "complexity": "Complexity",
    "code_quality": "Code quality",
    "communication": "Communication",
    "requirements": "Requirements",
    "estimation": "Estimation",
    "api_data_model": "API and data model",
    "architecture": "Architecture",
    "scaling": "Scaling and bottlenecks",
    "failure_modes": "Failure modes",
}


def criterion_title(criterion: str) -> str:
    """A criterion's title ("edge_cases" → "Edge cases"); an unknown key reads as words.
    Every surface that names a criterion (review page, report, PDF, share link, history)
    names it through here, so one criterion has one label."""
    return CRITERION_TITLES.get(criterion) or criterion.replace("_", " ").capitalize()


def tag_label(tag: str) -> str:
    """A test tag or group as words ("edge_cases" → "edge cases"), as a report shows it."""
    return " ".join(str(tag).replace("_", " ").split())


SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_SOURCE_BYTES = 256 * 1024
# The problem table's columns (problems/models.py): a longer one is refused here, by name.
MAX_SLUG_CHARS = 80
MAX_TITLE_CHARS = 200
MAX_TESTS_BYTES = 8 * 1024 * 1024


class PackageError(Exception):
    """A malformed package: the message names the file and the field."""

    def __init__(self, path: Path | str, field_name: str, problem: str) -> None:
        super().__init__(f"{path}: {field_name}: {problem}")
        self.path = str(path)
        self.field = field_name
        self.problem = problem

    def relative_to(self, base: Path) -> PackageError:
        """The same error with its path from `base` (`tiny/problem.toml`): the scratch folder
        a studio edit or an upload is read from is the server's business, never the author's."""
        for start in (base, base.resolve()):
            try:
                return PackageError(Path(self.path).relative_to(start), self.field, self.problem)
            except ValueError:
                continue
        return self


@dataclass(frozen=True)
class Limits:
    test_wall_seconds: float = 2.0
    test_cpu_seconds: float = 2.0
    memory_mb: int = 256
    output_bytes: int = 65536


@dataclass(frozen=True)
class Grading:
    driver: str
    entry: str
    compare: str
    float_rel: float = 1e-6
    float_abs: float = 1e-9


@dataclass(frozen=True)
class TestCase:
    name: str
    input: Any
    expected: Any
    tag: str
    hidden: bool
    compare: str | None = None
    # A finer label than the tag ("capacity", "work conservation"): candidates see hidden tests
    # only as pass counts per tag and per group.
    group: str | None = None
    # The seeded generator the input was made by ({"template": ..., "seed": n}; studio's
    # generators.py expands it), kept so the test can be rebuilt (issue 28.4).
    generator: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class WrongSolution:
    file: str
    verdict: str
    why: str
    code: str
    # Hidden-test groups it must fail, and words a failed hidden test's message must contain
    # (optional; the bank's grading test checks both).
    groups: tuple[str, ...] = ()
    says: str = ""

    def as_dict(self) -> dict[str, Any]:
        """Its stored form: the optional fields only when set (older rows stay equal)."""
        data: dict[str, Any] = {
            "file": self.file,
            "verdict": self.verdict,
            "why": self.why,
            "code": self.code,
        }
        if self.groups:
            data["groups"] = list(self.groups)
        if self.says:
            data["says"] = self.says
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WrongSolution:
        """From its stored form (``dataclasses.asdict``; older rows lack the optional fields)."""
        return cls(
            file=data["file"],
            verdict=data["verdict"],
            why=data.get("why", ""),
            code=data["code"],
            groups=tuple(data.get("groups", ())),
            says=data.get("says", ""),
        )


@dataclass(frozen=True)
class KnownSolution:
    """A solution known to be out there (leaked, posted): a submission that matches it is
    flagged for those who judge (grading/copies.py). `file` is its path in the package
    (`known/<name>.py`)."""

    file: str
    code: str

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "code": self.code}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> KnownSolution:
        return cls(file=str(data["file"]), code=str(data["code"]))


@dataclass(frozen=True)
class Clarification:
    question: str
    answer: str
    key: bool
    # Optional, for the solo mode's matcher (interviews/matching.py): other ways a candidate
    # may ask the same thing, and words that point to this question and to no other.
    also: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """As stored and exported: the optional fields only when set, so a package without
        them stores (and exports) exactly what it did before they existed."""
        out: dict[str, Any] = {"question": self.question, "answer": self.answer, "key": self.key}
        if self.also:
            out["also"] = list(self.also)
        if self.keywords:
            out["keywords"] = list(self.keywords)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Clarification:
        return cls(
            question=str(data["question"]),
            answer=str(data["answer"]),
            key=bool(data.get("key", False)),
            also=_strings(data.get("also", []), "also"),
            keywords=_strings(data.get("keywords", []), "keywords"),
        )


def _strings(value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{name} must be a list of strings")
    return tuple(value)


@dataclass(frozen=True)
class RubricCriterion:
    criterion: str
    weight: float
    strong: str
    levels: tuple[str, ...]


@dataclass(frozen=True)
class Package:
    slug: str
    title: str
    difficulty: str
    queue: str
    kind: str
    topics: tuple[str, ...]
    hints: tuple[str, ...]
    follow_ups: tuple[str, ...]
    statement_md: str
    starter_code: str
    reference_code: str
    limits: Limits
    grading: Grading
    public_tests: tuple[TestCase, ...]
    hidden_tests: tuple[TestCase, ...]
    wrong: tuple[WrongSolution, ...]
    clarifications: tuple[Clarification, ...]
    rubric: tuple[RubricCriterion, ...]
    driver_code: str = ""
    checker_code: str = ""
    support_code: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    # Custom-input runs show the reference solution's answer beside the candidate's (on for
    # practice problems; an author turns it off with `custom_reference = false`).
    custom_reference: bool = True
    # A design problem's reference board (reference/board.json): Excalidraw elements. Its
    # reference design text is reference_code (reference/design.md).
    reference_board: tuple[dict[str, Any], ...] = ()
    # The input constraints every test obeys (problems.constraints; issue 36.10): the
    # statement's "Constraints" list is rendered from them.
    constraints: tuple[Constraint, ...] = ()
    # Known solutions (known/*.py): matches against them are flagged too (issue 41.3).
    known: tuple[KnownSolution, ...] = ()

    @property
    def kind_spec(self) -> kinds.Kind:
        """Its kind, as the registry declares it (ask it; never compare the name)."""
        return kinds.kind_of(self.kind)

    @property
    def tests_hash(self) -> str:
        """Identifies the graded behaviour: tests, driver, checker, support and limits."""
        digest = hashlib.sha256()
        payload = {
            "public": [test_as_json(t) for t in self.public_tests],
            "hidden": [test_as_json(t) for t in self.hidden_tests],
            "driver": self.driver_code,
            "checker": self.checker_code,
            "support": self.support_code,
            "grading": self.grading.__dict__,
            "limits": self.limits.__dict__,
        }
        if self.constraints:  # (only when declared: older packages keep their hash)
            payload["constraints"] = [c.as_dict() for c in self.constraints]
        digest.update(json.dumps(payload, sort_keys=True, allow_nan=True).encode())
        return digest.hexdigest()[:16]


def test_as_json(test: TestCase) -> dict[str, Any]:
    """A test as stored in tests/*.json and in the database."""
    out: dict[str, Any] = {
        "name": test.name,
        "input": test.input,
        "expected": test.expected,
        "tag": test.tag,
    }
    if test.compare:
        out["compare"] = test.compare
    if test.group:
        out["group"] = test.group
    if test.generator:
        out["generator"] = dict(test.generator)
    return out

