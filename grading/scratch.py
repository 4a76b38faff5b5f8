"""Scratch runs: the candidate's own input (mode `custom`) and the whole file as a script
(mode `script`).

They are Submissions like Run and Submit, so they go through the same queue, sandbox, socket
and rate limit; only their one "test" differs. It is built here from what the candidate sent,
never from the problem's tests, so a scratch run cannot reach a hidden test. There is no
verdict against a hidden answer: a custom run without the reference is AC when the program
returned, and with the reference (where the problem allows it) AC when both answers agree.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from django.conf import settings

from grading.judge import GradeSpec, TestSpec, judge
from grading.models import Submission
from problems.models import ProblemVersion

SCRATCH_MODES = (Submission.Mode.CUSTOM, Submission.Mode.SCRIPT)
# A checker that accepts anything: with nothing to compare against, "ran" is the verdict.
_ACCEPT_ANY = "def check(input, expected, output):\n    return True, ''\n"
_NO_ANSWER = object()
# The one test's name says whether the reference's answer is its expected value.
CUSTOM_NAME = "custom input"
COMPARED_NAME = "custom input vs reference"
SCRIPT_NAME = "script"

# Runs the candidate's file as `__main__` (so `if __name__ == "__main__":` blocks run) from
# the driver, because the harness imports `solution` as a module; the solution file itself
# is left empty. linecache gets the source so tracebacks show the candidate's lines. stdout
# and stderr arrive apart (the harness captures each in its own pipe).
_SCRIPT_DRIVER = """import linecache
import sys

SCRIPT = {source!r}


def run(solution, test_input):
    # Line-buffered, as in a terminal (the harness sets it too; kept for older images).
    sys.stdout.reconfigure(line_buffering=True)
    linecache.cache["main.py"] = (len(SCRIPT), None, SCRIPT.splitlines(True), "main.py")
    exec(compile(SCRIPT, "main.py", "exec"), {{"__name__": "__main__", "__file__": "main.py"}})
    return None
"""


class ScratchInputError(ValueError):
    """The custom input is not usable (not JSON-able, too large)."""


def custom_input_check(value: Any) -> None:
    """Raise ScratchInputError unless `value` is a JSON value within the size limit."""
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ScratchInputError(f"input must be plain JSON: {exc}") from exc
    limit = settings.ONSITE_MAX_CUSTOM_INPUT_BYTES
    if len(text.encode("utf-8")) > limit:
        raise ScratchInputError(f"input is over {limit} bytes")


def custom_example(version: ProblemVersion | None) -> Any:
    """The input the custom-input editor starts with: the first public test's, in the
    problem's own form (ops/function/custom drivers alike)."""
    if version is None or not version.public_tests:
        return None
    return version.public_tests[0].get("input")


def scratch_test_count(mode: str) -> int:
    """How many sandbox tests a scratch run may take (its time budget): a custom run may run
    the reference first, then the candidate."""
    return 2 if mode == Submission.Mode.CUSTOM else 1


def _base_spec(spec: GradeSpec, **changes: Any) -> GradeSpec:
    return replace(spec, **changes)


def _reference_answer(spec: GradeSpec, version: ProblemVersion, test_input: Any) -> Any:
    """The reference solution's output on `test_input`, or _NO_ANSWER if it did not return."""
    reference = _base_spec(
        spec,
        solution=version.problem.reference_code,
        tests=[TestSpec(name="reference", input=test_input, expected=None, compare="checker")],
        checker_code=_ACCEPT_ANY,
    )
    judged = judge(reference)
    detail = judged.tests[0].detail if judged.tests else {}
    if judged.verdict != "AC" or "output" not in detail:
        return _NO_ANSWER
    try:
        return json.loads(detail["output"])
    except (TypeError, ValueError):
        return _NO_ANSWER  # clipped: too large to compare, shown without a diff


def scratch_spec(*, submission: Submission, base: GradeSpec, with_reference: bool) -> GradeSpec:
    """The grade spec of a scratch run, from the problem's spec `base` (driver, limits, image)."""
    if submission.mode == Submission.Mode.SCRIPT:
        driver = {"kind": "custom", "source": _SCRIPT_DRIVER.format(source=submission.code)}
        test = TestSpec(name=SCRIPT_NAME, input=None, expected=None, compare="checker")
        return _base_spec(base, solution="", driver=driver, tests=[test], checker_code=_ACCEPT_ANY)
    test_input = submission.custom_input
    expected = (
        _reference_answer(base, submission.version, test_input) if with_reference else _NO_ANSWER
    )
    if expected is _NO_ANSWER:
        test = TestSpec(
            name=CUSTOM_NAME, input=test_input, expected=None, compare="checker", custom=True
        )
        return _base_spec(base, tests=[test], checker_code=_ACCEPT_ANY)
    # Compared the problem's own way (exact, float, unordered or its checker).
    return _base_spec(
        base, tests=[TestSpec(name=COMPARED_NAME, input=test_input, expected=expected, custom=True)]
    )
