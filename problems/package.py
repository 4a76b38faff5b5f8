"""Problem packages on disk: read, validate and write them. Django-free.

A package is a folder (see docs/architecture.md). `package_read` returns a frozen `Package` or
raises `PackageError` naming the file and the field, so nothing is ever half-loaded.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import re
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.verdicts import PRIORITY as VERDICTS
from problems.constraints import (
    Constraint,
    ConstraintError,
    constraints_from_list,
    violations_in_tests,
)
from problems.coverage import coverage_read
from problems.packageerror import MAX_SOURCE_BYTES, PackageError

TAGS = ("correctness", "edge_cases", "performance")
COMPARES = ("exact", "float", "unordered", "checker")
DRIVERS = ("function", "ops", "custom")
# What a problem asks for: code that passes tests ("implement"), a fix to given code ("debug"),
# or a system design drawn on the shared board, scored by its rubric alone ("design").
# (problems.models re-exports these: this module stays Django-free.)
KINDS = ("implement", "debug", "design")
DESIGN = "design"
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
# The problem table's columns (problems/models.py): a longer one is refused here, by name.
MAX_SLUG_CHARS = 80
MAX_TITLE_CHARS = 200
MAX_TESTS_BYTES = 8 * 1024 * 1024


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

    @property
    def is_design(self) -> bool:
        return self.kind == DESIGN

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


# ---------------------------------------------------------------- reading


def _read_text(path: Path, *, required: bool = True) -> str:
    try:
        size = path.stat().st_size if path.exists() else None
    except OSError:  # a name longer than the file system takes, a component that is a file
        raise PackageError(path, "file", "not a readable file") from None
    if size is None:
        if required:
            raise PackageError(path, "file", "missing")
        return ""
    if size > MAX_SOURCE_BYTES:
        raise PackageError(path, "file", f"larger than {MAX_SOURCE_BYTES} bytes")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise PackageError(path, "file", f"not UTF-8 ({exc.reason})") from exc
    except OSError:  # a folder where the file belongs, an unreadable file
        raise PackageError(path, "file", "not a readable file") from None


def _require(meta: dict[str, Any], key: str, kind: type, path: Path, where: str = "") -> Any:
    name = f"{where}{key}"
    if key not in meta:
        raise PackageError(path, name, "missing")
    value = meta[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise PackageError(path, name, f"must be {kind.__name__}, got {type(value).__name__}")
    return value


def _number(
    raw: dict[str, Any], key: str, path: Path, *, where: str, default: float, integer: bool = False
) -> Any:
    """`raw[key]` as a finite number (an int where `integer`), else PackageError naming it."""
    value = raw.get(key, default)
    name = f"{where}{key}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        kind = "an integer" if integer else "a number"
        raise PackageError(path, name, f"must be {kind}, got {type(value).__name__} {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise PackageError(path, name, f"must be a finite number, got {value!r}")
    if integer:
        if isinstance(value, float) and not value.is_integer():
            raise PackageError(path, name, f"must be an integer, got {value!r}")
        return int(value)
    try:
        return float(value)
    except OverflowError:  # TOML integers have no size limit; floats do
        raise PackageError(path, name, "is far out of range") from None


def _table(item: Any, path: Path, name: str) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise PackageError(path, name, f"must be a table, got {type(item).__name__}")
    return item


def _title(meta: dict[str, Any], path: Path) -> str:
    title = _require(meta, "title", str, path)
    if not 0 < len(title.strip()) <= MAX_TITLE_CHARS:
        raise PackageError(path, "title", f"must be 1 to {MAX_TITLE_CHARS} characters")
    return str(title)


def _require_bool(meta: dict[str, Any], key: str, path: Path, *, default: bool) -> bool:
    value = meta.get(key, default)
    if not isinstance(value, bool):
        raise PackageError(path, key, f"must be true or false, got {type(value).__name__}")
    return value


def _str_list(meta: dict[str, Any], key: str, path: Path, minimum: int = 0) -> tuple[str, ...]:
    value = meta.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise PackageError(path, key, "must be a list of non-empty strings")
    if len(value) < minimum:
        raise PackageError(path, key, f"needs at least {minimum}, has {len(value)}")
    return tuple(value)


def _choice(value: str, allowed: tuple[str, ...], path: Path, name: str) -> str:
    if value not in allowed:
        raise PackageError(path, name, f"{value!r} is not one of {', '.join(allowed)}")
    return value


def _read_limits(meta: dict[str, Any], path: Path) -> Limits:
    raw = meta.get("limits", {})
    if not isinstance(raw, dict):
        raise PackageError(path, "limits", "must be a table")
    where = "limits."
    limits = Limits(
        test_wall_seconds=_number(raw, "test_wall_seconds", path, where=where, default=2.0),
        test_cpu_seconds=_number(raw, "test_cpu_seconds", path, where=where, default=2.0),
        memory_mb=_number(raw, "memory_mb", path, where=where, default=256, integer=True),
        output_bytes=_number(raw, "output_bytes", path, where=where, default=65536,
                             integer=True),
    )
    bounds = {
        "test_wall_seconds": (0.1, 120.0),
        "test_cpu_seconds": (0.1, 120.0),
        "memory_mb": (32, 8192),
        "output_bytes": (1024, 16 * 1024 * 1024),
    }
    for name, (low, high) in bounds.items():
        value = getattr(limits, name)
        if not low <= value <= high:
            raise PackageError(path, f"limits.{name}", f"{value} outside [{low}, {high}]")
    return limits


def _read_grading(meta: dict[str, Any], path: Path) -> Grading:
    raw = meta.get("grading")
    if not isinstance(raw, dict):
        raise PackageError(path, "grading", "missing table")
    driver = _choice(
        _require(raw, "driver", str, path, "grading."), DRIVERS, path, "grading.driver"
    )
    entry = raw.get("entry", "")
    if driver != "custom" and not (isinstance(entry, str) and entry.isidentifier()):
        raise PackageError(path, "grading.entry", "must name a function or class")
    compare = _choice(
        _require(raw, "compare", str, path, "grading."), COMPARES, path, "grading.compare"
    )
    tolerances = {
        key: _number(raw, key, path, where="grading.", default=default)
        for key, default in (("float_rel", 1e-6), ("float_abs", 1e-9))
    }
    for key, value in tolerances.items():
        if value < 0:
            raise PackageError(path, f"grading.{key}", f"must not be negative, got {value!r}")
    return Grading(
        driver=driver,
        entry=entry if isinstance(entry, str) else "",
        compare=compare,
        float_rel=tolerances["float_rel"],
        float_abs=tolerances["float_abs"],
    )


def _read_tests(path: Path, *, hidden: bool, minimum: int) -> tuple[TestCase, ...]:
    if not path.exists():
        raise PackageError(path, "file", "missing")
    if path.stat().st_size > MAX_TESTS_BYTES:
        raise PackageError(path, "file", f"larger than {MAX_TESTS_BYTES} bytes")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise PackageError(path, "file", f"invalid JSON ({exc})") from exc
    except RecursionError:
        raise PackageError(path, "file", "invalid JSON (nested too deeply)") from None
    except OSError:
        raise PackageError(path, "file", "not a readable file") from None
    if not isinstance(raw, list):
        raise PackageError(path, "file", "must be a JSON list of tests")
    if len(raw) < minimum:
        raise PackageError(path, "tests", f"needs at least {minimum}, has {len(raw)}")
    tests = []
    for index, item in enumerate(raw):
        where = f"[{index}]."
        if not isinstance(item, dict):
            raise PackageError(path, f"[{index}]", "must be an object")
        name = _require(item, "name", str, path, where)
        if "input" not in item:
            raise PackageError(path, f"{where}input", "missing")
        if "expected" not in item:
            raise PackageError(path, f"{where}expected", "missing")
        tag = item.get("tag", "correctness" if not hidden else None)
        if tag is None:
            raise PackageError(path, f"{where}tag", "missing (hidden tests need a tag)")
        _choice(tag, TAGS, path, f"{where}tag")
        compare = item.get("compare")
        if compare is not None:
            _choice(compare, COMPARES, path, f"{where}compare")
        group = item.get("group")
        if group is not None and not (isinstance(group, str) and 0 < len(group) <= 60):
            raise PackageError(path, f"{where}group", "must be a short string")
        generator = item.get("generator")
        if generator is not None and not (
            isinstance(generator, dict)
            and set(generator) == {"template", "seed"}
            and isinstance(generator["seed"], int)
            and not isinstance(generator["seed"], bool)
            and generator["seed"] >= 0
        ):
            raise PackageError(
                path, f"{where}generator", 'must be {"template": ..., "seed": a whole number}'
            )
        tests.append(
            TestCase(name, item["input"], item["expected"], tag, hidden, compare, group, generator)
        )
    return tuple(tests)


def _read_wrong(meta: dict[str, Any], root: Path, path: Path) -> tuple[WrongSolution, ...]:
    raw = meta.get("wrong", [])
    if not isinstance(raw, list):
        raise PackageError(path, "wrong", "must be an array of tables")
    wrong = []
    for index, item in enumerate(raw):
        where = f"wrong[{index}]."
        item = _table(item, path, f"wrong[{index}]")
        file = _require(item, "file", str, path, where)
        verdict = _choice(
            _require(item, "verdict", str, path, where), VERDICTS, path, where + "verdict"
        )
        if verdict == "AC":
            raise PackageError(path, where + "verdict", "a known-wrong solution cannot expect AC")
        try:
            if any(len(part.encode()) > 255 for part in Path(file).parts):
                raise ValueError("a part longer than a file name")
            target = (root / file).resolve()
        except (OSError, ValueError):  # a NUL byte in the name, a link loop, a name too long
            raise PackageError(path, where + "file", "not a file name") from None
        if root.resolve() not in target.parents:
            raise PackageError(path, where + "file", "must stay inside the package")
        groups = item.get("groups", [])
        if not (
            isinstance(groups, list)
            and all(isinstance(g, str) and 0 < len(g) <= 60 for g in groups)
        ):
            raise PackageError(path, where + "groups", "must be a list of group names")
        says = item.get("says", "")
        if not (isinstance(says, str) and len(says) <= 200):
            raise PackageError(path, where + "says", "must be a short string")
        wrong.append(
            WrongSolution(
                file,
                verdict,
                str(item.get("why", "")),
                _read_text(target),
                groups=tuple(groups),
                says=says,
            )
        )
    return tuple(wrong)


def _read_clarifications(meta: dict[str, Any], path: Path) -> tuple[Clarification, ...]:
    raw = meta.get("clarification", [])
    if not isinstance(raw, list):
        raise PackageError(path, "clarification", "must be an array of tables")
    out = []
    for index, item in enumerate(raw):
        where = f"clarification[{index}]."
        item = _table(item, path, f"clarification[{index}]")
        question = _require(item, "question", str, path, where)
        answer = _require(item, "answer", str, path, where)
        out.append(Clarification(
            question, answer, bool(item.get("key", False)),
            also=_phrases(item, "also", path, where),
            keywords=_phrases(item, "keywords", path, where),
        ))
    return tuple(out)


MAX_PHRASES = 20
MAX_PHRASE_CHARS = 300


def _phrases(item: dict[str, Any], key: str, path: Path, where: str) -> tuple[str, ...]:
    """An optional list of short non-empty strings (a clarification's `also` or `keywords`)."""
    value = item.get(key, [])
    if (not isinstance(value, list) or len(value) > MAX_PHRASES
            or not all(isinstance(v, str) and 0 < len(v.strip()) <= MAX_PHRASE_CHARS
                       for v in value)):
        raise PackageError(path, where + key, f"must be a list of at most {MAX_PHRASES} "
                           f"non-empty strings of at most {MAX_PHRASE_CHARS} characters")
    return tuple(v.strip() for v in value)


def _read_rubric(meta: dict[str, Any], path: Path) -> tuple[RubricCriterion, ...]:
    raw = meta.get("rubric", [])
    if not isinstance(raw, list):
        raise PackageError(path, "rubric", "must be an array of tables")
    out = []
    for index, item in enumerate(raw):
        where = f"rubric[{index}]."
        item = _table(item, path, f"rubric[{index}]")
        criterion = _choice(
            _require(item, "criterion", str, path, where), CRITERIA, path, where + "criterion"
        )
        weight = _number(item, "weight", path, where=where, default=1.0)
        if not weight > 0:
            raise PackageError(path, where + "weight", "must be a positive number")
        levels = item.get("levels", [])
        if not (
            isinstance(levels, list)
            and len(levels) == 4
            and all(isinstance(v, str) for v in levels)
        ):
            raise PackageError(path, where + "levels", "must be 4 strings (levels 1..4)")
        strong = _require(item, "strong", str, path, where)
        out.append(RubricCriterion(criterion, weight, strong, tuple(levels)))
    return tuple(out)


def package_read(root: Path | str) -> Package:
    """Read and validate the package folder at `root`. Raises PackageError, whose path starts
    at the package's folder (`tiny/tests/public.json`), never above it."""
    root = Path(root)
    try:
        return _package_read(root)
    except PackageError as exc:
        raise exc.relative_to(root.parent) from None


def _package_read(root: Path) -> Package:
    toml_path = root / "problem.toml"
    if not root.is_dir():
        raise PackageError(root, "folder", "not a directory")
    try:
        meta = tomllib.loads(_read_text(toml_path))
    except tomllib.TOMLDecodeError as exc:
        raise PackageError(toml_path, "file", f"invalid TOML ({exc})") from exc
    except RecursionError:
        raise PackageError(toml_path, "file", "invalid TOML (nested too deeply)") from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise PackageError(toml_path, "file", f"invalid TOML ({exc})") from None
    slug = _require(meta, "slug", str, toml_path)
    if not SLUG_RE.match(slug):
        raise PackageError(toml_path, "slug", "must be lowercase words joined by '-'")
    if len(slug) > MAX_SLUG_CHARS:
        raise PackageError(toml_path, "slug", f"longer than {MAX_SLUG_CHARS} characters")
    if slug != root.name:
        raise PackageError(
            toml_path, "slug", f"{slug!r} differs from the folder name {root.name!r}"
        )
    kind = _choice(meta.get("kind", "implement"), KINDS, toml_path, "kind")
    common = {
        "slug": slug,
        "title": _title(meta, toml_path),
        "difficulty": _choice(
            meta.get("difficulty", "medium"), ("easy", "medium", "hard"), toml_path, "difficulty"
        ),
        "queue": _choice(meta.get("queue", "cpu"), ("cpu", "gpu"), toml_path, "queue"),
        "kind": kind,
        "topics": _str_list(meta, "topics", toml_path),
        "hints": _str_list(meta, "hints", toml_path),
        "follow_ups": _str_list(meta, "follow_ups", toml_path),
        "statement_md": _read_text(root / "statement.md"),
        "clarifications": _read_clarifications(meta, toml_path),
        "rubric": _read_rubric(meta, toml_path),
    }
    if kind == DESIGN:
        return _design_read(root, meta, toml_path, common)
    grading = _read_grading(meta, toml_path)
    package = Package(
        **common,
        starter_code=_read_text(root / "starter.py"),
        reference_code=_read_text(root / "reference.py"),
        limits=_read_limits(meta, toml_path),
        grading=grading,
        public_tests=_read_tests(root / "tests" / "public.json", hidden=False, minimum=1),
        hidden_tests=_read_tests(root / "tests" / "hidden.json", hidden=True, minimum=0),
        wrong=_read_wrong(meta, root, toml_path),
        driver_code=_read_text(root / "driver.py", required=grading.driver == "custom"),
        checker_code=_read_text(root / "checker.py", required=grading.compare == "checker"),
        support_code=_read_text(root / "support.py", required=False),
        custom_reference=_require_bool(meta, "custom_reference", toml_path, default=True),
        constraints=_read_constraints(meta, toml_path),
    )
    _check_unique_names(package, root)
    _check_constraints(package, root)
    _check_sources_compile(package, root)
    _check_input_check_signature(package, root)
    _check_coverage(package, root)
    return package


def _read_constraints(meta: dict[str, Any], path: Path) -> tuple[Constraint, ...]:
    try:
        return constraints_from_list(meta.get("constraints"))
    except ConstraintError as exc:
        raise PackageError(path, "constraints", str(exc)) from None


def _check_constraints(package: Package, root: Path) -> None:
    """Every test input obeys the declared constraints (the first few that do not are named)."""
    lists = (("public.json", package.public_tests), ("hidden.json", package.hidden_tests))
    for name, tests in lists:
        if problems := violations_in_tests(package.constraints, tests):
            more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
            raise PackageError(
                root / "tests" / name, "input", "; ".join(problems[:3]) + more
            )


def driver_input_check(driver_code: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """A custom driver's own input check: its top-level `check_input`, read, never run (the
    last definition wins, as at import). None when it has none or does not compile."""
    try:
        tree = ast.parse(driver_code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found: ast.stmt | None = None
    for node in tree.body:
        kinds = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
        if isinstance(node, kinds) and node.name == "check_input":
            found = node
    return found if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef) else None


def _check_input_check_signature(package: Package, root: Path) -> None:
    """A driver's check_input is called with one test's input and nothing else."""
    node = driver_input_check(package.driver_code)
    if node is None:
        return
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    required = len(positional) - len(args.defaults)
    kw_required = [a for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is None]
    if (
        isinstance(node, ast.AsyncFunctionDef)
        or kw_required
        or not (required == 1 or (required == 0 and (positional or args.vararg)))
    ):
        raise PackageError(
            root / "driver.py",
            f"line {node.lineno}",
            "check_input must be a plain function taking one argument (a test's input) and "
            "returning a sentence saying what is wrong with it, or None",
        )


# ---------------------------------------------------------------- design problems

DESIGN_TEXT = "reference/design.md"
DESIGN_BOARD = "reference/board.json"
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
# Excalidraw element types a reference board may hold. Images, embeds and iframes are left
# out: their content lives outside the element (files, URLs), and nothing loads from outside.
BOARD_TYPES = (
    "rectangle", "diamond", "ellipse", "arrow", "line", "freedraw", "text", "frame",
    "magicframe",
)
MAX_BOARD_BYTES = 1024 * 1024
MAX_BOARD_ELEMENTS = 2000
MAX_BOARD_ID_CHARS = 100
MAX_BOARD_TEXT_CHARS = 5000


def _design_read(
    root: Path, meta: dict[str, Any], toml_path: Path, common: dict[str, Any]
) -> Package:
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
        reference_code=_read_text(root / DESIGN_TEXT),
        limits=Limits(),
        grading=DESIGN_GRADING,
        public_tests=(),
        hidden_tests=(),
        wrong=(),
        reference_board=_read_board(board_path),
    )


def _read_board(path: Path) -> tuple[dict[str, Any], ...]:
    if not path.exists():
        raise PackageError(path, "file", "missing")
    if not path.is_file():
        raise PackageError(path, "file", "not a readable file")
    if path.stat().st_size > MAX_BOARD_BYTES:
        raise PackageError(path, "file", f"larger than {MAX_BOARD_BYTES} bytes")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise PackageError(path, "file", f"invalid JSON ({exc})") from exc
    except RecursionError:
        raise PackageError(path, "file", "invalid JSON (nested too deeply)") from None
    except OSError:
        raise PackageError(path, "file", "not a readable file") from None
    return board_check(raw, path)


def board_check(raw: Any, path: Path | str = DESIGN_BOARD) -> tuple[dict[str, Any], ...]:
    """`raw` as a reference board: a list of Excalidraw elements, each an object with a unique
    string id, a known type, finite coordinates and sizes, and (a text) a string text. Raises
    PackageError naming `path` and the element's field (`[3].type`)."""
    if not isinstance(raw, list):
        raise PackageError(path, "file", "must be a JSON list of Excalidraw elements")
    if len(raw) > MAX_BOARD_ELEMENTS:
        raise PackageError(path, "elements", f"more than {MAX_BOARD_ELEMENTS} elements")
    seen: set[str] = set()
    for index, element in enumerate(raw):
        where = f"[{index}]"
        if not isinstance(element, dict):
            raise PackageError(path, where, "must be an object (an Excalidraw element)")
        ident = element.get("id")
        if not isinstance(ident, str) or not 0 < len(ident) <= MAX_BOARD_ID_CHARS:
            raise PackageError(path, f"{where}.id", f"must be a string of 1 to "
                               f"{MAX_BOARD_ID_CHARS} characters")
        if ident in seen:
            raise PackageError(path, f"{where}.id", f"duplicate element id {ident!r}")
        seen.add(ident)
        kind = element.get("type")
        if not isinstance(kind, str) or kind not in BOARD_TYPES:
            raise PackageError(path, f"{where}.type", f"{kind!r} is not one of "
                               f"{', '.join(BOARD_TYPES)}")
        for key in ("x", "y", "width", "height", "angle"):
            value = element.get(key, 0)
            if (isinstance(value, bool) or not isinstance(value, (int, float))
                    or not math.isfinite(value) or abs(value) > 1e7):
                raise PackageError(path, f"{where}.{key}", "must be a finite number")
        for key in ("text", "originalText"):
            text = element.get(key)
            if text is not None and not (
                isinstance(text, str) and len(text) <= MAX_BOARD_TEXT_CHARS
            ):
                raise PackageError(path, f"{where}.{key}", f"must be a string of at most "
                                   f"{MAX_BOARD_TEXT_CHARS} characters")
        if kind == "text" and not isinstance(element.get("text"), str):
            raise PackageError(path, f"{where}.text", "missing (a text element has a text)")
        points = element.get("points")
        if points is not None and not (
            isinstance(points, list)
            and all(
                isinstance(p, list) and len(p) == 2
                and all(isinstance(c, (int, float)) and not isinstance(c, bool)
                        and math.isfinite(c) for c in p)
                for p in points
            )
        ):
            raise PackageError(path, f"{where}.points", "must be a list of [x, y] numbers")
        if kind in ("arrow", "line", "freedraw") and not points:
            raise PackageError(path, f"{where}.points", "missing (a line or arrow has points)")
    return tuple(raw)


def _check_coverage(package: Package, root: Path) -> None:
    """A coverage.toml, where the folder has one, must name only this package's tests (the
    bank test requires one per bank problem; a studio draft may have none)."""
    names = {t.name for t in package.public_tests + package.hidden_tests}
    coverage_read(root, test_names=names, required=False)


def _check_unique_names(package: Package, root: Path) -> None:
    seen: set[str] = set()
    for test in package.public_tests + package.hidden_tests:
        if test.name in seen:
            where = "hidden.json" if test.hidden else "public.json"
            raise PackageError(root / "tests" / where, "name", f"duplicate test name {test.name!r}")
        seen.add(test.name)


def _check_sources_compile(package: Package, root: Path) -> None:
    sources = {
        "starter.py": package.starter_code,
        "reference.py": package.reference_code,
        "driver.py": package.driver_code,
        "checker.py": package.checker_code,
        "support.py": package.support_code,
    }
    sources.update({w.file: w.code for w in package.wrong})
    for name, code in sources.items():
        try:
            compile(code, name, "exec")
        except SyntaxError as exc:
            raise PackageError(
                root / name, f"line {exc.lineno}", f"syntax error: {exc.msg}"
            ) from exc
        except (ValueError, RecursionError, MemoryError) as exc:  # a NUL byte, absurd nesting
            raise PackageError(root / name, "file", f"not Python source ({exc})") from None


@dataclass(frozen=True)
class Rule:
    """One bank-quality rule and where a package stands on it ("hidden tests: 7/12")."""

    what: str  # what the rule counts, e.g. "hidden tests"
    have: int
    need: int
    issue: str  # package_lint's complaint while it is not met

    @property
    def ok(self) -> bool:
        return self.have >= self.need


def package_rules(package: Package) -> list[Rule]:
    """Every bank-quality rule a published problem needs, with the package's count on each.

    The one list of these rules: package_lint is the unmet ones, and the studio shows them all
    on its editor pages before any validation."""
    if package.is_design:
        return design_rules(package)
    tags = [t.tag for t in package.hidden_tests]
    return [
        Rule("public tests", len(package.public_tests), 3, "needs at least 3 public tests"),
        Rule("hidden tests", len(package.hidden_tests), 12, "needs at least 12 hidden tests"),
        Rule("known-wrong solutions", len(package.wrong), 2,
             "needs at least 2 known-wrong solutions"),
        Rule("clarifying questions", len(package.clarifications), 4,
             "needs at least 4 clarifying questions"),
        Rule("hints", len(package.hints), 2, "needs at least 2 hints"),
        Rule("rubric criteria", len(package.rubric), 1, "needs rubric anchors"),
        *(
            Rule(f"hidden tests tagged {tag}", tags.count(tag), 1, f"no hidden test tagged {tag}")
            for tag in ("correctness", "edge_cases")
        ),
        *_driver_rules(package),
    ]


def _driver_rules(package: Package) -> list[Rule]:
    """A custom driver names what is wrong with an input (its check_input), so the studio can
    refuse a malformed test where it is saved instead of at grading."""
    if package.grading.driver != "custom":
        return []
    has = int(driver_input_check(package.driver_code) is not None)
    return [Rule("custom driver checks its input", has, 1,
                 "the custom driver needs a check_input(input) saying what is wrong with an input")]


def _anchored(criterion: RubricCriterion) -> bool:
    """Whether a rubric row has its four levels written out (not left empty)."""
    return bool(criterion.strong.strip()) and all(
        len(level.strip()) > len("4: ") for level in criterion.levels
    )


def design_rules(package: Package) -> list[Rule]:
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


def package_lint(package: Package) -> list[str]:
    """Bank-quality rules beyond a well-formed package (what a published problem needs)."""
    return [rule.issue for rule in package_rules(package) if not rule.ok]


# ---------------------------------------------------------------- writing


def package_write(package: Package, root: Path | str) -> Path:
    """Write `package` as a folder under `root`/<slug>; the inverse of package_read."""
    folder = Path(root) / package.slug
    if package.is_design:
        return _design_write(package, folder)
    (folder / "tests").mkdir(parents=True, exist_ok=True)
    files = {
        "problem.toml": _toml_dump(_meta_dict(package)),
        "statement.md": package.statement_md,
        "starter.py": package.starter_code,
        "reference.py": package.reference_code,
        "driver.py": package.driver_code,
        "checker.py": package.checker_code,
        "support.py": package.support_code,
    }
    for wrong in package.wrong:
        files[wrong.file] = wrong.code
    for name, text in files.items():
        if text or name in ("starter.py", "reference.py", "statement.md"):
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text, encoding="utf-8")
    for name, tests in (
        ("public.json", package.public_tests),
        ("hidden.json", package.hidden_tests),
    ):
        body = json.dumps([test_as_json(t) for t in tests], indent=1, allow_nan=True)
        (folder / "tests" / name).write_text(body + "\n", encoding="utf-8")
    return folder


