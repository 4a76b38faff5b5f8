"""Scheduling like a calendar (issue 27 point 1): invite, reschedule, resend and cancel, each
e-mailed to the candidate and the interviewer through Django's SMTP backend to a real local
SMTP server (aiosmtpd), the .ics parsed with the icalendar library; the waiting room before the
link opens; a cancelled session that cannot be joined; who may change a schedule; the schedule
form's errors at their fields with every value kept."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from icalendar import Calendar

from interviews import services
from interviews.models import InterviewSession, ReviewAssignment, ScheduleChange
from tests.factories import client_for, tiny_problem, user_with_role
from tests.interviews.mail import Inbox

pytestmark = pytest.mark.django_db
JOIN_URL = "https://onsite.test/sessions/join/abc/"
ORGANIZER = "Onsite Interviews <calendar@onsite.test>"


def live(
    *, start: datetime | None, email: str = "ada@example.com", interviewer: Any = None
) -> InterviewSession:
    problem = tiny_problem()
    if interviewer is None:
        interviewer = user_with_role("ivy", "interviewer")
        interviewer.email = "ivy@example.com"
        interviewer.save()
    return services.session_schedule_live(
        interviewer=interviewer,
        problem_slug=problem.slug,
        duration=timedelta(minutes=45),
        scheduled_for=start,
        candidate_email=email,
    )


def calendar_of(message: EmailMessage) -> tuple[Calendar, Any, str]:
    """The parsed .ics of a mail, its VEVENT, and the attachment's `method` parameter."""
    (part,) = [p for p in message.iter_attachments() if p.get_filename() == "interview.ics"]
    assert part.get_content_type() == "text/calendar"
    raw = part.get_content()
    calendar = Calendar.from_ical(raw if isinstance(raw, bytes) else raw.encode())
    (event,) = calendar.walk("VEVENT")
    return calendar, event, str(part.get_param("method"))


def sent(inbox: Inbox, change: ScheduleChange, session: InterviewSession) -> list[EmailMessage]:
    """The e-mails of one change, as the io worker sends them."""
    before = len(inbox.messages)
    assert (
        services.invitation_send(session_id=session.pk, join_url=JOIN_URL, change_id=change.pk)
        is True
    )
    return inbox.messages[before:]


def check_calendar(
    messages: list[EmailMessage],
    *,
    session: InterviewSession,
    sequence: int,
    method: str,
    start: datetime,
) -> None:
    assert sorted(m["To"] for m in messages) == ["ada@example.com", "ivy@example.com"]
    for message in messages:
        calendar, event, part_method = calendar_of(message)
        assert str(calendar["METHOD"]) == method == part_method
        assert str(event["UID"]) == f"onsite-session-{session.pk}@onsite"
        assert int(event["SEQUENCE"]) == sequence
        assert event.decoded("DTSTART") == start
        assert event.decoded("DTEND") == start + timedelta(minutes=45)
        for name in ("DTSTART", "DTEND", "DTSTAMP"):  # in UTC: "...Z", no TZID
            assert event[name].to_ical().decode().endswith("Z") and not event[name].params
        assert "Add one" in str(event["SUMMARY"]) and str(event["URL"]) == JOIN_URL
        assert JOIN_URL in str(event["DESCRIPTION"])
        organizer = event["ORGANIZER"]
        assert str(organizer) == "mailto:calendar@onsite.test"
        assert organizer.params["CN"] == "Onsite Interviews"
        attendees = {str(a): a.params for a in event["ATTENDEE"]}
        assert set(attendees) == {"mailto:ada@example.com", "mailto:ivy@example.com"}
        candidate, interviewer = (
            attendees["mailto:ada@example.com"],
            attendees["mailto:ivy@example.com"],
        )
        assert candidate["CN"] == "ada@example.com" and candidate["ROLE"] == "REQ-PARTICIPANT"
        assert candidate["PARTSTAT"] == "NEEDS-ACTION" and candidate["RSVP"] == "TRUE"
        assert interviewer["CN"] == "ivy" and interviewer["ROLE"] == "CHAIR"
        assert interviewer["PARTSTAT"] == "ACCEPTED" and interviewer["RSVP"] == "FALSE"
        assert str(event["STATUS"]) == ("CANCELLED" if method == "CANCEL" else "CONFIRMED")


