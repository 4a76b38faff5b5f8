"""Loading problem packages into the database and exporting them back."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from django.db import transaction

from problems.constraints import (
    Constraint,
    ConstraintError,
    constraints_from_list,
    statement_with_constraints,
)
from problems.models import CONTENT_FIELDS, Problem, ProblemVersion
from problems.package import (
    Clarification,
    Grading,
    KnownSolution,
    Limits,
    Package,
    RubricCriterion,
    TestCase,
    WrongSolution,
    package_read,
    test_as_json,
)

log = logging.getLogger(__name__)
BANK_DIR = Path(__file__).resolve().parent / "bank"


def content_fields(package: Package) -> dict[str, Any]:
    """The package's CONTENT_FIELDS, as a version (and its problem, once live) stores them."""
    return {
        "title": package.title,
        "difficulty": package.difficulty,
        "kind": package.kind,
        "topics": list(package.topics),
        "hints": list(package.hints),
        "follow_ups": list(package.follow_ups),
        "clarifications": [c.as_dict() for c in package.clarifications],
        "rubric": [asdict(r) | {"levels": list(r.levels)} for r in package.rubric],
        "wrong_solutions": [w.as_dict() for w in package.wrong],
        "statement_md": package.statement_md,
        "starter_code": package.starter_code,
        "reference_code": package.reference_code,
        "reference_board": list(package.reference_board),
        "custom_reference": package.custom_reference,
    }


def problem_fields(package: Package) -> dict[str, Any]:
    """What a problem stores of a package loaded from disk: its content and its queue."""
    return content_fields(package) | {"queue": package.queue}


def version_fields(package: Package) -> dict[str, Any]:
    grading = package.grading
    return {
        "tests_hash": package.tests_hash,
        # The declared input constraints travel with the driver: they are its input contract.
        "driver": {"kind": grading.driver, "entry": grading.entry}
        | ({"constraints": [c.as_dict() for c in package.constraints]} if package.constraints
           else {}),
        "driver_code": package.driver_code,
        "checker_code": package.checker_code,
        "support_code": package.support_code,
        "compare": {
            "mode": grading.compare,
            "float_rel": grading.float_rel,
            "float_abs": grading.float_abs,
        },
        "limits": asdict(package.limits),
        "public_tests": [test_as_json(t) for t in package.public_tests],
        "hidden_tests": [test_as_json(t) for t in package.hidden_tests],
        "known_solutions": [k.as_dict() for k in package.known],
    } | content_fields(package)


def version_matches(version: ProblemVersion, fields: dict[str, Any]) -> bool:
    """Whether `version` already holds `fields` (version_fields): same graded behaviour and
    same content, so storing them again would make an identical version."""
    return (
        version.tests_hash == fields["tests_hash"]
        and version.known_solutions == fields["known_solutions"]
        and all(getattr(version, name) == fields[name] for name in CONTENT_FIELDS)
    )


@transaction.atomic
def problem_load(*, package: Package, publish: bool = True) -> tuple[Problem, bool]:
    """Create or update the problem; add a version when graded behaviour or content changed.

    Returns the problem and whether a new version was created. The problem's own copy of the
    content is replaced from the package: this is how the bank on disk (or an import onto an
    unpublished problem) is deployed; the studio never edits that way, its edits are drafts
    that reach the problem only when made live. The first version goes live at once, and so
    does one that changes only the content; one that changes graded behaviour is left for the
    author to review (regrade, then make live).
    """
    problem, _ = Problem.objects.update_or_create(
        slug=package.slug, defaults=problem_fields(package)
    )
    fields = version_fields(package)
    latest = problem.versions.order_by("-number").first()
    if latest is not None and version_matches(latest, fields):
        created = False
    else:
        number = latest.number + 1 if latest else 1
        latest = ProblemVersion.objects.create(problem=problem, number=number, **fields)
        created = True
    live = problem.live_version
    if live is None or (created and live.tests_hash == latest.tests_hash):
        # The first version; or one that changes only the content, which the problem has just
        # taken from the package: it goes live with it, so the live version holds what the
        # problem shows (and an export gives it back). Graded changes wait for the author.
        problem.live_version = latest
    if publish:
        problem.published = True
    problem.save()
    return problem, created


