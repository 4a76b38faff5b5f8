"""The loop pages (issue 39 point 1): the builder (interviewers, recruiters, admins), the
loop's day in the candidate's zone with the lead from one round to the next, the candidate's
invitation that claims the rounds, the schedule controls; who sees a loop (a planted marker
never reaches anyone else, who gets the 404 of a missing loop)."""

from __future__ import annotations

from datetime import UTC, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from interviews.models import InterviewSession
from loops.models import Loop
from loops.services.mail import loop_token
from tests.factories import client_for, tiny_problem, user_with_role
from tests.loops.helpers import first_start, interviewer, three_rounds

pytestmark = pytest.mark.django_db
MARKER = "MARK-LOOP-TITLE-3901"


def build_form(**extra: str) -> dict[str, str]:
    day = (timezone.now() + timedelta(days=2)).astimezone(UTC).date().isoformat()
    return {
        "title": "Platform onsite", "email": "ada@example.com", "tz": "America/New_York",
        "starts_date": day, "starts_time": "09:30",
        "label_1": "Coding", "problem_1": "add-one", "interviewer_1": "ivy",
        "co_1": "zoe", "minutes_1": "45", "break_1": "15",
        "label_2": "Design", "problem_2": "add-one", "interviewer_2": "max",
        "minutes_2": "60", "break_2": "0",
        **extra,
    }


def test_the_builder_schedules_rounds_back_to_back_in_the_candidates_zone(
    django_capture_on_commit_callbacks: Any,
) -> None:
    tiny_problem()
    for name in ("ivy", "max", "zoe"):
        interviewer(name)
    recruiter = user_with_role("rita", "recruiter")
    client = client_for(recruiter)
    page = client.get("/loops/new/")
    assert page.status_code == 200 and 'id="loop-form"' in page.content.decode()
    form = build_form()
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post("/loops/new/", form)
    loop = Loop.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/loops/{loop.pk}/?done=scheduled"
    assert loop.candidate_timezone == "America/New_York" and loop.created_by == recruiter
    coding, design = (r.session for r in loop.rounds.order_by("position"))
    nine_thirty = coding.scheduled_for.astimezone(ZoneInfo("America/New_York"))
    assert (nine_thirty.isoformat()[:10], f"{nine_thirty:%H:%M}") == (form["starts_date"],
                                                                      "09:30")
    assert design.scheduled_for == coding.scheduled_for + timedelta(minutes=60)
    assert coding.review_assignments.get().interviewer.username == "zoe"
    # the day, as the recruiter reads it: in the candidate's zone
    text = client.get(response["Location"]).content.decode()
    assert "America/New_York" in text
    assert "09:30</time>–10:15" in text and "10:30</time>–11:30" in text
    assert "The loop is scheduled" in text and 'id="loop-manage"' in text


def test_a_refused_loop_comes_back_with_every_value_and_the_reason() -> None:
    tiny_problem()
    for name in ("ivy", "zoe"):
        interviewer(name)
    client = client_for(user_with_role("rita", "recruiter"))
    response = client.post("/loops/new/", build_form(interviewer_2="nobody",
                                                     title="Keep this title"))
    text = response.content.decode()
    assert response.status_code == 400
    assert "Round 2: no interviewer &#x27;nobody&#x27;" in text
    assert 'value="Keep this title"' in text and 'value="nobody"' in text
    assert not Loop.objects.exists() and not InterviewSession.objects.exists()
    # a form error is at its field
    response = client.post("/loops/new/", build_form(minutes_1="", starts_time=""))
    text = response.content.decode()
    assert response.status_code == 400 and "Give the round" in text and "Give the time." in text


def test_a_candidate_or_an_author_has_no_builder() -> None:
    for user in (user_with_role("cara", "candidate"), user_with_role("otto", "author")):
        assert client_for(user).get("/loops/new/").status_code == 404
        assert client_for(user).post("/loops/new/", build_form()).status_code == 404
    assert not Loop.objects.exists()