def test_invite_reschedule_resend_and_cancel_each_mail_both_sides_an_updated_entry(
    inbox: Inbox, settings: Any
) -> None:
    settings.ONSITE_CALENDAR_ORGANIZER = ORGANIZER
    start = (timezone.now() + timedelta(days=3)).replace(microsecond=0).astimezone(UTC)
    session = live(start=start)
    interviewer = session.interviewer
    (invited,) = session.schedule_changes.all()

    mails = sent(inbox, invited, session)
    check_calendar(mails, session=session, sequence=0, method="REQUEST", start=start)
    candidate_mail = next(m for m in mails if m["To"] == "ada@example.com")
    copy = next(m for m in mails if m["To"] == "ivy@example.com")
    assert str(candidate_mail["Subject"]) == "Interview invitation: Add one"
    body = candidate_mail.get_body(preferencelist=("plain",))
    assert body is not None and JOIN_URL in body.get_content()
    assert "opens 10 minutes before" in body.get_content()
    copy_body = copy.get_body(preferencelist=("plain",))
    assert copy_body is not None and "Your copy" in copy_body.get_content()

    later = start + timedelta(days=1, hours=2)
    moved = services.session_reschedule(
        session_id=session.pk,
        user=interviewer,
        scheduled_for=later,
        duration=timedelta(minutes=45),
        join_url=JOIN_URL,
    )
    mails = sent(inbox, moved, session)
    check_calendar(mails, session=session, sequence=1, method="REQUEST", start=later)
    assert all(str(m["Subject"]).startswith("Interview rescheduled") for m in mails)

    again = services.session_invitation_resend(
        session_id=session.pk, user=interviewer, join_url=JOIN_URL
    )
    check_calendar(
        sent(inbox, again, session), session=session, sequence=2, method="REQUEST", start=later
    )

    cancelled = services.session_cancel(session_id=session.pk, user=interviewer, join_url=JOIN_URL)
    mails = sent(inbox, cancelled, session)
    check_calendar(mails, session=session, sequence=3, method="CANCEL", start=later)
    assert all(str(m["Subject"]).startswith("Interview cancelled") for m in mails)

    # Each change is on record, with whom its e-mail went to; a retried task sends nothing.
    session.refresh_from_db()
    assert session.status == "cancelled" and session.calendar_sequence == 3
    history = list(session.schedule_changes.values_list("action", "sequence", "by"))
    assert history == [
        ("invited", 0, interviewer.pk),
        ("rescheduled", 1, interviewer.pk),
        ("resent", 2, interviewer.pk),
        ("cancelled", 3, interviewer.pk),
    ]
    assert all(c.sent_at and len(c.recipients) == 2 for c in session.schedule_changes.all())
    count = len(inbox.messages)
    assert services.invitation_send(
        session_id=session.pk, join_url=JOIN_URL, change_id=cancelled.pk
    )
    assert len(inbox.messages) == count
    with pytest.raises(services.SessionError, match="cancelled"):
        services.session_invitation_resend(
            session_id=session.pk, user=interviewer, join_url=JOIN_URL
        )


def test_the_organizer_is_the_sender_when_no_setting_names_one(inbox: Inbox) -> None:
    session = live(start=timezone.now() + timedelta(days=1))
    ics = services.invitation_ics(session=session, join_url=JOIN_URL)
    (event,) = Calendar.from_ical(ics).walk("VEVENT")
    assert str(event["ORGANIZER"]) == "mailto:invites@onsite.test"  # the inbox's sender


def test_only_the_sessions_interviewers_and_admins_change_its_schedule() -> None:
    session = live(start=timezone.now() + timedelta(days=1))
    url = f"/sessions/{session.pk}/schedule/"
    stranger = user_with_role("olga", "interviewer")
    candidate = user_with_role("ada", "candidate")
    for user in (stranger, candidate):
        assert client_for(user).get(url).status_code == 404
        assert client_for(user).post(url, {"action": "cancel"}).status_code == 404
    session.refresh_from_db()
    assert session.status == "scheduled"

    panel = user_with_role("pat", "interviewer")
    ReviewAssignment.objects.create(session=session, interviewer=panel)
    assert client_for(panel).post(url, {"action": "resend"})["Location"] == url + "?done=resent"
    admin = user_with_role("root", admin=True)
    assert client_for(admin).post(url, {"action": "cancel"})["Location"] == (
        url + "?done=cancelled"
    )
    page = client_for(admin).get(url + "?done=cancelled").content.decode()
    assert 'id="schedule-done"' in page and "No changes possible" in page
    assert [c.by for c in session.schedule_changes.order_by("id")][1:] == [panel, admin]


