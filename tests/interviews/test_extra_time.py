"""Time that can be adjusted (issue 40.5, WCAG 2.2.1): the interviewer extends a running live
session, a candidate is granted extra time at scheduling (an accommodation the other
interviewers are not told of), and both clocks follow the server's deadline."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from interviews import services
from interviews.models import InterviewSession, SessionEvent
from tests.factories import client_for, tiny_problem, user_with_role

ACCOMMODATION_WORDS = ("extra time", "accommodation")


def _live(extra: timedelta = timedelta(0)) -> tuple[InterviewSession, Any, Any, Any]:
    """A live session the candidate has joined, with a co-interviewer on its panel."""
    tiny_problem()
    interviewer = user_with_role("int", "interviewer")
    candidate = user_with_role("cand", "candidate")
    co = user_with_role("co", "interviewer")
    session = services.session_schedule_live(
        interviewer=interviewer, problem_slug="add-one", duration=timedelta(minutes=45),
        candidate=candidate, extra_time=extra,
    )
    services.co_interviewer_add(session=session, user=interviewer, username="co")
    assert session.invite_token
    session = services.session_join(token=session.invite_token, user=candidate)
    return session, interviewer, candidate, co


@pytest.mark.django_db
def test_the_interviewer_extends_a_running_session_and_the_timeline_says_so() -> None:
    session, interviewer, _candidate, _co = _live()
    before = session.deadline
    assert before is not None
    extended = services.session_extend(session_id=session.pk, user=interviewer, minutes=10)
    assert extended.deadline == before + timedelta(minutes=10)
    session.refresh_from_db()
    assert session.deadline == before + timedelta(minutes=10)
    event = session.events.get(kind=SessionEvent.Kind.EXTENDED)
    assert event.actor == interviewer and event.data["minutes"] == 10
    # The old deadline passing finishes nothing: the clock is the stored deadline.
    InterviewSession.objects.filter(pk=session.pk).update(
        deadline=timezone.now() + timedelta(seconds=30))
    assert services.session_extend(session_id=session.pk, user=interviewer, minutes=5)
    assert services.session_expire_if_due(session.pk) is False
    state = client_for(interviewer).get(f"/sessions/{session.pk}/state").json()
    assert state["status"] == "active"


@pytest.mark.django_db
def test_only_the_interviewer_extends_by_whole_minutes_while_it_runs() -> None:
    session, interviewer, candidate, co = _live()
    for who in (candidate, co):
        with pytest.raises(services.SessionError) as refused:
            services.session_extend(session_id=session.pk, user=who, minutes=5)
        assert refused.value.code == "forbidden"
    for bad in (0, -5, 61, 2.5, "5", True, None):
        with pytest.raises(services.SessionError) as refused:
            services.session_extend(session_id=session.pk, user=interviewer, minutes=bad)
        assert refused.value.code == "bad_minutes"
    services.session_finish(session_id=session.pk, reason="interviewer", by=interviewer)
    with pytest.raises(services.SessionError) as refused:
        services.session_extend(session_id=session.pk, user=interviewer, minutes=5)
    assert refused.value.code == "not_active"
    assert not session.events.filter(kind=SessionEvent.Kind.EXTENDED).exists()


@pytest.mark.django_db
def test_the_extend_endpoint_answers_the_new_deadline_and_refuses_clearly() -> None:
    session, interviewer, candidate, _co = _live()
    answer = client_for(interviewer).post(f"/sessions/{session.pk}/extend", {"minutes": 5},
                                          content_type="application/json")
    assert answer.status_code == 200
    session.refresh_from_db()
    assert session.deadline and answer.json()["deadline"] == session.deadline.isoformat()
    assert answer.json()["runs_into"] is None  # no loop round: nothing comes after it
    refused = client_for(candidate).post(f"/sessions/{session.pk}/extend", {"minutes": 5},
                                         content_type="application/json")
    assert refused.status_code == 403
    bad = client_for(interviewer).post(f"/sessions/{session.pk}/extend", {"minutes": "lots"},
                                       content_type="application/json")
    assert bad.status_code == 400 and bad.json()["code"] == "bad_minutes"


@pytest.mark.django_db
def test_extra_time_granted_at_scheduling_lengthens_the_candidates_clock() -> None:
    session, _interviewer, _candidate, _co = _live(extra=timedelta(minutes=15))
    assert session.started_at and session.deadline
    assert session.deadline - session.started_at == timedelta(minutes=60)
    with pytest.raises(services.SessionError) as refused:
        services.session_schedule_live(
            interviewer=session.interviewer, problem_slug="add-one",
            duration=timedelta(minutes=45), extra_time=timedelta(hours=3))
    assert refused.value.code == "bad_extra_time"


@pytest.mark.django_db
def test_the_schedule_form_grants_extra_time_and_refuses_it_at_its_field() -> None:
    tiny_problem()
    interviewer = user_with_role("int", "interviewer")
    client = client_for(interviewer)
    form = {"problem": "add-one", "minutes": "45", "extra_minutes": "20", "tz": "UTC"}
    answer = client.post("/sessions/live/", form)
    assert answer.status_code == 302
    session = InterviewSession.objects.get()
    assert session.extra_time == timedelta(minutes=20)
    refused = client.post("/sessions/live/", {**form, "extra_minutes": "500"})
    assert refused.status_code == 400
    assert 'id="error-extra_minutes"' in refused.content.decode()


@pytest.mark.django_db
def test_who_granted_it_and_the_candidate_see_the_accommodation_no_other_interviewer() -> None:
    session, interviewer, candidate, co = _live(extra=timedelta(minutes=15))
    for who, told in ((interviewer, True), (candidate, True), (co, False)):
        page = client_for(who).get(f"/sessions/{session.pk}/").content.decode().lower()
        assert ('id="accommodation"' in page) is told, who
        if not told:
            for path in ("", "state", "replay/", "replay/data", "review/"):
                text = client_for(co).get(f"/sessions/{session.pk}/{path}").content.decode()
                for word in ACCOMMODATION_WORDS:
                    assert word not in text.lower(), (path, word)
                assert "extra_time" not in text
    # the extend buttons are the room runner's alone
    for who, shown in ((interviewer, True), (candidate, False), (co, False)):
        page = client_for(who).get(f"/sessions/{session.pk}/").content.decode()
        assert ('id="extend-form"' in page) is shown, who