def test_who_sees_a_loop_and_a_stranger_never_sees_its_marker(
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=False):
        loop = three_rounds(user_with_role("rita", "recruiter"))
    Loop.objects.filter(pk=loop.pk).update(title=MARKER)
    ada = user_with_role("ada", "candidate")
    client_for(ada).post(f"/loops/join/{loop_token(loop)}/")
    admin = user_with_role("root", admin=True)
    other_recruiter = user_with_role("rex", "recruiter")
    seeing = [ada, admin, other_recruiter, *User.objects.filter(
        username__in=["rita", "ivy", "max", "zoe"])]
    for user in seeing:
        response = client_for(user).get(f"/loops/{loop.pk}/")
        assert response.status_code == 200, user.username
        assert MARKER in response.content.decode()
        assert MARKER in client_for(user).get("/loops/").content.decode()
    strangers = [user_with_role("eve", "candidate"), user_with_role("ian", "interviewer"),
                 user_with_role("otto", "author")]
    for user in strangers:
        for url in (f"/loops/{loop.pk}/", f"/loops/{loop.pk + 999}/"):
            response = client_for(user).get(url)
            assert response.status_code == 404 and MARKER not in response.content.decode()
        assert MARKER not in client_for(user).get("/loops/").content.decode()
        # nor can they change it
        response = client_for(user).post(f"/loops/{loop.pk}/schedule", {"action": "cancel"})
        assert response.status_code == 404 and MARKER not in response.content.decode()
    anonymous = client_for(None).get(f"/loops/{loop.pk}/")
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    # a round's interviewer sees the loop, but does not change the whole loop
    response = client_for(User.objects.get(username="max")).post(
        f"/loops/{loop.pk}/schedule", {"action": "cancel"})
    assert response.status_code == 404
    loop.refresh_from_db()
    assert loop.status == "scheduled"


def test_the_invitation_claims_the_loop_then_the_page_leads_from_round_to_round(
    settings: Any, django_capture_on_commit_callbacks: Any,
) -> None:
    settings.ONSITE_JOIN_EARLY_MINUTES = 60 * 48  # tomorrow's rounds open now
    with django_capture_on_commit_callbacks(execute=False):
        loop = three_rounds()
    ada = client_for(user_with_role("ada", "candidate"))
    url = f"/loops/join/{loop_token(loop)}/"
    # before accepting: the invitation page, and no loop page
    assert ada.get(f"/loops/{loop.pk}/").status_code == 404
    page = ada.get(url)
    assert page.status_code == 200 and 'id="loop-accept"' in page.content.decode()
    assert ada.get(url[:-2] + "x/").status_code == 404  # a forged token
    response = ada.post(url)
    assert response.status_code == 302 and response["Location"] == f"/loops/{loop.pk}/"
    coding, debugging, _ = (r.session for r in loop.rounds.order_by("position"))
    text = ada.get(f"/loops/{loop.pk}/").content.decode()
    assert 'data-next="1"' in text and "Next: Coding" in text
    assert f'href="/sessions/join/{coding.invite_token}/"' in text
    berlin = first_start().astimezone(ZoneInfo("Europe/Berlin"))
    ends = berlin + timedelta(minutes=45)
    assert f"{berlin:%H:%M}</time>–{ends:%H:%M}" in text and "Europe/Berlin" in text
    # someone else opening the link is told it is not theirs
    eve = client_for(user_with_role("eve", "candidate"))
    refused = eve.get(url)
    assert refused.status_code == 403 and "for another candidate" in refused.content.decode()
    assert eve.post(url).status_code == 403

    # the first round is held: the page leads to the second
    InterviewSession.objects.filter(pk=coding.pk).update(status="finished",
                                                        finished_at=timezone.now())
    text = ada.get(f"/loops/{loop.pk}/").content.decode()
    assert "Coding is over. Next: ML debugging" in text and 'data-next="2"' in text
    assert f'id="next-link" href="/sessions/join/{debugging.invite_token}/"' in text
    # the interviewer of the held round goes to its review, the next one's to its room
    ivy_text = client_for(User.objects.get(username="ivy")).get(f"/loops/{loop.pk}/")
    assert f"/sessions/{coding.pk}/review/" in ivy_text.content.decode()


