"""A mock onsite for one person (issue 39, point 5): booked, its rounds taken in order as solo
sessions (the next one a click from the end of the last), and one report whose numbers are the
final submissions' and whose suggestions follow the stated rule. Only its owner sees it.

Rounds are started by the service (a solo session's clock starts; nothing is graded) and
finished as tests/interviews/worlds.py finishes sessions: a final submission written with its
verdict and counts, so no sandbox is needed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.html import escape

from grading.models import Submission
from interviews import hooks
from interviews.models import InterviewSession, SessionEvent
from loops.models import Loop, LoopRound, PracticeRound
from loops.services import practice
from loops.services.practice import LoopError, RoundSpec
from problems.models import Problem
from tests.factories import client_for, design_problem, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db


def _problem(slug: str, *, kind: str = "implement", topics: list[str] | None = None,
             title: str = "") -> Problem:
    problem = design_problem(slug) if kind == "design" else tiny_problem(slug)
    problem.topics = topics or []
    problem.title = title or slug.replace("-", " ").capitalize()
    if kind != "design":
        problem.kind = kind
    problem.save()
    version = problem.live_version
    assert version is not None
    version.kind, version.topics, version.title = problem.kind, problem.topics, problem.title
    version.save()
    return problem


def _solve(user: User, problem: Problem) -> None:
    Submission.objects.create(user=user, problem=problem, version=problem.live_version,
                              mode="submit", code="x", status="done", verdict="AC",
                              passed=2, total=2)


def _finish(session: InterviewSession, *, verdict: str | None, passed: int = 0,
            total: int = 0, minutes: int = 20) -> None:
    """End a round as the clock would, with its final submission graded as given (None: a
    design round, nothing submitted)."""
    start = timezone.now() - timedelta(minutes=minutes)
    final = None
    if verdict is not None:
        final = Submission.objects.create(
            user=session.candidate, problem=session.problem,
            version=session.problem.live_version, mode="submit", code="def solve(x): ...",
            status="done", verdict=verdict, passed=passed, total=total)
        SessionEvent.objects.create(session=session, kind="final_submit", actor=session.candidate,
                                    submission=final, at=start + timedelta(minutes=minutes))
    InterviewSession.objects.filter(pk=session.pk).update(
        status="finished", started_at=start, finished_at=start + timedelta(minutes=minutes),
        finish_reason="candidate", final_submission=final)
    session.refresh_from_db()


class Bank:
    """Published problems: two coding (one on queues the candidate already solved), one debug,
    one design, and the problems a weak "batching" round could lead to."""

    def __init__(self, candidate: User) -> None:
        self.coding = _problem("batcher", topics=["batching", "queues"], title="A batcher")
        self.solved = _problem("solved-queue", topics=["queues"], title="B solved queue")
        _solve(candidate, self.solved)
        self.debug = _problem("fix-kv-cache", kind="debug", topics=["caching"], title="Fix cache")
        self.design = _problem("batch-api", kind="design", topics=["batching"],
                               title="Batch API design")
        self.next_two = _problem("continuous-batching", topics=["batching", "queues"],
                                 title="Continuous batching")
        self.next_one = _problem("rate-limiter", topics=["queues"], title="Rate limiter")
        self.solved_batching = _problem("solved-batching", topics=["batching"],
                                        title="Solved batching")
        _solve(candidate, self.solved_batching)
        self.elsewhere = _problem("tokenizer", topics=["strings"], title="Tokenizer")


def _three_rounds(candidate: User, bank: Bank) -> Loop:
    return practice.practice_book(candidate=candidate, title="ML infra mock", rounds=[
        RoundSpec("Coding", "implement", 45, 10, problem=bank.coding.slug),
        RoundSpec("ML debugging", "debug", 30, 10),  # picked: the one debug problem
        RoundSpec("System design", "design", 45, 0),  # picked: the one design problem
    ])


# ---------------------------------------------------------------- booking


def test_booking_keeps_chosen_problems_and_picks_the_others_by_kind() -> None:
    candidate = user_with_role("cand", "candidate")
    bank = Bank(candidate)
    loop = _three_rounds(candidate, bank)
    assert (loop.kind, loop.candidate, loop.title) == (Loop.Kind.PRACTICE, candidate,
                                                      "ML infra mock")
    rows = list(PracticeRound.objects.filter(loop=loop))
    assert [(r.position, r.label, r.problem.slug, r.picked, r.duration, r.break_after)
            for r in rows] == [
        (1, "Coding", "batcher", False, timedelta(minutes=45), timedelta(minutes=10)),
        (2, "ML debugging", "fix-kv-cache", True, timedelta(minutes=30), timedelta(minutes=10)),
        (3, "System design", "batch-api", True, timedelta(minutes=45), timedelta(0)),
    ]
    assert not LoopRound.objects.filter(loop=loop).exists()  # nothing starts at booking


def test_pick_for_me_prefers_an_unsolved_problem_of_the_topic_and_never_repeats_one() -> None:
    candidate = user_with_role("cand", "candidate")
    bank = Bank(candidate)
    # queues: batcher, continuous-batching, rate-limiter unsolved; solved-queue solved
    picked = practice.problem_pick(user=candidate, kind="implement", topic="QUEUES")
    assert picked is not None and picked.pk != bank.solved.pk
    loop = practice.practice_book(candidate=candidate, rounds=[
        RoundSpec("", "implement", 30, 0, topic="queues") for _ in range(4)])
    slugs = [r.problem.slug for r in PracticeRound.objects.filter(loop=loop)]
    assert len(set(slugs)) == 4 and slugs[-1] == bank.solved.slug  # the solved one comes last
    assert [r.label for r in PracticeRound.objects.filter(loop=loop)] == ["Implement"] * 4


@pytest.mark.parametrize(("rounds", "words"), [
    ([], "1 to 5 rounds"),
    ([RoundSpec("x", "implement", 30)] * 6, "1 to 5 rounds"),
    ([RoundSpec("x", "nope", 30)], "Round 1: choose what kind"),
    ([RoundSpec("x", "implement", 0)], "Round 1: the length"),
    ([RoundSpec("x", "implement", float("nan"))], "Round 1: the length"),
    ([RoundSpec("x", "implement", 30, 61)], "Round 1: the break"),
    ([RoundSpec("x", "implement", 30, problem="fix-kv-cache")],
     "is not a problem of kind “implement”"),
    ([RoundSpec("x", "implement", 30, problem="batcher"),
      RoundSpec("y", "implement", 30, problem="batcher")], "Round 2: A batcher is already"),
    ([RoundSpec("x", "implement", 30, problem="no-such")], "no published problem"),
    ([RoundSpec("x", "design", 30), RoundSpec("y", "design", 30)],
     "Round 2: no published problem of kind “design”"),
    ([RoundSpec("x" * 61, "implement", 30)], "at most 60 characters"),
])
def test_a_refused_booking_says_why_and_books_nothing(rounds: list[RoundSpec],
                                                      words: str) -> None:
    candidate = user_with_role("cand", "candidate")
    Bank(candidate)
    with pytest.raises(LoopError) as refused:
        practice.practice_book(candidate=candidate, rounds=rounds)
    assert words in refused.value.message
    assert not Loop.objects.exists()


def test_the_form_books_and_a_refused_form_keeps_what_was_typed() -> None:
    candidate = user_with_role("cand", "candidate")
    Bank(candidate)
    client = client_for(candidate)
    page = client.get("/loops/practice/").content.decode()
    assert 'value="Coding"' in page and 'value="ML debugging"' in page
    refused = client.post("/loops/practice/book", {
        "title": "KEPT-TITLE", "label-1": "KEPT-LABEL", "kind-1": "implement",
        "problem-1": "fix-kv-cache", "minutes-1": "45", "break-1": "5"})
    assert refused.status_code == 400
    html = refused.content.decode()
    assert "KEPT-TITLE" in html and "KEPT-LABEL" in html and "is not a problem of kind" in html
    booked = client.post("/loops/practice/book", {
        "label-1": "Coding", "kind-1": "implement", "minutes-1": "45", "break-1": "5",
        "label-2": "Design", "kind-2": "design", "minutes-2": "30", "break-2": "",
        "label-3": "skipped", "kind-3": "", "minutes-3": "30"})
    loop = Loop.objects.get()
    assert booked.status_code == 302 and booked["Location"] == f"/loops/practice/{loop.pk}/"
    assert loop.practice_rounds.count() == 2 and loop.title == practice.DEFAULT_TITLE


# ---------------------------------------------------------------- taking the rounds


def test_rounds_are_taken_in_order_each_one_click_from_the_end_of_the_last() -> None:
    candidate = user_with_role("cand", "candidate")
    bank = Bank(candidate)
    loop = _three_rounds(candidate, bank)
    with pytest.raises(LoopError, match="finish round 1 first"):
        practice.practice_round_start(loop_id=loop.pk, user=candidate, position=2)
    first = practice.practice_round_start(loop_id=loop.pk, user=candidate, position=1)
    assert (first.kind, first.status, first.candidate, first.problem) == (
        "solo", "active", candidate, bank.coding)
    assert first.duration == timedelta(minutes=45)
    # a second click on the same button: the same session, no second clock
    assert practice.practice_round_start(loop_id=loop.pk, user=candidate, position=1) == first
    with pytest.raises(LoopError, match="finish round 1 first"):
        practice.practice_round_start(loop_id=loop.pk, user=candidate, position=2)
    client = client_for(candidate)
    running = client.get(f"/sessions/{first.pk}/").content.decode()
    # the next round's button is on the round's page, hidden until the round is over
    start_2 = f"/loops/practice/{loop.pk}/rounds/2/start"
    assert f'id="next-step" class="next-step" method="post" action="{start_2}" hidden' in running
    _finish(first, verdict="WA", passed=3, total=5)
    over = client.get(f"/sessions/{first.pk}/").content.decode()
    assert f'id="next-step" class="next-step" method="post" action="{start_2}">' in over
    assert "Start round 2: ML debugging (a 10-minute break first, if you like)" in over
    # one click: the button's POST starts round 2 and opens its session
    clicked = client.post(start_2)
    second = LoopRound.objects.get(loop=loop, position=2).session
    assert clicked.status_code == 302 and clicked["Location"] == f"/sessions/{second.pk}/"
    assert (second.kind, second.status, second.problem) == ("solo", "active", bank.debug)
    _finish(second, verdict="AC", passed=4, total=4)
    third = practice.practice_round_start(loop_id=loop.pk, user=candidate, position=3)
    _finish(third, verdict=None)
    # after the last round: the loop's report
    step = hooks.next_step(third, candidate)
    assert step == hooks.NextStep(url=f"/loops/practice/{loop.pk}/",
                                      label="Your mock onsite report")
    assert [r.session.pk for r in LoopRound.objects.filter(loop=loop)] == [
        first.pk, second.pk, third.pk]
    assert [r.label for r in LoopRound.objects.filter(loop=loop)] == [
        "Coding", "ML debugging", "System design"]


def test_a_round_past_its_deadline_is_finished_before_the_next_starts() -> None:
    candidate = user_with_role("cand", "candidate")
    bank = Bank(candidate)
    loop = practice.practice_book(candidate=candidate, rounds=[
        RoundSpec("Design", "design", 30), RoundSpec("Coding", "implement", 30,
                                                     problem=bank.coding.slug)])
    first = practice.practice_round_start(loop_id=loop.pk, user=candidate, position=1)
    InterviewSession.objects.filter(pk=first.pk).update(
        deadline=timezone.now() - timedelta(seconds=1))
    second = practice.practice_round_start(loop_id=loop.pk, user=candidate, position=2)
    first.refresh_from_db()
    assert first.status == "finished" and first.finish_reason == "deadline"
    assert second.status == "active"


# ---------------------------------------------------------------- the report


def _taken(candidate: User, bank: Bank) -> tuple[Loop, list[InterviewSession]]:
    loop = _three_rounds(candidate, bank)
    sessions = []
    for position, (verdict, passed, total) in enumerate(
            [("WA", 3, 5), ("AC", 4, 4), (None, 0, 0)], start=1):
        session = practice.practice_round_start(loop_id=loop.pk, user=candidate,
                                                position=position)
        _finish(session, verdict=verdict, passed=passed, total=total, minutes=10 * position)
        if position == 2:
            SessionEvent.objects.create(session=session, kind="hint", actor=candidate,
                                        data={"number": 1}, at=timezone.now())
        sessions.append(session)
    return loop, sessions


def test_the_report_shows_each_rounds_final_submission_and_the_totals_from_them() -> None:
    candidate = user_with_role("cand", "candidate")
    bank = Bank(candidate)
    loop, sessions = _taken(candidate, bank)
    report = practice.practice_report(loop=loop, user=candidate)
    rows = report["rows"]
    assert [(r["state"], r["final"] and (r["final"]["verdict"], r["final"]["passed"],
                                         r["final"]["total"]), r["percent"], r["used_minutes"])
            for r in rows] == [("finished", ("WA", 3, 5), 60, 10),
                               ("finished", ("AC", 4, 4), 100, 20),
                               ("finished", None, None, 30)]
    overall = report["overall"]
    assert (overall["finished"], overall["rounds"], overall["scored"]) == (3, 3, 2)
    assert (overall["passed"], overall["total"], overall["percent"]) == (7, 9, round(700 / 9))
    assert overall["strongest"]["position"] == 2 and overall["weakest"]["position"] == 1
    assert overall["complete"] and report["next_round"] is None
    # 10 + 20 + 30 minutes used of 45 + 30 + 45 planned
    assert (overall["used_minutes"], overall["planned_minutes"]) == (60, 120)
    assert (overall["hints"], overall["questions"]) == (1, 0)
    html = client_for(candidate).get(f"/loops/practice/{loop.pk}/").content.decode()
    assert "Your mock onsite report" in html and "3 of 3 rounds done" in html
    assert ('<span class="verdict verdict-WA">WA</span> <span class="round-passed">3/5</span> '
            '<span class="round-percent">(60%)</span>') in html
    assert ('<span class="verdict verdict-AC">AC</span> '
            '<span class="round-passed">4/4</span>') in html
    assert "not scored (design)" in html
    assert "<strong>7 of 9</strong> (78%)" in html
    assert "Strongest round: 2, ML debugging (100%). Weakest: 1, Coding (60%)." in html
    assert ("Time over the 3 finished rounds: 60 of 120 minutes used · 1 hint opened · "
            "0 questions asked.") in html
    for session in sessions:
        assert f'href="/sessions/{session.pk}/report/"' in html


def test_the_next_problems_come_from_the_weakest_rounds_topics_never_solved_nor_taken() -> None:
    candidate = user_with_role("cand", "candidate")
    bank = Bank(candidate)
    loop, _sessions = _taken(candidate, bank)
    suggestion = practice.practice_report(loop=loop, user=candidate)["suggestion"]
    # round 1 (60%) is the weakest scored round; its problem is on batching and queues
    assert suggestion["status"] == "ok" and suggestion["weak"] == [1]
    assert suggestion["topics"] == ["batching", "queues"]
    # both topics first, then one, by title; never the loop's own problems (batcher,
    # batch-api) nor a solved one (solved-queue, solved-batching); nothing on strings
    assert [(s["problem"].slug, s["topics"]) for s in suggestion["problems"]] == [
        ("continuous-batching", ["batching", "queues"]), ("rate-limiter", ["queues"])]
    html = client_for(candidate).get(f"/loops/practice/{loop.pk}/").content.decode()
    assert html.count("data-suggested=") == 2
    assert '<p id="suggestion-weak">Your weakest round: 1, Coding. Topics:' in html
    assert 'data-suggested="continuous-batching"' in html
    assert escape(practice.SUGGESTION_RULE) in html


def test_ties_count_every_weakest_round_and_no_scored_round_is_not_enough_data() -> None:
    candidate = user_with_role("cand", "candidate")
    bank = Bank(candidate)
    loop = _three_rounds(candidate, bank)
    report = practice.practice_report(loop=loop, user=candidate)
    assert report["suggestion"]["status"] == "not_enough_data"
    assert report["next_round"]["position"] == 1
    html = client_for(candidate).get(f"/loops/practice/{loop.pk}/").content.decode()
    assert "<strong>Not enough data</strong>" in html and "Start round 1" in html
    rows = [{"position": 1, "label": "A", "scored": True, "score": 0.5, "problem": bank.coding},
            {"position": 2, "label": "B", "scored": True, "score": 0.5, "problem": bank.debug},
            {"position": 3, "label": "C", "scored": False, "score": None,
             "problem": bank.design}]
    tied = practice.suggestions(user=candidate, rows=rows, loop_problem_ids=set())
    assert tied["weak"] == [1, 2] and tied["topics"] == ["batching", "caching", "queues"]
    assert tied["named"] == ["1, A", "2, B"]
    perfect = [dict(r, score=1.0) for r in rows[:2]]
    assert practice.suggestions(user=candidate, rows=perfect,
                                loop_problem_ids=set())["status"] == "no_weak_round"
    untagged = [dict(rows[0], problem=_problem("no-topic"))]
    assert practice.suggestions(user=candidate, rows=untagged,
                                loop_problem_ids=set())["status"] == "not_enough_data"


# ---------------------------------------------------------------- who sees it


def test_only_its_owner_sees_the_report_or_takes_a_round() -> None:
    candidate = user_with_role("cand", "candidate")
    bank = Bank(candidate)
    loop, sessions = _taken(candidate, bank)
    fresh = _three_rounds(candidate, bank)
    url = f"/loops/practice/{loop.pk}/"
    for name, role, admin in (("other", "candidate", False), ("int", "interviewer", False),
                              ("rec", "recruiter", False), ("root", None, True)):
        someone = client_for(user_with_role(name, role, admin=admin))
        assert someone.get(url).status_code == 404
        assert someone.post(f"/loops/practice/{fresh.pk}/rounds/1/start").status_code == 404
        assert f'data-loop="{loop.pk}"' not in someone.get("/loops/practice/").content.decode()
        assert hooks.next_step(sessions[0], someone_user(name)) is None
    assert not LoopRound.objects.filter(loop=fresh).exists()
    anonymous = client_for(None).get(url)
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    assert client_for(candidate).get(url).status_code == 200
    own = client_for(candidate).get("/loops/practice/").content.decode()
    assert f'data-loop="{loop.pk}"' in own


def someone_user(name: str) -> User:
    return User.objects.get(username=name)


def test_the_history_page_leads_to_practice_an_onsite() -> None:
    candidate = user_with_role("cand", "candidate")
    html = client_for(candidate).get("/sessions/history/").content.decode()
    assert 'id="practice-onsite-link" href="/loops/practice/">Practice an onsite</a>' in html
