"""Ready-made interview worlds for tests: a reviewed live session with its people and submissions
(`build_world`, `solo_world`) and a finished design round (`design_world`), with their markers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone

from grading.models import Submission, TestResult
from interviews import services
from interviews.models import (
    DocUpdate,
    InterviewSession,
    Note,
    Question,
    ReportShare,
    ReviewNote,
    SessionEvent,
)
from interviews.review import services as review_services
from tests.factories import (
    board_update,
    design_problem,
    tiny_problem,
    user_with_role,
)

SECRET_INPUT = "SECRET-HIDDEN-INPUT-7731"


PRIVATE_NOTE = "PRIVATE-INTERVIEWER-NOTE-55"


RUBRIC = [
    {
        "criterion": "correctness",
        "weight": 3,
        "strong": "STRONG-CORRECTNESS",
        "levels": ["1: broken", "2: basic", "3: solid", "4: flawless"],
    },
    {
        "criterion": "edge_cases",
        "weight": 2,
        "strong": "STRONG-EDGES",
        "levels": ["1: none", "2: some", "3: most", "4: all"],
    },
    {
        "criterion": "clarifying_questions",
        "weight": 1,
        "strong": "STRONG-QUESTIONS",
        "levels": ["1: none", "2: one", "3: most", "4: all key ones"],
    },
]


CLARIFICATIONS = [
    {"question": "Is x ever negative?", "answer": "Yes.", "key": True},
    {"question": "How large is x?", "answer": "64-bit.", "key": True},
    {"question": "Which Python?", "answer": "3.11.", "key": False},
]


@dataclass
class World:
    session: InterviewSession
    owner: User
    other: User
    assigned: User
    unassigned: User
    author: User
    admin: User
    run: Submission
    passing: Submission
    final: Submission
    question: Question

    def users(self) -> dict[str, User | None]:
        return {
            "anonymous": None,
            "other_candidate": self.other,
            "owner": self.owner,
            "unassigned_interviewer": self.unassigned,
            "assigned_interviewer": self.assigned,
            "author": self.author,
            "admin": self.admin,
        }


def _submission(
    world_user: User,
    problem: object,
    mode: str,
    verdict: str,
    results: list[tuple[str, bool, str, str]],
) -> Submission:
    sub = Submission.objects.create(
        user=world_user,
        problem=problem,
        version=problem.live_version,  # type: ignore[attr-defined]
        mode=mode,
        code="def solve(x):\n    return x + 1\n",
        status="done",
        verdict=verdict,
        passed=sum(v == "AC" for _, _, _, v in results),
        total=len(results),
    )
    for index, (name, hidden, tag, verdict_) in enumerate(results):
        TestResult.objects.create(
            submission=sub,
            index=index,
            name=name,
            hidden=hidden,
            tag=tag,
            verdict=verdict_,
            detail={"input": SECRET_INPUT if hidden else "public input"},
        )
    return sub


def build_world() -> World:
    """A finished live session with runs, a key question, edits, and a private note."""
    problem = tiny_problem()
    problem.rubric = RUBRIC
    problem.clarifications = CLARIFICATIONS
    problem.follow_ups = ["FOLLOW-UP: what if x is a float?"]
    problem.save()
    owner = user_with_role("owner", "candidate")
    other = user_with_role("other", "candidate")
    assigned = user_with_role("assigned", "interviewer")
    unassigned = user_with_role("unassigned", "interviewer")
    author = user_with_role("author", "author")
    admin = user_with_role("admin", admin=True)
    start = timezone.now() - timedelta(minutes=30)
    session = InterviewSession.objects.create(
        problem=problem,
        candidate=owner,
        interviewer=assigned,
        kind="live",
        status="finished",
        duration=timedelta(minutes=30),
        started_at=start,
        deadline=start + timedelta(minutes=30),
        finished_at=start + timedelta(minutes=25),
        finish_reason="candidate",
    )
    public = [("public 0", False, "correctness", "AC"), ("public 1", False, "correctness", "AC")]
    run = _submission(
        owner,
        problem,
        "run",
        "WA",
        [("public 0", False, "correctness", "WA"), ("public 1", False, "correctness", "AC")],
    )
    passing = _submission(owner, problem, "run", "AC", public)
    final = _submission(
        owner,
        problem,
        "submit",
        "WA",
        [
            *public,
            ("secret 0", True, "correctness", "AC"),
            ("secret 1", True, "edge_cases", "WA"),
            ("secret 2", True, "correctness", "AC"),
        ],
    )
    for minutes, kind, sub in ((5, "run", run), (10, "run", passing), (25, "final_submit", final)):
        SessionEvent.objects.create(
            session=session,
            kind=kind,
            actor=owner,
            submission=sub,
            at=start + timedelta(minutes=minutes),
        )
    SessionEvent.objects.create(session=session, kind="finished", at=start + timedelta(minutes=25))
    session.final_submission = final
    session.save()
    question = Question.objects.create(
        session=session,
        asked_by=owner,
        text="Can x be negative?",
        answer="Yes.",
        asked_at=start + timedelta(minutes=2),
        answer_source="interviewer",
        matched_index=0,
        matched_key=True,
    )
    for minutes in (1, 3, 4, 12):
        DocUpdate.objects.create(
            session=session, author=owner, data=b"x", created_at=start + timedelta(minutes=minutes)
        )
    ReviewNote.objects.create(session=session, author=assigned, text=PRIVATE_NOTE)
    return World(
        session, owner, other, assigned, unassigned, author, admin, run, passing, final, question
    )


def full_scores(
    level: int = 3,
    evidence: list[object] | None = None,
) -> dict[str, dict[str, object]]:
    return {
        row["criterion"]: {
            "level": level,
            "comment": f"c-{row['criterion']}",
            "evidence": evidence or [],
        }
        for row in RUBRIC
    }


def solo_world() -> tuple[World, InterviewSession]:
    """The world's candidate also practised alone: a note, two hints, a tradeoff."""
    world = build_world()
    problem = world.session.problem
    problem.hints = ["HINT-ONE: keep two numbers", "HINT-TWO: refill lazily", "HINT-THREE"]
    problem.save()
    start = timezone.now() - timedelta(minutes=20)
    solo = InterviewSession.objects.create(
        problem=world.session.problem,
        candidate=world.owner,
        kind="solo",
        status="finished",
        duration=timedelta(minutes=20),
        started_at=start,
        deadline=start + timedelta(minutes=20),
        finished_at=start + timedelta(minutes=15),
        finish_reason="candidate",
        candidate_opens_hints=True,
    )
    Note.objects.create(
        session=solo,
        author=world.owner,
        kind="tradeoff",
        text="OWN-NOTE: a dict keeps O(1)",
        created_at=start + timedelta(minutes=3),
    )
    for minutes, number in ((4, 1), (9, 2)):
        SessionEvent.objects.create(
            session=solo,
            kind="hint",
            actor=world.owner,
            data={"number": number},
            at=start + timedelta(minutes=minutes),
        )
    ReviewNote.objects.create(session=solo, author=world.assigned, text=PRIVATE_NOTE)
    return world, solo


