"""Scratch runs (custom input, the file as a script) through the real sandbox, and what they
refuse. They are graded by the same submission_grade as Run and Submit."""

from __future__ import annotations

import pytest

from grading import scratch
from grading.models import Submission
from grading.services import GradingError, submission_create, submission_grade
from tests.factories import tiny_problem, user_with_role

WRONG_ABOVE_100 = "def solve(x):\n    return x + 1 if x < 100 else 0\n"


def _graded(submission: Submission) -> Submission:
    submission_grade(submission_id=submission.pk)
    return Submission.objects.get(pk=submission.pk)


@pytest.mark.django_db
@pytest.mark.docker
def test_custom_input_shows_the_reference_answer_and_no_hidden_test() -> None:
    # given a practice problem (reference shown) and code that is wrong above 100
    problem = tiny_problem()
    user = user_with_role("cara")
    # when the candidate runs it on their own input
    run = submission_create(
        user=user,
        problem_slug=problem.slug,
        code=WRONG_ABOVE_100,
        mode="custom",
        custom_input={"args": [500]},
    )
    graded = _graded(run)
    # then one result: their output beside the reference's, and never a problem test
    [result] = graded.results.all()
    assert result.name == scratch.COMPARED_NAME
    assert (result.verdict, result.detail["output"], result.detail["expected"]) == (
        "WA",
        "0",
        "501",
    )
    assert not result.hidden and graded.total == 1


@pytest.mark.django_db
@pytest.mark.docker
def test_custom_input_without_the_reference_only_runs() -> None:
    problem = tiny_problem()
    problem.custom_reference = False
    problem.save()
    run = submission_create(
        user=user_with_role("cara"),
        problem_slug=problem.slug,
        code="def solve(x):\n    print('seen', x)\n    return x * 2\n",
        mode="custom",
        custom_input={"args": [5]},
    )
    [result] = _graded(run).results.all()
    assert result.name == scratch.CUSTOM_NAME
    assert (result.verdict, result.detail["output"]) == ("AC", "10")
    assert "seen 5" in result.detail["stdout"]


@pytest.mark.django_db
@pytest.mark.docker
def test_script_runs_the_main_block_and_shows_the_traceback() -> None:
    problem = tiny_problem()
    code = (
        "import sys\n"
        "print('top level')\n"
        "if __name__ == '__main__':\n"
        "    print('main block')\n"
        "    print('to stderr', file=sys.stderr)\n"
        "    1 / 0\n"
    )
    run = submission_create(
        user=user_with_role("cara"), problem_slug=problem.slug, code=code, mode="script"
    )
    [result] = _graded(run).results.all()
    assert result.name == scratch.SCRIPT_NAME and result.verdict == "RE"
    # stdout and stderr apart, each in the order it was printed (issue 26).
    assert result.detail["stdout"] == "top level\nmain block\n"
    assert result.detail["stderr"] == "to stderr\n"
    assert 'File "main.py", line 6' in result.detail["error"] and result.detail["line"] == 6
    assert "_onsite_driver" not in result.detail["error"]  # no frame of the console's driver
    assert "1 / 0" in result.detail["error"]
    assert "ZeroDivisionError" in result.detail["error"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "value", [float("nan"), {"args": ["x" * 20_000]}, {"bad": {1, 2}}], ids=["nan", "big", "set"]
)
def test_custom_input_that_is_not_small_plain_json_is_refused(value: object) -> None:
    problem = tiny_problem()
    with pytest.raises(GradingError) as refused:
        submission_create(
            user=user_with_role("cara"),
            problem_slug=problem.slug,
            code="x = 1\n",
            mode="custom",
            custom_input=value,
        )
    assert refused.value.code == "bad_input"
    assert not Submission.objects.exists()
