"""The tests table: one test at a time added, edited, duplicated or deleted (each a new draft
version), and an expected output filled from the reference."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any

from django.contrib.auth.models import User

from grading import judge as judging
from grading.judge import JudgeError, judge
from grading.sandboxing import sandbox_limits
from grading.services import grade_spec_for
from problems.models import Problem, ProblemVersion
from problems.package import Package, test_as_json
from studio.generators import GeneratorError, input_generate
from studio.services.conflicts import Choice, edit_apply
from studio.services.errors import ProblemActionError
from studio.services.inputcheck import InputsMismatch, inputs_checked_in, package_inputs_check
from studio.services.revisions import Revision, revision_state
from studio.services.versions import package_checked, tests_replaced, version_create, version_store

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
    based_on: str | None = None,
    onto: str | None = None,
    choices: Mapping[str, Choice] | None = None,
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
        choices=choices,
        store=lambda package: version_store(
            problem=problem, package=package_checked(package), user=user
        ),
    )


def reference_validated(problem: Problem, version: ProblemVersion) -> bool:
    """Whether `version`'s reference passed every test of a validation (issue 34.6: the
    reference's own check, not the whole validation, so a declared-TLE wrong solution that
    needs the very tests being filled does not block them): on this version, or on another
    with the very same reference, driver and support code (what it would run)."""
    same = problem.versions.filter(
        reference_code=version.reference_code,
        driver_code=version.driver_code,
        support_code=version.support_code,
        validation__in=(ProblemVersion.Validation.PASSED, ProblemVersion.Validation.FAILED),
    )
    return any(v.driver == version.driver and _reference_passed(v) for v in same)


def _reference_passed(version: ProblemVersion) -> bool:
    """A passed validation passed the reference too; a failed one may have failed only on a
    wrong solution's or the starter's verdict: its report says what the reference got."""
    if version.validation == ProblemVersion.Validation.PASSED:
        return True
    checks = (version.validation_report or {}).get("checks") or []
    return any(c.get("role") == "reference" and c.get("status") == "pass" for c in checks)


def reference_check(
    problem: Problem, version: ProblemVersion, *, excluding: Collection[str] = ()
) -> None:
    """Refuse (ProblemActionError) unless `version`'s reference passes its tests (issue 34.6):
    a validation's reference check says so where one was made with this code, else the
    reference alone is graded in the sandbox on every test of the version but those
    `excluding` names (the ones whose expected outputs are being filled; no wrong solution,
    no starter: only the reference's result counts)."""
    if reference_validated(problem, version):
        return
    spec = grade_spec_for(version=version, code=version.reference_code, mode="submit")
    spec = replace(spec, tests=[t for t in spec.tests if t.name not in excluding])
    if not spec.tests:
        return  # no test with a known output to check it on
    try:
        judgement = judge(spec)
    except JudgeError as exc:
        raise ProblemActionError("grader", f"the reference could not be run: {exc}") from exc
    failed = next((t for t in judgement.tests if t.verdict != "AC"), None)
    if failed is not None:
        message = str(failed.detail.get("message") or "")[:300]
        raise ProblemActionError(
            "reference_fails",
            f"the reference of v{version.number} gets {failed.verdict} on test "
            f"{failed.name!r}{f' ({message})' if message else ''}: only a reference that passes "
            "the tests there are writes expected outputs; fix it or that test first",
        )


def _size(count: int) -> str:
    """Bytes as a person reads them: 1.4 MB, 64 KB, 900 bytes (powers of 1024)."""
    if count >= 1024 * 1024:
        return f"{count / (1024 * 1024):.1f} MB".replace(".0 MB", " MB")
    if count >= 1024:
        return f"{count / 1024:.1f} KB".replace(".0 KB", " KB")
    return f"{count} bytes"


def limit_refusal(outcome: Any, limits: Any, test_name: str) -> str:
    """Why the reference's run of one test is refused, naming the limit it hit (issue 34.6):
    which limit, its value, and where it is set."""
    on = f"on test {test_name!r}" if test_name else "on this test"
    status, error = outcome.status, str(outcome.error or "")
    if status == "output" and "result" in error:
        return (f"the reference's output {on} is over the result limit of "
                f"{_size(limits.result_bytes)} ({limits.result_bytes} bytes), the most one "
                "test's returned value may be for any solution (the sandbox's, not a problem "
                "limit): a candidate's answer to it could not be returned either, so make the "
                "test smaller")
    if status == "output":
        return (f"the reference printed more than the output limit of "
                f"{_size(limits.output_bytes)} ({limits.output_bytes} bytes of stdout and stderr) "
                f"{on} (limits: output_bytes)")
    if status == "cpu":
        return (f"the reference ran over the CPU time limit of {limits.test_cpu_seconds:g} s "
                f"{on} (limits: test_cpu_seconds)")
    if status == "timeout":
        return (f"the reference ran over the wall time limit of "
                f"{limits.test_backstop_seconds:g} s {on} (limits: test_wall_seconds, and "
                "test_cpu_seconds it derives from)")
    if status == "memory":
        return (f"the reference ran over the memory limit of {limits.memory_mb} MB {on} "
                "(limits: memory_mb)")
    return f"the reference failed {on}: {error or status}"


def expected_from_reference(
    *,
    problem: Problem,
    test_input: Any,
    test_name: str = "",
    checked: bool = False,
    excluding: Collection[str] = (),
) -> Any:
    """What the reference solution returns for `test_input`, graded in the sandbox like any
    submission (never run on this host). Raises ProblemActionError when it does not run.

    Only the reference is needed (issue 34.6): it must pass the version's tests
    (`reference_check`; issue 28.4: an unchecked one could write its own bug into the tests),
    whatever the known-wrong solutions get, and it must pass this test within the version's
    limits; a refusal names the limit it hit (`checked`: the caller ran reference_check;
    `excluding`: tests it need not pass, being refilled, besides `test_name`).
    The output is taken whole from the sandbox's outcome, not from the verdict's detail
    (clipped for display), so a big output is filled as well as a small one, up to the
    sandbox's result limit.
    """
    version = problem.versions.order_by("-number").first()
    if version is None:
        raise ProblemActionError("no_version", f"problem {problem.slug} has no version")
    if not checked:
        reference_check(problem, version, excluding={test_name, *excluding})
    # The newest version's reference: the one the author is editing the tests of.
    spec = grade_spec_for(version=version, code=version.reference_code, mode="run")
    spec = replace(spec, tests=[replace(spec.tests[0], name=test_name or "probe",
                                        input=test_input, expected=None)] if spec.tests else [])
    raw: list[Any] = []

    def run_keeping_outcomes(*args: Any, **kwargs: Any) -> Any:
        result = judging.run(*args, **kwargs)  # the sandbox's run, as judge() calls it
        raw.extend(getattr(result, "outcomes", ()))
        return result

    try:
        result = judge(spec, run_fn=run_keeping_outcomes).tests[0]
    except (JudgeError, IndexError) as exc:
        raise ProblemActionError("grader", f"the reference could not be run: {exc}") from exc
    if raw and raw[0].status in ("output", "cpu", "timeout", "memory"):
        raise ProblemActionError(
            "reference_limit", limit_refusal(raw[0], sandbox_limits(version.limits), test_name)
        )
    if result.verdict not in ("AC", "WA") or not raw or raw[0].status != "ok":
        message = result.detail.get("message") or result.verdict
        raise ProblemActionError("reference_failed", f"the reference got {result.verdict}: "
                                 f"{message}")
    output = raw[0].output
    try:  # what a package stores: JSON (NaN and infinities allowed, as in the harness)
        return json.loads(json.dumps(output, allow_nan=True))
    except (TypeError, ValueError) as exc:
        raise ProblemActionError("bad_output", "the reference's output is not JSON") from exc


def generated_tests_rebuild(
    *,
    problem: Problem,
    user: User | None,
    based_on: str | None = None,
    onto: str | None = None,
    choices: Mapping[str, Choice] | None = None,
) -> tuple[ProblemVersion, bool]:
    """Re-run every stored generator of the version the page showed (`based_on`, default the
    newest; issue 28.4): each generated test gets the input its template and seed make and the
    expected output the reference gives for it, all saved as one new draft (or nothing, when
    nothing changed), merged with whatever was saved since the page was loaded."""
    shown = Revision.parse(based_on)
    base = revision_state(problem, shown) if shown is not None else None
    if base is None:
        based_on = None  # not a kept state: the newest, as a service caller gets
        base = problem.versions.order_by("-number").first()
    if base is None:
        raise ProblemActionError("no_version", f"problem {problem.slug} has no version")
    tests = _tests_of(base)
    rebuilt = 0
    newest = problem.versions.order_by("-number").first()
    if newest is not None and any(
        isinstance(t.get("generator"), dict) for rows in tests.values() for t in rows
    ):
        generated = {str(t["name"]) for rows in tests.values() for t in rows
                     if isinstance(t.get("generator"), dict)}
        reference_check(problem, newest, excluding=generated)  # once, not per test
    for rows in tests.values():
        for index, test in enumerate(rows):
            generator = test.get("generator")
            if not isinstance(generator, dict):
                continue
            try:
                new_input = input_generate(generator["template"], seed=int(generator["seed"]))
            except (GeneratorError, KeyError, TypeError, ValueError) as exc:
                raise ProblemActionError(
                    "generator", f"test {test['name']!r}: the generator fails: {exc}"
                ) from exc
            expected = expected_from_reference(
                problem=problem, test_input=new_input, test_name=str(test["name"]), checked=True
            )
            rows[index] = dict(test, input=new_input, expected=expected)
            rebuilt += 1
    if not rebuilt:
        raise ProblemActionError("no_generator", "no test of this version has a generator")

    def inputs_check(package: Package) -> None:
        # The regenerated inputs go to the driver's own check too; a refusal names the test.
        try:
            package_inputs_check(package, checked=inputs_checked_in(base, package))
        except InputsMismatch as exc:
            raise ProblemActionError(
                "inputs", f"a generated input does not fit the driver: {exc}"
            ) from exc

    return version_create(
        problem=problem,
        base=None if based_on else base,
        public_json=json.dumps(tests["public"], allow_nan=True),
        hidden_json=json.dumps(tests["hidden"], allow_nan=True),
        user=user,
        check=inputs_check,
        based_on=based_on,
        onto=onto,
        choices=choices,
    )