REF_TEXT = "MARK-REFERENCE-DESIGN-TEXT-5772"


REF_BOARD = "MARK-REFERENCE-BOARD-4669"


DRAWN = "Gateway-drawn-by-candidate"


NOTES = "10k rps x 2 KB = 20 MB/s"


GATEWAY = {
    "id": "gw",
    "type": "rectangle",
    "index": "a1",
    "version": 1,
    "x": 0,
    "y": 0,
    "width": 200,
    "height": 80,
}


GATEWAY_LABEL = {
    "id": "gw-t",
    "type": "text",
    "index": "a2",
    "version": 1,
    "x": 10,
    "y": 25,
    "width": 180,
    "height": 25,
    "text": DRAWN,
    "containerId": "gw",
}


QUEUE = {
    "id": "q",
    "type": "ellipse",
    "index": "a3",
    "version": 1,
    "x": 300,
    "y": 0,
    "width": 120,
    "height": 80,
}


REFERENCE_BOARD = [
    {"id": "r1", "type": "rectangle", "x": 0, "y": 0, "width": 220, "height": 80},
    {
        "id": "r1-t",
        "type": "text",
        "x": 10,
        "y": 25,
        "width": 200,
        "height": 25,
        "text": f"Batcher {REF_BOARD}",
        "containerId": "r1",
    },
]


@dataclass
class DesignWorld:
    session: InterviewSession
    candidate: User
    interviewer: User
    other: User
    unassigned: User
    admin: User
    share: ReportShare


def design_world(*, finish: bool = True) -> DesignWorld:
    """A live design round: the candidate drew a gateway at 02:00, its label and a queue at
    05:00, wrote notes; the interviewer ended it (the snapshot is stored then)."""
    problem = design_problem(
        reference_text=f"Use a **queue** in front. {REF_TEXT}", reference_board=REFERENCE_BOARD
    )
    interviewer = user_with_role("int", "interviewer")
    candidate = user_with_role("cand", "candidate")
    other = user_with_role("other", "candidate")
    unassigned = user_with_role("unassigned", "interviewer")
    admin = user_with_role("admin", admin=True)
    session = services.session_schedule_live(
        interviewer=interviewer, problem_slug=problem.slug, duration=timedelta(minutes=45)
    )
    assert session.invite_token
    services.session_join(token=session.invite_token, user=candidate)
    start = timezone.now() - timedelta(minutes=10)
    InterviewSession.objects.filter(pk=session.pk).update(started_at=start)
    first = board_update(session.pk, [GATEWAY], author_id=candidate.pk)
    second = board_update(session.pk, [GATEWAY_LABEL, QUEUE], notes=NOTES, author_id=candidate.pk)
    DocUpdate.objects.filter(pk=first).update(created_at=start + timedelta(minutes=2))
    DocUpdate.objects.filter(pk=second).update(created_at=start + timedelta(minutes=5))
    if finish:
        services.session_finish_by(session_id=session.pk, user=interviewer)
    session.refresh_from_db()
    share = review_services.share_create(session=session, user=candidate) if finish else None
    return DesignWorld(session, candidate, interviewer, other, unassigned, admin, share)  # type: ignore[arg-type]


def scores(evidence: list[str]) -> dict[str, dict[str, Any]]:
    return {
        "requirements": {"level": 3, "comment": "Asked for the scale.", "evidence": []},
        "architecture": {"level": 3, "comment": "A sound pipeline.", "evidence": evidence},
    }
