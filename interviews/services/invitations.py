"""The e-mails of a scheduled live session: the invitation, a reschedule, a resend and a
cancel, each with an .ics calendar entry (RFC 5545 and its scheduling rules, RFC 5546) built
by the icalendar library.

Every e-mail belongs to one `ScheduleChange` and is built from it: the same UID for the whole
session, the change's SEQUENCE (raised by each change, so a calendar replaces the entry it
holds), METHOD:REQUEST for an invitation, a reschedule and a resend, METHOD:CANCEL with
STATUS:CANCELLED for a cancel. The candidate and the interviewer are both ATTENDEEs and both
get the mail; the ORGANIZER is ONSITE_CALENDAR_ORGANIZER (or the sender).

Sent through Django's e-mail framework (SMTP from settings) by a task on the io queue, never
inside the request. A mail server that refuses or is down never undoes the change: the
interviewer still has the link and its Copy button, and the pages say the e-mail was not sent.
"""

from __future__ import annotations

import logging
import smtplib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.mime.text import MIMEText
from email.utils import parseaddr

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.db import transaction
from django.utils import timezone
from icalendar import Calendar, Event, vCalAddress, vText

from grading.lanes import IO_QUEUE
from interviews.models import InterviewSession, ScheduleChange

log = logging.getLogger(__name__)
Action = ScheduleChange.Action
PRODID = "-//Onsite//Interview invitation//EN"


@dataclass(frozen=True)
class Recipient:
    address: str
    name: str
    interviewer: bool


def calendar_organizer() -> tuple[str, str]:
    """(name, address) of the ORGANIZER: ONSITE_CALENDAR_ORGANIZER, else the sender."""
    configured = str(settings.ONSITE_CALENDAR_ORGANIZER).strip()
    name, address = parseaddr(configured or str(settings.DEFAULT_FROM_EMAIL))
    return name or "Onsite", address


def invitation_recipients(session: InterviewSession) -> list[Recipient]:
    """Who gets a schedule e-mail: the candidate's address, and the interviewer's own (their
    copy of the calendar entry) when their account has one."""
    out: list[Recipient] = []
    if session.candidate_email:
        name = session.candidate.get_username() if session.candidate else session.candidate_email
        out.append(Recipient(session.candidate_email, name, interviewer=False))
    interviewer = session.interviewer
    address = (interviewer.email or "").strip() if interviewer else ""
    if interviewer and address and address.lower() != session.candidate_email.lower():
        out.append(Recipient(address, interviewer.get_username(), interviewer=True))
    return out


def _change_of(session: InterviewSession, change: ScheduleChange | None) -> ScheduleChange:
    """The change a mail is about; a session without one (older rows) reads as its invitation."""
    if change is not None:
        return change
    cancelled = session.status == InterviewSession.Status.CANCELLED
    return ScheduleChange(
        session=session, action=Action.CANCELLED if cancelled else Action.INVITED,
        sequence=session.calendar_sequence, scheduled_for=session.scheduled_for,
        duration=session.duration, at=session.created_at or timezone.now(),
    )


def _attendee(person: Recipient) -> vCalAddress:
    address = vCalAddress(f"mailto:{person.address}")
    address.params["CN"] = vText(person.name)
    address.params["CUTYPE"] = vText("INDIVIDUAL")
    if person.interviewer:  # runs the interview: already in, no answer asked
        address.params["ROLE"] = vText("CHAIR")
        address.params["PARTSTAT"] = vText("ACCEPTED")
        address.params["RSVP"] = vText("FALSE")
    else:
        address.params["ROLE"] = vText("REQ-PARTICIPANT")
        address.params["PARTSTAT"] = vText("NEEDS-ACTION")
        address.params["RSVP"] = vText("TRUE")
    return address


