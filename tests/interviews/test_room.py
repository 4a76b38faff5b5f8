"""Who runs the live interview room (issue 27 point 4), through the services and the client.

Only the interviewer ends a live session (the candidate's end request is refused with a clear
error, a solo candidate keeps their own); the candidate's "I'm done" tells the interviewer (the
timeline, the cockpit's notice) and ends nothing; the session's interviewer adds
co-interviewers, a candidate or a stranger cannot; the error pages are the site's own.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from core.roles import may_add_co_interviewer, may_end_session
from interviews import selectors, services
from interviews.models import InterviewSession, ReviewAssignment, SessionEvent
from tests.factories import client_for, joined_live_session, tiny_problem, user_with_role
from tests.interviews.pages import page_state

pytestmark = pytest.mark.django_db


def live() -> tuple[InterviewSession, Any, Any]:
    return joined_live_session(tiny_problem(), interviewer_name="lead")


# ---------------------------------------------------------------- who ends the session


def test_the_live_candidate_cannot_end_the_session_and_is_told_why() -> None:
    session, candidate, _ = live()
    response = client_for(candidate).post(f"/sessions/{session.pk}/finish")
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"
    assert "only the interviewer ends" in response.json()["detail"]
    assert "I'm done" in response.json()["detail"]
    session.refresh_from_db()
    assert session.status == "active" and session.final_submission_id is None


def test_the_interviewer_ends_the_live_session() -> None:
    session, _, interviewer = live()
    response = client_for(interviewer).post(f"/sessions/{session.pk}/finish")
    assert response.status_code == 200 and response.json()["status"] == "finished"
    session.refresh_from_db()
    assert session.finish_reason == "interviewer"


def test_a_solo_candidate_still_ends_their_own_session() -> None:
    problem = tiny_problem()
    candidate = user_with_role("solo", "candidate")
    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=5)
    )
    assert client_for(candidate).post(f"/sessions/{session.pk}/finish").status_code == 200
    session.refresh_from_db()
    assert session.status == "finished" and session.finish_reason == "candidate"


def test_the_page_gives_the_end_button_to_whoever_runs_the_room() -> None:
    session, candidate, interviewer = live()
    theirs = client_for(candidate).get(f"/sessions/{session.pk}/").content.decode()
    assert 'id="done-button"' in theirs and 'id="finish-button"' not in theirs
    lead = client_for(interviewer).get(f"/sessions/{session.pk}/").content.decode()
    assert 'id="finish-button"' in lead and 'id="done-button"' not in lead
    assert f'data-review-url="/sessions/{session.pk}/review/"' in lead
    assert "data-review-url" not in theirs


# ---------------------------------------------------------------- "I'm done"


def test_im_done_tells_the_interviewer_and_ends_nothing() -> None:
    session, candidate, interviewer = live()
    client = client_for(candidate)
    first = client.post(f"/sessions/{session.pk}/done")
    assert first.status_code == 200 and first.json()["status"] == "active"
    again = client.post(f"/sessions/{session.pk}/done")
    assert again.json()["done_at"] == first.json()["done_at"]  # recorded once
    session.refresh_from_db()
    assert session.status == "active"
    assert session.events.filter(kind=SessionEvent.Kind.DONE).count() == 1

    # The interviewer's page shows the notice; the state says when; the timeline has it.
    lead = client_for(interviewer).get(f"/sessions/{session.pk}/").content.decode()
    notice = lead[lead.index('id="done-notice"') :].split(">", 1)[0]
    assert "hidden" not in notice
    assert page_state(lead)["candidate_done_at"] == first.json()["done_at"]
    marks = selectors.replay_data(session=session, user=interviewer)["marks"]
    assert "Candidate said they are done" in [mark["label"] for mark in marks]


def test_only_a_live_candidate_says_im_done() -> None:
    session, _, interviewer = live()
    refused = client_for(interviewer).post(f"/sessions/{session.pk}/done")
    assert refused.status_code == 400 and refused.json()["code"] == "not_candidate"
    stranger = user_with_role("stranger", "candidate")
    assert client_for(stranger).post(f"/sessions/{session.pk}/done").status_code == 404
    solo_user = user_with_role("solo", "candidate")
    solo = services.session_start_solo(
        candidate=solo_user, problem_slug="add-one", duration=timedelta(minutes=5)
    )
    answer = client_for(solo_user).post(f"/sessions/{solo.pk}/done")
    assert answer.status_code == 400 and answer.json()["code"] == "no_interviewer"


def test_im_done_after_the_end_is_refused() -> None:
    session, candidate, interviewer = live()
    services.session_finish_by(session_id=session.pk, user=interviewer)
    late = client_for(candidate).post(f"/sessions/{session.pk}/done")
    assert late.status_code == 409 and late.json()["code"] == "not_active"


# ---------------------------------------------------------------- co-interviewers


def test_the_predicates_of_the_room() -> None:
    session, candidate, interviewer = live()
    stranger = user_with_role("other", "interviewer")
    admin = user_with_role("boss", admin=True)
    ids = {"candidate_id": session.candidate_id, "interviewer_id": session.interviewer_id}
    assert may_end_session(interviewer, **ids) and not may_end_session(candidate, **ids)
    assert not may_end_session(stranger, **ids)
    assert may_end_session(candidate, candidate_id=candidate.pk, interviewer_id=None)
    lead = {"interviewer_id": session.interviewer_id}
    assert may_add_co_interviewer(interviewer, **lead) and may_add_co_interviewer(admin, **lead)
    assert not may_add_co_interviewer(candidate, **lead)
    assert not may_add_co_interviewer(stranger, **lead)


def test_the_sessions_interviewer_adds_a_co_interviewer_from_the_cockpit() -> None:
    session, _, interviewer = live()
    user_with_role("second", "interviewer")
    response = client_for(interviewer).post(
        f"/sessions/{session.pk}/co-interviewers",
        {"username": "second"},
        content_type="application/json",
    )
    assert response.status_code == 201 and response.json() == {"co_interviewers": ["second"]}
    assert ReviewAssignment.objects.filter(session=session, interviewer__username="second").exists()
    page = client_for(interviewer).get(f"/sessions/{session.pk}/").content.decode()
    assert 'id="co-interviewer-form"' in page
    not_one = client_for(interviewer).post(
        f"/sessions/{session.pk}/co-interviewers",
        {"username": "cand"},
        content_type="application/json",
    )
    assert not_one.status_code == 400 and not_one.json()["code"] == "bad_interviewer"


def test_a_candidate_or_a_stranger_cannot_add_a_co_interviewer() -> None:
    session, candidate, _ = live()
    user_with_role("second", "interviewer")
    stranger = user_with_role("stranger", "interviewer")
    body = {"username": "second"}
    by_candidate = client_for(candidate).post(
        f"/sessions/{session.pk}/co-interviewers", body, content_type="application/json"
    )
    assert by_candidate.status_code == 403 and by_candidate.json()["code"] == "forbidden"
    by_stranger = client_for(stranger).post(
        f"/sessions/{session.pk}/co-interviewers", body, content_type="application/json"
    )
    assert by_stranger.status_code == 404  # not a participant: the session does not exist
    with pytest.raises(services.SessionError):
        services.co_interviewer_add(session=session, user=stranger, username="second")
    assert not ReviewAssignment.objects.filter(session=session).exists()
    page = client_for(candidate).get(f"/sessions/{session.pk}/").content.decode()
    assert "co-interviewer-form" not in page


# ---------------------------------------------------------------- the error pages


def test_an_author_has_no_review_link_and_gets_the_styled_403() -> None:
    author = user_with_role("writer", "author")
    client = client_for(author)
    home = client.get("/sessions/").content.decode()
    assert 'href="/sessions/review/"' not in home
    response = client.get("/sessions/review/")
    assert response.status_code == 403
    page = response.content.decode()
    assert 'id="error-page"' in page and "site.css" in page
    assert "signed in as <strong>writer</strong>" in page
    assert "interviewer role" in page
    assert "Sign in as another user" in page and "Back to dashboard" in page
    interviewer = user_with_role("asker", "interviewer")
    assert 'href="/sessions/review/"' in client_for(interviewer).get("/sessions/").content.decode()


def test_a_session_that_is_not_yours_is_the_styled_404() -> None:
    session, _, _ = live()
    stranger = user_with_role("stranger", "candidate")
    response = client_for(stranger).get(f"/sessions/{session.pk}/")
    assert response.status_code == 404
    page = response.content.decode()
    assert 'id="error-page"' in page and "There is nothing here" in page
    assert "signed in as <strong>stranger</strong>" in page
    # Under /api/ the answers stay JSON.
    assert client_for(stranger).get("/api/nothing-here").json()["code"] == "not_found"


def test_the_400_and_500_pages_render_without_a_request() -> None:
    from django.template.loader import render_to_string

    for name, text in (("400.html", "could not be read"), ("500.html", "on our side")):
        page = render_to_string(name)
        assert text in page and 'id="error-page"' in page
