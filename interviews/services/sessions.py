"""Demo accounts and the life of a session: roles, start, join, finish, the clock.

Time is kept by the server: a session's deadline is fixed when it starts. The session clock
(`session_expire_if_due`, driven by the beat every ONSITE_SESSION_SWEEP_SECONDS and by any
write that arrives past the deadline) finishes it and submits the last stored code; readers
derive the status from the deadline and never write. An edit after the deadline is refused and
never stored."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.errors import ApplicationError
from core.roles import (
    AUTHOR,
    CANDIDATE,
    INTERVIEWER,
    RECRUITER,
    ROLES,
    is_interviewer,
    may_end_session,
)
from core.visibility import (
    Door,
    Relation,
    SessionAccess,
    SessionState,
    base_viewer,
    relation_of,
    session_access,
)
from grading.models import Submission
from grading.services import GradingError, submission_create, version_for_trial
from interviews import collab, realtime
from interviews.models import (
    DocUpdate,
    InterviewSession,
    ReviewAssignment,
    ScheduleChange,
    ScoreRelease,
    SessionEvent,
    new_invite_token,
)
from interviews.services.boards import board_snapshot_store_safely
from interviews.services.documents import session_code
from problems.models import Problem

log = logging.getLogger(__name__)
MIN_DURATION = timedelta(seconds=10)
MAX_CALL_LINK_CHARS = 500
# A start time a few minutes in the past is "now" typed slowly, not a mistake.
SCHEDULE_SLACK = timedelta(minutes=10)
# Extra time granted at scheduling (an accommodation), and one extension of a running session.
MAX_EXTRA_TIME = timedelta(hours=2)
MAX_EXTENSION_MINUTES = 60
Kind = InterviewSession.Kind
Status = InterviewSession.Status


@transaction.atomic
def demo_users_ensure(*, password: str) -> dict[str, User]:
    """Create (or reset the password of) one account per role plus an admin."""
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in ROLES}
    users: dict[str, User] = {}
    specs = [
        ("candidate", [CANDIDATE], False),
        ("interviewer", [INTERVIEWER], False),
        ("author", [AUTHOR], False),
        ("recruiter", [RECRUITER], False),  # builds onsite loops (issue 39)
        ("admin", [INTERVIEWER, AUTHOR], True),
    ]
    for username, roles, superuser in specs:
        user, _ = User.objects.get_or_create(username=username)
        user.is_staff = user.is_superuser = superuser
        user.set_password(password)
        user.save()
        user.groups.set([groups[r] for r in roles])
        users[username] = user
    return users


class SessionError(ApplicationError):
    """A session action the rules refuse (not_found, forbidden, not_active...)."""


# ---------------------------------------------------------------- roles


CO_INTERVIEWER = "co_interviewer"
INTERVIEWER_ROLES = frozenset({"interviewer", CO_INTERVIEWER})


def session_role(session: InterviewSession, user: Any) -> str | None:
    """ "candidate", "interviewer", "co_interviewer" (on its panel: in the room, watching), or
    None for someone who is not in the room."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    if session.candidate_id is not None and session.candidate_id == user.pk:
        return "candidate"
    if session.interviewer_id is not None and session.interviewer_id == user.pk:
        return "interviewer"
    if session.pk is not None and is_interviewer(user) and ReviewAssignment.objects.filter(
            session_id=session.pk, interviewer_id=user.pk).exists():
        return CO_INTERVIEWER
    return None


def role_can_edit(session: InterviewSession, role: str | None) -> bool:
    """Who may type in the document (while the session is active): the candidate; its
    interviewers (co-interviewers too) when the session lets interviewers edit."""
    return role == "candidate" or (role in INTERVIEWER_ROLES and session.interviewer_can_edit)


def session_relation(session: InterviewSession, user: Any) -> Relation:
    """Who `user` is at this session's doors (`core.visibility.Relation`); a share link's
    holder is told apart by the share views, not here."""
    role = session_role(session, user)
    if role is not None:
        return {"candidate": Relation.CANDIDATE, "interviewer": Relation.INTERVIEWER,
                CO_INTERVIEWER: Relation.CO_INTERVIEWER}[role]
    return relation_of(base_viewer(user))


