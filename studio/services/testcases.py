"""The tests table: one test at a time added, edited, duplicated or deleted (each a new draft
version), and an expected output filled from the reference."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from django.contrib.auth.models import User

from grading.judge import JudgeError, judge
from grading.services import grade_spec_for
from problems.models import Problem, ProblemVersion
from problems.package import Package, test_as_json
from studio.services.conflicts import edit_apply
from studio.services.errors import ProblemActionError
from studio.services.versions import package_checked, tests_replaced, version_store

# ---------------------------------------------------------------- tests, one at a time

TEST_OPS = ("add", "update", "duplicate", "delete")
LISTS = ("public", "hidden")


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
    based_on: str | None = None,
    onto: str | None = None,
) -> tuple[ProblemVersion, bool]:
    """Add, update, duplicate or delete one test of the version the page showed (`based_on`,
    default the newest), as a new draft.

    `where` and `index` name the test (`public` or `hidden`, 0-based); `test` is the new test
    (`name`, `input`, `expected`, `tag`, and optionally `group` and `compare`); `to` moves an
    updated test to the other list. The whole package is checked again, so a duplicate name or
    a hidden test without a tag is refused with the field named. A base older than the newest
    version is refused unless reapplied `onto` it (studio.services.conflicts).
    """
    if op not in TEST_OPS or where not in LISTS or (to is not None and to not in LISTS):
        raise ProblemActionError("bad_op", "unknown test operation")
    if op in ("add", "update") and test is None:
        raise ProblemActionError("no_test", "a test is needed")
    clean = {k: v for k, v in dict(test or {}).items() if v not in (None, "")}

    def edit(package: Package) -> Package:
        tests = {
            "public": [test_as_json(t) for t in package.public_tests],
            "hidden": [test_as_json(t) for t in package.hidden_tests],
        }
        rows = tests[where]
        if op != "add" and (index is None or not 0 <= index < len(rows)):
            raise ProblemActionError("no_test", f"there is no {where} test #{index}")
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
        return tests_replaced(
            package,
            public_json=json.dumps(tests["public"], allow_nan=True),
            hidden_json=json.dumps(tests["hidden"], allow_nan=True),
        )

    return edit_apply(
        problem=problem,
        user=user,
        edit=edit,
        based_on=based_on,
        onto=onto,
        store=lambda package: version_store(
            problem=problem, package=package_checked(package), user=user
        ),
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