def _design_write(package: Package, folder: Path) -> Path:
    (folder / "reference").mkdir(parents=True, exist_ok=True)
    meta = {k: v for k, v in _meta_dict(package).items() if k not in DESIGN_REFUSED_KEYS}
    (folder / "problem.toml").write_text(_toml_dump(meta), encoding="utf-8")
    (folder / "statement.md").write_text(package.statement_md, encoding="utf-8")
    (folder / DESIGN_TEXT).write_text(package.reference_code, encoding="utf-8")
    board = json.dumps(list(package.reference_board), indent=1, ensure_ascii=False)
    (folder / DESIGN_BOARD).write_text(board + "\n", encoding="utf-8")
    return folder


def _meta_dict(package: Package) -> dict[str, Any]:
    return {
        "slug": package.slug,
        "title": package.title,
        "difficulty": package.difficulty,
        "queue": package.queue,
        "kind": package.kind,
        "topics": list(package.topics),
        "hints": list(package.hints),
        "follow_ups": list(package.follow_ups),
        "custom_reference": package.custom_reference,
        "limits": dict(package.limits.__dict__),
        "grading": dict(package.grading.__dict__),
        **({"constraints": [c.as_dict() for c in package.constraints]}
           if package.constraints else {}),
        "wrong": [{k: v for k, v in w.as_dict().items() if k != "code"} for w in package.wrong],
        "clarification": [c.as_dict() for c in package.clarifications],
        "rubric": [
            {
                "criterion": r.criterion,
                "weight": r.weight,
                "strong": r.strong,
                "levels": list(r.levels),
            }
            for r in package.rubric
        ],
    }


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def _toml_dump(meta: dict[str, Any]) -> str:
    lines: list[str] = []
    tables: list[tuple[str, dict[str, Any]]] = []
    arrays: list[tuple[str, list[dict[str, Any]]]] = []
    for key, value in meta.items():
        if isinstance(value, dict):
            tables.append((key, value))
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            arrays.append((key, value))
        elif isinstance(value, list) and not value and key in ("wrong", "clarification", "rubric"):
            continue
        else:
            lines.append(f"{key} = {_toml_value(value)}")
    for key, table in tables:
        lines += ["", f"[{key}]"] + [f"{k} = {_toml_value(v)}" for k, v in table.items()]
    for key, items in arrays:
        for item in items:
            lines += ["", f"[[{key}]]"] + [f"{k} = {_toml_value(v)}" for k, v in item.items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """`python -m problems.package check DIR...`: validate packages, print problems."""
    if len(argv) < 2 or argv[0] != "check":
        print("usage: python -m problems.package check DIR [DIR...]", file=sys.stderr)
        return 2
    failed = 0
    for folder in argv[1:]:
        try:
            package = package_read(folder)
        except PackageError as exc:
            print(f"FAIL {exc}")
            failed += 1
            continue
        issues = package_lint(package)
        status = "OK  " if not issues else "LINT"
        summary = (
            f"design, {len(package.clarifications)} clarifications, "
            f"{len(package.reference_board)} board elements"
            if package.is_design
            else f"{len(package.public_tests)} public, {len(package.hidden_tests)} hidden, "
            f"{len(package.wrong)} wrong"
        )
        print(f"{status} {package.slug}: {summary}"
              + ("".join(f"\n     - {i}" for i in issues)))
        failed += bool(issues)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
