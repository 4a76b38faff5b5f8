"""A loop's e-mails: ONE per change to the candidate, with ONE .ics holding one VEVENT per
round the change is about, and one to each interviewer with their own rounds' entries.

Each VEVENT is the single session's (`interviews.services.invitations.invitation_event`): the
session's UID, the change's SEQUENCE, CONFIRMED or CANCELLED; so a later e-mail about one round
alone (its interviewer moving it from the session's schedule page) updates the same entry. A
change is about rounds that all had the same action (the invitation, a reschedule or a cancel),
so its calendar has one METHOD (REQUEST, or CANCEL).

Sent by a task on the io queue after the transaction commits (`loops.tasks.loop_mail_deliver`);
a mail server that refuses or is down never undoes the change: each round's change and the
loop record that the e-mail was not sent, and the loop page says so.
"""

from __future__ import annotations

import logging
import smtplib
from collections.abc import Iterable
from datetime import datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMessage, get_connection
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from grading.lanes import IO_QUEUE
from interviews.models import InterviewSession, ScheduleChange
from interviews.services.invitations import (
    change_outcome_note,
    ics_part,
    invitation_calendar,
    invitation_event,
)
from loops.models import Loop, LoopRound

log = logging.getLogger(__name__)
_TOKEN_SALT = "loops.invitation"  # noqa: S105 - a signing salt, not a secret
Action = ScheduleChange.Action
SUBJECTS = {
    Action.INVITED: "Onsite loop invitation",
    Action.RESCHEDULED: "Onsite loop rescheduled",
    Action.RESENT: "Onsite loop invitation (sent again)",
    Action.CANCELLED: "Onsite loop cancelled",
}


def join_url(site: str, session: InterviewSession) -> str:
    """The round's own invitation link: the very link its single-session e-mail carries."""
    return site + reverse("interviews:join", kwargs={"token": session.invite_token or "-"})


def loop_token(loop: Loop) -> str:
    """The candidate's invitation link's token: the loop's id, signed (nobody guesses
    another loop's)."""
    return signing.Signer(salt=_TOKEN_SALT).sign(str(loop.pk))


def loop_of_token(token: str) -> Loop | None:
    try:
        raw = signing.Signer(salt=_TOKEN_SALT).unsign(token)
    except signing.BadSignature:
        return None
    return Loop.objects.filter(pk=int(raw)).first() if raw.isdigit() and len(raw) < 19 else None


def loop_url(site: str, loop: Loop) -> str:
    return site + reverse("loops:loop_join", kwargs={"token": loop_token(loop)})


def _zone(loop: Loop) -> ZoneInfo:
    return ZoneInfo(loop.candidate_timezone or "UTC")


def when(start: datetime | None, zone: ZoneInfo) -> str:
    if start is None:
        return "whenever the candidate is ready"
    return start.astimezone(zone).strftime("%a %d %b %Y, %H:%M")


def _round_lines(rounds: Iterable[tuple[LoopRound, ScheduleChange]], zone: ZoneInfo, site: str,
                 *, candidate: bool) -> list[str]:
    lines: list[str] = []
    for loop_round, change in rounds:
        session = loop_round.session
        start = change.scheduled_for
        end = start + change.duration if start else None
        span = f"{when(start, zone)}-{end.astimezone(zone):%H:%M}" if end else when(start, zone)
        label = loop_round.label or f"Round {loop_round.position}"
        with_whom = (f", with {session.interviewer.get_username()}" if candidate
                     and session.interviewer else "")
        cancelled = " (CANCELLED)" if change.action == Action.CANCELLED else ""
        lines.append(f"{loop_round.position}. {label}: {session.problem.title}{with_whom}"
                     f"{cancelled}")
        lines.append(f"   {span} ({zone.key})")
        if change.action != Action.CANCELLED:
            lines.append(f"   Join: {join_url(site, session)}")
    return lines


