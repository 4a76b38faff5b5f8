"""A three-round loop with its people, for the loop tests: the candidate, one interviewer per
round, the hiring manager, the recruiter who built it, an admin and outsiders; markers to
plant in scorecards (`submit`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import User
from django.utils import timezone

from core.roles import RECRUITER
from interviews.models import InterviewSession, Scorecard
from interviews.review import services as review_services
from loops.models import Loop
from tests.factories import tiny_problem, user_with_role
from tests.interviews.worlds import RUBRIC
from tests.loops.factories import loop_with_rounds

MARK_SUMMARY = "MARK-ROUND1-SUMMARY-8841"
MARK_COMMENT = "MARK-ROUND1-COMMENT-8842"


@dataclass
class LoopWorld:
    loop: Loop
    sessions: list[InterviewSession]
    candidate: User
    interviewers: list[User]
    hiring_manager: User
    recruiter: User
    admin: User
    outsider: User  # an interviewer with no round in the loop
    other_candidate: User


def loop_world(setting: str = Loop.FeedbackVisibility.AFTER_OWN, *, finished: int = 3,
               emails: bool = True) -> LoopWorld:
    """A loop of three rounds on one problem; its first `finished` rounds are over."""
    problem = tiny_problem()
    problem.rubric = RUBRIC
    problem.save()
    candidate = user_with_role("cand", "candidate")
    interviewers = [user_with_role(f"iv{n}", "interviewer") for n in (1, 2, 3)]
    if emails:
        for person in interviewers:
            person.email = f"{person.username}@onsite.test"
            person.save()
    hiring_manager = user_with_role("hm", "interviewer")
    recruiter = user_with_role("rec", RECRUITER)
    loop = loop_with_rounds(candidate=candidate, rounds=[(problem, i) for i in interviewers],
                            created_by=recruiter, hiring_manager=hiring_manager,
                            feedback_visibility=setting)
    sessions = [r.session for r in loop.rounds.select_related("session")]
    for index, session in enumerate(sessions[:finished]):
        finish(session, minutes_ago=60 * (3 - index))
    return LoopWorld(loop, sessions, candidate, interviewers, hiring_manager, recruiter,
                     user_with_role("root", admin=True), user_with_role("outsider", "interviewer"),
                     user_with_role("other", "candidate"))


def finish(session: InterviewSession, *, minutes_ago: float = 60) -> InterviewSession:
    """The round took place and ended `minutes_ago`."""
    end = timezone.now() - timedelta(minutes=minutes_ago)
    InterviewSession.objects.filter(pk=session.pk).update(
        status=InterviewSession.Status.FINISHED, started_at=end - timedelta(minutes=45),
        deadline=end, finished_at=end, finish_reason="deadline",
        scheduled_for=end - timedelta(minutes=45))
    session.refresh_from_db()
    return session


def submit(session: InterviewSession, user: User, *, summary: str = "solid round",
           comment: str = "fine", level: int = 3, recommendation: str = "yes",
           done: bool = True) -> Scorecard:
    scores = {row["criterion"]: {"level": level, "comment": f"{comment} ({row['criterion']})",
                                 "evidence": []} for row in RUBRIC}
    return review_services.scorecard_save(session=session, user=user,
                                          recommendation=recommendation, summary=summary,
                                          scores=scores, submit=done)
