"""A mock onsite for one person (issue 39, point 5): a practice loop booked, taken round after
round in solo mode, and read as one report.

**Booking** (`practice_book`) stores each round's plan (`PracticeRound`): its label, its problem
(the one chosen, or one picked for the candidate: `problem_pick`), its length and the break
after it. **Taking a round** (`practice_round_start`) starts a solo session on its problem, the
clock running from that click, and writes the loop's `LoopRound`; a round starts only once the
rounds before it are over, and the end of one round offers the next (`next_step`, on the session
page through `interviews.hooks`). The breaks are suggested pauses, not enforced: it is the
candidate's own practice.

**The report** (`practice_report`): per round, the final submission's verdict and tests passed
as the solo report shows them (a round whose kind has no tests, a design round, has no score:
no interviewer scores a practice round); overall, the rounds finished, the tests passed over the
scored rounds, the strongest and the weakest round; and the next problems to practise, by this
rule (`SUGGESTION_RULE`, said on the page too):

* the **weakest rounds** are the finished, scored rounds with the lowest share of tests passed
  (all of them when tied); when every scored round passed every test there is no weak round;
* their problems' **topics** are the weak topics;
* the suggestions are published problems sharing a weak topic, most shared topics first, then by
  title; never one of this loop's problems, never one the candidate already solved (an accepted
  submission, or for a kind without tests a finished session on it); at most `MAX_SUGGESTIONS`;
* with no scored round yet, or weak rounds whose problems name no topic, the report says "not
  enough data" and suggests nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse

from core.errors import ApplicationError
from grading.models import Submission
from interviews import services as session_services
from interviews.hooks import NextStep
from interviews.models import InterviewSession, SessionEvent
from loops.models import Loop, LoopRound, PracticeRound
from problems import kinds
from problems.models import Problem

MAX_ROUNDS = 5
MAX_BREAK_MINUTES = 60
MAX_LABEL_CHARS = 60
MAX_TITLE_CHARS = 120
MAX_SUGGESTIONS = 3
DEFAULT_TITLE = "Mock onsite"
SUGGESTION_RULE = (
    "The weakest rounds are the finished rounds with the lowest share of tests passed (design "
    "rounds have no tests and are not scored). The next problems share a topic with them, most "
    "shared topics first, and are never one of this loop's problems or one you already solved."
)


class LoopError(ApplicationError):
    """A practice-loop request the rules refuse (bad_round, not_yet, not_participant...)."""


@dataclass(frozen=True)
class RoundSpec:
    """One round as the booking form asks for it ("" problem: pick one for me)."""

    label: str
    kind: str
    minutes: float
    break_minutes: float = 0
    problem: str = ""  # a slug, or "" to pick
    topic: str = ""  # narrows the pick


# The plan the booking form starts from: the example onsite.
DEFAULT_PLAN = (
    RoundSpec("Coding", kinds.IMPLEMENT.name, 45, 10),
    RoundSpec("ML debugging", kinds.DEBUG.name, 30, 10),
    RoundSpec("System design", kinds.DESIGN_KIND.name, 45, 0),
)


def _offered() -> Any:
    return Problem.objects.offered().exclude(live_version=None)


def solved_problem_ids(user: Any) -> set[int]:
    """The problems `user` already solved: an accepted submission, or (a kind without tests,
    where nothing is accepted) a finished session on it."""
    accepted = set(Submission.objects.filter(
        user=user, mode=Submission.Mode.SUBMIT, status=Submission.Status.DONE,
        verdict=Submission.Verdict.AC).values_list("problem_id", flat=True))
    finished = InterviewSession.objects.filter(
        candidate=user, status=InterviewSession.Status.FINISHED).select_related("problem")
    untested = {s.problem_id for s in finished if not s.problem.kind_spec.has_tests}
    return accepted | untested


def problem_pick(*, user: Any, kind: str, topic: str = "",
                 exclude: set[int] | None = None) -> Problem | None:
    """"Pick for me": a published problem of `kind` (and `topic`, if named), never one in
    `exclude`; the ones `user` has not solved first, then the ones never attempted, then by
    title. None when nothing fits."""
    exclude = exclude or set()
    solved = solved_problem_ids(user)
    attempted = set(InterviewSession.objects.filter(candidate=user)
                    .values_list("problem_id", flat=True))
    wanted = topic.strip().lower()
    fits = [p for p in _offered().filter(kind=kind).order_by("title", "slug")
            if p.pk not in exclude
            and (not wanted or wanted in {str(t).lower() for t in p.topics or []})]
    if not fits:
        return None
    return min(fits, key=lambda p: (p.pk in solved, p.pk in attempted))


def _minutes(value: float, *, position: int, what: str, low: float, high: float) -> timedelta:
    try:
        minutes = float(value)
    except (TypeError, ValueError, OverflowError):
        minutes = float("nan")
    if not low <= minutes <= high:  # NaN fails too
        raise LoopError("bad_round", f"Round {position}: the {what} is {low:g} to {high:g} "
                                     "minutes")
    return timedelta(minutes=minutes)


def practice_book(*, candidate: Any, rounds: list[RoundSpec], title: str = "") -> Loop:
    """Book a practice loop for `candidate`: its rounds in order, each problem chosen or
    picked. Nothing starts yet: the candidate takes round 1 when ready."""
    if not getattr(candidate, "is_authenticated", False):
        raise LoopError("not_participant", "sign in to book a mock onsite")
    if not 1 <= len(rounds) <= MAX_ROUNDS:
        raise LoopError("bad_round", f"a mock onsite has 1 to {MAX_ROUNDS} rounds")
    title = title.strip()[:MAX_TITLE_CHARS] or DEFAULT_TITLE
    chosen: list[tuple[RoundSpec, Problem, bool, timedelta, timedelta]] = []
    used: set[int] = set()
    for position, spec in enumerate(rounds, start=1):
        kind = kinds.find(spec.kind)
        if kind is None:
            raise LoopError("bad_round", f"Round {position}: choose what kind of round it is")
        label = spec.label.strip()
        if len(label) > MAX_LABEL_CHARS:
            raise LoopError("bad_round", f"Round {position}: the name is at most "
                                         f"{MAX_LABEL_CHARS} characters")
        duration = _minutes(spec.minutes, position=position, what="length", low=1,
                            high=settings.ONSITE_SESSION_MAX_MINUTES)
        pause = _minutes(spec.break_minutes, position=position, what="break after it", low=0,
                         high=MAX_BREAK_MINUTES)
        if spec.problem:
            problem = _offered().filter(slug=spec.problem).first()
            if problem is None:
                raise LoopError("bad_round", f"Round {position}: no published problem "
                                             f"{spec.problem!r}")
            if problem.kind_spec is not kind:
                raise LoopError("bad_round", f"Round {position}: {problem.title} is not a "
                                             f"problem of kind “{kind.name}”")
            if problem.pk in used:
                raise LoopError("bad_round", f"Round {position}: {problem.title} is already "
                                             "another round of this onsite")
            picked = False
        else:
            found = problem_pick(user=candidate, kind=kind.name, topic=spec.topic, exclude=used)
            if found is None:
                about = f" on {spec.topic.strip()!r}" if spec.topic.strip() else ""
                raise LoopError("bad_round", f"Round {position}: no published problem of "
                                             f"kind “{kind.name}”{about} is left to pick")
            problem, picked = found, True
        used.add(problem.pk)
        chosen.append((spec, problem, picked, duration, pause))
    with transaction.atomic():
        loop = Loop.objects.create(kind=Loop.Kind.PRACTICE, title=title, candidate=candidate,
                                   created_by=candidate,
                                   feedback_visibility=Loop.FeedbackVisibility.NEVER)
        for position, (spec, problem, picked, duration, pause) in enumerate(chosen, start=1):
            PracticeRound.objects.create(
                loop=loop, position=position, problem=problem, duration=duration,
                break_after=pause, picked=picked,
                label=spec.label.strip() or kind_label(problem))
    return loop


def kind_label_of(kind: kinds.Kind) -> str:
    """A kind as a round is named ("Design", not "design (system design)")."""
    return kind.label.split(" (")[0].capitalize()


def kind_label(problem: Problem) -> str:
    return kind_label_of(problem.kind_spec)


def practice_loop_for(*, loop_id: int, user: Any) -> Loop:
    """The candidate's own practice loop; anyone else's (or none) reads as missing."""
    loop = Loop.objects.filter(pk=loop_id, kind=Loop.Kind.PRACTICE).first()
    if loop is None or not getattr(user, "is_authenticated", False) \
            or loop.candidate_id != user.pk:
        raise LoopError("not_participant", "no such mock onsite")
    return loop


def _round_over(session: InterviewSession) -> bool:
    """Over on the clock; a round past its deadline that the sweeper has not finished yet is
    finished now (its last code submitted), so the next round starts from a complete one."""
    if session.status == InterviewSession.Status.ACTIVE and session.status_now() == \
            InterviewSession.Status.FINISHED:
        session_services.session_expire_if_due(session.pk)
        session.refresh_from_db()
    return session.status == InterviewSession.Status.FINISHED


def practice_round_start(*, loop_id: int, user: Any, position: int) -> InterviewSession:
    """Take round `position`: a solo session on its problem starts now. Once only: a second
    click returns the session the first one started. Refused until the rounds before it are
    over."""
    with transaction.atomic():
        loop = practice_loop_for(loop_id=loop_id, user=user)
        Loop.objects.select_for_update().filter(pk=loop.pk).first()
        if loop.status != Loop.Status.SCHEDULED:
            raise LoopError("conflict", "this mock onsite is over")
        plan = loop.practice_rounds.select_related("problem").filter(position=position).first()
        if plan is None:
            raise LoopError("not_found", "no such round")
        taken = {r.position: r for r in LoopRound.objects.filter(loop=loop)
                 .select_related("session")}
        if position in taken:
            return taken[position].session
        for earlier in loop.practice_rounds.filter(position__lt=position):
            before = taken.get(earlier.position)
            if before is None or not _round_over(before.session):
                raise LoopError("not_yet", f"finish round {earlier.position} first")
        session = session_services.session_start_solo(
            candidate=user, problem_slug=plan.problem.slug, duration=plan.duration)
        LoopRound.objects.create(loop=loop, position=position, session=session,
                                 label=plan.label, break_after=plan.break_after)
    return session


def next_step(session: InterviewSession, user: Any) -> NextStep | None:
    """After a round of a practice loop (`interviews.hooks`): the next round's start, one
    click away, or the loop's report after the last one."""
    taken = (LoopRound.objects.filter(session_id=session.pk, loop__kind=Loop.Kind.PRACTICE)
             .select_related("loop").first())
    if taken is None or not getattr(user, "is_authenticated", False) \
            or taken.loop.candidate_id != user.pk:
        return None
    loop = taken.loop
    following = loop.practice_rounds.filter(position__gt=taken.position).first()
    if following is not None and loop.status == Loop.Status.SCHEDULED \
            and not LoopRound.objects.filter(loop=loop, position=following.position).exists():
        pause = int(following_break(loop, taken.position).total_seconds() // 60)
        rest = f" (a {pause}-minute break first, if you like)" if pause else ""
        return NextStep(
            url=reverse("loops:practice_start", kwargs={"loop_id": loop.pk,
                                                        "position": following.position}),
            label=f"Start round {following.position}: {following.label}{rest}", post=True)
    return NextStep(url=reverse("loops:practice_loop", kwargs={"loop_id": loop.pk}),
                    label="Your mock onsite report")


def following_break(loop: Loop, position: int) -> timedelta:
    plan = loop.practice_rounds.filter(position=position).first()
    return plan.break_after if plan is not None else timedelta(0)


# ---------------------------------------------------------------- the report


def _round_row(plan: PracticeRound, taken: LoopRound | None) -> dict[str, Any]:
    session = taken.session if taken is not None else None
    row: dict[str, Any] = {
        "position": plan.position, "label": plan.label, "problem": plan.problem,
        "kind": kind_label(plan.problem), "minutes": round(plan.duration.total_seconds() / 60),
        "break_minutes": round(plan.break_after.total_seconds() / 60), "picked": plan.picked,
        "session": session, "state": "not_started", "final": None, "score": None,
        "percent": None, "scored": False, "has_tests": plan.problem.kind_spec.has_tests,
        "used_minutes": None, "hints": 0, "questions": 0,
    }
    if session is None:
        return row
    over = session.status == InterviewSession.Status.FINISHED
    # Past its deadline, not yet finished by the session clock: its last code is on the way
    # to being submitted (a read never writes; the clock's sweeper does).
    row["state"] = "finished" if over else "finishing" if session.status_now() == \
        InterviewSession.Status.FINISHED else "running"
    if not over:
        return row
    final = session.final_submission
    if session.started_at and session.finished_at:
        row["used_minutes"] = round((session.finished_at - session.started_at)
                                    .total_seconds() / 60)
    row["hints"] = session.events.filter(kind=SessionEvent.Kind.HINT).count()
    row["questions"] = session.questions.count()
    if final is not None:
        graded = final.status in (Submission.Status.DONE, Submission.Status.FAILED)
        row["final"] = {"verdict": final.verdict or ("IE" if graded else ""),
                        "passed": final.passed, "total": final.total, "graded": graded}
        if row["has_tests"] and graded and final.total > 0:
            row["scored"] = True
            row["score"] = final.passed / final.total
            row["percent"] = round(100 * final.passed / final.total)
    return row


def suggestions(*, user: Any, rows: list[dict[str, Any]], loop_problem_ids: set[int]
                ) -> dict[str, Any]:
    """The next problems to practise, by the module's rule."""
    scored = [r for r in rows if r["scored"]]
    if not scored:
        return {"status": "not_enough_data", "weak": [], "topics": [], "problems": [],
                "why": "no round has a score yet: a finished coding or debugging round gives one"}
    lowest = min(r["score"] for r in scored)
    if lowest >= 1:
        return {"status": "no_weak_round", "weak": [], "topics": [], "problems": [],
                "why": "every scored round passed every test"}
    weak = [r for r in scored if r["score"] == lowest]
    named = [f"{r['position']}, {r['label']}" for r in weak]
    topics = sorted({str(t) for r in weak for t in r["problem"].topics or []})
    if not topics:
        return {"status": "not_enough_data", "weak": [r["position"] for r in weak],
                "named": named, "topics": [], "problems": [],
                "why": "the weakest round's problem names no topic to practise"}
    solved = solved_problem_ids(user)
    wanted = set(topics)
    ranked = []
    for problem in _offered().order_by("title", "slug"):
        shared = wanted & {str(t) for t in problem.topics or []}
        if shared and problem.pk not in solved and problem.pk not in loop_problem_ids:
            ranked.append((-len(shared), problem.title, problem.slug, problem, sorted(shared)))
    ranked.sort(key=lambda item: item[:3])
    picks = [{"problem": p, "topics": shared} for *_, p, shared in ranked[:MAX_SUGGESTIONS]]
    return {"status": "ok" if picks else "nothing_new", "weak": [r["position"] for r in weak],
            "named": named, "topics": topics, "problems": picks,
            "why": "" if picks else "you already solved every published problem on these topics"}


def practice_report(*, loop: Loop, user: Any) -> dict[str, Any]:
    """The loop's one report: the rounds with their outcomes, the overall feedback and the
    next problems (see the module)."""
    plans = list(loop.practice_rounds.select_related("problem"))
    taken = {r.position: r for r in LoopRound.objects.filter(loop=loop).select_related(
        "session", "session__final_submission", "session__problem")}
    rows = [_round_row(plan, taken.get(plan.position)) for plan in plans]
    finished = [r for r in rows if r["state"] == "finished"]
    scored = [r for r in rows if r["scored"]]
    passed = sum(r["final"]["passed"] for r in scored)
    total = sum(r["final"]["total"] for r in scored)
    upcoming = next((r for r in rows if r["state"] != "finished"), None)
    overall = {
        "finished": len(finished), "rounds": len(rows), "scored": len(scored),
        "passed": passed, "total": total,
        "percent": round(100 * passed / total) if total else None,
        "strongest": max(scored, key=lambda r: r["score"]) if len(scored) > 1 else None,
        "weakest": min(scored, key=lambda r: r["score"]) if len(scored) > 1 else None,
        "complete": len(finished) == len(rows),
        # The clock over the finished rounds, and the help taken there.
        "used_minutes": sum(r["used_minutes"] or 0 for r in finished),
        "planned_minutes": sum(r["minutes"] for r in finished),
        "hints": sum(r["hints"] for r in finished),
        "questions": sum(r["questions"] for r in finished),
    }
    return {
        "loop": loop, "rows": rows, "overall": overall,
        "next_round": upcoming if upcoming is not None and upcoming["state"] == "not_started"
        and all(r["state"] == "finished" for r in rows if r["position"] < upcoming["position"])
        else None,
        "running": next((r for r in rows if r["state"] in ("running", "finishing")), None),
        "suggestion": suggestions(user=user, rows=rows,
                                  loop_problem_ids={p.problem_id for p in plans}),
        "rule": SUGGESTION_RULE,
    }


def practice_loops(user: Any) -> list[Loop]:
    """The user's own practice loops, newest first."""
    if not getattr(user, "is_authenticated", False):
        return []
    return list(Loop.objects.filter(kind=Loop.Kind.PRACTICE, candidate=user)
                .prefetch_related("practice_rounds"))
