"""Issue 28.7, a problem's life: every limit settable (output_bytes too), publishing below the
calibrated limit needs an explicit, recorded confirmation, a draft can be deleted and a
published problem archived (hidden from candidates, history kept)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from grading.models import Submission
from problems.models import Problem
from studio.models import LimitConfirmation
from tests.factories import ADD_ONE, client_for, user_with_role
from tests.studio.versions import mark_validated

pytestmark = pytest.mark.django_db

TIMING = {"suggested_limit_seconds": 4.5, "tests": [], "warnings": []}


def test_output_bytes_is_settable_and_kept_when_left_empty(problem: Problem, writer: User) -> None:
    live = problem.versions.get()
    data = dict(live.limits)  # the limits form (issue 34.5): the limits alone
    client = client_for(writer)
    assert 'name="output_bytes"' in client.get("/studio/add-one/").content.decode()
    assert client.post("/studio/add-one/limits/", data | {"output_bytes": 2048}).status_code == 302
    assert problem.versions.order_by("-number")[0].limits["output_bytes"] == 2048
    response = client.post("/studio/add-one/limits/", data | {"output_bytes": 12})
    assert response.status_code == 400 and "output_bytes" in response.context["limits_form"].errors
    client.post("/studio/add-one/limits/", data | {"output_bytes": "", "memory_mb": 300})
    assert problem.versions.order_by("-number")[0].limits["output_bytes"] == 2048


def test_publishing_below_the_suggested_limit_needs_a_recorded_confirmation(
    problem: Problem, writer: User
) -> None:
    mark_validated(problem.versions.get(), {"timing": TIMING, "lint": {"issues": []}})
    client = client_for(writer)
    page = client.get("/studio/add-one/").content.decode()
    assert 'id="confirm-low-limit"' in page and "below the suggested 4.5 s" in page
    refused = client.post("/studio/add-one/publish/", follow=True).content.decode()
    problem.refresh_from_db()
    assert not problem.published and "below the suggested 4.5 s" in refused
    assert LimitConfirmation.objects.count() == 0
    client.post("/studio/add-one/publish/", {"confirm_low_limit": "on"})
    problem.refresh_from_db()
    assert problem.published
    confirmation = LimitConfirmation.objects.get()
    assert confirmation.confirmed_by == writer and confirmation.version == problem.live_version
    assert (confirmation.limit_seconds, confirmation.suggested_seconds) == (2.0, 4.5)
    page = client.get("/studio/add-one/v1/").content.decode()
    assert "writer confirmed a 2.0 s limit (suggested 4.5 s)" in page


def test_the_publish_confirmation_quotes_the_latest_calibration(
    problem: Problem, writer: User
) -> None:
    """Issue 36.7: a version validated again (a new calibration) is published against the new
    suggestion, never the one its page showed before: the checkbox, the refusal and the
    recorded confirmation all quote the latest."""
    version = problem.versions.get()
    mark_validated(version, {"timing": TIMING, "lint": {"issues": []}})
    client = client_for(writer)
    assert "below the suggested 4.5 s" in client.get("/studio/add-one/").content.decode()
    recalibrated = TIMING | {"suggested_limit_seconds": 3.2}
    mark_validated(version, {"timing": recalibrated, "lint": {"issues": []}})
    page = client.get("/studio/add-one/").content.decode()
    assert "below the suggested 3.2 s" in page and "4.5 s" not in page
    refused = client.post("/studio/add-one/publish/", follow=True).content.decode()
    assert "below the suggested 3.2 s" in refused
    client.post("/studio/add-one/publish/", {"confirm_low_limit": "on"})
    confirmation = LimitConfirmation.objects.get()
    assert (confirmation.limit_seconds, confirmation.suggested_seconds) == (2.0, 3.2)


def test_a_draft_is_deleted_only_with_its_slug_typed_again(problem: Problem, writer: User) -> None:
    client = client_for(writer)
    assert 'id="delete-button"' in client.get("/studio/add-one/").content.decode()
    client.post("/studio/add-one/delete/", {"confirm_slug": "add"})
    assert Problem.objects.filter(slug="add-one").exists()
    response = client.post("/studio/add-one/delete/", {"confirm_slug": "add-one"})
    assert response.status_code == 302 and response["Location"] == "/studio/"
    assert not Problem.objects.filter(slug="add-one").exists()


def test_a_problem_with_a_history_is_archived_not_deleted(problem: Problem, writer: User) -> None:
    mark_validated(problem.versions.get(), {"lint": {"issues": []}})
    client = client_for(writer)
    client.post("/studio/add-one/publish/")
    problem.refresh_from_db()
    assert problem.published and problem in Problem.objects.offered()
    Submission.objects.create(
        user=writer,
        problem=problem,
        version=problem.live_version,
        mode="submit",
        code=ADD_ONE,
        status="done",
        verdict="AC",
    )
    client.post("/studio/add-one/archive/")
    problem.refresh_from_db()
    assert not problem.published and problem.archived_at is not None
    assert problem not in Problem.objects.offered()
    candidate: Client = client_for(user_with_role("cand", "candidate"))
    listing = candidate.get("/")
    assert listing.status_code == 200 and "add-one" not in listing.content.decode()
    page = client.get("/studio/add-one/").content.decode()
    assert 'id="archived"' in page and 'id="delete-button"' not in page
    client.post("/studio/add-one/delete/", {"confirm_slug": "add-one"})
    assert Problem.objects.filter(slug="add-one").exists()
    assert problem.submissions.count() == 1 and problem.versions.count() == 1


def test_going_live_below_the_limit_on_a_published_problem_needs_the_confirmation(
    problem: Problem, writer: User
) -> None:
    v1 = problem.versions.get()
    mark_validated(v1, {"lint": {"issues": []}})
    client = client_for(writer)
    client.post("/studio/add-one/publish/")
    fields = {f.name: getattr(v1, f.name) for f in v1._meta.concrete_fields
              if f.name not in ("id", "number", "validation", "validation_report")}  # fmt: skip
    v2 = problem.versions.create(**fields | {"number": 2})
    mark_validated(v2, {"timing": TIMING, "lint": {"issues": []}})
    assert 'id="confirm-low-limit"' in client.get("/studio/add-one/v2/").content.decode()
    client.post("/studio/add-one/v2/live/")
    problem.refresh_from_db()
    assert problem.live_version == v1 and LimitConfirmation.objects.count() == 0
    client.post("/studio/add-one/v2/live/", {"confirm_low_limit": "on"})
    problem.refresh_from_db()
    assert problem.live_version == v2
    assert LimitConfirmation.objects.get().version == v2