def test_a_started_session_keeps_its_schedule() -> None:
    session = live(start=timezone.now() + timedelta(minutes=5))
    candidate = user_with_role("ada", "candidate")
    services.session_join(token=session.invite_token or "", user=candidate)
    response = client_for(session.interviewer).post(
        f"/sessions/{session.pk}/schedule/",
        {
            "action": "reschedule",
            "starts_date": "2031-01-01",
            "starts_time": "10:00",
            "minutes": "30",
        },
    )
    assert response.status_code == 409 and "has started" in response.content.decode()


# ---------------------------------------------------------------- the waiting room


def test_too_early_the_link_shows_the_waiting_room_and_starts_nothing() -> None:
    start = timezone.now() + timedelta(days=2)
    session = live(start=start)
    candidate = client_for(user_with_role("ada", "candidate"))
    url = f"/sessions/join/{session.invite_token}/"
    page = candidate.get(url)
    text = page.content.decode()
    assert page.status_code == 200 and 'id="waiting-room"' in text
    assert 'id="join-form"' not in text
    assert f'<time id="waiting-start" class="waiting-time" datetime="{start.isoformat()}"' in text
    assert "interviews/waiting.js" in text
    seconds = int(re.search(r'data-seconds-left="(\d+)"', text).group(1))  # type: ignore[union-attr]
    expected = (start - timedelta(minutes=10) - timezone.now()).total_seconds()
    assert abs(seconds - expected) < 3600  # big margin: the page counts from the server's now
    refused = candidate.post(url)
    assert refused.status_code == 409 and 'id="waiting-room"' in refused.content.decode()
    session.refresh_from_db()
    assert session.status == "scheduled" and session.candidate_id is None
    with pytest.raises(services.SessionError, match="does not open yet"):
        services.session_join(token=session.invite_token or "", user=user_with_role("eve"))


def test_within_the_margin_the_candidate_joins(settings: Any) -> None:
    settings.ONSITE_JOIN_EARLY_MINUTES = 30
    session = live(start=timezone.now() + timedelta(minutes=20))
    candidate = user_with_role("ada", "candidate")
    url = f"/sessions/join/{session.invite_token}/"
    page = client_for(candidate).get(url).content.decode()
    assert 'id="join-form"' in page and 'id="waiting-room"' not in page
    assert client_for(candidate).post(url)["Location"] == f"/sessions/{session.pk}/"
    session.refresh_from_db()
    assert session.status == "active" and session.candidate_id == candidate.pk


def test_a_cancelled_session_cannot_be_joined() -> None:
    session = live(start=timezone.now() + timedelta(minutes=5))
    services.session_cancel(session_id=session.pk, user=session.interviewer, join_url=JOIN_URL)
    candidate = client_for(user_with_role("ada", "candidate"))
    url = f"/sessions/join/{session.invite_token}/"
    for response in (candidate.get(url), candidate.post(url)):
        text = response.content.decode()
        assert response.status_code == 410 and 'id="join-cancelled"' in text
        assert "was cancelled" in text and 'id="join-form"' not in text
    session.refresh_from_db()
    assert session.status == "cancelled" and session.candidate_id is None
    # Its interviewer lands on the schedule page, which says so.
    owner = client_for(session.interviewer)
    assert owner.get(url)["Location"] == f"/sessions/{session.pk}/schedule/"
    assert owner.get(f"/sessions/{session.pk}/")["Location"] == f"/sessions/{session.pk}/schedule/"


# ---------------------------------------------------------------- the forms


def field_error(page: str, name: str) -> str:
    found = re.search(rf'<p class="field-error" id="error-{name}"[^>]*>(.*?)</p>', page, re.S)
    return found.group(1).strip() if found else ""


