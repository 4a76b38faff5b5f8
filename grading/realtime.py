"""The one place that knows websocket group names, and which group gets which frame.

Candidates join `submission.<id>`; interviewers, authors and admins join
`submission.<id>.staff` (who joins which is the policy's: `selectors.submission_access`). The
frames themselves are grading.events' (the replay builds the same ones): what each group sees
of a test is `visible.graded_test_view`'s, and a hidden test reaches the candidate's group only
as a progress count, because even which hidden test fails is a leak.
"""

from __future__ import annotations

from typing import Any

from core.realtime import send_event
from grading import events
from grading.judge import TestVerdict

EVENT_TYPE = "submission.event"  # the consumer method that forwards a payload


def submission_group(submission_id: int, *, staff: bool) -> str:
    return f"submission.{submission_id}" + (".staff" if staff else "")


def _send(group: str, payload: dict[str, Any]) -> None:
    send_event(group, payload, handler=EVENT_TYPE)


def broadcast(submission_id: int, payload: dict[str, Any]) -> None:
    """An event every audience may see (status, done). Best effort: see core.realtime."""
    for staff in (False, True):
        _send(submission_group(submission_id, staff=staff), payload)


def broadcast_test(submission_id: int, verdict: TestVerdict, *, done: int, total: int) -> None:
    for staff in (True, False):
        # A test the audience sees nothing of reaches it as a count only.
        _send(submission_group(submission_id, staff=staff),
              events.finished_test_event(verdict, staff=staff, done=done, total=total))