def session_clock_state(session: InterviewSession, now: datetime | None = None) -> SessionState:
    """Where the session is on the clock, as the access matrix counts states."""
    now = now or timezone.now()
    status = session.status_now()
    if status == Status.CANCELLED:
        return SessionState.CANCELLED
    if status == Status.SCHEDULED:
        if session_expired(session, now):
            return SessionState.EXPIRED
        return SessionState.SCHEDULED if join_too_early(session, now) else SessionState.MARGIN
    if status == Status.ACTIVE:
        return SessionState.LIVE
    released = ScoreRelease.objects.filter(session_id=session.pk).exists()
    return SessionState.RELEASED if released else SessionState.FINISHED


def session_doors(session: InterviewSession, user: Any) -> SessionAccess:
    """Every door of `session` for `user`, now (`core.visibility.session_access`)."""
    return session_access(session_relation(session, user), session_clock_state(session))


def session_expired(session: InterviewSession, now: datetime | None = None) -> bool:
    """A scheduled session whose whole planned slot went by without the candidate joining (a
    no-show): nothing starts it any more; its interviewers reschedule it."""
    return (session.status == Status.SCHEDULED and session.scheduled_for is not None
            and (now or timezone.now()) >= session.scheduled_for + session.clock_length)


def _participant(session_id: int, user: Any) -> tuple[InterviewSession, str]:
    session = InterviewSession.objects.select_related("problem").filter(pk=session_id).first()
    if session is None:
        raise SessionError("not_found", "no such session")
    role = session_role(session, user)
    if role is None:
        # Worded as a missing session (core.errors answers the code as not_found): a stranger
        # learns nothing about which sessions exist.
        raise SessionError("not_participant", "no such session")
    door_check(session_doors(session, user).work)
    return session, role


DOOR_REFUSALS = {
    Door.NOT_STARTED: ("not_started", "the interview has not started: the waiting room opens "
                                      "it at the start"),
    Door.GONE: ("gone", "this interview was called off or its time went by"),
    Door.NOT_FOUND: ("not_participant", "no such session"),
    Door.LOGIN: ("not_participant", "no such session"),
}


def door_check(door: Door) -> None:
    """Raise the refusal of a closed door (a JSON door: its status and code); nothing for an
    open one. What a role may do behind an open door is each service's to say."""
    if door in (Door.OPEN, Door.WAITING, Door.SCHEDULE):
        return
    code, message = DOOR_REFUSALS[door]
    raise SessionError(code, message)


# ---------------------------------------------------------------- start


def _problem(slug: str) -> Problem:
    problem = Problem.objects.offered().filter(slug=slug).first()
    if problem is None or problem.live_version_id is None:
        raise SessionError("unknown_problem", f"no published problem {slug!r}")
    return problem


def _check_duration(duration: timedelta) -> None:
    longest = timedelta(minutes=settings.ONSITE_SESSION_MAX_MINUTES)
    if not MIN_DURATION <= duration <= longest:
        raise SessionError(
            "bad_duration",
            f"the duration must be between {MIN_DURATION.seconds} s and {longest} long",
        )


def email_check(raw: str) -> str:
    """A candidate's address as typed (trimmed; empty allowed), or SessionError bad_email."""
    address = (raw or "").strip()
    if not address:
        return ""
    try:
        validate_email(address)
    except ValidationError:
        raise SessionError("bad_email", f"{address[:80]!r} is not an e-mail address") from None
    return address


def call_link_check(raw: str) -> str:
    """An http(s) URL of a video meeting, or "" for none."""
    link = raw.strip()
    if not link:
        return ""
    parts = urlsplit(link)
    if len(link) > MAX_CALL_LINK_CHARS or parts.scheme not in ("http", "https") or not parts.netloc:
        raise SessionError("bad_call_link", "the call link is an http(s) address of a meeting")
    return link


def _store_starter(session: InterviewSession) -> None:
    DocUpdate.objects.create(
        session=session,
        author=None,
        created_at=timezone.now(),
        data=collab.initial_update(session.content.starter_code),
    )


def _start_clock(session: InterviewSession, now: datetime) -> None:
    """Start a saved session's clock and schedule its end once the transaction commits."""
    session.status = Status.ACTIVE
    session.started_at = now
    session.deadline = now + session.clock_length
    session.save(update_fields=["status", "started_at", "deadline"])


def session_start_solo(
    *, candidate: Any, problem_slug: str, duration: timedelta
) -> InterviewSession:
    """Start a solo session now: the clock runs from this moment."""
    problem = _problem(problem_slug)
    _check_duration(duration)
    with transaction.atomic():
        session = InterviewSession(
            problem=problem, candidate=candidate, kind=Kind.SOLO, duration=duration,
            candidate_opens_hints=True,  # practising alone, nobody else could release them
        )
        session.save()  # the id first: the expiry task is scheduled with it
        _start_clock(session, timezone.now())
        _store_starter(session)
    return session


