"""The shared document of a session: stored Yjs updates and the code they spell."""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from interviews import collab
from interviews.models import (
    DocUpdate,
    InterviewSession,
)

log = logging.getLogger(__name__)
Status = InterviewSession.Status


# ---------------------------------------------------------------- the document


def doc_update_store(*, session_id: int, author_id: int | None, data: bytes) -> int | None:
    """Store one update if the session still takes edits; its sequence number, or None."""
    return doc_updates_store([(session_id, author_id, data)])[0]


def doc_updates_store(items: list[tuple[int, int | None, bytes]]) -> list[int | None]:
    """Store a batch of (session id, author id, update) in one transaction (group commit).

    Each item gets its sequence number, or None when its session no longer takes edits. The
    session rows are locked while checking, so an edit and the finishing of its session are
    ordered: either the edit is stored first and is part of the final code, or it is refused.
    One transaction for many edits is what lets a durable store keep up with many editors:
    the commit (an fsync) is paid once per batch, not once per keystroke.
    """
    now = timezone.now()
    with transaction.atomic():
        open_ids = set(
            InterviewSession.objects.select_for_update()
            .filter(pk__in={sid for sid, _, _ in items}, status=Status.ACTIVE, deadline__gt=now)
            .values_list("pk", flat=True)
        )
        rows = [
            DocUpdate(session_id=sid, author_id=author, created_at=now, data=data)
            for sid, author, data in items
            if sid in open_ids
        ]
        DocUpdate.objects.bulk_create(rows)  # sets pk on SQLite and PostgreSQL
    stored = iter(rows)
    return [next(stored).pk if sid in open_ids else None for sid, _, _ in items]


def session_status(session_id: int) -> str:
    """The session's status as the clock has it (see InterviewSession.status_now)."""
    return InterviewSession.objects.get(pk=session_id).status_now()


def doc_updates(session_id: int, *, until: datetime | None = None) -> list[tuple[int, bytes]]:
    """The stored updates of a session, in order, as (sequence number, bytes)."""
    rows = DocUpdate.objects.filter(session_id=session_id)
    if until is not None:
        rows = rows.filter(created_at__lte=until)
    return [(pk, bytes(data)) for pk, data in rows.order_by("id").values_list("id", "data")]


def session_code(session_id: int, *, at: datetime | None = None) -> str:
    """The document's text now, or as it was at `at` (replay)."""
    return collab.text_from_updates(data for _, data in doc_updates(session_id, until=at))
