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
supplies the dependency (that update is refused, so it never lands anywhere). A rebuild starts
from the room's own update, which leaves waiting content out, so the shadow keeps the last
`MAX_WAITING` updates that started past what it had of their client and applies them again.
What this does not see (content waiting for another client's item across a rebuild, content
waiting in the stored log when a process starts) would land unchecked; readers skip what
fails the schema anyway (interviews/collab.py), which also covers boards stored before this
check.

Cost, in a design session: the update applied twice more (tried on the shadow, then forwarded
to it from the room, where it changes nothing) and a second copy of the room's document in
memory; measured roughly (a shared 2-core machine, min of 5 runs of 2,000 keystroke updates)
at 20 to 30 microseconds more per update, where the room's own apply took 20 to 90. An update
that touches the board also pays the schema check of the entries it sets (bounded by the
schema's bounds). A coding session keeps no shadow (see board_problem): its keystrokes pay a
byte search and a map length, under 10 microseconds.
"""

from __future__ import annotations

import logging
import weakref
from typing import Any

import pycrdt
from channels.db import database_sync_to_async

from core.realtime import CLOSE_INVALID, Refusal
from interviews import boardschema, collab

log = logging.getLogger(__name__)

REASON = "invalid_board"
MAX_WAITING = 256  # waiting updates a shadow keeps for a rebuild (the oldest go first)


class Shadow:
    """A room document's twin, for trying updates on. Holds no reference to the room's
    document (the registry below is keyed on it weakly). `follow`: kept equal to the room's
    document by forwarding each of its transactions (else a one-off copy)."""

    def __init__(self, doc: pycrdt.Doc[Any], *, follow: bool = True) -> None:
        self.doc: pycrdt.Doc[Any] = collab.doc_from_updates([doc.get_update()])
        self.board = self.doc.get(collab.BOARD_NAME, type=pycrdt.Map)
        self.changes: dict[str, Any] | None = None  # collecting while an update is tried
        # Updates tried here whose content waits for a dependency: a document's own update
        # (what a rebuild starts from) leaves waiting content out, so a rebuild applies these
        # again, and the content is still judged when it lands.
        self.waiting: list[bytes] = []
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
        waits = _waits(self.doc, update)
        self.changes = {}
        try:
            self.doc.apply_update(update)
            changes = self.changes
        finally:
            self.changes = None
        if waits:
            self.waiting = [*self.waiting[-(MAX_WAITING - 1):], update]
        for key, value in changes.items():
            problem = boardschema.element_problem(value, key)
            if problem is not None:
                return problem
        return None


def _waits(doc: pycrdt.Doc[Any], update: bytes) -> bool:
    """Whether `update` starts past what `doc` has of its first client (so it waits for the
    clocks between). The header says so without decoding the structs: a count of clients,
    then the first one's count of structs, id and first clock. (Content that waits for
    another client's item is not seen here: see the module's note.)"""
    try:
        reader = collab.Reader(update)
        if reader.var_uint() == 0:
            return False
        reader.var_uint()
        client, clock = reader.var_uint(), reader.var_uint()
    except collab.MalformedMessage:
        return False
    return clock > collab.state_vector_parse(doc.get_state()).get(client, 0)


def _rebuilt(room: collab.Room, old: Shadow) -> Shadow:
    """A fresh shadow of the room, with the waiting updates the old one had tried."""
    room.doc.unobserve(old.subscription)
    shadow = Shadow(room.doc)
    for update in old.waiting:
        shadow.doc.apply_update(update)
    shadow.waiting = list(old.waiting)
    return shadow


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
        if b"board" not in update and not len(room.board):
            return None
        return Shadow(room.doc, follow=False).problem(update)
    shadow = _shadows.get(room.doc)
    if shadow is None:
        shadow = _shadows[room.doc] = Shadow(room.doc)
    problem = shadow.problem(update)
    if problem is not None:
        shadow.waiting = [u for u in shadow.waiting if u is not update]
        _shadows[room.doc] = _rebuilt(room, shadow)
    return problem


def _has_board(session_id: int) -> bool:
    from interviews.models import InterviewSession  # Django only where the consumer runs
    from problems.kinds import names_where

    return InterviewSession.objects.filter(
        pk=session_id, problem__kind__in=names_where(has_board=True)).exists()


async def board_refusal(room: collab.Room, session_id: int, update: bytes) -> Refusal | None:
    """Why `update` may not be stored when it would put an element on the board that the
    board cannot hold (close 4422); None when it may."""
    design = _design.get(room.doc)
    if design is None:  # once per room and process: a session's kind never changes
        design = _design[room.doc] = await database_sync_to_async(_has_board)(session_id)
    problem = board_problem(room, update, design=design)
    if problem is None:
        return None
    return Refusal(reason=REASON, message=problem, code=CLOSE_INVALID)
