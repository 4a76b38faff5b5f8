"""Test versions: edits make new versions through package validation, a regrade preview grades
past submissions against a new version (in process and through a real Celery worker), and a
version goes live only once validated, leaving past submissions on their own version."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from grading.models import Submission
from problems.models import Problem, ProblemVersion
from problems.package import PackageError
from studio import validation
from studio.models import Regrade
from studio.selectors import regrade_transitions
from studio.services.errors import ProblemActionError
from studio.services.publishing import version_make_live
from studio.services.regrades import regrade_run, version_regrade_preview
from studio.services.validations import version_solutions
from studio.services.versions import version_create
from tests.factories import ADD_ONE, tiny_problem, user_with_role
from tests.processes import kind_queues, wait_for, worker

# Right for small x, wrong from 1000 on: passes v1's tests, fails the test v2 adds.
SMALL_ONLY = "def solve(x):\n    return x + 1 if x < 1000 else x\n"
OFF_BY_TWO = "def solve(x):\n    return x + 2\n"


def hidden_plus_big(problem: Problem) -> str:
    live = problem.live_version
    assert live is not None
    tests = [*live.hidden_tests, {"name": "big", "input": {"args": [5000]}, "expected": 5001,
                                  "tag": "edge_cases"}]  # fmt: skip
    return json.dumps(tests)


def mark_validated(version: ProblemVersion) -> None:
    current = validation.solutions_hash(version_solutions(version))
    ProblemVersion.objects.filter(pk=version.pk).update(
        validation="passed", validation_report={"solutions_hash": current}
    )


def past_submission(
    user: User, problem: Problem, code: str, verdict: str, **fields: Any
) -> Submission:
    live = problem.live_version
    assert live is not None
    defaults: dict[str, Any] = {"mode": "submit", "status": "done", "passed": 5, "total": 5}
    return Submission.objects.create(
        user=user,
        problem=problem,
        version=live,
        code=code,
        verdict=verdict,
        **(defaults | fields),
    )


# ---------------------------------------------------------------- editing creates versions


@pytest.mark.django_db
def test_new_hidden_tests_make_a_new_version_and_keep_the_live_one() -> None:
    problem = tiny_problem()
    version, created = version_create(problem=problem, hidden_json=hidden_plus_big(problem))
    assert created and version.number == 2
    assert [t["name"] for t in version.hidden_tests][-1] == "big"
    assert version.validation == "draft"  # an edit is a draft until someone asks to validate it
    problem.refresh_from_db()
    assert problem.live_version is not None and problem.live_version.number == 1
    again, created_again = version_create(problem=problem, hidden_json=hidden_plus_big(problem))
    assert (again.pk, created_again) == (version.pk, False)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("public", "hidden", "where"),
    [
        ("[{]", None, r"public\.json: file: invalid JSON"),
        (None, '[{"name": "h", "input": {}, "expected": 1, "tag": "speed"}]', r"\[0\]\.tag"),
        (None, '[{"name": "public 0", "input": {}, "expected": 1, "tag": "edge_cases"}]',
         "duplicate test name 'public 0'"),
        ("[]", None, "needs at least 1"),
    ],
)  # fmt: skip
def test_a_malformed_edit_names_the_field_and_saves_nothing(
    public: str | None, hidden: str | None, where: str
) -> None:
    problem = tiny_problem()
    with pytest.raises(PackageError, match=where):
        version_create(problem=problem, public_json=public, hidden_json=hidden)
    assert problem.versions.count() == 1


@pytest.mark.django_db
def test_limits_are_checked_by_the_package_rules_too() -> None:
    problem = tiny_problem()
    with pytest.raises(PackageError, match=r"limits\.test_wall_seconds"):
        version_create(problem=problem, limits={"test_wall_seconds": 500.0})
    version, created = version_create(problem=problem, limits={"test_wall_seconds": 1.5})
    assert created and version.limits["test_wall_seconds"] == 1.5


# ---------------------------------------------------------------- going live


@pytest.mark.django_db
def test_only_a_validated_version_goes_live_and_past_submissions_keep_theirs() -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    old = past_submission(candidate, problem, ADD_ONE, "AC")
    version, _ = version_create(problem=problem, hidden_json=hidden_plus_big(problem))
    with pytest.raises(ProblemActionError, match=r"v2 has not passed validation \(draft\)"):
        version_make_live(version=version)
    mark_validated(version)
    assert version_make_live(version=version).live_version == version
    problem.refresh_from_db()
    assert problem.live_version_id == version.pk
    old.refresh_from_db()
    assert old.version.number == 1


# ---------------------------------------------------------------- regrade preview


def _regrade_setup() -> tuple[Problem, ProblemVersion, dict[str, Submission]]:
    problem = tiny_problem()
    cand = user_with_role("cand", "candidate")
    other = user_with_role("other", "candidate")
    subs = {
        "right": past_submission(cand, problem, ADD_ONE, "AC"),
        "small": past_submission(cand, problem, SMALL_ONLY, "AC"),
        "small again": past_submission(other, problem, SMALL_ONLY, "AC"),
        "wrong": past_submission(other, problem, OFF_BY_TWO, "WA", passed=0),
    }
    # Neither a run nor an unfinished submission is part of a regrade.
    past_submission(cand, problem, OFF_BY_TWO, "WA", mode="run")
    past_submission(cand, problem, OFF_BY_TWO, "", status="queued")
    version, _ = version_create(problem=problem, hidden_json=hidden_plus_big(problem))
    return problem, version, subs


def _assert_preview(regrade: Regrade, subs: dict[str, Submission]) -> None:
    regrade.refresh_from_db()
    assert (regrade.status, regrade.total, regrade.done, regrade.changed) == ("done", 4, 4, 2)
    items = {i.submission_id: i for i in regrade.items.all()}
    assert set(items) == {s.pk for s in subs.values()}
    right, small = items[subs["right"].pk], items[subs["small"].pk]
    assert (right.old_verdict, right.new_verdict, right.changed) == ("AC", "AC", False)
    assert (right.new_passed, right.new_total) == (6, 6)
    assert (small.old_verdict, small.new_verdict, small.changed) == ("AC", "WA", True)
    assert (small.new_passed, small.new_total, small.old_version_number) == (5, 6, 1)
    assert items[subs["wrong"].pk].new_verdict == "WA"
    assert regrade_transitions(regrade) == [("AC", "WA", 2)]
    # A preview changes nothing for candidates: same verdicts, same versions.
    for submission in subs.values():
        stored = Submission.objects.get(pk=submission.pk)
        assert (stored.verdict, stored.version_id) == (submission.verdict, submission.version_id)


@pytest.mark.django_db
@pytest.mark.docker
def test_regrade_preview_records_old_and_new_verdicts_in_process() -> None:
    _, version, subs = _regrade_setup()
    regrade = Regrade.objects.create(version=version, total=0)
    assert regrade_run(regrade_id=regrade.pk) == "done"
    _assert_preview(regrade, subs)
    assert regrade_run(regrade_id=regrade.pk) == "skipped"  # a redelivered task grades nothing


@pytest.mark.django_db(transaction=True)
@pytest.mark.docker
def test_regrade_preview_runs_as_a_celery_job(tmp_path: Path) -> None:
    _, version, subs = _regrade_setup()
    author = user_with_role("author", "author")
    with worker(tmp_path / "worker.log", queues=kind_queues("cpu")):
        regrade = version_regrade_preview(version=version, user=author)
        assert regrade.total == 4
        wait_for(
            lambda: Regrade.objects.filter(pk=regrade.pk, status="done").exists(),
            timeout=120,
            what="the regrade preview",
        )
    _assert_preview(regrade, subs)
    assert regrade.requested_by == author
