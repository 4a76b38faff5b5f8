"""More time for a live session (issue 40.5, WCAG 2.2.1): the interviewer moves the running
session's deadline; nobody else can, a finished session cannot be extended, bad input is a 400
and never a 500, and the timeline says it."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client

from interviews import services
from interviews.models import InterviewSession, SessionEvent
from interviews.selectors import _event_label as event_label
from interviews.services import SessionError
from tests.factories import tiny_problem, user_with_role

pytestmark = pytest.mark.django_db(transaction=True)


def running_live() -> tuple[InterviewSession, object, object]:
    problem = tiny_problem()
    interviewer = user_with_role("int", "interviewer")
    candidate = user_with_role("cand", "candidate")
    session = services.session_schedule_live(
        interviewer=interviewer, problem_slug=problem.slug, duration=timedelta(minutes=30)
    )
    assert session.invite_token
    services.session_join(token=session.invite_token, user=candidate)
    session.refresh_from_db()
    return session, interviewer, candidate


def test_the_interviewer_gives_more_minutes_and_the_timeline_says_so() -> None:
    session, interviewer, candidate = running_live()
    before = session.deadline
    assert before is not None
    deadline = services.session_extend(session_id=session.pk, user=interviewer, minutes=10)
    session.refresh_from_db()
    assert session.deadline == deadline == before + timedelta(minutes=10)
    event = SessionEvent.objects.get(session=session, kind=SessionEvent.Kind.SETTINGS)
    assert event.data["extended_minutes"] == 10
    assert event_label(event) == "10 more minutes given"

    with pytest.raises(SessionError) as refused:
        services.session_extend(session_id=session.pk, user=candidate, minutes=10)
    assert refused.value.code == "forbidden"
    for minutes in (0, -5, 61):
        with pytest.raises(SessionError) as bad:
            services.session_extend(session_id=session.pk, user=interviewer, minutes=minutes)
        assert bad.value.code == "bad_minutes"
    session.refresh_from_db()
    assert session.deadline == deadline  # nothing refused moved it


def test_a_finished_session_is_not_extended() -> None:
    session, interviewer, _ = running_live()
    services.session_finish(session_id=session.pk, reason="interviewer", by=interviewer)
    with pytest.raises(SessionError) as refused:
        services.session_extend(session_id=session.pk, user=interviewer, minutes=5)
    assert refused.value.code == "not_active"


def test_the_endpoint_answers_json_and_refuses_bad_input_with_a_400() -> None:
    session, interviewer, candidate = running_live()
    client = Client()
    client.force_login(interviewer)
    url = f"/sessions/{session.pk}/extend"
    answer = client.post(url, json.dumps({"minutes": 5}), content_type="application/json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["minutes"] == 5
    for body in ({"minutes": "lots"}, {"minutes": None}, {}, {"minutes": True}, [1]):
        refused = client.post(url, json.dumps(body), content_type="application/json")
        assert refused.status_code == 400, (body, refused.content)
    other = Client()
    other.force_login(candidate)
    assert other.post(url, json.dumps({"minutes": 5}),
                      content_type="application/json").status_code == 403  # fmt: skip


def test_extra_time_granted_at_scheduling_is_added_when_the_clock_starts() -> None:
    problem = tiny_problem()
    interviewer = user_with_role("int", "interviewer")
    candidate = user_with_role("cand", "candidate")
    session = services.session_schedule_live(
        interviewer=interviewer, problem_slug=problem.slug, duration=timedelta(minutes=30),
        extra_time=timedelta(minutes=15),
    )  # fmt: skip
    assert session.invite_token
    services.session_join(token=session.invite_token, user=candidate)
    session.refresh_from_db()
    assert session.started_at and session.deadline
    assert session.deadline - session.started_at == timedelta(minutes=45)
    for wrong in (timedelta(minutes=-1), timedelta(minutes=121)):
        with pytest.raises(SessionError) as refused:
            services.session_schedule_live(
                interviewer=interviewer, problem_slug=problem.slug,
                duration=timedelta(minutes=30), extra_time=wrong,
            )  # fmt: skip
        assert refused.value.code == "bad_extra_time"


def test_the_accommodation_is_shown_to_the_candidate_and_its_interviewer_only() -> None:
    problem = tiny_problem()
    interviewer = user_with_role("int", "interviewer")
    candidate = user_with_role("cand", "candidate")
    co = user_with_role("co", "interviewer")
    inter = Client()
    inter.force_login(interviewer)
    refused = inter.post("/sessions/live/", {"problem": problem.slug, "minutes": "30",
                                             "extra_minutes": "-5"})  # fmt: skip
    assert refused.status_code == 400 and "cannot be negative" in refused.content.decode()
    inter.post("/sessions/live/", {"problem": problem.slug, "minutes": "30",
                                   "extra_minutes": "15"})  # fmt: skip
    session = InterviewSession.objects.get()
    assert session.extra_time == timedelta(minutes=15)
    assert session.invite_token
    cand = Client()
    cand.force_login(candidate)
    assert "15 minutes, added to your clock" in cand.get(
        f"/sessions/join/{session.invite_token}/").content.decode()  # fmt: skip
    cand.post(f"/sessions/join/{session.invite_token}/")
    services.co_interviewer_add(session=session, user=interviewer, username="co")
    other = Client()
    other.force_login(co)

    shown = "includes 15 min extra time"
    assert shown in cand.get(f"/sessions/{session.pk}/").content.decode()
    assert shown in inter.get(f"/sessions/{session.pk}/").content.decode()
    co_page = other.get(f"/sessions/{session.pk}/")
    assert co_page.status_code == 200
    assert "extra time" not in co_page.content.decode()
