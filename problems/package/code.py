"""The package part of the kinds whose code runs (implement, debug): limits, grading, tests,
known-wrong solutions and the code files; their rules; their writer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.verdicts import PRIORITY as VERDICTS
from problems.constraints import Constraint, ConstraintError, constraints_from_list
from problems.package import checks
from problems.package.fields import (
    choice,
    number,
    read_json,
    read_text,
    require,
    require_bool,
    tables,
)
from problems.package.model import (
    COMPARES,
    DRIVERS,
    MAX_TESTS_BYTES,
    TAGS,
    Grading,
    KnownSolution,
    Limits,
    Package,
    PackageError,
    TestCase,
    WrongSolution,
    test_as_json,
)
from problems.package.rules import Rule
from problems.package.writer import meta_dict, toml_dump


def read(root: Path, meta: dict[str, Any], toml_path: Path, common: dict[str, Any]) -> Package:
    """A code package's own parts, checked (`common` holds what every kind has)."""
    grading = _read_grading(meta, toml_path)
    package = Package(
        **common,
        starter_code=read_text(root / "starter.py"),
        reference_code=read_text(root / "reference.py"),
        limits=_read_limits(meta, toml_path),
        grading=grading,
        public_tests=_read_tests(root / "tests" / "public.json", hidden=False, minimum=1),
        hidden_tests=_read_tests(root / "tests" / "hidden.json", hidden=True, minimum=0),
        wrong=_read_wrong(meta, root, toml_path),
        driver_code=read_text(root / "driver.py", required=grading.driver == "custom"),
        checker_code=read_text(root / "checker.py", required=grading.compare == "checker"),
        support_code=read_text(root / "support.py", required=False),
        custom_reference=require_bool(meta, "custom_reference", toml_path, default=True),
        constraints=_read_constraints(meta, toml_path),
        known=_read_known(root),
    )
    checks.check_unique_names(package, root)
    checks.check_constraints(package, root)
    checks.check_sources_compile(package, root)
    checks.check_input_check_signature(package, root)
    checks.check_coverage(package, root)
    return package


