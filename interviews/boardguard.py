"""The server's check of what an update does to the board, before it is stored (issue 34).

An update is bytes; what it does to the board (the Y.Map "board", element id -> element)
depends on the document it lands in: an entry that overwrites another names its parent only
through the item it replaces, and content waiting for a missing dependency lands when that
dependency comes. So the update is applied first to a *shadow*: a second pycrdt document of
the room, kept equal to the room's own by forwarding each of its transactions (about a
microsecond for a keystroke's update). Every board entry the update adds or changes is checked
against the schema (interviews/boardschema.py); one that fails refuses the whole update: it
is never stored, applied, broadcast or acknowledged, the sender gets a `refused` frame
(reason `invalid_board`, the schema's sentence as the message) and the close code
CLOSE_INVALID, and the shadow is rebuilt from the room's document.

Content that waits for a dependency is checked when it lands, as part of the update that
supplies the dependency (that update is refused, so it never lands anywhere). Readers skip
what fails the schema anyway (interviews/collab.py), which covers boards stored before this
check.

Cost, in a design session: the update applied twice more (tried on the shadow, then forwarded
to it from the room, where it changes nothing) and a second copy of the room's document in
memory; measured roughly (a shared 2-core machine, min of 5 runs of 2,000 keystroke updates)
at about 20 microseconds more per update, where the room's own apply took 60 to 90. An update
that touches the board also pays the schema check of the entries it sets (bounded by the
schema's bounds). A coding session keeps no shadow (see board_problem): its keystrokes pay a
byte search and a map length, under 10 microseconds.
"""

from __future__ import annotations

import json
import logging
import weakref
from typing import Any, Protocol

import pycrdt
from channels.db import database_sync_to_async

from core.realtime import CLOSE_INVALID
from interviews import boardschema, collab

log = logging.getLogger(__name__)

REASON = "invalid_board"


class Shadow:
    """A room document's twin, for trying updates on. Holds no reference to the room's
    document (the registry below is keyed on it weakly). `follow`: kept equal to the room's
    document by forwarding each of its transactions (else a one-off copy)."""

    def __init__(self, doc: pycrdt.Doc[Any], *, follow: bool = True) -> None:
        self.doc: pycrdt.Doc[Any] = pycrdt.Doc()
        self.board = self.doc.get(collab.BOARD_NAME, type=pycrdt.Map)
        self.doc.apply_update(doc.get_update())
        self.changes: dict[str, Any] | None = None  # collecting while an update is tried
        # One observer for good (subscribing per update costs more than the apply itself).
        self.board.observe(self._seen)
        self.subscription: Any = None
        if follow:
            shadow = self.doc

            def forward(event: Any) -> None:  # the room's transaction, applied here too
                shadow.apply_update(event.update)

            self.subscription = doc.observe(forward)

    def _seen(self, event: Any) -> None:
        if self.changes is None:
            return
        for key, change in event.keys.items():
            if change.get("action") in ("add", "update"):
                self.changes[key] = change.get("newValue")

    def problem(self, update: bytes) -> str | None:
        """What is wrong with the board entries `update` would set, or None."""
        self.changes = {}
        try:
            self.doc.apply_update(update)
            changes = self.changes
        finally:
            self.changes = None
        for key, value in changes.items():
            problem = boardschema.element_problem(value, key)
            if problem is not None:
                return problem
        return None


_shadows: weakref.WeakKeyDictionary[pycrdt.Doc[Any], Shadow] = weakref.WeakKeyDictionary()
_design: weakref.WeakKeyDictionary[pycrdt.Doc[Any], bool] = weakref.WeakKeyDictionary()


def board_problem(room: collab.Room, update: bytes, *, design: bool = True) -> str | None:
    """What is wrong with what `update` would store on the room's board, or None. A refused
    update leaves no trace: the room's shadow is rebuilt without it.

    A coding session's board is drawn by nobody and written by no page of ours, so its room
    keeps no shadow (its keystrokes pay nothing but a byte search): an update is tried on a
    one-off copy only when it names the board (a first entry names its map) or the board
    already has entries (an overwrite names only the entry it replaces)."""
    if not design:
        if b"board" not in update and not len(room.doc.get(collab.BOARD_NAME, type=pycrdt.Map)):
            return None
        return Shadow(room.doc, follow=False).problem(update)
    shadow = _shadows.get(room.doc)
    if shadow is None:
        shadow = _shadows[room.doc] = Shadow(room.doc)
    problem = shadow.problem(update)
    if problem is not None:
        room.doc.unobserve(shadow.subscription)
        _shadows[room.doc] = Shadow(room.doc)
    return problem


def _is_design(session_id: int) -> bool:
    from interviews.models import InterviewSession  # Django only where the consumer runs
    from problems.models import DESIGN

    return InterviewSession.objects.filter(pk=session_id, problem__kind=DESIGN).exists()


class Sender(Protocol):
    """What admit needs of the consumer (interviews/consumers.py SessionDocConsumer)."""

    session_id: int
    name: str
    room: collab.Room
    closing: bool

    async def send(self, text_data: str | None = None, bytes_data: bytes | None = None,
                   close: bool = False) -> None: ...

    async def close(self, code: int | None = None, reason: str | None = None) -> None: ...


async def admit(consumer: Sender, update: bytes) -> bool:
    """True when `update` may be stored; else the sender is told why and its socket closed
    with CLOSE_INVALID (the update goes nowhere)."""
    doc = consumer.room.doc
    design = _design.get(doc)
    if design is None:  # once per room and process: a session's kind never changes
        design = _design[doc] = await database_sync_to_async(_is_design)(consumer.session_id)
    problem = board_problem(consumer.room, update, design=design)
    if problem is None:
        return True
    log.warning("session %s: refused a board update from %s: %s", consumer.session_id,
                consumer.name, problem)
    await consumer.send(text_data=json.dumps(
        {"type": "refused", "reason": REASON, "message": problem}))
    consumer.closing = True
    await consumer.close(code=CLOSE_INVALID)
    return False
