"""Copied code stored and compared incrementally (issue 41.1, 41.2): every Submit gets a
background fingerprinting job; a new one is scored against the problem's stored prints through
the inverted index, a person's own earlier code never counts, and the earlier side of a copy
is flagged too."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from grading import copies, jobs, similarity
from grading.lanes import Lane
from grading.models import CodePrint, CodePrintHash, Submission
from grading.services import submission_create
from interviews.models import InterviewSession
from tests.factories import client_for, tiny_problem, user_with_role
from tests.interviews.worlds import build_world

pytestmark = pytest.mark.django_db

SOLUTION = '''
def solve(x):
    """Count up to x the long way, with a table of squares on the side."""
    total = 0
    squares = []
    for i in range(x):
        squares.append(i * i)
        if i % 2 == 0:
            total += i
        else:
            total -= 1
    while total < 0:
        total += len(squares)
    best = max(squares, default=0)
    return total + best - best + 1
'''

COPY = """
def solve(n):
    # mine, honest
    acc = 0
    sq = []
    for k in range(n):
        sq.append(k * k)
        if k % 2 == 0:
            acc += k
        else:
            acc -= 1
    while acc < 0:
        acc += len(sq)
    top = max(sq, default=0)
    return acc + top - top + 1
"""

OTHER = """
def solve(x):
    seen = {}
    for value in sorted(set(range(x))):
        seen[value] = seen.get(value - 1, 0) + 1
    return x + 1 if seen or not seen else 0
