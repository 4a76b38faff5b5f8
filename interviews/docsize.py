"""How big a session's document may get, and how a big one still reaches every page.

Two bounds, both settings:

- `ONSITE_DOC_MAX_MESSAGE_BYTES`: one websocket message (below Daphne's own limit). The
  initial sync answers a page's step 1 with its missing state in as many frames as it takes,
  each under that limit (`sync_frames`), so whatever was accepted can always be loaded again.
- `ONSITE_DOC_MAX_BYTES` and `ONSITE_BOARD_MAX_ELEMENTS`: the document as stored. An update
  that would take the encoded document past the first, or the board's live elements past the
  second, is refused before it is stored (`overflow_refusal`): the sender gets a JSON frame
  `{"type": "refused", "reason": "board_full", "message": ...}` and the socket closes 4409.
  The page's own binding never writes past the bound (it checks first, frontend/js/board/
  binding.js), so the refusal only meets out-of-date or hostile clients.

The acceptance check is cheap for ordinary edits: the room keeps its live element ids and an
upper bound on its encoded size (collab.Room), and the update is tried on a copy of the
document only when it could cross a bound.
"""

from __future__ import annotations

from collections.abc import Iterable

import pycrdt
from django.conf import settings

from core.realtime import CLOSE_DOC_FULL, Refusal
from interviews import collab

# What a frame adds around its update: message type, sync type and the length (a varuint of at
# most 5 bytes for any length below 4 GiB), rounded up.
FRAME_OVERHEAD = 16
# Each new live element costs an update at least this many bytes (its key, an item header and
# an object): how far a small update could move the count, without decoding it.
MIN_ELEMENT_BYTES = 4
FULL_MESSAGE = ("The board is full: it holds at most {elements} elements ({megabytes} MB). "
                "This change was not saved; delete something to make room.")


def max_bytes() -> int:
    value: int = settings.ONSITE_DOC_MAX_BYTES
    return value


def max_elements() -> int:
    value: int = settings.ONSITE_BOARD_MAX_ELEMENTS
    return value


def page_limits() -> dict[str, int]:
    """The bounds the session page keeps to (data attributes of the board's container)."""
    return {"max_elements": max_elements(), "max_bytes": max_bytes(),
            "max_message_bytes": settings.ONSITE_DOC_MAX_MESSAGE_BYTES}


def full_message() -> str:
    return FULL_MESSAGE.format(elements=max_elements(),
                               megabytes=round(max_bytes() / (1024 * 1024), 1))


# ---------------------------------------------------------------- the initial sync


def state_vector_encode(clocks: dict[int, int]) -> bytes:
    out = bytearray(collab.var_uint(len(clocks)))
    for client, clock in clocks.items():
        out += collab.var_uint(client) + collab.var_uint(clock)
    return bytes(out)


def needs_log(room: collab.Room, *, limit: int) -> bool:
    """Whether the document may be too large for one message (then the answer to a step 1 is
    cut from the stored log). Measured only when its running upper bound says it might be."""
    if room.size_bound + FRAME_OVERHEAD <= limit:
        return False
    return room.size() + FRAME_OVERHEAD > limit


def sync_frames(room: collab.Room, state_vector: bytes, *, limit: int,
                log: Iterable[bytes] | None = None) -> list[bytes]:
    """The answer to a step 1: the frames that bring a peer at `state_vector` up to `room`.

    One step 2 when the document fits in one message (the usual case). Otherwise the
    stored updates (`log`, in order: each arrived in one message under the same limit) are
    grouped into `update` frames under the limit, each holding only what the peer misses, and
    a last, empty step 2 says "that was all": the page counts itself synced only then.
    """
    if log is None or not needs_log(room, limit=limit):
        # What the peer misses is never more than the whole document.
        return [collab.sync_step2_frame(room.diff(state_vector))]
    fresh = not collab.state_vector_parse(state_vector)  # a new page: it misses everything
    budget = limit - FRAME_OVERHEAD
    frames: list[bytes] = []
    group: list[bytes] = []
    size = 0

    def emit() -> None:
        if not group:
            return
        merged = pycrdt.merge_updates(*group) if len(group) > 1 else group[0]
        pieces = [merged] if len(merged) <= budget else list(group)
        for piece in pieces:
            part = piece if fresh else pycrdt.get_update(piece, state_vector)
            if part != collab.EMPTY_UPDATE:
                frames.append(collab.update_frame(part))

    for update in log:
        if group and size + len(update) > budget:
            emit()
            group, size = [], 0
        group.append(update)
        size += len(update)
    emit()
    frames.append(collab.sync_step2_frame(collab.EMPTY_UPDATE))
    return frames


# ---------------------------------------------------------------- the bound at acceptance


def would_overflow(room: collab.Room, update: bytes) -> bool:
    """Whether storing `update` would take the document past its byte or element bound.

    Only an update that grows the document past a bound is refused: one that deletes, or
    changes within the bounds, always goes in (so a full board can always be cleared).
    """
    limit_bytes, limit_elements = max_bytes(), max_elements()
    near_bytes = room.size_bound + 2 * len(update) + 64 > limit_bytes
    near_elements = len(room.live_ids()) + len(update) // MIN_ELEMENT_BYTES > limit_elements
    if not near_bytes and not near_elements:
        return False
    if near_bytes:
        near_bytes = room.size() + 2 * len(update) + 64 > limit_bytes
        if not near_bytes and not near_elements:
            return False
    before_bytes, before_elements = room.size(), len(room.live_ids())
    copy = collab.doc_from_updates([room.doc.get_update(), update])
    after_bytes = len(copy.get_update())
    after_elements = len(collab.board_live_ids(copy.get(collab.BOARD_NAME, type=pycrdt.Map)))
    if after_bytes > limit_bytes and after_bytes > before_bytes:
        return True
    return after_elements > limit_elements and after_elements > before_elements


def overflow_refusal(room: collab.Room, update: bytes) -> Refusal | None:
    """Why `update` may not be stored when it would overflow the document (close 4409)."""
    if not would_overflow(room, update):
        return None
    return Refusal(reason="board_full", message=full_message(), code=CLOSE_DOC_FULL)
