"""The one place that knows a session's websocket group names and message types.

Every participant's socket joins `session.<id>`; the interviewer's also joins
`session.<id>.interviewer`, which carries what the candidate must not see (a canned answer
suggested for a live question, the candidate leaving the tab).
"""

from __future__ import annotations

from typing import Any

from core.realtime import send_event

EVENT_TYPE = "session.event"  # consumer method: forward a JSON payload to the page
UPDATE_TYPE = "doc.update"  # a stored Yjs update, to each process's room channel
AWARENESS_TYPE = "doc.awareness"  # consumer method: forward an awareness update
QUERY_AWARENESS_TYPE = "doc.query_awareness"  # consumer method: ask the page for its awareness


def session_group(session_id: int) -> str:
    return f"session.{session_id}"


def doc_group(session_id: int) -> str:
    """One member per process with the session's document open (its room channel)."""
    return f"session.{session_id}.doc"


def interviewer_group(session_id: int) -> str:
    return f"session.{session_id}.interviewer"


def broadcast(session_id: int, payload: dict[str, Any]) -> None:
    """A JSON event for every participant of the session (from synchronous code)."""
    send_event(session_group(session_id), payload, handler=EVENT_TYPE)


def broadcast_interviewer(session_id: int, payload: dict[str, Any]) -> None:
    """A JSON event for the interviewer only."""
    send_event(interviewer_group(session_id), payload, handler=EVENT_TYPE)
