"""The one place that knows websocket group names and what each audience may receive.

Candidates join `submission.<id>`; interviewers, authors and admins join
`submission.<id>.staff` (who joins which is the policy's: `selectors.submission_access`). What
each group sees of a test is `visible.graded_test_view`'s: hidden tests reach the candidate's
group only as a progress count, because even which hidden test fails is a leak.
"""

from __future__ import annotations

from typing import Any

from core.realtime import send_event
from grading import visible
from grading.judge import TestVerdict

EVENT_TYPE = "submission.event"  # the consumer method that forwards a payload


def submission_group(submission_id: int, *, staff: bool) -> str:
    return f"submission.{submission_id}" + (".staff" if staff else "")


def test_event(test: visible.GradedTest, *, staff: bool) -> dict[str, Any] | None:
    """What one group's audience sees of one finished test (`visible.graded_test_view`), as
    an event; None when it sees nothing of it."""
    view = visible.graded_test_view(test, audience=visible.STAFF if staff
                                    else visible.CANDIDATE)
    return None if view is None else {"type": "test", **view}


def _send(group: str, payload: dict[str, Any]) -> None:
    send_event(group, payload, handler=EVENT_TYPE)


def broadcast(submission_id: int, payload: dict[str, Any]) -> None:
    """An event every audience may see (status, done). Best effort: see core.realtime."""
    for staff in (False, True):
        _send(submission_group(submission_id, staff=staff), payload)


def broadcast_test(submission_id: int, verdict: TestVerdict, *, done: int, total: int) -> None:
    for staff in (True, False):
        event = test_event(verdict, staff=staff)
        # A test the audience sees nothing of reaches it as a count only.
        _send(submission_group(submission_id, staff=staff),
              event or {"type": "progress", "done": done, "total": total})
