"""Building and changing an onsite loop (issue 39 point 1): rounds in order with breaks, each a
live session with its interviewer and panel; ONE e-mail per change to the candidate with one
VEVENT per round (the single session's UID, SEQUENCE and CANCEL), one per interviewer with
theirs; moving or cancelling one round or the whole loop; the refusals, each a clear error.
Mail goes through Django's SMTP backend to a real local SMTP server (aiosmtpd)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from icalendar import Calendar

from interviews import services as session_services
from interviews.models import InterviewSession, ReviewAssignment, ScheduleChange
from interviews.services import SessionError
from loops.models import Loop
from loops.services.mail import loop_mail_send, loop_token
from loops.services.scheduling import (
    RoundPlan,
    loop_cancel,
    loop_claim,
    loop_reschedule,
    loop_round_cancel,
    loop_round_reschedule,
    loop_schedule,
)
from tests.factories import client_for, user_with_role
from tests.interviews.mail import Inbox
from tests.loops.helpers import SITE, calendar_of, first_start, interviewer, three_rounds

pytestmark = pytest.mark.django_db


def sessions_of(loop: Loop) -> list[InterviewSession]:
    return [r.session for r in loop.rounds.select_related("session").order_by("position")]


def mailed(inbox: Inbox, loop: Loop, changes: list[ScheduleChange]) -> dict[str, Any]:
    """The e-mails of one change of the loop as the io worker sends them, by recipient."""
    before = len(inbox.messages)
    assert loop_mail_send(loop_id=loop.pk, change_ids=[c.pk for c in changes], site=SITE)
    return {m["To"]: m for m in inbox.messages[before:]}


def latest_changes(loop: Loop) -> list[ScheduleChange]:
    return [s.schedule_changes.order_by("-sequence", "-id").first() for s in sessions_of(loop)]


def test_a_loop_is_rounds_in_order_and_one_invitation_with_an_entry_per_round(
    inbox: Inbox, django_capture_on_commit_callbacks: Any
) -> None:
    recruiter = user_with_role("rita", "recruiter")
    with django_capture_on_commit_callbacks(execute=False) as queued:
        loop = three_rounds(recruiter)
    # nothing was sent inside the request: the mail and the webhook wait for the commit
    assert len(inbox.messages) == 0 and len(queued) == 2
    coding, debugging, design = sessions_of(loop)
    start = first_start()
    assert [s.scheduled_for for s in (coding, debugging, design)] == [
        start, start + timedelta(minutes=60), start + timedelta(minutes=120)]
    assert [s.interviewer.username for s in (coding, debugging, design)] == ["ivy", "max", "zoe"]
    assert all(s.kind == "live" and s.status == "scheduled" for s in (coding, debugging, design))
    assert list(ReviewAssignment.objects.filter(session=coding)
                .values_list("interviewer__username", flat=True)) == ["zoe"]
    assert [(r.label, r.break_after) for r in loop.rounds.order_by("position")] == [
        ("Coding", timedelta(minutes=15)), ("ML debugging", timedelta(minutes=30)),
        ("System design", timedelta(0))]
    assert loop.created_by == recruiter and loop.candidate_timezone == "Europe/Berlin"

    by_to = mailed(inbox, loop, latest_changes(loop))
    # ONE e-mail to the candidate, one to each interviewer (their own round)
    assert sorted(by_to) == ["ada@example.com", "ivy@example.com", "max@example.com",
                             "zoe@example.com"]
    calendar, events, method = calendar_of(by_to["ada@example.com"])
    assert str(calendar["METHOD"]) == method == "REQUEST"
    assert [str(e["UID"]) for e in events] == [
        f"onsite-session-{s.pk}@onsite" for s in (coding, debugging, design)]
    assert [int(e["SEQUENCE"]) for e in events] == [0, 0, 0]
    assert [e.decoded("DTSTART") for e in events] == [
        s.scheduled_for for s in (coding, debugging, design)]
    assert [e.decoded("DTEND") - e.decoded("DTSTART") for e in events] == [
        timedelta(minutes=45), timedelta(minutes=30), timedelta(minutes=45)]
    assert all(str(e["STATUS"]) == "CONFIRMED" for e in events)
    body = by_to["ada@example.com"].get_body(preferencelist=("plain",)).get_content()
    # the day in the candidate's zone (Berlin: 09:00 UTC is 10:00 in winter, 11:00 in summer)
    berlin = start.astimezone(__import__("zoneinfo").ZoneInfo("Europe/Berlin"))
    assert f"{berlin:%H:%M}" in body and "Europe/Berlin" in body
    assert f"{SITE}/sessions/join/{coding.invite_token}/" in body
    assert f"{SITE}/loops/join/{loop_token(loop)}/" in body
    _, ivy_events, _ = calendar_of(by_to["ivy@example.com"])
    assert [str(e["UID"]) for e in ivy_events] == [f"onsite-session-{coding.pk}@onsite"]
    # the same UID as the single session's own entry: a later single update replaces it
    single = Calendar.from_ical(session_services.invitation_ics(
        session=coding, join_url="x").encode())
    assert [str(e["UID"]) for e in single.walk("VEVENT")] == [str(events[0]["UID"])]
    loop.refresh_from_db()
    assert loop.invitation_sent_at is not None
    # a retried task sends nothing twice
    assert loop_mail_send(loop_id=loop.pk, change_ids=[c.pk for c in latest_changes(loop)],
                          site=SITE)
    assert len(inbox.messages) == 4


def test_moving_one_round_raises_only_its_sequence_and_keeps_the_order(
    inbox: Inbox, django_capture_on_commit_callbacks: Any
) -> None:
    recruiter = user_with_role("rita", "recruiter")
    loop = three_rounds(recruiter)
    coding, debugging, _design = sessions_of(loop)
    assert debugging.scheduled_for is not None
    later = debugging.scheduled_for + timedelta(minutes=10)
    with django_capture_on_commit_callbacks(execute=False):
        loop_round_reschedule(loop_id=loop.pk, position=2, user=recruiter, start=later,
                              duration=timedelta(minutes=40), site=SITE)
    debugging.refresh_from_db()
    assert debugging.scheduled_for == later and debugging.calendar_sequence == 1
    coding.refresh_from_db()
    assert coding.calendar_sequence == 0
    # the breaks follow: 25 minutes after coding, 10 before design
    assert [r.break_after for r in loop.rounds.order_by("position")] == [
        timedelta(minutes=25), timedelta(minutes=10), timedelta(0)]
    change = debugging.schedule_changes.get(sequence=1)
    by_to = mailed(inbox, loop, [change])
    assert sorted(by_to) == ["ada@example.com", "max@example.com"]
    _calendar, events, method = calendar_of(by_to["ada@example.com"])
    assert method == "REQUEST" and len(events) == 1
    assert str(events[0]["UID"]) == f"onsite-session-{debugging.pk}@onsite"
    assert int(events[0]["SEQUENCE"]) == 1 and events[0].decoded("DTSTART") == later

    # into the next round: refused, nothing moved
    with pytest.raises(SessionError) as refused:
        loop_round_reschedule(loop_id=loop.pk, position=2, user=recruiter,
                              start=later + timedelta(minutes=30),
                              duration=timedelta(minutes=45), site=SITE)
    assert refused.value.code == "overlap"
    assert "round 3 starts before round 2 ends" in refused.value.message
    debugging.refresh_from_db()
    assert debugging.scheduled_for == later and debugging.calendar_sequence == 1


def test_moving_the_whole_loop_shifts_every_round_and_keeps_the_breaks(
    inbox: Inbox, django_capture_on_commit_callbacks: Any
) -> None:
    loop = three_rounds()
    ivy = User.objects.get(username="ivy")  # its creator
    before = [s.scheduled_for for s in sessions_of(loop)]
    assert before[0] is not None
    with django_capture_on_commit_callbacks(execute=False):
        loop_reschedule(loop_id=loop.pk, user=ivy, start=before[0] + timedelta(days=1),
                        site=SITE)
    after = sessions_of(loop)
    assert [s.scheduled_for for s in after] == [b + timedelta(days=1) for b in before if b]
    assert [s.calendar_sequence for s in after] == [1, 1, 1]
    by_to = mailed(inbox, loop, latest_changes(loop))
    assert len(by_to) == 4  # one to the candidate, one to each interviewer
    _, events, method = calendar_of(by_to["ada@example.com"])
    assert method == "REQUEST" and [int(e["SEQUENCE"]) for e in events] == [1, 1, 1]
    assert [r.break_after for r in loop.rounds.order_by("position")] == [
        timedelta(minutes=15), timedelta(minutes=30), timedelta(0)]


def test_cancelling_a_round_then_the_loop_sends_cancels_with_the_same_uids(
    inbox: Inbox, django_capture_on_commit_callbacks: Any
) -> None:
    recruiter = user_with_role("rita", "recruiter")
    loop = three_rounds(recruiter)
    coding, debugging, design = sessions_of(loop)
    with django_capture_on_commit_callbacks(execute=False):
        loop_round_cancel(loop_id=loop.pk, position=2, user=recruiter, site=SITE)
    debugging.refresh_from_db()
    assert debugging.status == "cancelled" and debugging.calendar_sequence == 1
    by_to = mailed(inbox, loop, [debugging.schedule_changes.get(sequence=1)])
    calendar, events, method = calendar_of(by_to["ada@example.com"])
    assert str(calendar["METHOD"]) == method == "CANCEL"
    assert [(str(e["UID"]), str(e["STATUS"]), int(e["SEQUENCE"])) for e in events] == [
        (f"onsite-session-{debugging.pk}@onsite", "CANCELLED", 1)]
    # the break now runs from coding to design
    assert loop.rounds.get(position=1).break_after == timedelta(minutes=75)
    # a cancelled round cannot be moved
    with pytest.raises(SessionError) as refused:
        loop_round_reschedule(loop_id=loop.pk, position=2, user=recruiter,
                              start=first_start(), duration=timedelta(minutes=30), site=SITE)
    assert (refused.value.code, refused.value.message) == ("conflict", "round 2 was cancelled")

    with django_capture_on_commit_callbacks(execute=False):
        loop_cancel(loop_id=loop.pk, user=recruiter, site=SITE)
    loop.refresh_from_db()
    assert loop.status == "cancelled" and loop.cancelled_at is not None
    assert [s.status for s in sessions_of(loop)] == ["cancelled"] * 3
    by_to = mailed(inbox, loop, [c for c in latest_changes(loop) if c.sequence == 1
                                 and c.session_id != debugging.pk])
    _, events, method = calendar_of(by_to["ada@example.com"])
    assert method == "CANCEL" and [str(e["UID"]) for e in events] == [
        f"onsite-session-{coding.pk}@onsite", f"onsite-session-{design.pk}@onsite"]
    # a cancelled round's link no longer lets the candidate in
    candidate = user_with_role("ada", "candidate")
    with pytest.raises(SessionError):
        session_services.session_join(token=coding.invite_token or "", user=candidate)


def test_only_interviewers_recruiters_and_admins_build_and_only_managers_change() -> None:
    candidate = user_with_role("cara", "candidate")
    with pytest.raises(SessionError) as refused:
        three_rounds(candidate)
    assert refused.value.code == "forbidden"
    assert not Loop.objects.exists() and not InterviewSession.objects.exists()

    loop = three_rounds(user_with_role("rita", "recruiter"))
    # a round's interviewer (not its creator) and a stranger cannot move the loop: "no such loop"
    for user in (User.objects.get(username="max"), candidate):
        with pytest.raises(SessionError) as refused:
            loop_cancel(loop_id=loop.pk, user=user, site=SITE)
        assert (refused.value.code, refused.value.message) == ("not_participant", "no such loop")
    loop.refresh_from_db()
    assert loop.status == "scheduled"


@pytest.mark.parametrize(
    ("change", "code", "words"),
    [
        ({"second_start": -20}, "overlap", "round 2 starts before round 1 ends"),
        ({"interviewer": "nobody"}, "bad_interviewer", "round 2: no interviewer 'nobody'"),
        ({"interviewer": "cara"}, "bad_interviewer", "round 2: no interviewer 'cara'"),
        ({"problem": "no-such"}, "unknown_problem", "round 2: no published problem"),
        ({"minutes": 0}, "bad_duration", "round 2: the length is between"),
        ({"second_start": -60 * 24 * 2}, "bad_start", "round 2: the start time is in the past"),
        ({"second_start": 60 * 24 * 400}, "bad_start", "round 2: the start is more than a year"),
        ({"co": ("max",)}, "bad_interviewer", "round 2: max already runs it"),
        ({"tz": "Mars/Olympus"}, "bad_timezone", "'Mars/Olympus' is not a time zone"),
        ({"tz": "America"}, "bad_timezone", "'America' is not a time zone"),
        ({"tz": "x" * 300}, "bad_timezone", "is not a time zone"),
        ({"email": "not an address"}, "bad_email", "is not an e-mail address"),
        ({"email": ""}, "bad_email", "give the candidate's e-mail"),
        ({"title": ""}, "bad_title", "give the loop a title"),
        ({"rounds": 0}, "bad_rounds", "at least one round"),
        ({"candidate": "nobody"}, "bad_candidate", "no user 'nobody'"),
    ],
)
def test_each_bad_loop_is_refused_with_its_reason_and_nothing_is_made(
    change: dict[str, Any], code: str, words: str
) -> None:
    from tests.factories import tiny_problem

    tiny_problem()
    ivy = interviewer("ivy")
    interviewer("max")
    user_with_role("cara", "candidate")
    start = first_start()
    second = start + timedelta(minutes=60 + change.get("second_start", 0))
    rounds = [
        RoundPlan(problem="add-one", interviewer="ivy", start=start,
                  duration=timedelta(minutes=45)),
        RoundPlan(problem=change.get("problem", "add-one"),
                  interviewer=change.get("interviewer", "max"), start=second,
                  duration=timedelta(minutes=change.get("minutes", 30)),
                  co_interviewers=change.get("co", ())),
    ][:change.get("rounds", 2)]
    with pytest.raises(SessionError) as refused:
        loop_schedule(by=ivy, title=change.get("title", "Onsite"), rounds=rounds,
                      candidate_email=change.get("email", "ada@example.com"),
                      candidate=change.get("candidate", ""),
                      candidate_timezone=change.get("tz", "UTC"), site=SITE)
    assert refused.value.code == code and words in refused.value.message
    assert not Loop.objects.exists() and not InterviewSession.objects.exists()


def test_the_invitation_link_claims_the_rounds_for_the_candidate_only() -> None:
    loop = three_rounds()
    ada = user_with_role("ada", "candidate")
    eve = user_with_role("eve", "candidate")
    with pytest.raises(SessionError):
        loop_claim(token=loop_token(loop) + "x", user=ada)
    assert loop_claim(token=loop_token(loop), user=ada) == loop
    assert [s.candidate for s in sessions_of(loop)] == [ada] * 3
    # the rounds are still to come: claiming starts no clock
    assert [s.status for s in sessions_of(loop)] == ["scheduled"] * 3
    with pytest.raises(SessionError) as refused:
        loop_claim(token=loop_token(loop), user=eve)
    assert refused.value.message == "this invitation is for another candidate"
    # each round's own link is then ada's alone
    coding = sessions_of(loop)[0]
    assert session_services.session_join_refusal(coding, eve) != ""
    assert session_services.session_join_refusal(coding, ada) == ""


def test_a_mail_server_that_is_down_keeps_the_loop_and_says_so(
    settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from tests.services import free_port

    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()  # nobody listens
    with django_capture_on_commit_callbacks(execute=False):
        loop = three_rounds()
    changes = latest_changes(loop)
    assert loop_mail_send(loop_id=loop.pk, change_ids=[c.pk for c in changes],
                          site=SITE) is False
    loop.refresh_from_db()
    assert loop.invitation_sent_at is None and loop.invitation_error != ""
    assert all(s.status == "scheduled" and s.invitation_error for s in sessions_of(loop))
    page = client_for(User.objects.get(username="ivy")).get(f"/loops/{loop.pk}/")
    assert 'data-state="error"' in page.content.decode()


def test_a_round_is_moved_and_cancelled_with_its_loop_never_from_its_own_page() -> None:
    """The round's own schedule page would move it without looking at its neighbours (the
    debugging round onto the coding one): it refuses, says where it is done, and keeps resend."""
    recruiter = user_with_role("rita", "recruiter")
    loop = three_rounds(recruiter)
    coding, debugging, _design = sessions_of(loop)
    before = (debugging.scheduled_for, debugging.duration, debugging.calendar_sequence)
    url = f"/sessions/{debugging.pk}/schedule/"
    max_ = client_for(debugging.interviewer)
    assert coding.scheduled_for is not None
    onto_coding = coding.scheduled_for + timedelta(minutes=10)
    answer = max_.post(url, {"action": "reschedule", "starts_date": onto_coding.date().isoformat(),
                             "starts_time": onto_coding.strftime("%H:%M"), "minutes": "30"})
    page = answer.content.decode()
    assert answer.status_code == 409
    assert "round 2 of the loop “ML infrastructure onsite”" in page and "loop&#x27;s page" in page
    answer = max_.post(url, {"action": "cancel"})
    assert answer.status_code == 409 and "round 2 of the loop" in answer.content.decode()
    debugging.refresh_from_db()
    assert (debugging.scheduled_for, debugging.duration, debugging.calendar_sequence) == before
    assert debugging.status == InterviewSession.Status.SCHEDULED

    # The service refuses whoever calls it, an admin included.
    admin = user_with_role("root", admin=True)
    with pytest.raises(SessionError) as refused:
        session_services.session_reschedule(session_id=debugging.pk, user=admin,
                                            scheduled_for=onto_coding, duration=debugging.duration,
                                            join_url=SITE)
    assert refused.value.code == "kept_elsewhere"
    with pytest.raises(SessionError):
        session_services.session_cancel(session_id=debugging.pk, user=admin, join_url=SITE)

    # The page offers neither form, says where it is done, links the loop for whoever sees it.
    page = max_.get(url).content.decode()
    assert 'id="schedule-keeper"' in page and 'id="reschedule-form"' not in page
    assert 'id="cancel-form"' not in page and 'id="resend-form"' in page
    assert f'href="/loops/{loop.pk}/"' in page
    assert max_.post(url, {"action": "resend"})["Location"] == url + "?done=resent"

    # The loop's page moves it, checking the neighbours: onto the coding round is refused.
    with pytest.raises(SessionError) as overlap:
        loop_round_reschedule(loop_id=loop.pk, position=2, user=recruiter, start=onto_coding,
                              duration=timedelta(minutes=30), site=SITE)
    assert overlap.value.code == "overlap"

    # A session that is no loop's round is rescheduled from its own page as before.
    alone = session_services.session_schedule_live(
        interviewer=debugging.interviewer, problem_slug="add-one",
        scheduled_for=onto_coding + timedelta(days=2), duration=timedelta(minutes=30))
    page = client_for(debugging.interviewer).get(f"/sessions/{alone.pk}/schedule/")
    assert 'id="reschedule-form"' in page.content.decode()