# Checks a higher app adds to every package `problem_load_folder` loads (the studio: each test's
# input against its driver, a custom driver's own check_input run in the sandbox), registered in
# its AppConfig.ready: problems imports nothing above it. A check raises PackageError to refuse.
PackageCheck = Callable[[Package], None]
PACKAGE_CHECKS: list[PackageCheck] = []


def problem_load_folder(
    *, root: Path, publish: bool = True, check: bool = False
) -> list[tuple[Problem, bool]]:
    """Load one package folder, or every package folder under `root`.

    Every package is read and validated (the format; with `check`, as `loadproblems` asks, the
    registered PACKAGE_CHECKS too) before anything is written, so a malformed package anywhere
    leaves the database untouched.
    """
    folders = (
        [root]
        if (root / "problem.toml").exists()
        else sorted(p for p in root.iterdir() if (p / "problem.toml").exists())
    )
    packages = [package_read(folder) for folder in folders]
    for package in packages if check else ():
        for package_check in PACKAGE_CHECKS:
            package_check(package)
    with transaction.atomic():
        return [problem_load(package=package, publish=publish) for package in packages]


def problem_to_package(*, problem: Problem, version: ProblemVersion | None = None) -> Package:
    """The package that `problem` (at `version`, default live) was loaded from: the version's
    graded behaviour and content, the problem's slug and queue."""
    version = version or problem.live_version or problem.versions.order_by("-number").first()
    if version is None:
        raise ValueError(f"problem {problem.slug} has no version")

    def tests(raw: list[dict[str, Any]], hidden: bool) -> tuple[TestCase, ...]:
        return tuple(
            TestCase(
                t["name"],
                t["input"],
                t["expected"],
                t["tag"],
                hidden,
                t.get("compare"),
                t.get("group"),
                t.get("generator"),
            )
            for t in raw
        )

    return Package(
        slug=problem.slug,
        title=version.title,
        difficulty=version.difficulty,
        queue=problem.queue,
        kind=version.kind,
        topics=tuple(version.topics),
        hints=tuple(version.hints),
        follow_ups=tuple(version.follow_ups),
        statement_md=version.statement_md,
        starter_code=version.starter_code,
        reference_code=version.reference_code,
        custom_reference=version.custom_reference,
        limits=Limits(**version.limits),
        grading=Grading(
            driver=version.driver["kind"],
            entry=version.driver.get("entry", ""),
            compare=version.compare["mode"],
            float_rel=version.compare.get("float_rel", 1e-6),
            float_abs=version.compare.get("float_abs", 1e-9),
        ),
        public_tests=tests(version.public_tests, False),
        hidden_tests=tests(version.hidden_tests, True),
        wrong=tuple(WrongSolution.from_dict(w) for w in version.wrong_solutions),
        clarifications=tuple(Clarification.from_dict(c) for c in version.clarifications),
        rubric=tuple(
            RubricCriterion(r["criterion"], r["weight"], r["strong"], tuple(r["levels"]))
            for r in version.rubric
        ),
        driver_code=version.driver_code,
        checker_code=version.checker_code,
        support_code=version.support_code,
        reference_board=tuple(version.reference_board),
        constraints=version_constraints(version),
        known=tuple(KnownSolution.from_dict(k) for k in version.known_solutions),
    )


def version_constraints(version: ProblemVersion | None) -> tuple[Constraint, ...]:
    """The input constraints `version` declares (none for None or a malformed stored list)."""
    if version is None or not isinstance(version.driver, dict):
        return ()
    try:
        return constraints_from_list(version.driver.get("constraints"))
    except ConstraintError:
        return ()


def statement_shown(statement_md: str, version: ProblemVersion | None) -> str:
    """The statement as a page shows it: the declared constraints rendered into it."""
    return statement_with_constraints(statement_md, version_constraints(version))


def package_from_path(path: Path) -> Package:
    return package_read(path)