"""


def _submit(username: str, code: str, *, mode: str = "submit") -> Submission:
    user = user_with_role(username, "candidate")
    return submission_create(user=user, problem_slug="add-one", code=code, mode=mode)


def _computed(submission: Submission) -> CodePrint:
    codeprint = CodePrint.objects.get(submission=submission)
    assert copies.codeprint_compute(codeprint_id=codeprint.pk) is jobs.Outcome.DONE
    codeprint.refresh_from_db()
    return codeprint


def test_the_flag_threshold_default_is_the_measured_one() -> None:
    assert settings.ONSITE_SIMILARITY_THRESHOLD == similarity.DEFAULT_THRESHOLD


def test_a_submit_gets_a_background_fingerprint_job_and_a_run_does_not() -> None:
    tiny_problem()

    submitted = _submit("ann", SOLUTION)
    ran = _submit("bob", SOLUTION, mode="run")

    codeprint = CodePrint.objects.get(submission=submitted)
    assert codeprint.status == CodePrint.Status.QUEUED
    assert copies.CODEPRINT_JOBS.lane(codeprint) is Lane.BACKGROUND
    assert copies.CODEPRINT_JOBS.queue(codeprint) == "cpu.background"
    assert not CodePrint.objects.filter(submission=ran).exists()


def test_a_copy_is_matched_both_ways_and_an_independent_solution_is_not() -> None:
    # Given an original, another person's disguised copy of it, and a third person's own code
    tiny_problem()
    original = _computed(_submit("ann", SOLUTION))
    copy = _computed(_submit("bob", COPY))
    independent = _computed(_submit("cat", OTHER))

    # Then the copy names the original, the original names the copy, the third names neither
    assert copy.match_id == original.submission_id
    assert copy.match_score >= copies.threshold()
    original.refresh_from_db()
    assert original.match_id == copy.submission_id
    assert original.match_score >= copies.threshold()
    assert independent.match_score < copies.threshold()
    # and the regions are there to show side by side
    pair = copies.side_by_side(copy)
    assert pair is not None and pair.own_regions and pair.other_regions
    assert "sq.append(k * k)" in COPY[pair.own_regions[0].start : pair.own_regions[-1].end]


def test_a_persons_own_earlier_submit_is_never_a_match() -> None:
    tiny_problem()
    first = _submit("ann", SOLUTION)
    _computed(first)
    again = Submission.objects.create(
        user=first.user, problem=first.problem, version=first.version, mode="submit", code=COPY
    )
    CodePrint.objects.create(submission=again, problem=first.problem)

    assert _computed(again).match is None


def test_the_comparison_reads_the_index_not_every_stored_print() -> None:
    # Given many stored prints of the problem
    tiny_problem()
    stored = [_computed(_submit(f"u{i}", OTHER + f"\nLIMIT_{i} = {i}\n")) for i in range(12)]
    assert CodePrintHash.objects.filter(codeprint__in=stored).exists()
    new = CodePrint.objects.get(submission=_submit("late", SOLUTION))

    # When the new one is computed
    with CaptureQueriesContext(connection) as queries:
        copies.codeprint_compute(codeprint_id=new.pk)
    own = len(copies.fingerprint_of(new.submission).hashes)

    # Then the number of queries does not grow with the stored prints (one bounded lookup per
    # own fingerprint, at most CANDIDATES scored exactly)
    assert len(queries.captured_queries) <= own + 12 + 2 * copies.CANDIDATES


def test_stored_hashes_round_trip() -> None:
    values = {3, -1, 2**62, -(2**63)}
    assert copies.unpack(copies.pack(values)) == frozenset(values)


def _flagged_world(*, their_interviewer: str, score: float = 0.9) -> Any:
    """A finished session whose final submission matches another candidate's, in a session
    run by `their_interviewer` ("assigned": the same interviewer, "unassigned": another)."""
    world = build_world()
    world.final.code = SOLUTION  # the world's own is the reference: nothing of it would count
    world.final.save()
    theirs = Submission.objects.create(
        user=world.other,
        problem=world.session.problem,
        version=world.final.version,
        mode="submit",
        code=COPY,
        status="done",
    )
    InterviewSession.objects.create(
        problem=world.session.problem,
        candidate=world.other,
        interviewer=getattr(world, their_interviewer),
        kind="live",
        status="finished",
        duration=world.session.duration,
        started_at=world.session.started_at,
        deadline=world.session.deadline,
        finished_at=world.session.finished_at,
        finish_reason="candidate",
        final_submission=theirs,
    )
    CodePrint.objects.create(
        submission=world.final,
        problem=world.session.problem,
        status=CodePrint.Status.DONE,
        match=theirs,
        match_score=score,
    )
    return world


def test_the_other_candidate_is_named_only_to_staff_who_may_see_both_sessions() -> None:
    # Given a flagged final submission; the other session is run by another interviewer
    world = _flagged_world(their_interviewer="unassigned")

    # Then the candidate sees nothing of it, anywhere
    assert copies.copied_code_view(submission=world.final, user=world.owner) is None
    assert copies.copied_code_view(submission=world.final, user=world.other) is None
    # the session's interviewer sees the flag, not who or what it matched
    seen = copies.copied_code_view(submission=world.final, user=world.assigned)
    assert seen is not None and seen["percent"] == 90
    assert not seen["other_named"] and seen["other_name"] == "" and seen["other_lines"] == []
    assert any(line["hit"] for line in seen["own_lines"])
    # an admin (who may see both sessions) sees the other candidate and their code
    full = copies.copied_code_view(submission=world.final, user=world.admin)
    assert full is not None and full["other_named"] and full["other_name"] == "other"
    assert any(line["hit"] for line in full["other_lines"])
    # and the review page says so without naming them
    page = client_for(world.assigned).get(f"/sessions/{world.session.pk}/review/")
    assert page.status_code == 200
    assert b"Similar code: 90%" in page.content
    assert b"are in another candidate's submission" in page.content


def test_the_same_interviewer_of_both_sessions_sees_both_sides() -> None:
    world = _flagged_world(their_interviewer="assigned")

    seen = copies.copied_code_view(submission=world.final, user=world.assigned)

    assert seen is not None and seen["other_named"] and seen["other_name"] == "other"


def test_below_the_threshold_there_is_no_flag_and_a_flag_never_changes_a_score() -> None:
    world = _flagged_world(their_interviewer="assigned", score=copies.threshold() - 0.01)
    before = Submission.objects.values("verdict", "score", "passed").get(pk=world.final.pk)

    assert copies.copied_code_view(submission=world.final, user=world.admin) is None
    page = client_for(world.admin).get(f"/sessions/{world.session.pk}/review/")
    assert b"Similar code" not in page.content
    assert Submission.objects.values("verdict", "score", "passed").get(pk=world.final.pk) == before
