"""A design session's board: its state at any moment, and the snapshot kept when it finishes.

The board (a Y.Map) and the notes pane (a Y.Text) live in the session's one document beside
the code (interviews/collab.py). When the session finishes, the call that finishes it stores
a `BoardSnapshot`: the final elements, the SVG drawn from them on the server
(interviews/board.py) and the notes' text. Storing it never stops a session from finishing:
a part that cannot be read is logged and left empty, and the report then says "diagram
unavailable".
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from interviews import collab
from interviews.board import board_elements, board_svg
from interviews.models import BoardSnapshot, InterviewSession
from interviews.services.documents import doc_updates

log = logging.getLogger(__name__)


def has_board(session: InterviewSession) -> bool:
    """Whether the session's round is drawn on the shared board (its problem's kind says)."""
    return session.content.kind_spec.has_board


def board_elements_at(session: InterviewSession, *, until: datetime | None = None,
                      ) -> list[dict[str, Any]]:
    """The board's live elements now, or as they were at `until` (replay, evidence)."""
    return collab.board_from_updates(data for _, data in doc_updates(session.pk, until=until))


def board_elements_at_ms(session: InterviewSession, ms: int) -> list[dict[str, Any]]:
    """The board `ms` milliseconds after the session started (a cited moment)."""
    start = session.started_at or session.created_at
    return board_elements_at(session, until=start + timedelta(milliseconds=ms))


def board_snapshot_store(*, session_id: int) -> BoardSnapshot | None:
    """Store (or store again: idempotent) the final board, its SVG and the notes of a design
    session; None for a coding session. Never raises for a board that cannot be read."""
    session = InterviewSession.objects.select_related("problem").get(pk=session_id)
    if not has_board(session):
        return None
    updates = [data for _, data in doc_updates(session_id)]
    errors: list[str] = []
    elements: list[dict[str, Any]] = []
    svg = notes = ""
    try:
        # What the picture draws (at most board.MAX_ELEMENTS, dicts only): the document
        # keeps the rest, this row need not hold a browser's unbounded list twice.
        elements = board_elements(collab.board_from_updates(updates))
        svg = board_svg(elements)
    except Exception:  # a document that does not decode, an element that does not draw
        log.exception("the board of session %s could not be drawn", session_id)
        errors.append("the board could not be read")
    try:
        notes = collab.notes_from_updates(updates)
    except Exception:
        log.exception("the notes of session %s could not be read", session_id)
        errors.append("the notes could not be read")
    snapshot, _ = BoardSnapshot.objects.update_or_create(
        session_id=session_id,
        defaults={"elements": elements, "svg": svg, "notes": notes,
                  "error": "; ".join(errors)[:200], "created_at": timezone.now()})
    return snapshot


def board_snapshot_store_safely(session: InterviewSession) -> None:
    """For the finishing call: store a design session's snapshot in a savepoint of its
    transaction, so that even a database error here rolls back only the snapshot, never the
    finish."""
    if not has_board(session):
        return
    try:
        with transaction.atomic():
            board_snapshot_store(session_id=session.pk)
    except Exception:
        log.exception("no board snapshot for session %s", session.pk)