def session_start_version_solo(
    *, author: Any, problem_slug: str, number: int, duration: timedelta
) -> InterviewSession:
    """An author's solo round on version `number` of their problem, a draft included (issue
    38, 5): the round a candidate would take, before the version is published. Only the
    problem's authors and admins may (`version_for_trial`, core.visibility's DRAFT_PROBLEM row;
    anyone else is answered as if it did not exist); the session is the author's own, so no
    candidate ever reaches the draft. The session keeps its version (`problem_version`) and
    shows and reads that version's content. Only for a kind that runs no code: a session's Run
    and Submit grade on the problem's live version (a code draft is tried on its try page)."""
    try:
        version = version_for_trial(user=author, problem_slug=problem_slug, number=number)
    except GradingError as exc:
        raise SessionError("unknown_problem", exc.message) from None
    if version.kind_spec.runs_code:
        raise SessionError("runs_code", "a solo round on a version is for a problem that runs "
                           "no code: try a code version on its try page")
    _check_duration(duration)
    with transaction.atomic():
        session = InterviewSession(
            problem=version.problem, problem_version=version, candidate=author,
            kind=Kind.SOLO, duration=duration, candidate_opens_hints=True,
        )
        session.save()
        _start_clock(session, timezone.now())
        _store_starter(session)
    return session


def session_schedule_live(
    *,
    interviewer: Any,
    problem_slug: str,
    duration: timedelta,
    candidate: Any = None,
    interviewer_can_edit: bool | None = None,
    candidate_opens_hints: bool = False,
    scheduled_for: datetime | None = None,
    candidate_email: str = "",
    call_link: str = "",
    extra_time: timedelta = timedelta(0),
) -> InterviewSession:
    """Schedule a live session; the clock starts when the candidate joins by its link.

    `extra_time` is an accommodation: the clock runs that much longer, and only the candidate,
    the scheduler and admins are told why (`core.visibility.ACCOMMODATION`).

    `scheduled_for` is when the interview is planned (the invitation and its calendar entry
    say so); `candidate_email` is where the invitation goes; `call_link` the video meeting.
    Hints are the interviewer's to release unless `candidate_opens_hints`.
    `interviewer_can_edit` left None takes the problem kind's default: in a design round the
    interviewers draw on the board too (everyone in the room draws, issue 38; the interviewer
    can lock it in the session), in a coding round only the candidate types."""
    if not is_interviewer(interviewer):
        raise SessionError("forbidden", "only interviewers schedule live sessions")
    if candidate is not None and candidate.pk == interviewer.pk:
        raise SessionError("bad_candidate", "the interviewer cannot be the candidate")
    problem = _problem(problem_slug)
    if interviewer_can_edit is None:
        interviewer_can_edit = problem.kind_spec.has_board
    _check_duration(duration)
    candidate_email = email_check(candidate_email)
    call_link = call_link_check(call_link)
    if not timedelta(0) <= extra_time <= MAX_EXTRA_TIME:
        raise SessionError("bad_extra_time", "extra time is 0 to "
                           f"{int(MAX_EXTRA_TIME.total_seconds() // 60)} minutes")
    if scheduled_for is not None and scheduled_for < timezone.now() - SCHEDULE_SLACK:
        raise SessionError("bad_start", "the start time is in the past")
    with transaction.atomic():
        session = InterviewSession.objects.create(
            problem=problem,
            candidate=candidate,
            interviewer=interviewer,
            kind=Kind.LIVE,
            duration=duration,
            interviewer_can_edit=interviewer_can_edit,
            candidate_opens_hints=candidate_opens_hints,
            invite_token=new_invite_token(),
            scheduled_for=scheduled_for,
            candidate_email=candidate_email,
            call_link=call_link,
            extra_time=extra_time,
        )
        _store_starter(session)
        # The first step of its schedule (interviews.services.scheduling records the others).
        ScheduleChange.objects.create(
            session=session, action=ScheduleChange.Action.INVITED, sequence=0,
            scheduled_for=scheduled_for, duration=duration, by=interviewer, at=timezone.now(),
        )
    return session


def join_opens_at(session: InterviewSession) -> datetime | None:
    """When the invitation link lets the candidate in: ONSITE_JOIN_EARLY_MINUTES before the
    planned start (None: whenever they are ready)."""
    if session.scheduled_for is None:
        return None
    return session.scheduled_for - timedelta(minutes=settings.ONSITE_JOIN_EARLY_MINUTES)


