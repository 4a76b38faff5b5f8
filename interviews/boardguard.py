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

Cost: one extra apply per update, measured at about 3 microseconds for a keystroke's update
on a 2,000-character document (the room's own apply takes about 2), and a second copy of each
open room's document in memory. An update that touches the board pays for the schema check
of the entries it sets (bounded by the schema's own bounds).
"""

from __future__ import annotations

import json
import logging
import weakref
from typing import Any, Protocol

import pycrdt

from core.realtime import CLOSE_INVALID
from interviews import boardschema, collab

log = logging.getLogger(__name__)

REASON = "invalid_board"


class Shadow:
    """A room document's twin, for trying updates on. Holds no reference to the room's
    document (the registry below is keyed on it weakly)."""

    def __init__(self, doc: pycrdt.Doc[Any]) -> None:
        self.doc: pycrdt.Doc[Any] = pycrdt.Doc()
        self.board = self.doc.get(collab.BOARD_NAME, type=pycrdt.Map)
        self.doc.apply_update(doc.get_update())
        shadow = self.doc

        def forward(event: Any) -> None:  # the room's transaction, applied here too (once)
            shadow.apply_update(event.update)

        self.subscription = doc.observe(forward)

    def problem(self, update: bytes) -> str | None:
        """What is wrong with the board entries `update` would set, or None."""
        changes: dict[str, Any] = {}

        def seen(event: Any) -> None:
            for key, change in event.keys.items():
                if change.get("action") in ("add", "update"):
                    changes[key] = change.get("newValue")

        subscription = self.board.observe(seen)
        try:
            self.doc.apply_update(update)
        finally:
            self.board.unobserve(subscription)
        for key, value in changes.items():
            problem = boardschema.element_problem(value, key)
            if problem is not None:
                return problem
        return None


_shadows: weakref.WeakKeyDictionary[pycrdt.Doc[Any], Shadow] = weakref.WeakKeyDictionary()


def board_problem(room: collab.Room, update: bytes) -> str | None:
    """What is wrong with what `update` would store on the room's board, or None. A refused
    update leaves no trace: the room's shadow is rebuilt without it."""
    shadow = _shadows.get(room.doc)
    if shadow is None:
        shadow = _shadows[room.doc] = Shadow(room.doc)
    problem = shadow.problem(update)
    if problem is not None:
        room.doc.unobserve(shadow.subscription)
        _shadows[room.doc] = Shadow(room.doc)
    return problem


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
    problem = board_problem(consumer.room, update)
    if problem is None:
        return True
    log.warning("session %s: refused a board update from %s: %s", consumer.session_id,
                consumer.name, problem)
    await consumer.send(text_data=json.dumps(
        {"type": "refused", "reason": REASON, "message": problem}))
    consumer.closing = True
    await consumer.close(code=CLOSE_INVALID)
    return False
