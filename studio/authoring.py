"""Authoring a problem in the studio without touching files: create one, edit any part of its
package, import and export it as a `.zip`. Every edit goes through `package_read`, the checks a
package folder on disk gets, so the studio can never store a package the bank would refuse."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from grading.judge import JudgeError, judge
from grading.services import grade_spec_for
from problems.archive import MAX_ZIP_BYTES, package_unzip, package_zip
from problems.models import Problem, ProblemVersion
from problems.package import (
    Grading,
    Limits,
    Package,
    TestCase,
    WrongSolution,
    package_read,
    package_write,
)
from problems.services import problem_load, problem_to_package
from studio.permissions import problem_can_edit
from studio.services import ProblemActionError, version_create, version_store

MAX_UPLOAD_BYTES = MAX_ZIP_BYTES

# ---------------------------------------------------------------- new problems and package parts

# The package's parts a studio edit may replace. Every one of them makes a draft version,
# except the queue, which is the problem's own (it decides where each version is graded).
PARTS = frozenset({
    "title", "difficulty", "queue", "kind", "topics", "hints", "follow_ups", "statement_md",
    "starter_code", "reference_code", "wrong", "clarifications", "rubric", "driver_code",
    "checker_code", "support_code", "grading", "limits",
})


def _package_checked(package: Package) -> Package:
    """`package` as package_read sees it once written out: every rule a folder must pass."""
    with tempfile.TemporaryDirectory(prefix="onsite-edit-") as scratch:
        return package_read(package_write(package, scratch))


def problem_create(
    *,
    user: User,
    slug: str,
    title: str,
    difficulty: str = "medium",
    queue: str = "cpu",
    kind: str = "implement",
    topics: tuple[str, ...] = (),
    entry: str = "solve",
) -> Problem:
    """A new problem owned by `user`, unpublished, with a draft v1 to build on.

    It starts as a one-function problem (`entry`) whose reference passes its one sample test,
    so it is a valid package from the first save; the author then edits every part.
    """
    if Problem.objects.filter(slug=slug).exists():
        raise ProblemActionError("slug_taken", f"a problem called {slug!r} exists already")
    package = _package_checked(Package(
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
    ))
    with transaction.atomic():
        try:
            problem, _ = problem_load(package=package, publish=False)
        except IntegrityError as exc:
            raise ProblemActionError("slug_taken", f"a problem called {slug!r} exists") from exc
        Problem.objects.filter(pk=problem.pk).update(owner=user)
        ProblemVersion.objects.filter(problem=problem).update(
            validation=ProblemVersion.Validation.DRAFT,
            created_by=user,
            change_note="created in the studio",
        )
    problem.refresh_from_db()
    return problem


def problem_parts_update(
    *, problem: Problem, user: User | None, parts: Mapping[str, Any]
) -> tuple[Problem, ProblemVersion | None]:
    """Replace some of the package's parts as a new draft version; all of them pass
    package_read or none is saved.

    The draft starts from the newest version and reaches candidates only once it is validated
    and made live (services.version_make_live copies its content onto the problem). Returns
    the problem and the new version (None when nothing changed).
    """
    unknown = set(parts) - PARTS
    if unknown:
        raise ProblemActionError("bad_part", f"not a package part: {', '.join(sorted(unknown))}")
    base = problem.versions.order_by("-number").first()
    if base is None:
        raise ProblemActionError("no_version", f"problem {problem.slug} has no version")
    package = _package_checked(replace(problem_to_package(problem=problem, version=base), **parts))
    new: ProblemVersion | None = None
    with transaction.atomic():
        if "queue" in parts:
            Problem.objects.filter(pk=problem.pk).update(
                queue=package.queue, updated_at=timezone.now()
            )
        try:
            version, created = version_store(problem=problem, package=package, user=user)
        except IntegrityError as exc:
            raise ProblemActionError(
                "conflict", "another edit was saved at the same moment; reload and try again"
            ) from exc
        new = version if created else None
    problem.refresh_from_db()
    return problem, new


def _wrong_of(problem: Problem) -> list[WrongSolution]:
    base = problem.versions.order_by("-number").first()
    if base is None:
        raise ProblemActionError("no_version", f"problem {problem.slug} has no version")
    return [WrongSolution(**w) for w in base.wrong_solutions]


def wrong_solution_put(
    *, problem: Problem, user: User | None, wrong: WrongSolution
) -> tuple[Problem, ProblemVersion | None]:
    """Add a known-wrong solution to the newest version's, or replace the one of that file
    name, as a new draft."""
    kept = [w for w in _wrong_of(problem) if w.file != wrong.file]
    return problem_parts_update(problem=problem, user=user, parts={"wrong": (*kept, wrong)})


def wrong_solution_delete(
    *, problem: Problem, user: User | None, index: int
) -> tuple[Problem, ProblemVersion | None]:
    """Drop the newest version's `index`-th wrong solution, as a new draft."""
    wrong = _wrong_of(problem)
    if not 0 <= index < len(wrong):
        raise ProblemActionError("no_wrong", f"there is no wrong solution #{index}")
    del wrong[index]
    return problem_parts_update(problem=problem, user=user, parts={"wrong": tuple(wrong)})


# ---------------------------------------------------------------- packages in and out