def join_too_early(session: InterviewSession, now: datetime | None = None) -> bool:
    """A scheduled session whose link does not open yet (the candidate's waiting room)."""
    opens = join_opens_at(session)
    return (session.status == Status.SCHEDULED and opens is not None
            and (now or timezone.now()) < opens)


def session_join_refusal(session: InterviewSession, user: Any) -> str:
    """Why this user may not join by the invitation, or "" (the join page says it before
    any click; session_join applies the same rule under the row lock)."""
    if session_role(session, user) in INTERVIEWER_ROLES:
        return ""
    if session.candidate_id is not None and session.candidate_id != user.pk:
        if session.status == Status.SCHEDULED:
            return "this invitation is for another candidate"
        return "this invitation was already used"
    return ""


def session_join(*, token: str, user: Any) -> InterviewSession:
    """The candidate opens the invitation: the session starts (once) and is theirs."""
    if not token:
        raise SessionError("not_found", "no such invitation")
    with transaction.atomic():
        session = (
            InterviewSession.objects.select_for_update()
            .filter(invite_token=token, kind=Kind.LIVE)
            .first()
        )
        if session is None:
            raise SessionError("not_found", "no such invitation")
        if session_role(session, user) in INTERVIEWER_ROLES:
            return session  # an interviewer checking the link: nothing starts
        refusal = session_join_refusal(session, user)
        if refusal:
            raise SessionError("forbidden", refusal)
        if session.status == Status.CANCELLED:
            raise SessionError("forbidden", "this interview was cancelled")
        if join_too_early(session):
            # Checked under the row lock: a reschedule and a join cannot cross.
            raise SessionError("forbidden", "the interview does not open yet")
        if session_expired(session):
            raise SessionError("forbidden", "the interview's time went by: ask the interviewer "
                                            "to reschedule it")
        if session.status == Status.SCHEDULED:
            # Conditional: of two people claiming the same link at once, one wins.
            now = timezone.now()
            claimed = InterviewSession.objects.filter(
                Q(candidate__isnull=True) | Q(candidate=user),
                pk=session.pk,
                status=Status.SCHEDULED,
            ).update(
                candidate=user,
                status=Status.ACTIVE,
                started_at=now,
                deadline=now + session.clock_length,
            )
            if claimed != 1:
                raise SessionError("forbidden", "this invitation was already used")
            session.refresh_from_db()
            deadline, session_id = session.deadline, session.pk
            assert deadline is not None
            SessionEvent.objects.create(
                session=session,
                kind=SessionEvent.Kind.JOINED,
                actor=user,
                at=now,
                data={"role": "candidate", "via": "invitation"},
            )
            transaction.on_commit(
                lambda: realtime.broadcast(
                    session_id,
                    {
                        "type": "started",
                        "deadline": deadline.isoformat(),
                        "candidate": user.get_username(),
                    },
                )
            )
    return session


# ---------------------------------------------------------------- finish


def session_finish(*, session_id: int, reason: str, by: Any = None) -> InterviewSession:
    """Finish an active session and submit its last stored code (a design round keeps its
    final board instead). Idempotent: the second caller (the deadline task racing a page
    load, say) finds it finished and does nothing."""
    return _finish(session_id, reason, by)[0]


def _finish(session_id: int, reason: str, by: Any) -> tuple[InterviewSession, bool]:
    """The session, and whether this call is the one that finished it."""
    now = timezone.now()
    with transaction.atomic():
        finished = InterviewSession.objects.filter(pk=session_id, status=Status.ACTIVE).update(
            status=Status.FINISHED, finished_at=now, finish_reason=reason
        )
        session = InterviewSession.objects.select_related("problem", "candidate").get(pk=session_id)
        if finished != 1:
            return session, False
        submission: Submission | None = None
        error = ""
        # A design round grades nothing: its final board is kept instead (below).
        if session.content.kind_spec.runs_code:
            if session.candidate is not None:
                try:
                    submission = submission_create(
                        user=session.candidate,
                        problem_slug=session.problem.slug,
                        code=session_code(session_id),
                        mode=Submission.Mode.SUBMIT,
                        in_session=True,
                    )
                except GradingError as exc:
                    error = exc.message
            SessionEvent.objects.create(
                session=session,
                kind=SessionEvent.Kind.FINAL_SUBMIT,
                actor=by,
                at=now,
                submission=submission,
                data={"reason": reason, "error": error},
            )
        SessionEvent.objects.create(
            session=session,
            kind=SessionEvent.Kind.FINISHED,
            actor=by,
            at=now,
            data={"reason": reason},
        )
        session.final_submission = submission
        session.save(update_fields=["final_submission"])
        # A design round keeps its final board (every way of finishing passes here).
        board_snapshot_store_safely(session)
        payload = {
            "type": "finished",
            "reason": reason,
            "finished_at": now.isoformat(),
            "submission": submission.pk if submission else None,
            "error": error,
        }
        transaction.on_commit(lambda: realtime.broadcast(session_id, payload))
    return session, True


