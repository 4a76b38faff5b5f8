"""Every frame a submission's socket sends, built in one place for the live path and the replay.

The live path (grading.services, as a worker grades: `status`, `test` or `progress`, `done`)
hands these to grading.realtime, which knows the groups; the replay (`submission_replay`,
what a page that joins late or reconnects reads first) builds the same frames from what is
stored. What each audience sees of a test is `visible.graded_test_view`'s: a hidden test
reaches the candidate's group only as a progress count, because even which hidden test fails
is a leak.

    status    {"type": "status", "status", "message", "queue"?}   every audience
    test      {"type": "test", **visible.graded_test_view}         the audience that sees it
    progress  {"type": "progress", "done", "total"}                for a test it does not see
    done      {"type": "done", **verdict_summary}                  every audience
"""

from __future__ import annotations

from typing import Any

from grading import queueing, visible
from grading.judge import rules_line, verdict_text
from grading.models import Submission

FINISHED = (Submission.Status.DONE, Submission.Status.FAILED)


def verdict_summary(submission: Submission) -> dict[str, Any]:
    """What every audience may know of a graded submission: verdict, counts, per tag/group."""
    return {
        "verdict": submission.verdict,
        "passed": submission.passed,
        "total": submission.total,
        "score": submission.score,
        "by_tag": submission.by_tag,
        "by_group": submission.by_group,
        "worst_by_tag": submission.worst_by_tag,
        "worst_by_group": submission.worst_by_group,
        "by_rule": submission.by_rule,
        "group_rules": submission.group_rules,
        "rules_line": rules_line(submission.by_rule or {}),
        # Every sentence of the verdict line, from the stored tests (grading.judge).
        "verdict_text": verdict_text(list(submission.results.all()), submission.verdict),
    }


def status_event(submission: Submission) -> dict[str, Any]:
    """The submission's state; while it waits, where it stands in its lane (grading.queueing)."""
    event: dict[str, Any] = {
        "type": "status",
        "status": submission.status,
        "message": submission.message,
    }
    position = queueing.queue_position(submission)
    if position is not None:
        event["queue"] = position.as_event()
    return event


def done_event(submission: Submission) -> dict[str, Any]:
    return {"type": "done", **verdict_summary(submission)}


def progress_event(*, done: int, total: int) -> dict[str, Any]:
    """How many tests are finished, for an audience that sees nothing of some of them."""
    return {"type": "progress", "done": done, "total": total}


def graded_test_event(test: visible.GradedTest, *, staff: bool) -> dict[str, Any] | None:
    """What one group's audience sees of one finished test (`visible.graded_test_view`), as
    an event; None when it sees nothing of it."""
    view = visible.graded_test_view(test, audience=visible.STAFF if staff
                                    else visible.CANDIDATE)
    return None if view is None else {"type": "test", **view}


def finished_test_event(
    test: visible.GradedTest, *, staff: bool, done: int, total: int
) -> dict[str, Any]:
    """The live frame for one finished test: the test, or only a count for an audience that
    sees nothing of it."""
    return graded_test_event(test, staff=staff) or progress_event(done=done, total=total)


def settled_events(submission: Submission) -> list[dict[str, Any]]:
    """What every audience is told of the stored state: status, and done once finished."""
    events = [status_event(submission)]
    if submission.status in FINISHED:
        events.append(done_event(submission))
    return events


def submission_replay(*, submission_id: int, staff: bool) -> list[dict[str, Any]]:
    """The events a late joiner needs to catch up: status, finished tests, and done."""
    submission = Submission.objects.get(pk=submission_id)
    status, *done = settled_events(submission)
    events = [status]
    results = list(submission.results.order_by("index"))
    hidden_done = 0
    for result in results:
        event = graded_test_event(result, staff=staff)
        if event is None:
            hidden_done += 1
            continue
        events.append(event)
    if hidden_done:
        total = len(submission.version.tests_for(submission.mode))
        events.append(progress_event(done=len(results), total=total))
    return events + done