def problem_import_zip(*, data: bytes, user: User) -> tuple[Problem, ProblemVersion, bool]:
    """Load an uploaded package `.zip`: a new problem owned by `user`, or a new version of one
    `user` may edit. Returns the problem, the version holding the package, and whether the
    problem is new.

    Importing onto a published problem is refused: the package's statement, starter and hints
    would reach candidates at once; unpublish it first (or import under a new slug). The new
    version waits for validation (the sweeper queues it), and never goes live by itself unless
    it is the problem's first.
    """
    package = package_unzip(data)  # PackageError names the file and the field
    existing = Problem.objects.filter(slug=package.slug).first()
    if existing is not None:
        if not problem_can_edit(user=user, problem=existing):
            raise ProblemActionError(
                "forbidden", f"{package.slug} exists and you are not one of its authors"
            )
        if existing.published:
            raise ProblemActionError(
                "published",
                f"{package.slug} is published: unpublish it first, or import under a new slug",
            )
    with transaction.atomic():
        problem, created = problem_load(package=package, publish=False)
        version = problem.versions.order_by("-number").first()
        assert version is not None  # problem_load always leaves one
        if created:
            ProblemVersion.objects.filter(pk=version.pk).update(
                created_by=user, change_note="imported from a .zip"
            )
        if existing is None:
            Problem.objects.filter(pk=problem.pk).update(owner=user)
            problem.owner = user
    return problem, version, existing is None


def problem_export_zip(*, problem: Problem, version: ProblemVersion | None = None) -> bytes:
    """The problem (at `version`, default the live one) as a package `.zip`."""
    return package_zip(problem_to_package(problem=problem, version=version))


# ---------------------------------------------------------------- tests, one at a time

TEST_OPS = ("add", "update", "duplicate", "delete")
LISTS = ("public", "hidden")


def _tests_of(version: ProblemVersion) -> dict[str, list[dict[str, Any]]]:
    return {"public": list(version.public_tests), "hidden": list(version.hidden_tests)}


def _copy_name(name: str, taken: set[str]) -> str:
    number = 2
    while f"{name} ({number})" in taken:
        number += 1
    return f"{name} ({number})"


def test_edit(
    *,
    problem: Problem,
    user: User | None,
    op: str,
    where: str = "public",
    index: int | None = None,
    test: Mapping[str, Any] | None = None,
    to: str | None = None,
) -> tuple[ProblemVersion, bool]:
    """Add, update, duplicate or delete one test of the newest version, as a new draft.

    `where` and `index` name the test (`public` or `hidden`, 0-based); `test` is the new test
    (`name`, `input`, `expected`, `tag`, and optionally `group` and `compare`); `to` moves an
    updated test to the other list. The whole package is checked again, so a duplicate name or
    a hidden test without a tag is refused with the field named.
    """
    if op not in TEST_OPS or where not in LISTS or (to is not None and to not in LISTS):
        raise ProblemActionError("bad_op", "unknown test operation")
    base = problem.versions.order_by("-number").first()
    if base is None:
        raise ProblemActionError("no_version", f"problem {problem.slug} has no version")
    tests = _tests_of(base)
    rows = tests[where]
    if op != "add" and (index is None or not 0 <= index < len(rows)):
        raise ProblemActionError("no_test", f"there is no {where} test #{index}")
    if op in ("add", "update") and test is None:
        raise ProblemActionError("no_test", "a test is needed")
    clean = {k: v for k, v in dict(test or {}).items() if v not in (None, "")}
    if op == "add":
        tests[to or where].append(clean)
    elif op == "update":
        assert index is not None
        if to is None or to == where:
            rows[index] = clean
        else:
            del rows[index]
            tests[to].append(clean)
    elif op == "duplicate":
        assert index is not None
        taken = {t["name"] for t in tests["public"] + tests["hidden"]}
        rows.insert(index + 1, dict(rows[index], name=_copy_name(rows[index]["name"], taken)))
    else:
        assert index is not None
        del rows[index]
    return version_create(
        problem=problem,
        base=base,
        public_json=json.dumps(tests["public"], allow_nan=True),
        hidden_json=json.dumps(tests["hidden"], allow_nan=True),
        user=user,
    )


def expected_from_reference(*, problem: Problem, test_input: Any) -> Any:
    """What the reference solution returns for `test_input`, graded in the sandbox like any
    submission (never run on this host). Raises ProblemActionError when it does not run."""
    version = problem.versions.order_by("-number").first()
    if version is None:
        raise ProblemActionError("no_version", f"problem {problem.slug} has no version")
    # The newest version's reference: the one the author is editing the tests of.
    spec = grade_spec_for(version=version, code=version.reference_code, mode="run")
    spec = replace(spec, tests=[replace(spec.tests[0], name="probe", input=test_input,
                                        expected=None)] if spec.tests else [])
    try:
        result = judge(spec).tests[0]
    except (JudgeError, IndexError) as exc:
        raise ProblemActionError("grader", f"the reference could not be run: {exc}") from exc
    output = result.detail.get("output")
    if output is None:
        message = result.detail.get("message") or result.verdict
        raise ProblemActionError("reference_failed", f"the reference got {result.verdict}: "
                                 f"{message}")
    if isinstance(output, str) and output.endswith("…[truncated]"):
        raise ProblemActionError(
            "too_large", "the reference's output is too large to copy; paste it instead"
        )
    try:
        return json.loads(output)
    except ValueError as exc:
        raise ProblemActionError("bad_output", "the reference's output is not JSON") from exc
