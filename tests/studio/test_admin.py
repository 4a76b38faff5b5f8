"""The admin: interview records are registered, and no admin page shows a secret."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from interviews.models import InterviewSession, Note, Question, Scorecard
from tests.factories import tiny_problem, user_with_role

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client() -> Client:
    client = Client()
    client.force_login(user_with_role("root", admin=True))
    return client


def test_sessions_scorecards_questions_and_notes_are_in_the_admin(admin_client: Client) -> None:
    # given a live session with a question, a note and a scorecard
    candidate = user_with_role("cand", "candidate")
    interviewer = user_with_role("int", "interviewer")
    start = timezone.now() - timedelta(minutes=10)
    session = InterviewSession.objects.create(
        problem=tiny_problem(),
        candidate=candidate,
        interviewer=interviewer,
        kind="live",
        status="active",
        duration=timedelta(minutes=5),
        started_at=start,
        deadline=start + timedelta(minutes=5),
        invite_token="s3cret-invite-token",
    )
    Question.objects.create(session=session, asked_by=candidate, text="Is n < 10?", asked_at=start)
    Note.objects.create(
        session=session, author=interviewer, text="clear tradeoff", created_at=start
    )
    card = Scorecard.objects.create(session=session, interviewer=interviewer, summary="ok")
    # then each has a list and a change page, and the invite token shows nowhere
    pages = {
        "/admin/interviews/interviewsession/": "add-one",
        f"/admin/interviews/interviewsession/{session.pk}/change/": "Is n &lt; 10?",
        "/admin/interviews/scorecard/": "int",
        f"/admin/interviews/scorecard/{card.pk}/change/": "ok",
        "/admin/interviews/question/": "cand",
        "/admin/interviews/note/": "int",
    }
    for path, expected in pages.items():
        response = admin_client.get(path)
        assert response.status_code == 200, path
        html = response.content.decode()
        assert expected in html, path
        assert "s3cret-invite-token" not in html, path
    # the status is the derived one: the deadline has passed, so it reads finished
    listing = admin_client.get("/admin/interviews/interviewsession/").content.decode()
    assert "finished" in listing


def test_versions_are_read_only_in_the_admin(admin_client: Client) -> None:
    problem = tiny_problem()
    version = problem.versions.get()
    assert admin_client.get("/admin/problems/problemversion/add/").status_code == 403
    page = admin_client.get(f"/admin/problems/problemversion/{version.pk}/change/")
    assert page.status_code == 200
    assert 'name="tests_hash"' not in page.content.decode()
    # publishing is the studio's (it checks validation), not a checkbox
    problem_page = admin_client.get(f"/admin/problems/problem/{problem.pk}/change/")
    assert 'name="published"' not in problem_page.content.decode()
    # nor is the content, which reaches candidates only through a version made live
    assert 'name="statement_md"' not in problem_page.content.decode()
    assert 'name="hints"' not in problem_page.content.decode()
    assert 'name="coauthors"' in problem_page.content.decode()