def _read_limits(meta: dict[str, Any], path: Path) -> Limits:
    raw = meta.get("limits", {})
    if not isinstance(raw, dict):
        raise PackageError(path, "limits", "must be a table")
    where = "limits."
    limits = Limits(
        test_wall_seconds=number(raw, "test_wall_seconds", path, where=where, default=2.0),
        test_cpu_seconds=number(raw, "test_cpu_seconds", path, where=where, default=2.0),
        memory_mb=number(raw, "memory_mb", path, where=where, default=256, integer=True),
        output_bytes=number(raw, "output_bytes", path, where=where, default=65536,
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
    driver = choice(
        require(raw, "driver", str, path, "grading."), DRIVERS, path, "grading.driver"
    )
    entry = raw.get("entry", "")
    if driver != "custom" and not (isinstance(entry, str) and entry.isidentifier()):
        raise PackageError(path, "grading.entry", "must name a function or class")
    compare = choice(
        require(raw, "compare", str, path, "grading."), COMPARES, path, "grading.compare"
    )
    tolerances = {
        key: number(raw, key, path, where="grading.", default=default)
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
    raw = read_json(path, max_bytes=MAX_TESTS_BYTES)
    if not isinstance(raw, list):
        raise PackageError(path, "file", "must be a JSON list of tests")
    if len(raw) < minimum:
        raise PackageError(path, "tests", f"needs at least {minimum}, has {len(raw)}")
    tests = []
    for index, item in enumerate(raw):
        where = f"[{index}]."
        if not isinstance(item, dict):
            raise PackageError(path, f"[{index}]", "must be an object")
        name = require(item, "name", str, path, where)
        if "input" not in item:
            raise PackageError(path, f"{where}input", "missing")
        if "expected" not in item:
            raise PackageError(path, f"{where}expected", "missing")
        tag = item.get("tag", "correctness" if not hidden else None)
        if tag is None:
            raise PackageError(path, f"{where}tag", "missing (hidden tests need a tag)")
        choice(tag, TAGS, path, f"{where}tag")
        compare = item.get("compare")
        if compare is not None:
            choice(compare, COMPARES, path, f"{where}compare")
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


# At most this many known solutions per package (each one bounded as every source is).
MAX_KNOWN_SOLUTIONS = 50


def _read_known(root: Path) -> tuple[KnownSolution, ...]:
    """`known/*.py`: solutions known to be out there, compared with every Submit."""
    folder = root / "known"
    if not folder.is_dir():
        return ()
    paths = sorted(folder.glob("*.py"))
    if len(paths) > MAX_KNOWN_SOLUTIONS:
        raise PackageError(folder, "known", f"more than {MAX_KNOWN_SOLUTIONS} known solutions")
    return tuple(KnownSolution(f"known/{p.name}", read_text(p)) for p in paths)


def _read_wrong(meta: dict[str, Any], root: Path, path: Path) -> tuple[WrongSolution, ...]:
    wrong = []
    for where, item in tables(meta, "wrong", path):
        file = require(item, "file", str, path, where)
        verdict = choice(
            require(item, "verdict", str, path, where), VERDICTS, path, where + "verdict"
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
                read_text(target),
                groups=tuple(groups),
                says=says,
            )
        )
    return tuple(wrong)


def _read_constraints(meta: dict[str, Any], path: Path) -> tuple[Constraint, ...]:
    try:
        return constraints_from_list(meta.get("constraints"))
    except ConstraintError as exc:
        raise PackageError(path, "constraints", str(exc)) from None



# ---------------------------------------------------------------- rules


def rules(package: Package) -> list[Rule]:
    """A code package's bank-quality rules."""
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
    has = int(checks.driver_input_check(package.driver_code) is not None)
    return [Rule("custom driver checks its input", has, 1,
                 "the custom driver needs a check_input(input) saying what is wrong with an input")]


# ---------------------------------------------------------------- writing


def write(package: Package, folder: Path) -> Path:
    """Write a code package's files into `folder`."""
    (folder / "tests").mkdir(parents=True, exist_ok=True)
    files = {
        "problem.toml": toml_dump(meta_dict(package)),
        "statement.md": package.statement_md,
        "starter.py": package.starter_code,
        "reference.py": package.reference_code,
        "driver.py": package.driver_code,
        "checker.py": package.checker_code,
        "support.py": package.support_code,
    }
    for wrong in package.wrong:
        files[wrong.file] = wrong.code
    for known in package.known:
        files[known.file] = known.code
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


def summary(package: Package) -> str:
    """One line of `python -m problems.package check`."""
    return (f"{len(package.public_tests)} public, {len(package.hidden_tests)} hidden, "
            f"{len(package.wrong)} wrong")


def new_package(*, slug: str, title: str, difficulty: str, queue: str, kind: str,
                topics: tuple[str, ...], entry: str) -> Package:
    """A new problem's first package: one function (`entry`) whose reference passes its one
    sample test, so it is valid from the first save; the author then edits every part."""
    return Package(
        slug=slug,
        title=title,
        difficulty=difficulty,
        queue=queue,
        kind=kind,
        topics=tuple(topics),
        hints=(),
        follow_ups=(),
        statement_md=f"# {title}\n\nDescribe the task here.\n",
        starter_code=f"def {entry}(x):\n    raise NotImplementedError\n",
        reference_code=f"def {entry}(x):\n    return x\n",
        limits=Limits(),
        grading=Grading(driver="function", entry=entry, compare="exact"),
        public_tests=(TestCase("sample", {"args": [1]}, 1, "correctness", False),),
        hidden_tests=(),
        wrong=(),
        clarifications=(),
        rubric=(),
    )