def invitation_event(*, session: InterviewSession, join_url: str,
                     change: ScheduleChange | None = None) -> Event:
    """The VEVENT of one change of a session (its current state when none is given): the
    session's one UID, the change's SEQUENCE and STATUS. A loop's e-mail puts one per round
    in one calendar (`invitation_calendar`), so a later single-session mail updates it."""
    change = _change_of(session, change)
    cancel = change.action == Action.CANCELLED
    start = (change.scheduled_for or change.at).astimezone(UTC)
    end = start + (change.duration or timedelta(0))
    description = f"Join the interview: {join_url}"
    if session.call_link:
        description += f"\nVideo call: {session.call_link}"
    organizer_name, organizer_address = calendar_organizer()
    organizer = vCalAddress(f"mailto:{organizer_address}")
    organizer.params["CN"] = vText(organizer_name)

    event = Event()
    event.add("uid", f"onsite-session-{session.pk}@onsite")
    event.add("sequence", change.sequence)
    event.add("dtstamp", timezone.now().astimezone(UTC))
    event.add("dtstart", start)
    event.add("dtend", end)
    event.add("summary", f"Interview: {session.problem.title}")
    event.add("description", description)
    event.add("url", join_url)
    event.add("location", session.call_link or join_url)
    event.add("status", "CANCELLED" if cancel else "CONFIRMED")
    event["organizer"] = organizer
    for person in invitation_recipients(session):
        event.add("attendee", _attendee(person))
    return event


def invitation_calendar(events: list[Event], *, cancel: bool) -> str:
    """One calendar object of one or more VEVENTs, all with the same METHOD (RFC 5546: a
    REQUEST or a CANCEL)."""
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "CANCEL" if cancel else "REQUEST")
    for event in events:
        calendar.add_component(event)
    return calendar.to_ical().decode("utf-8")


def invitation_ics(*, session: InterviewSession, join_url: str,
                   change: ScheduleChange | None = None) -> str:
    """The calendar entry of one change (the session's current state when none is given)."""
    change = _change_of(session, change)
    event = invitation_event(session=session, join_url=join_url, change=change)
    return invitation_calendar([event], cancel=change.action == Action.CANCELLED)


def _when(change: ScheduleChange) -> str:
    start = change.scheduled_for
    if start is None:
        return "whenever the candidate is ready"
    return start.astimezone(UTC).strftime("%A %d %B %Y, %H:%M UTC")


SUBJECTS = {
    Action.INVITED: "Interview invitation",
    Action.RESCHEDULED: "Interview rescheduled",
    Action.RESENT: "Interview invitation (sent again)",
    Action.CANCELLED: "Interview cancelled",
}


def invitation_subject(change: ScheduleChange, session: InterviewSession) -> str:
    return f"{SUBJECTS[Action(change.action)]}: {session.problem.title}"


