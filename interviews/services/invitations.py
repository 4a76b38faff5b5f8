"""The invitation to a scheduled live session: an e-mail with the link and an .ics calendar
entry (RFC 5545, written here: one VEVENT, no dependency needed).

Sent through Django's e-mail framework (SMTP from settings) by a task on the io queue, never
inside the request. A mail server that refuses or is down never undoes the scheduling: the
interviewer still has the link and its Copy button, and the page says the e-mail was not sent.
"""

from __future__ import annotations

import logging
import smtplib
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import transaction
from django.utils import timezone

from grading.lanes import IO_QUEUE
from interviews.models import InterviewSession

log = logging.getLogger(__name__)
ICS_CONTENT_TYPE = "text/calendar; charset=utf-8; method=REQUEST"


def _ics_text(value: str) -> str:
    """TEXT escaping of RFC 5545 section 3.3.11."""
    return (value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
            .replace("\r\n", "\\n").replace("\n", "\\n"))


def _ics_fold(line: str) -> list[str]:
    """Lines longer than 75 octets are folded (section 3.1): CRLF, then one space."""
    out: list[str] = []
    current = ""
    for char in line:
        limit = 75 if not out else 74  # a continuation line starts with the space
        if len((current + char).encode("utf-8")) > limit:
            out.append(current)
            current = char
        else:
            current += char
    out.append(current)
    return [out[0]] + [" " + part for part in out[1:]]


def _ics_time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def invitation_ics(*, session: InterviewSession, join_url: str) -> str:
    """The calendar entry: start, length, the link; its UID stays the same for the session."""
    start = session.scheduled_for or timezone.now()
    end = start + (session.duration or timedelta(0))
    description = f"Join the interview: {join_url}"
    if session.call_link:
        description += f"\nVideo call: {session.call_link}"
    interviewer = session.interviewer.get_username() if session.interviewer else "Onsite"
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Onsite//Interview invitation//EN",
        "CALSCALE:GREGORIAN",
        "METHOD:REQUEST",
        "BEGIN:VEVENT",
        f"UID:onsite-session-{session.pk}@onsite",
        f"DTSTAMP:{_ics_time(timezone.now())}",
        f"DTSTART:{_ics_time(start)}",
        f"DTEND:{_ics_time(end)}",
        f"SUMMARY:{_ics_text(f'Interview: {session.problem.title}')}",
        f"DESCRIPTION:{_ics_text(description)}",
        f"URL:{join_url}",
        f"ORGANIZER;CN={_ics_text(interviewer)}:mailto:{_from_address()}",
        "END:VEVENT",
        "END:VCALENDAR",
    ]
    folded = [part for line in lines for part in _ics_fold(line)]
    return "\r\n".join(folded) + "\r\n"


def _from_address() -> str:
    sender = str(settings.DEFAULT_FROM_EMAIL)
    return sender.rsplit("<", 1)[-1].rstrip(">").strip() if "<" in sender else sender


def invitation_body(*, session: InterviewSession, join_url: str) -> str:
    start = session.scheduled_for
    when = start.astimezone(UTC).strftime("%A %d %B %Y, %H:%M UTC") if start else "now"
    minutes = int(session.duration.total_seconds() // 60)
    interviewer = session.interviewer.get_username() if session.interviewer else "An interviewer"
    lines = [
        "Hello,",
        "",
        f"{interviewer} invited you to a {minutes}-minute live coding interview on "
        f"\"{session.problem.title}\".",
        "",
        f"When: {when} (the calendar entry attached shows it in your time zone)",
        f"Join: {join_url}",
    ]
    if session.call_link:
        lines.append(f"Video call: {session.call_link}")
    lines += ["", "The clock starts when you join. Good luck!", ""]
    return "\n".join(lines)


def invitation_send(*, session_id: int, join_url: str) -> bool:
    """E-mail the invitation to the session's candidate address; whether it was sent. Runs in
    the io worker (interviews.tasks.invitation_deliver), never inside a request."""
    session = InterviewSession.objects.select_related("problem", "interviewer").get(pk=session_id)
    if not session.candidate_email:
        return False
    message = EmailMessage(
        subject=f"Interview invitation: {session.problem.title}",
        body=invitation_body(session=session, join_url=join_url),
        to=[session.candidate_email],
    )
    message.attach("interview.ics", invitation_ics(session=session, join_url=join_url),
                   ICS_CONTENT_TYPE)
    try:
        message.send(fail_silently=False)
    except (smtplib.SMTPException, OSError) as exc:
        log.warning("session %s: the invitation e-mail was not sent: %s", session_id, exc)
        reason = str(exc) or type(exc).__name__
        InterviewSession.objects.filter(pk=session_id).update(invitation_error=reason[:200])
        return False
    InterviewSession.objects.filter(pk=session_id).update(
        invitation_sent_at=timezone.now(), invitation_error=""
    )
    return True


def invitation_enqueue(*, session_id: int, join_url: str) -> None:
    """Queue the invitation e-mail on the io queue once the transaction commits; a broker
    outage is said on the session page rather than raised."""
    from interviews.tasks import invitation_deliver

    def publish() -> None:
        try:
            invitation_deliver.apply_async(args=[session_id, join_url], queue=IO_QUEUE)
        except Exception:  # kombu/redis raise many types
            log.exception("session %s: could not queue the invitation e-mail", session_id)
            InterviewSession.objects.filter(pk=session_id).update(
                invitation_error="the mail queue is unavailable"
            )

    transaction.on_commit(publish)
