"""The one place that knows websocket group names and what each audience may receive.

Candidates join `submission.<id>`; interviewers, authors and admins join
`submission.<id>.staff`. Hidden tests reach the candidate's group only as a progress count,
because even which hidden test fails is a leak.
"""

from __future__ import annotations

from typing import Any

from core.realtime import send_event
from grading.judge import TestVerdict

EVENT_TYPE = "submission.event"  # the consumer method that forwards a payload


def submission_group(submission_id: int, *, staff: bool) -> str:
    return f"submission.{submission_id}" + (".staff" if staff else "")


def test_event(verdict: TestVerdict, *, staff: bool) -> dict[str, Any]:
    """What one audience sees of one finished test."""
    event: dict[str, Any] = {
        "type": "test",
        "index": verdict.index,
        "verdict": verdict.verdict,
        "time_ms": verdict.time_ms,
        "cpu_ms": verdict.cpu_ms,
        "hidden": verdict.hidden,
        "tag": verdict.tag,
    }
    if staff or not verdict.hidden:
        event |= {"name": verdict.name, "detail": dict(verdict.detail), "group": verdict.group}
    return event


def _send(group: str, payload: dict[str, Any]) -> None:
    send_event(group, payload, handler=EVENT_TYPE)


def broadcast(submission_id: int, payload: dict[str, Any]) -> None:
    """An event every audience may see (status, done). Best effort: see core.realtime."""
    for staff in (False, True):
        _send(submission_group(submission_id, staff=staff), payload)


def broadcast_test(submission_id: int, verdict: TestVerdict, *, done: int, total: int) -> None:
    _send(submission_group(submission_id, staff=True), test_event(verdict, staff=True))
    if verdict.hidden:
        progress = {"type": "progress", "done": done, "total": total}
        _send(submission_group(submission_id, staff=False), progress)
    else:
        _send(submission_group(submission_id, staff=False), test_event(verdict, staff=False))