def test_the_page_moves_and_cancels_a_round_and_the_loop(
    django_capture_on_commit_callbacks: Any,
) -> None:
    recruiter = user_with_role("rita", "recruiter")
    with django_capture_on_commit_callbacks(execute=False):
        loop = three_rounds(recruiter)
    client = client_for(recruiter)
    coding, debugging, design = (r.session for r in loop.rounds.order_by("position"))
    berlin = ZoneInfo("Europe/Berlin")
    assert debugging.scheduled_for is not None
    moved = (debugging.scheduled_for + timedelta(minutes=5)).astimezone(berlin)
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post(f"/loops/{loop.pk}/schedule", {
            "action": "round_reschedule", "position": "2", "starts_date": f"{moved:%Y-%m-%d}",
            "starts_time": f"{moved:%H:%M}", "minutes": "30"})
    assert response.status_code == 302 and response["Location"].endswith(
        "?done=round_rescheduled")
    debugging.refresh_from_db()
    assert debugging.scheduled_for == moved and debugging.calendar_sequence == 1
    # an overlapping move is refused on the page, nothing moves (400: the asked-for day is
    # impossible in itself, as when building the loop: core.errors)
    response = client.post(f"/loops/{loop.pk}/schedule", {
        "action": "round_reschedule", "position": "2", "starts_date": f"{moved:%Y-%m-%d}",
        "starts_time": f"{moved:%H:%M}", "minutes": "90"})
    assert response.status_code == 400
    assert "Round 3 starts before round 2 ends" in response.content.decode()
    for junk in ({"action": "round_cancel", "position": "x"}, {"action": "nope"},
                 {"action": "round_cancel", "position": "9"}):
        assert client.post(f"/loops/{loop.pk}/schedule", junk).status_code in (400, 404)
    with django_capture_on_commit_callbacks(execute=False):
        assert client.post(f"/loops/{loop.pk}/schedule", {
            "action": "round_cancel", "position": "3"}).status_code == 302
    design.refresh_from_db()
    assert design.status == "cancelled"
    with django_capture_on_commit_callbacks(execute=False):
        assert client.post(f"/loops/{loop.pk}/schedule", {"action": "cancel"}).status_code == 302
    loop.refresh_from_db()
    coding.refresh_from_db()
    assert loop.status == "cancelled" and coding.status == "cancelled"
    text = client.get(f"/loops/{loop.pk}/").content.decode()
    assert "This loop was cancelled" in text and 'id="loop-manage"' not in text


