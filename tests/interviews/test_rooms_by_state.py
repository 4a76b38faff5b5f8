"""The room by state (issue 35.1 and 35.2), as a person meets it: the candidate's own session
URL is the waiting room until the start, and a co-interviewer watches the live room.

The whole matrix (every route and socket, every relation, every state) is walked by
tests/privacy/test_doors.py; these are the two cases the issue found, told as stories."""

from __future__ import annotations

from datetime import timedelta
from functools import partial
from typing import Any

import pytest
from django.utils import timezone

from core.realtime import CLOSE_FORBIDDEN, CLOSE_GONE, CLOSE_NOT_STARTED
from interviews import services
from interviews.consumers import ROOMS
from interviews.models import InterviewSession
from tests.factories import client_for, design_problem, tiny_problem, user_with_role
from tests.interviews.ydoc_client import YClient, append, close_code_for
from tests.sockets import run_scenario

STATEMENT = "Return x + 1."  # tiny_problem's statement
STARTER = "pass"  # in tiny_problem's starter


def _scheduled(
    minutes_ahead: float | None, *, slug: str = "add-one", interviewer_can_edit: bool = False
) -> tuple[InterviewSession, Any, Any]:
    interviewer = user_with_role("int", "interviewer")
    candidate = user_with_role("cand", "candidate")
    planned = None if minutes_ahead is None else timezone.now() + timedelta(minutes=minutes_ahead)
    session = services.session_schedule_live(
        interviewer=interviewer,
        problem_slug=slug,
        duration=timedelta(minutes=45),
        candidate=candidate,
        scheduled_for=planned,
        interviewer_can_edit=interviewer_can_edit,
    )
    return session, candidate, interviewer


def _co(session: InterviewSession, interviewer: Any) -> Any:
    co = user_with_role("co", "interviewer")
    services.co_interviewer_add(session=session, user=interviewer, username="co")
    return co


# ---------------------------------------------------------------- the waiting room


@pytest.mark.django_db
def test_forty_minutes_early_the_sessions_own_url_is_the_waiting_room() -> None:
    # given a live interview planned 40 minutes ahead, its candidate already named
    tiny_problem()
    session, candidate, _ = _scheduled(40)
    client = client_for(candidate)
    # when the candidate opens the session's own URL instead of the invitation
    page = client.get(f"/sessions/{session.pk}/")
    # then it is the waiting room: when, how long, nothing of the problem
    assert page.status_code == 200
    text = page.content.decode()
    assert 'id="waiting-room"' in text
    assert STATEMENT not in text and STARTER not in text
    assert 'id="chat-panel"' not in text and 'id="questions-panel"' not in text
    # and every door to the work answers "not started" (409), the replay is missing
    state = client.get(f"/sessions/{session.pk}/state")
    assert state.status_code == 409 and state.json()["code"] == "not_started"
    for route, body in (
        ("chat", {"text": "hello"}),
        ("questions", {"text": "Can x be 0?"}),
        ("notes", {"text": "plan"}),
        ("run", {"mode": "run"}),
        ("done", {}),
        ("hints", {}),
    ):
        answer = client.post(
            f"/sessions/{session.pk}/{route}", body, content_type="application/json"
        )
        assert (answer.status_code, answer.json()["code"]) == (409, "not_started"), route
    assert client.get(f"/sessions/{session.pk}/replay/data").status_code == 404


@pytest.mark.django_db
def test_inside_the_margin_the_candidate_is_asked_to_join_and_sees_the_problem_only_then() -> None:
    # given a live interview starting in five minutes (the link opens ten minutes before)
    tiny_problem()
    session, candidate, _ = _scheduled(5)
    client = client_for(candidate)
    # when the candidate opens the session's URL
    page = client.get(f"/sessions/{session.pk}/").content.decode()
    # then they are asked to join (the invitation's form), and still see nothing of it
    assert 'id="join-form"' in page and f"/sessions/join/{session.invite_token}/" in page
    assert STATEMENT not in page
    # when they join, the clock starts and the room opens
    joined = client.post(f"/sessions/join/{session.invite_token}/")
    assert joined.status_code == 302 and joined["Location"] == f"/sessions/{session.pk}/"
    assert STATEMENT in client.get(f"/sessions/{session.pk}/").content.decode()


@pytest.mark.django_db
def test_an_interview_nobody_joined_in_its_slot_expires() -> None:
    # given a live interview whose whole slot went by without the candidate
    tiny_problem()
    session, candidate, interviewer = _scheduled(None)
    InterviewSession.objects.filter(pk=session.pk).update(
        scheduled_for=timezone.now() - timedelta(hours=2)
    )
    # then its candidate sees that it expired, and the link starts nothing any more
    page = client_for(candidate).get(f"/sessions/{session.pk}/")
    assert page.status_code == 410 and 'id="join-expired"' in page.content.decode()
    joined = client_for(candidate).post(f"/sessions/join/{session.invite_token}/")
    assert joined.status_code == 410
    session.refresh_from_db()
    assert session.status == "scheduled"
    # and its interviewer is sent to its schedule, to reschedule it
    answer = client_for(interviewer).get(f"/sessions/{session.pk}/")
    assert answer.status_code == 302 and answer["Location"].endswith("/schedule/")


