"""Who a user is to one loop (`core.visibility.LoopViewer`), and what of its rounds they read:
the loops app's side of the visibility policy (`core.visibility` holds the rules).

The interviews app knows nothing of loops (the dependency rule), so a session's own pages
(review, replay, report, API) stay those of the session: an interviewer of round 2 who is
not on round 1's panel cannot open any of round 1's, and reads round 1's scorecards only in
the hiring packet, where `loop_round_visible` decides. Refusals look like missing loops (404).

Seeing a loop's day (its page, its API detail) is wider than reading its packet: its candidate
(once they claimed the invitation), the interviewers of its rounds (each round's own and its
panel's), its creator, its hiring manager, every recruiter (they share the scheduling) and
admins. Building one: interviewers, recruiters and admins. Changing its schedule (move or
cancel a round or the whole loop): its creator, recruiters and admins; a round's own
interviewer still moves their round from the session's schedule page. Reading the packet and
deciding stay with the hiring manager, the recruiter who runs the loop and admins.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from core import visibility
from core.roles import is_admin, is_interviewer, is_recruiter
from core.visibility import LoopViewer
from interviews.models import InterviewSession, ReviewAssignment, Scorecard
from interviews.review import access as review_access
from loops.models import Loop, LoopRound


def _signed_in(user: Any) -> bool:
    return user is not None and bool(getattr(user, "is_authenticated", False))


def panel_sessions(loop: Loop, user: Any) -> set[int]:
    """The sessions of the loop's rounds `user` is on the panel of (its own interviewer or a
    co-interviewer)."""
    if not _signed_in(user):
        return set()
    sessions = InterviewSession.objects.filter(loop_round__loop=loop)
    own = set(sessions.filter(interviewer=user).values_list("pk", flat=True))
    panel = set(ReviewAssignment.objects.filter(session__in=sessions, interviewer=user)
                .values_list("session_id", flat=True))
    return own | panel


def loop_viewer(loop: Loop, user: Any) -> LoopViewer:
    """Who `user` is for `loop`. The hiring manager first (deciding is theirs: they read
    every round); then whoever is on a round's panel (an admin too: they write a scorecard of
    the loop, so the independence rule holds them); then the recruiter who runs the loop
    (built it) and admins; then the candidate."""
    if not _signed_in(user):
        return LoopViewer.ANONYMOUS
    if loop.hiring_manager_id == user.pk:
        return LoopViewer.HIRING_MANAGER
    if panel_sessions(loop, user):
        return LoopViewer.INTERVIEWER
    if is_admin(user):
        return LoopViewer.ADMIN
    if is_recruiter(user) and loop.created_by_id == user.pk:
        return LoopViewer.RECRUITER
    if loop.candidate_id == user.pk:
        return LoopViewer.CANDIDATE
    return LoopViewer.OTHER


def own_submitted(loop: Loop, user: Any) -> bool:
    """Whether `user` has submitted a scorecard on every round of the loop they are on."""
    sessions = panel_sessions(loop, user)
    if not sessions:
        return False
    submitted = set(Scorecard.objects.filter(session_id__in=sessions, interviewer=user)
                    .exclude(submitted_at=None).values_list("session_id", flat=True))
    return submitted >= sessions


def round_cards_visible(loop_round: LoopRound, user: Any, *, on_panel: bool) -> bool:
    """On a round the reader is on, the session's own independent scoring decides whether
    they read the others' scorecards (their own they always read)."""
    if not on_panel:
        return True
    return review_access.can_see_other_scores(loop_round.session, user)


def may_read_packet(loop: Loop, user: Any) -> bool:
    return loop_viewer(loop, user) in visibility.LOOP_PACKET_READERS


def may_judge(loop: Loop, user: Any) -> bool:
    """The hiring manager, the recruiter who runs the loop and admins record the decision
    and release the combined report (an admin on a panel too)."""
    if not _signed_in(user):
        return False
    if loop.hiring_manager_id == user.pk or is_admin(user):
        return True
    return is_recruiter(user) and loop.created_by_id == user.pk


def loop_build_allowed(user: Any) -> bool:
    return _signed_in(user) and (is_interviewer(user) or is_recruiter(user))


def loop_manage_allowed(loop: Loop, user: Any) -> bool:
    if not _signed_in(user):
        return False
    return is_recruiter(user) or loop.created_by_id == user.pk


def loop_interviewer_ids(loop: Loop) -> set[int]:
    """Every interviewer of the loop's rounds: each round's own and its co-interviewers."""
    own = {i for i in loop.rounds.values_list("session__interviewer_id", flat=True) if i}
    panel = set(ReviewAssignment.objects.filter(session__loop_round__loop=loop)
                .values_list("interviewer_id", flat=True))
    return own | panel


def loop_visible(loop: Loop, user: Any) -> bool:
    if not _signed_in(user):
        return False
    if is_recruiter(user) or is_admin(user):
        return True
    if user.pk in (loop.candidate_id, loop.created_by_id, loop.hiring_manager_id):
        return True
    return user.pk in loop_interviewer_ids(loop)


def loops_visible_to(user: Any) -> QuerySet[Loop]:
    """The loops `user` may see (`loop_visible` as a query), newest first."""
    if not _signed_in(user):
        return Loop.objects.none()
    if is_recruiter(user) or is_admin(user):
        return Loop.objects.all()
    return Loop.objects.filter(
        Q(candidate=user) | Q(created_by=user) | Q(hiring_manager=user)
        | Q(rounds__session__interviewer=user)
        | Q(rounds__session__review_assignments__interviewer=user)
    ).distinct()