def test_a_rounds_session_page_leads_to_the_next_round_and_the_list_links_the_builder(
    settings: Any, django_capture_on_commit_callbacks: Any,
) -> None:
    from interviews import services as session_services

    settings.ONSITE_JOIN_EARLY_MINUTES = 60 * 48  # tomorrow's rounds open now
    with django_capture_on_commit_callbacks(execute=False):
        loop = three_rounds()
    ada = user_with_role("ada", "candidate")
    client = client_for(ada)
    client.post(f"/loops/join/{loop_token(loop)}/")
    coding, debugging, design = (r.session for r in loop.rounds.order_by("position"))
    with django_capture_on_commit_callbacks(execute=False):
        session_services.session_join(token=coding.invite_token or "", user=ada)
    text = client.get(f"/sessions/{coding.pk}/").content.decode()
    assert 'id="loop-round-block"' in text and "Round 1 of 3" in text
    assert f'id="loop-next-round" href="/sessions/join/{debugging.invite_token}/"' in text
    # the interviewer of the round sees the lead too, but not the candidate's link
    ivy_text = client_for(User.objects.get(username="ivy")).get(
        f"/sessions/{coding.pk}/").content.decode()
    assert "Round 1 of 3" in ivy_text and "Next: <strong>ML debugging</strong>" in ivy_text
    second = (first_start() + timedelta(minutes=60)).astimezone(ZoneInfo("Europe/Berlin"))
    assert f"{second:%H:%M} <span class=\"muted\">(Europe/Berlin)" in ivy_text
    assert str(debugging.invite_token) not in ivy_text
    # the last round says so
    with django_capture_on_commit_callbacks(execute=False):
        session_services.session_join(token=design.invite_token or "", user=ada)
    assert "the loop's last round" in client.get(f"/sessions/{design.pk}/").content.decode()
    # a single session has no block
    with django_capture_on_commit_callbacks(execute=False):
        single = session_services.session_start_solo(candidate=ada, problem_slug="add-one",
                                                     duration=timedelta(minutes=30))
    assert 'id="loop-round-block"' not in client.get(f"/sessions/{single.pk}/").content.decode()
    # the sessions list links the builder for those who build loops, not for a candidate
    assert 'id="loop-builder-link"' in client_for(User.objects.get(username="ivy")).get(
        "/sessions/").content.decode()
    assert 'id="loop-builder-link"' not in client.get("/sessions/").content.decode()


def test_a_moved_round_shows_in_the_loops_day(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Moved with its loop (never from its own session page, which refuses: test_scheduling),
    the round keeps its calendar entry (the same UID, the next SEQUENCE) and the day's breaks
    follow it."""
    from loops.services.scheduling import loop_round_reschedule

    with django_capture_on_commit_callbacks(execute=False):
        loop = three_rounds()
    coding = loop.rounds.get(position=1).session
    ivy = User.objects.get(username="ivy")
    assert coding.scheduled_for is not None
    with django_capture_on_commit_callbacks(execute=False):
        loop_round_reschedule(loop_id=loop.pk, position=1, user=ivy, site="x",
                              start=coding.scheduled_for + timedelta(minutes=10),
                              duration=timedelta(minutes=45))
    change = coding.schedule_changes.order_by("-id").first()
    assert change is not None and change.sequence == 1
    text = client_for(ivy).get(f"/loops/{loop.pk}/").content.decode()
    assert "5-minute break" in text and "15-minute break" not in text


def test_more_time_past_the_next_rounds_start_is_said_and_that_start_stays(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The coding round runs until 5 minutes before the debugging round: 3 more minutes say
    nothing, 5 more say the debugging round now starts before this one ends (it keeps its
    start); a session that is no loop's round answers no such thing."""
    from django.utils import timezone

    from interviews.models import InterviewSession

    with django_capture_on_commit_callbacks(execute=False):
        loop = three_rounds()
    coding, debugging = (loop.rounds.get(position=n).session for n in (1, 2))
    assert debugging.scheduled_for is not None
    InterviewSession.objects.filter(pk=coding.pk).update(
        status=InterviewSession.Status.ACTIVE, started_at=timezone.now(),
        candidate=user_with_role("ada", "candidate"),
        deadline=debugging.scheduled_for - timedelta(minutes=5))
    ivy = client_for(User.objects.get(username="ivy"))
    url = f"/sessions/{coding.pk}/extend"
    with django_capture_on_commit_callbacks(execute=False):
        short = ivy.post(url, {"minutes": 3}, content_type="application/json")
    assert short.status_code == 200 and short.json()["runs_into"] is None
    with django_capture_on_commit_callbacks(execute=False):
        past = ivy.post(url, {"minutes": 5}, content_type="application/json")
    assert past.status_code == 200
    assert past.json()["runs_into"] == {
        "what": "round 2 (ML debugging)", "starts": debugging.scheduled_for.isoformat()}
    debugging.refresh_from_db()
    assert debugging.scheduled_for == loop.rounds.get(position=2).session.scheduled_for
    page = ivy.get(f"/sessions/{coding.pk}/").content.decode()
    assert 'id="extend-note"' in page