# ---------------------------------------------------------------- co-interviewers


@pytest.mark.django_db
def test_a_co_interviewer_watches_the_live_room_with_the_private_panel() -> None:
    # given a live interview with a co-interviewer added from the cockpit
    problem = tiny_problem()
    problem.follow_ups = ["FOLLOW-UP-MARK"]
    problem.save()
    session, candidate, interviewer = _scheduled(None)
    co = _co(session, interviewer)
    services.session_join(token=session.invite_token or "", user=candidate)
    services.private_note_add(session_id=session.pk, user=interviewer, text="NOTE-OF-THE-LEAD")
    client = client_for(co)
    # when the co-interviewer finds it among their sessions and opens it
    listed = client.get("/sessions/").content.decode()
    assert f'href="/sessions/{session.pk}/"' in listed
    page = client.get(f"/sessions/{session.pk}/")
    # then it is the room, with the private panel (the lead's notes among them)
    assert page.status_code == 200
    text = page.content.decode()
    assert STATEMENT in text and 'id="private-notes-panel"' in text
    assert "FOLLOW-UP-MARK" in text and "NOTE-OF-THE-LEAD" in text
    assert "you are a co-interviewer, read-only" in text
    # and read-only: no editing switch, no end button, nothing to send in its name
    assert 'id="interviewer-edit"' not in text and 'id="finish-button"' not in text
    state = client.get(f"/sessions/{session.pk}/state").json()
    assert state["role"] == "co_interviewer" and state["can_edit"] is False
    note = client.post(
        f"/sessions/{session.pk}/private-notes", {"text": "mine"}, content_type="application/json"
    )
    assert note.status_code == 201
    for route in ("hints/reveal", "settings", "finish", "call-link"):
        answer = client.post(
            f"/sessions/{session.pk}/{route}", {"call_link": ""}, content_type="application/json"
        )
        assert answer.status_code == 403, route
    # and the candidate's page never shows the panel's notes
    assert "mine" not in client_for(candidate).get(f"/sessions/{session.pk}/state").content.decode()


@pytest.mark.django_db
def test_on_a_design_round_a_co_interviewer_watches_the_live_board() -> None:
    # given a live design round with a co-interviewer
    design_problem()
    session, candidate, interviewer = _scheduled(None, slug="batch-api")
    co = _co(session, interviewer)
    services.session_join(token=session.invite_token or "", user=candidate)
    # when the co-interviewer opens the session page
    text = client_for(co).get(f"/sessions/{session.pk}/").content.decode()
    # then the live board is on it (the document socket draws it) with the reference design
    assert 'id="session-board"' in text and "Use a queue." in text


@pytest.mark.django_db(transaction=True)
def test_the_document_socket_follows_the_room_by_state() -> None:
    # given an interview planned 40 minutes ahead, with a co-interviewer
    tiny_problem()
    session, candidate, interviewer = _scheduled(40)
    co = _co(session, interviewer)
    close_code = partial(run_scenario, close_code_for)
    try:
        # then before the start the candidate's socket closes "not started", nothing sent
        assert close_code(candidate, session.pk) == CLOSE_NOT_STARTED
        # and its interviewers already open it (they prepare)
        assert close_code(interviewer, session.pk) is None
        assert close_code(co, session.pk) is None
        # and once called off, nobody's opens
        InterviewSession.objects.filter(pk=session.pk).update(status="cancelled")
        assert close_code(interviewer, session.pk) == CLOSE_GONE
        assert close_code(candidate, session.pk) == CLOSE_GONE
    finally:
        ROOMS.clear()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("may_edit", [False, True])
def test_a_co_interviewer_edits_the_live_document_only_when_interviewers_may(
    may_edit: bool,
) -> None:
    # given a live interview with a co-interviewer; interviewers may edit or not
    tiny_problem()
    session, candidate, interviewer = _scheduled(None, interviewer_can_edit=may_edit)
    co = _co(session, interviewer)
    services.session_join(token=session.invite_token or "", user=candidate)

    async def scenario() -> tuple[str, int | None]:
        cand, watcher = YClient(candidate, session.pk), YClient(co, session.pk)
        await cand.connect()
        await watcher.connect()  # the live document reaches the co-interviewer
        await cand.edit(append("x = 1\n"))
        await watcher.pump(until=lambda c: "x = 1" in c.code)
        # when the co-interviewer types
        await watcher.edit(append("# from the panel\n"), wait_ack=False)
        code = None
        if may_edit:
            await watcher.flush()
            await cand.pump(until=lambda c: "from the panel" in c.code)
        else:
            code = await watcher.expect_close()
        await cand.drain()
        text = cand.code
        await cand.disconnect()
        await watcher.disconnect()
        return text, code

    try:
        text, code = run_scenario(scenario)
    finally:
        ROOMS.clear()
    # then the edit lands only when interviewers may edit; otherwise the socket closes 4403
    assert ("from the panel" in text) is may_edit
    assert code == (None if may_edit else CLOSE_FORBIDDEN)