def session_finish_by(*, session_id: int, user: Any) -> InterviewSession:
    """The one who runs the room ends the session early (the final code is submitted as at
    the deadline): the interviewer of a live session, the candidate of a solo one. A live
    candidate is refused and pointed to "I'm done" (`session_candidate_done`)."""
    session, role = _participant(session_id, user)
    if session.status != Status.ACTIVE:
        raise SessionError("not_active", "the session is not running")
    if not may_end_session(user, candidate_id=session.candidate_id,
                           interviewer_id=session.interviewer_id):
        raise SessionError(
            "forbidden",
            "only the interviewer ends a live interview: press “I'm done” to tell them "
            "you have finished",
        )
    reason = (
        InterviewSession.FinishReason.CANDIDATE
        if role == "candidate"
        else InterviewSession.FinishReason.INTERVIEWER
    )
    return session_finish(session_id=session_id, reason=reason, by=user)


def session_extend(*, session_id: int, user: Any, minutes: Any) -> InterviewSession:
    """The one who runs a live room gives it more time (WCAG 2.2.1): the deadline moves by
    `minutes` (1 to MAX_EXTENSION_MINUTES), an `extended` event records it, and both sides'
    clocks follow. Refused once the deadline has passed: a finished session stays finished."""
    session, _role = _participant(session_id, user)
    if session.kind != Kind.LIVE or not may_end_session(
            user, candidate_id=session.candidate_id, interviewer_id=session.interviewer_id):
        raise SessionError("forbidden", "only the interviewer gives a live interview more time")
    if isinstance(minutes, bool) or not isinstance(minutes, int) or not (
            1 <= minutes <= MAX_EXTENSION_MINUTES):
        raise SessionError("bad_minutes",
                           f"an extension is 1 to {MAX_EXTENSION_MINUTES} whole minutes")
    now = timezone.now()
    with transaction.atomic():
        locked = InterviewSession.objects.select_for_update().get(pk=session.pk)
        if locked.status != Status.ACTIVE or locked.deadline is None or locked.deadline <= now:
            raise SessionError("not_active", "the session is not running")
        locked.deadline += timedelta(minutes=minutes)
        locked.save(update_fields=["deadline"])
        deadline = locked.deadline
        SessionEvent.objects.create(
            session=locked, kind=SessionEvent.Kind.EXTENDED, actor=user, at=now,
            data={"minutes": minutes, "deadline": deadline.isoformat()},
        )
        payload = {"type": "extended", "minutes": minutes, "deadline": deadline.isoformat()}
        transaction.on_commit(lambda: realtime.broadcast(session_id, payload))
    return locked


def session_expire_if_due(session_id: int) -> bool:
    """Finish the session if its deadline has passed; whether this call finished it."""
    due = InterviewSession.objects.filter(
        pk=session_id, status=Status.ACTIVE, deadline__lte=timezone.now()
    ).exists()
    if not due:
        return False
    return _finish(session_id, InterviewSession.FinishReason.DEADLINE, None)[1]


def sessions_expire_overdue() -> int:
    """Finish every active session past its deadline: the session clock's beat (interviews.tasks
    runs it every ONSITE_SESSION_SWEEP_SECONDS). Readers derive the status meanwhile."""
    overdue = InterviewSession.objects.filter(status=Status.ACTIVE, deadline__lte=timezone.now())
    return sum(session_expire_if_due(pk) for pk in overdue.values_list("pk", flat=True))


def _require_active(session: InterviewSession) -> None:
    """For writes (runs, questions, notes): one past the deadline drives the session clock
    itself, so the refusal and the final submission agree."""
    if session_expire_if_due(session.pk):
        session.refresh_from_db()
    status = session.status_now()
    if status != Status.ACTIVE:
        raise SessionError(
            "not_active",
            "time is up: the session is over"
            if status == Status.FINISHED
            else "the session has not started",
        )