def _body(loop: Loop, action: str, rounds: list[tuple[LoopRound, ScheduleChange]], site: str,
          *, candidate: bool) -> str:
    zone = _zone(loop)
    by = loop.created_by.get_username() if loop.created_by else "The recruiting team"
    who = loop.candidate.get_username() if loop.candidate else loop.candidate_email
    leads = {
        Action.INVITED: (f"{by} invited you to the onsite loop \"{loop.title}\": "
                         f"{len(rounds)} round(s)." if candidate else
                         f"You interview in the onsite loop \"{loop.title}\" for {who}."),
        Action.RESCHEDULED: f"The onsite loop \"{loop.title}\" was rescheduled. New times:",
        Action.RESENT: f"The onsite loop \"{loop.title}\", sent again.",
        Action.CANCELLED: f"Rounds of the onsite loop \"{loop.title}\" were cancelled:",
    }
    lines = ["Hello,", "", leads[Action(action)], ""]
    lines += _round_lines(rounds, zone, site, candidate=candidate)
    lines.append("")
    if candidate and action != Action.CANCELLED:
        lines += [
            f"The loop's page shows your day in {zone.key} and leads you from one round to "
            f"the next: {loop_url(site, loop)}",
            f"Each round's link opens {settings.ONSITE_JOIN_EARLY_MINUTES} minutes before "
            "its start; its clock starts when you join. Good luck!",
            "",
        ]
    elif candidate:
        lines += [f"The loop's page: {loop_url(site, loop)}", ""]
    lines.append("The calendar entry attached holds every round listed above.")
    return "\n".join(lines) + "\n"


def loop_mail_send(*, loop_id: int, change_ids: list[int], site: str) -> bool:
    """E-mail one change of a loop (the changes of its rounds): the candidate one mail with
    every round, each interviewer one with theirs; whether it was sent. Runs in the io worker,
    never inside a request; a change already sent is not sent twice (a retried task)."""
    loop = Loop.objects.select_related("candidate", "created_by").get(pk=loop_id)
    changes = list(ScheduleChange.objects.filter(pk__in=change_ids, session__loop_round__loop=loop)
                   .select_related("session__loop_round", "session__problem",
                                   "session__interviewer", "session__candidate"))
    pending = [c for c in changes if c.sent_at is None]
    if not pending:
        return bool(changes)
    pending.sort(key=lambda c: c.session.loop_round.position)
    rounds = [(c.session.loop_round, c) for c in pending]
    action = pending[0].action
    cancel = action == Action.CANCELLED
    messages: list[EmailMessage] = []
    subject = f"{SUBJECTS[Action(action)]}: {loop.title}"

    def message(to: str, items: list[tuple[LoopRound, ScheduleChange]], candidate: bool
                ) -> EmailMessage:
        events = [invitation_event(session=r.session, join_url=join_url(site, r.session),
                                   change=c) for r, c in items]
        mail = EmailMessage(subject=subject, to=[to],
                            body=_body(loop, action, items, site, candidate=candidate))
        mail.attach(ics_part(invitation_calendar(events, cancel=cancel), cancel=cancel,
                             filename="loop.ics"))
        return mail

    if loop.candidate_email:
        messages.append(message(loop.candidate_email, rounds, True))
    by_interviewer: dict[str, list[tuple[LoopRound, ScheduleChange]]] = {}
    for loop_round, change in rounds:
        person = loop_round.session.interviewer
        address = (person.email or "").strip() if person else ""
        if address and address.lower() != loop.candidate_email.lower():
            by_interviewer.setdefault(address, []).append((loop_round, change))
    messages += [message(address, items, False) for address, items in by_interviewer.items()]
    if not messages:
        return False
    try:
        with get_connection(fail_silently=False) as connection:
            connection.send_messages(messages)
    except (smtplib.SMTPException, OSError) as exc:
        log.warning("loop %s: the schedule e-mail was not sent: %s", loop_id, exc)
        error = (str(exc) or type(exc).__name__)[:200]
        for change in pending:
            change_outcome_note(change.session_id, change, error=error)
        Loop.objects.filter(pk=loop_id).update(invitation_sent_at=None, invitation_error=error)
        return False
    now = timezone.now()
    recipients = [m.to[0] for m in messages]
    for change in pending:
        change_outcome_note(change.session_id, change, sent=now, to=recipients)
    Loop.objects.filter(pk=loop_id).update(invitation_sent_at=now, invitation_error="")
    return True


def loop_mail_enqueue(*, loop_id: int, change_ids: list[int], site: str) -> None:
    """Queue the change's e-mails on the io queue once the transaction commits; a broker
    outage is said on the loop page rather than raised."""
    from loops.tasks import loop_mail_deliver

    Loop.objects.filter(pk=loop_id).update(invitation_sent_at=None, invitation_error="")

    def publish() -> None:
        try:
            loop_mail_deliver.apply_async(args=[loop_id, change_ids, site], queue=IO_QUEUE)
        except Exception:  # kombu/redis raise many types
            log.exception("loop %s: could not queue the schedule e-mail", loop_id)
            reason = "the mail queue is unavailable"
            Loop.objects.filter(pk=loop_id).update(invitation_error=reason)
            ScheduleChange.objects.filter(pk__in=change_ids).update(error=reason)

    transaction.on_commit(publish)