@pytest.mark.parametrize(
    ("extra", "field", "reason"),
    [
        ({"candidate": "nobody-here"}, "candidate", "No user is named"),
        ({"starts_date": "2020-01-01", "starts_time": "10:00"}, "starts_date", "in the past"),
        ({"email": "not-an-address"}, "email", "not an e-mail address"),
        ({"starts_date": "2031-01-01", "starts_time": ""}, "starts_time", "Give a time too"),
        ({"starts_date": "2031-13-45", "starts_time": "10:00"}, "starts_date", "Enter a date"),
        ({"call_link": "javascript:alert(1)"}, "call_link", "http"),
        ({"minutes": "1e400"}, "minutes", "number of minutes"),
    ],
)
def test_each_schedule_error_is_at_its_field_and_every_value_is_kept(
    extra: dict[str, str], field: str, reason: str
) -> None:
    problem = tiny_problem()
    user_with_role("ada", "candidate")
    values = {
        "problem": problem.slug,
        "minutes": "35",
        "starts_date": "2031-05-06",
        "starts_time": "09:15",
        "tz": "Europe/Paris",
        "email": "ada@example.com",
        "candidate": "ada",
        "call_link": "https://meet.example.com/r1",
        "interviewer_can_edit": "on",
        **extra,
    }
    response = client_for(user_with_role("ivy", "interviewer")).post("/sessions/live/", values)
    page = response.content.decode()
    assert response.status_code == 400 and not InterviewSession.objects.exists()
    assert reason in field_error(page, field)
    assert 'aria-invalid="true"' in page and f'aria-describedby="error-{field}"' in page
    others = [
        name
        for name in ("candidate", "starts_date", "starts_time", "email", "call_link")
        if name != field
    ]
    assert all(field_error(page, name) == "" for name in others)
    for name in ("minutes", "starts_date", "starts_time", "email", "candidate", "call_link"):
        assert f'name="{name}" value="{values[name]}"' in page.replace("&amp;", "&") or (
            name == "minutes" and "1e400" in page
        )
    assert 'name="tz" value="Europe/Paris"' in page
    assert f'<option value="{problem.slug}" selected>' in page
    assert 'name="interviewer_can_edit" id="id_interviewer_can_edit" checked' in page


def test_a_refused_reschedule_keeps_its_values_and_a_good_one_moves_the_session() -> None:
    session = live(start=timezone.now() + timedelta(days=1))
    owner: Client = client_for(session.interviewer)
    url = f"/sessions/{session.pk}/schedule/"
    bad = owner.post(
        url,
        {
            "action": "reschedule",
            "starts_date": "2020-02-03",
            "starts_time": "08:45",
            "minutes": "50",
            "tz": "Asia/Tokyo",
        },
    )
    page = bad.content.decode()
    assert bad.status_code == 400 and "in the past" in field_error(page, "starts_date")
    assert 'value="2020-02-03"' in page and 'value="08:45"' in page and 'value="50"' in page
    day = (timezone.now() + timedelta(days=5)).astimezone(UTC).date()
    good = owner.post(
        url,
        {
            "action": "reschedule",
            "starts_date": day.isoformat(),
            "starts_time": "08:45",
            "minutes": "50",
            "tz": "Asia/Tokyo",
        },
    )
    assert good["Location"] == url + "?done=rescheduled"
    session.refresh_from_db()
    tokyo = datetime.fromisoformat(f"{day.isoformat()}T08:45+09:00")
    assert session.scheduled_for == tokyo and session.duration == timedelta(minutes=50)
    assert session.calendar_sequence == 1


@pytest.mark.parametrize("zone", ["America", "Europe/"])
def test_a_zone_that_is_a_folder_reads_as_utc_never_a_server_error(zone: str) -> None:
    problem = tiny_problem()
    response = client_for(user_with_role("ivy", "interviewer")).post("/sessions/live/", {
        "problem": problem.slug, "minutes": "35", "starts_date": "2031-05-06",
        "starts_time": "09:15", "tz": zone})
    assert response.status_code == 302
    session = InterviewSession.objects.get()
    assert session.scheduled_for == datetime(2031, 5, 6, 9, 15, tzinfo=UTC)
