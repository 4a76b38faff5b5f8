"""Scheduling a live interview (issue 14 point 3): date, time and length; the invitation
e-mail with its .ics entry, sent through Django's SMTP backend to a real local SMTP server
(aiosmtpd); the join page's start time, length and early refusal of the wrong account."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.db.models import Q
from django.test import Client
from django.utils import timezone

from grading.lanes import IO_QUEUE
from interviews import services
from interviews.models import InterviewSession
from tests.factories import client_for, tiny_problem, user_with_role
from tests.interviews.mail import Inbox
from tests.processes import broker_purge, wait_for, worker
from tests.services import free_port

pytestmark = pytest.mark.django_db(transaction=True)


def ics_fields(text: str) -> dict[str, str]:
    """Unfolded `NAME[;params]:value` lines of a calendar object, by name."""
    unfolded = text.replace("\r\n ", "")
    fields: dict[str, str] = {}
    for line in unfolded.split("\r\n"):
        if ":" in line:
            name, value = line.split(":", 1)
            fields.setdefault(name.split(";", 1)[0], value)
    return fields


def schedule(client: Client, slug: str, **extra: str) -> InterviewSession:
    response = client.post("/sessions/live/", {"problem": slug, "minutes": "45", **extra})
    assert response.status_code == 302, response
    session = InterviewSession.objects.order_by("-id").first()
    assert session is not None and response["Location"] == f"/sessions/{session.pk}/"
    return session


def sent_by_the_io_worker(tmp_path: Path, session: InterviewSession, **env: str) -> None:
    """The request only queued the e-mail; a real worker on the io queue sends it. Wait until
    it has tried."""
    with worker(tmp_path / "io.log", queues=IO_QUEUE, **env):
        wait_for(
            lambda: (
                InterviewSession.objects.filter(pk=session.pk)
                .filter(Q(invitation_sent_at__isnull=False) | ~Q(invitation_error=""))
                .exists()
            ),
            timeout=60,
            what="the invitation e-mail",
        )
    session.refresh_from_db()


@pytest.mark.slow  # a real Celery worker on the io queue sends it
def test_the_invitation_mail_carries_the_link_and_a_calendar_entry(
    inbox: Inbox, tmp_path: Path
) -> None:
    problem = tiny_problem()
    interviewer = user_with_role("int", "interviewer")
    day = (timezone.now() + timedelta(days=3)).astimezone(UTC).date().isoformat()
    broker_purge((IO_QUEUE,))
    session = schedule(
        client_for(interviewer),
        problem.slug,
        starts_date=day,
        starts_time="14:30",
        tz="Europe/Paris",
        email="ada@example.com",
        call_link="https://meet.example.com/room-1",
    )
    # Scheduling answered before anything was sent: the e-mail is the io worker's.
    assert session.invitation_sent_at is None and len(inbox.messages) == 0
    pending = client_for(interviewer).get(f"/sessions/{session.pk}/").content.decode()
    assert 'data-state="pending"' in pending and "Sending the invitation" in pending
    sent_by_the_io_worker(
        tmp_path,
        session,
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(inbox.port),
        DEFAULT_FROM_EMAIL=inbox.sender,
    )

    assert session.scheduled_for is not None and session.invitation_sent_at is not None
    paris = ZoneInfo("Europe/Paris")
    start_utc = datetime.fromisoformat(f"{day}T14:30").replace(tzinfo=paris).astimezone(UTC)
    assert session.scheduled_for == start_utc
    assert len(inbox.messages) == 1
    message = inbox.messages[0]
    assert message["To"] == "ada@example.com" and "Add one" in str(message["Subject"])
    join_url = f"http://testserver/sessions/join/{session.invite_token}/"
    body = message.get_body(preferencelist=("plain",))
    assert body is not None
    assert join_url in body.get_content() and "45-minute" in body.get_content()
    attachments = list(message.iter_attachments())
    assert [a.get_filename() for a in attachments] == ["interview.ics"]
    assert attachments[0].get_content_type() == "text/calendar"
    ics = attachments[0].get_content()
    if isinstance(ics, bytes):
        ics = ics.decode()
    ics = ics if "\r\n" in ics else ics.replace("\n", "\r\n")
    assert ics.startswith("BEGIN:VCALENDAR\r\n") and ics.rstrip().endswith("END:VCALENDAR")
    assert all(len(line.encode()) <= 75 for line in ics.split("\r\n"))  # folded (RFC 5545)
    fields = ics_fields(ics)
    assert fields["DTSTART"] == start_utc.strftime("%Y%m%dT%H%M%SZ")
    assert fields["DTEND"] == (start_utc + timedelta(minutes=45)).strftime("%Y%m%dT%H%M%SZ")
    assert fields["URL"] == join_url and fields["UID"] == f"onsite-session-{session.pk}@onsite"
    assert "meet.example.com/room-1" in fields["DESCRIPTION"]

    page = client_for(interviewer).get(f"/sessions/{session.pk}/").content.decode()
    assert 'id="copy-invite"' in page and "Invitation e-mailed to ada@example.com" in page
    assert f'datetime="{start_utc.isoformat()}"' in page


@pytest.mark.slow  # a real Celery worker on the io queue tries it
def test_a_mail_server_that_is_down_leaves_the_session_and_says_so(tmp_path: Path) -> None:
    problem = tiny_problem()
    interviewer = user_with_role("int", "interviewer")
    broker_purge((IO_QUEUE,))
    session = schedule(client_for(interviewer), problem.slug, email="ada@example.com")
    sent_by_the_io_worker(
        tmp_path, session, EMAIL_HOST="127.0.0.1", EMAIL_PORT=str(free_port()), EMAIL_TIMEOUT="2"
    )
    assert session.invitation_sent_at is None and session.invitation_error
    page = client_for(interviewer).get(f"/sessions/{session.pk}/").content.decode()
    assert "could not be sent" in page and 'id="invite-url"' in page
    state = client_for(interviewer).get(f"/sessions/{session.pk}/state").json()
    assert state["invitation"] == {"sent": False, "error": session.invitation_error}


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        ({"email": "not-an-address"}, "not an e-mail address"),
        ({"starts_date": "2020-01-01", "starts_time": "10:00"}, "in the past"),
        ({"starts_date": "2031-01-01"}, "Give a time too"),
        ({"starts_date": "2031-13-45", "starts_time": "10:00"}, "Enter a date"),
        ({"call_link": "javascript:alert(1)"}, "http"),
    ],
)
def test_bad_schedules_come_back_with_the_reason(extra: dict[str, str], reason: str) -> None:
    problem = tiny_problem()
    client = client_for(user_with_role("int", "interviewer"))
    response = client.post(
        "/sessions/live/", {"problem": problem.slug, "minutes": "45", **extra}, follow=True
    )
    assert reason in response.content.decode()
    assert not InterviewSession.objects.exists()


def test_the_join_page_says_when_and_how_long_and_refuses_the_wrong_account_first() -> None:
    problem = tiny_problem()
    interviewer = user_with_role("int", "interviewer")
    invited = user_with_role("ada", "candidate")
    other = user_with_role("eve", "candidate")
    start = timezone.now() + timedelta(minutes=5)  # the link is open (ONSITE_JOIN_EARLY_MINUTES)
    session = services.session_schedule_live(
        interviewer=interviewer,
        problem_slug=problem.slug,
        duration=timedelta(minutes=20),
        candidate=invited,
        scheduled_for=start,
    )
    url = f"/sessions/join/{session.invite_token}/"
    page = client_for(invited).get(url).content.decode()
    assert "20 minutes" in page and "0:20:00" not in page
    assert f'datetime="{start.isoformat()}"' in page and 'id="join-form"' in page

    refused = client_for(other).get(url)
    assert refused.status_code == 403
    text = refused.content.decode()
    assert "for another candidate" in text and 'id="join-form"' not in text

    client_for(invited).post(url)
    interviewer_page = client_for(interviewer).get(f"/sessions/{session.pk}/").content.decode()
    assert 'id="invite-box"' not in interviewer_page  # the candidate joined: the box is gone
    assert "already used" in client_for(other).get(url).content.decode()