def invitation_body(*, session: InterviewSession, join_url: str,
                    change: ScheduleChange | None = None, for_interviewer: bool = False) -> str:
    change = _change_of(session, change)
    minutes = int(change.duration.total_seconds() // 60)
    interviewer = session.interviewer.get_username() if session.interviewer else "An interviewer"
    candidate = session.candidate.get_username() if session.candidate else (
        session.candidate_email or "the candidate")
    what = f"the {minutes}-minute live coding interview on \"{session.problem.title}\""
    if change.action == Action.CANCELLED:
        lead = (f"You cancelled {what} with {candidate}." if for_interviewer
                else f"{interviewer} cancelled {what}.")
        lines = ["Hello,", "", lead, f"It was planned for: {_when(change)}", "",
                 "The calendar entry attached removes it from your calendar; the link no "
                 "longer opens the interview.", ""]
        return "\n".join(lines)
    if change.action == Action.RESCHEDULED:
        lead = (f"You moved {what} with {candidate}." if for_interviewer
                else f"{interviewer} moved {what}.")
    elif for_interviewer:
        lead = f"Your copy of the invitation to {what} with {candidate}."
    else:
        lead = f"{interviewer} invited you to a {what[4:]}."
    early = int(settings.ONSITE_JOIN_EARLY_MINUTES)
    lines = [
        "Hello,",
        "",
        lead,
        "",
        f"When: {_when(change)} (the calendar entry attached shows it in your time zone)",
        f"Join: {join_url}",
    ]
    if session.call_link:
        lines.append(f"Video call: {session.call_link}")
    lines.append("")
    if change.scheduled_for and not for_interviewer:
        lines.append(f"The link opens {early} minutes before the start.")
    lines += ["The clock starts when the candidate joins." if for_interviewer
              else "The clock starts when you join. Good luck!", ""]
    return "\n".join(lines)


def ics_part(text: str, *, cancel: bool, filename: str = "interview.ics") -> MIMEText:
    """The .ics as a text/calendar part whose `method` parameter matches its METHOD."""
    part = MIMEText(text, "calendar", "utf-8")
    part.set_param("method", "CANCEL" if cancel else "REQUEST")
    part.add_header("Content-Disposition", "attachment", filename=filename)
    return part


def invitation_send(*, session_id: int, join_url: str, change_id: int | None = None) -> bool:
    """E-mail one schedule change to the candidate and the interviewer; whether it was sent.
    Runs in the io worker (interviews.tasks.invitation_deliver), never inside a request. A
    change already sent is not sent twice (a retried task)."""
    session = InterviewSession.objects.select_related(
        "problem", "interviewer", "candidate").get(pk=session_id)
    changes = ScheduleChange.objects.filter(session=session)
    stored = (changes.filter(pk=change_id) if change_id else changes.order_by("-at", "-id")).first()
    if stored is not None and stored.sent_at is not None:
        return True
    change = _change_of(session, stored)
    recipients = invitation_recipients(session)
    if not recipients:
        return False
    ics = invitation_ics(session=session, join_url=join_url, change=change)
    cancel = change.action == Action.CANCELLED
    messages = []
    for person in recipients:
        message = EmailMessage(
            subject=invitation_subject(change, session),
            body=invitation_body(session=session, join_url=join_url, change=change,
                                 for_interviewer=person.interviewer),
            to=[person.address],
        )
        message.attach(ics_part(ics, cancel=cancel))
        messages.append(message)
    try:
        with get_connection(fail_silently=False) as connection:
            connection.send_messages(messages)
    except (smtplib.SMTPException, OSError) as exc:
        log.warning("session %s: the schedule e-mail was not sent: %s", session_id, exc)
        change_outcome_note(session_id, stored, error=(str(exc) or type(exc).__name__)[:200])
        return False
    change_outcome_note(session_id, stored, sent=timezone.now(),
                        to=[p.address for p in recipients])
    return True


def change_outcome_note(session_id: int, change: ScheduleChange | None, *,
                        sent: datetime | None = None, error: str = "",
                        to: list[str] | None = None) -> None:
    """Record the outcome on the change, and on the session when it is its latest change (the
    session page shows the last e-mail's state; an older mail finishing late says nothing)."""
    if change is not None:
        ScheduleChange.objects.filter(pk=change.pk).update(
            sent_at=sent, error=error, **({"recipients": to} if to is not None else {}))
        newer = ScheduleChange.objects.filter(session_id=session_id, sequence__gt=change.sequence)
        if newer.exists():
            return
    InterviewSession.objects.filter(pk=session_id).update(
        invitation_sent_at=sent, invitation_error=error)


def invitation_enqueue(*, session_id: int, join_url: str, change_id: int | None = None) -> None:
    """Queue the change's e-mail on the io queue once the transaction commits; a broker
    outage is said on the session page rather than raised."""
    from interviews.tasks import invitation_deliver

    def publish() -> None:
        try:
            invitation_deliver.apply_async(args=[session_id, join_url, change_id], queue=IO_QUEUE)
        except Exception:  # kombu/redis raise many types
            log.exception("session %s: could not queue the schedule e-mail", session_id)
            reason = "the mail queue is unavailable"
            InterviewSession.objects.filter(pk=session_id).update(invitation_error=reason)
            if change_id:
                ScheduleChange.objects.filter(pk=change_id).update(error=reason)

    transaction.on_commit(publish)
