"""What candidates are offered, and how the bank's versions get validated after loadproblems."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client

from grading.services import GradingError, submission_create
from problems.models import Problem, ProblemVersion
from problems.services import BANK_DIR
from studio import validation
from studio.services.errors import ProblemActionError
from studio.services.publishing import problem_publish
from studio.services.validations import VALIDATION_JOBS, version_solutions
from studio.services.versions import version_create
from tests.factories import tiny_problem, user_with_role

pytestmark = pytest.mark.django_db


def offered_slugs() -> set[str]:
    return set(Problem.objects.offered().values_list("slug", flat=True))


def test_offered_is_published_and_not_failed_validation() -> None:
    # given a pending, a passed, a failed, an unpublished and a versionless problem
    pending = tiny_problem("pending")
    passed = tiny_problem("passed")
    failed = tiny_problem("failed")
    tiny_problem("hidden", published=False)
    Problem.objects.create(
        slug="empty", title="E", statement_md="-", reference_code="-", published=True
    )
    ProblemVersion.objects.filter(problem=passed).update(validation="passed")
    ProblemVersion.objects.filter(problem=failed).update(validation="failed")
    # then the failed and the unpublished ones are not offered (the versionless one is listed,
    # but nothing can be started or submitted on it: those paths need a live version)
    assert offered_slugs() == {pending.slug, passed.slug, "empty"}


def test_a_failed_problem_is_refused_on_every_candidate_path() -> None:
    problem = tiny_problem()
    ProblemVersion.objects.filter(problem=problem).update(validation="failed")
    candidate = user_with_role("cand", "candidate")
    with pytest.raises(GradingError, match="no published problem"):
        submission_create(user=candidate, problem_slug=problem.slug, code="x = 1", mode="run")
    browser = Client()
    browser.force_login(candidate)
    assert problem.slug not in browser.get("/").content.decode()
    assert browser.get(f"/problems/{problem.slug}/").status_code == 404


def test_loadproblems_leaves_the_bank_pending_and_the_sweeper_queues_it_but_not_drafts() -> None:
    # given the bank's token bucket loaded, and a draft edit of another problem
    call_command("loadproblems", str(BANK_DIR / "token-bucket"))
    bank = ProblemVersion.objects.get(problem__slug="token-bucket")
    assert bank.validation == "pending" and bank.enqueued_at is None
    problem = tiny_problem()
    draft, _ = version_create(problem=problem, limits={"test_wall_seconds": 3.0})
    assert draft.validation == "draft"
    # when the beat's sweeper runs (the broker is the run's real Redis)
    queued = VALIDATION_JOBS.requeue_stale()
    # then the bank's version was handed to the queue, the draft was not
    bank.refresh_from_db()
    draft.refresh_from_db()
    assert queued == 2  # the bank's v1 and the tiny problem's (pending) v1
    assert bank.enqueued_at is not None
    assert draft.enqueued_at is None and draft.validation == "draft"
    # and a second pass right after sends nothing again
    assert VALIDATION_JOBS.requeue_stale() == 0


def test_publishing_needs_the_package_checks_green() -> None:
    problem = tiny_problem(published=False)
    assert problem.live_version is not None
    current = validation.solutions_hash(version_solutions(problem.live_version))
    lint = validation.lint_check(["needs at least 12 hidden tests"])
    ProblemVersion.objects.filter(problem=problem).update(
        validation="passed", validation_report={"solutions_hash": current, "lint": lint}
    )
    with pytest.raises(ProblemActionError, match="package checks of v1 fail: needs at least 12"):
        problem_publish(problem=problem)
    ProblemVersion.objects.filter(problem=problem).update(
        validation_report={"solutions_hash": current, "lint": validation.lint_check([])}
    )
    assert problem_publish(problem=problem).published
