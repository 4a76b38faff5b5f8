"""A custom input on a batching problem, as the candidate reads it (issue 26, point 3): the
checker's findings in the words the hidden tests use, and an input the grader's driver cannot
read said to be the input's fault, not a traceback of the driver blamed on the candidate.

Real sandbox (the CPU image: the "sim" model tier is plain Python) and the bank's own
driver.py, support.py and checker.py of continuous-batching-engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from grading.judge import Compare, GradeSpec, TestSpec, judge
from sandbox import Limits

pytestmark = pytest.mark.docker

PACKAGE = Path(__file__).resolve().parents[2] / "problems" / "bank" / "continuous-batching-engine"


@pytest.fixture
def sandbox_image(sandbox_images: dict[str, str]) -> str:
    return sandbox_images["cpu"]


LIMITS = Limits(test_wall_seconds=20.0, test_cpu_seconds=20.0, memory_mb=512)


def _spec(image: str, solution: str, test: TestSpec) -> GradeSpec:
    return GradeSpec(
        solution=solution,
        driver={"kind": "custom", "entry": "Engine", "source": (PACKAGE / "driver.py").read_text()},
        tests=[test],
        limits=LIMITS,
        compare=Compare(mode="checker"),
        image=image,
        checker_code=(PACKAGE / "checker.py").read_text(),
        support_code=(PACKAGE / "support.py").read_text(),
    )


def _first_public_input() -> Any:
    return json.loads((PACKAGE / "tests" / "public.json").read_text())[0]["input"]


def test_a_custom_input_gets_the_hidden_tests_words_and_the_schedule(sandbox_image: str) -> None:
    wrong = (PACKAGE / "wrong" / "static_batching.py").read_text()
    given = _first_public_input()
    # The same input as a problem's test, and as the candidate's own (compared the same way).
    as_test = judge(_spec(sandbox_image, wrong, TestSpec("t", given, None, group="g")))
    as_custom = judge(_spec(sandbox_image, wrong, TestSpec("custom", given, None, custom=True)))
    graded, custom = as_test.tests[0], as_custom.tests[0]
    assert graded.verdict == custom.verdict == "WA"
    assert custom.detail["message"] == graded.detail["message"] != ""
    evidence = custom.detail["evidence"]
    assert isinstance(evidence.get("occupancy"), list) and evidence["occupancy"]


def test_an_input_the_driver_cannot_read_says_so(sandbox_image: str) -> None:
    reference = (PACKAGE / "reference.py").read_text()
    malformed = {"capacity": 2, "model": {"tier": "sim"}, "requests": [{"id": "a"}]}
    test = TestSpec("custom", malformed, None, custom=True)
    judged = judge(_spec(sandbox_image, reference, test))
    detail = judged.tests[0].detail
    assert judged.verdict == "RE" and detail["input_error"] is True
    assert detail["message"].startswith("your input does not match this problem's input format")
    # No frame of the grader's files is shown as the candidate's traceback.
    assert "driver" not in detail["error"] and "support.py" not in detail["error"]
    assert "Traceback" not in detail["error"]
