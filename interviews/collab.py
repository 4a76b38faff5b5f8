"""The collaborative document, Django-free: the y-sync wire protocol and pycrdt documents.

Wire format (the y-websocket protocol, binary frames, lib0 encoding):

    [0 sync][0 step1][varbytes state vector]    "here is what I have"
    [0 sync][1 step2][varbytes update]          "here is what you miss"
    [0 sync][2 update][varbytes update]         one edit
    [1 awareness][varbytes awareness update]    cursors, selections, names
    [3 query awareness]                         "send me your awareness state"

Every frame is parsed strictly: a frame that does not decode exactly, or whose update does not
decode, is `MalformedMessage`, and the caller closes the socket before anything is stored.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pycrdt

from interviews import boardschema

log = logging.getLogger(__name__)

TEXT_NAME = "code"  # the shared Y.Text the editors bind to (the JS side uses the same name)
# A design session's board and notes live in the same document, beside the code:
BOARD_NAME = "board"  # Y.Map: Excalidraw element id -> the element (a JSON object)
NOTES_NAME = "notes"  # Y.Text: the candidate's notes pane (estimates) beside the board
EMPTY_UPDATE = b"\x00\x00"  # no structs, no deletions

MSG_SYNC = 0
MSG_AWARENESS = 1
MSG_QUERY_AWARENESS = 3
SYNC_STEP1 = 0
SYNC_STEP2 = 1
SYNC_UPDATE = 2

AWARENESS_MAX_CLIENTS = 16
AWARENESS_STATE_MAX_BYTES = 8192


class MalformedMessage(ValueError):
    """A frame that is not a well-formed message of the protocol."""


# ---------------------------------------------------------------- lib0 encoding


class Reader:
    """A bounds-checked lib0 decoder: running off the end is MalformedMessage, not IndexError."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def var_uint(self) -> int:
        value = 0
        shift = 0
        while True:
            if self.pos >= len(self.data):
                raise MalformedMessage("truncated integer")
            byte = self.data[self.pos]
            self.pos += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7
            if shift > 63:
                raise MalformedMessage("integer too long")

    def var_bytes(self) -> bytes:
        length = self.var_uint()
        end = self.pos + length
        if end > len(self.data):
            raise MalformedMessage("truncated byte array")
        chunk = self.data[self.pos:end]
        self.pos = end
        return chunk

    def var_string(self) -> str:
        try:
            return self.var_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedMessage("string is not UTF-8") from exc

    def done(self) -> bool:
        return self.pos == len(self.data)

    def expect_end(self) -> None:
        if not self.done():
            raise MalformedMessage("trailing bytes after the message")


def var_uint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    out.append(value)
    return bytes(out)


def var_bytes(data: bytes) -> bytes:
    return var_uint(len(data)) + data


# ---------------------------------------------------------------- messages


# The most of one update's inserted text a room keeps for the paste comparison.
PASTE_TEXT_MAX_CHARS = 64 * 1024

@dataclass(frozen=True)
class Message:
    """One parsed frame. `kind` is step1, step2, update, awareness or query_awareness."""

    kind: str
    payload: bytes = b""


def parse_message(frame: bytes) -> Message:
    """Parse one client frame strictly (see the module docstring for the format)."""
    reader = Reader(frame)
    msg_type = reader.var_uint()
    if msg_type == MSG_SYNC:
        sync_type = reader.var_uint()
        payload = reader.var_bytes()
        reader.expect_end()
        if sync_type == SYNC_STEP1:
            state_vector_validate(payload)
            return Message("step1", payload)
        if sync_type in (SYNC_STEP2, SYNC_UPDATE):
            update_validate(payload)
            return Message("step2" if sync_type == SYNC_STEP2 else "update", payload)
        raise MalformedMessage(f"unknown sync message type {sync_type}")
    if msg_type == MSG_AWARENESS:
        payload = reader.var_bytes()
        reader.expect_end()
        awareness_decode(payload)  # validates
        return Message("awareness", payload)
    if msg_type == MSG_QUERY_AWARENESS:
        reader.expect_end()
        return Message("query_awareness")
    raise MalformedMessage(f"unknown message type {msg_type}")


def sync_step1_frame(state_vector: bytes) -> bytes:
    return bytes([MSG_SYNC, SYNC_STEP1]) + var_bytes(state_vector)


def sync_step2_frame(update: bytes) -> bytes:
    return bytes([MSG_SYNC, SYNC_STEP2]) + var_bytes(update)


def update_frame(update: bytes) -> bytes:
    return bytes([MSG_SYNC, SYNC_UPDATE]) + var_bytes(update)


def awareness_frame(awareness_update: bytes) -> bytes:
    return bytes([MSG_AWARENESS]) + var_bytes(awareness_update)


def query_awareness_frame() -> bytes:
    return bytes([MSG_QUERY_AWARENESS])


# ---------------------------------------------------------------- validation


def state_vector_parse(state_vector: bytes) -> dict[int, int]:
    """A state vector as {client id: clock}."""
    reader = Reader(state_vector)
    count = reader.var_uint()
    if count > len(state_vector):  # each entry takes at least two bytes: a cheap sanity bound
        raise MalformedMessage("state vector count exceeds its size")
    clocks = {reader.var_uint(): reader.var_uint() for _ in range(count)}
    reader.expect_end()
    return clocks


def state_vector_validate(state_vector: bytes) -> None:
    state_vector_parse(state_vector)


def update_validate(update: bytes) -> None:
    """Decode the update fully into a throwaway document: what fails here would fail later.

    An update whose dependencies are missing decodes fine (Yjs keeps it pending); that is the
    normal case for a client that typed while disconnected and is not malformed.
    """
    if update == EMPTY_UPDATE:
        return
    try:
        doc_from_updates([update])
    except Exception as exc:  # pycrdt raises ValueError; anything else is just as malformed
        raise MalformedMessage(f"update does not decode: {exc}") from exc


# ---------------------------------------------------------------- awareness


@dataclass(frozen=True)
class AwarenessEntry:
    client_id: int
    clock: int
    state: dict[str, Any] | None


def awareness_decode(update: bytes) -> list[AwarenessEntry]:
    """Decode an awareness update: count, then (client id, clock, JSON state or null) each."""
    reader = Reader(update)
    count = reader.var_uint()
    if count > AWARENESS_MAX_CLIENTS:
        raise MalformedMessage("too many clients in one awareness update")
    entries = []
    for _ in range(count):
        client_id = reader.var_uint()
        clock = reader.var_uint()
        raw = reader.var_string()
        if len(raw) > AWARENESS_STATE_MAX_BYTES:
            raise MalformedMessage("awareness state too large")
        try:
            state = json.loads(raw) if raw else None
        except ValueError as exc:
            raise MalformedMessage("awareness state is not JSON") from exc
        if state is not None and not isinstance(state, dict):
            raise MalformedMessage("awareness state is not an object")
        entries.append(AwarenessEntry(client_id, clock, state))
    reader.expect_end()
    return entries


def awareness_encode(entries: Iterable[AwarenessEntry]) -> bytes:
    items = list(entries)
    out = bytearray(var_uint(len(items)))
    for entry in items:
        out += var_uint(entry.client_id) + var_uint(entry.clock)
        out += var_bytes(json.dumps(entry.state, separators=(",", ":")).encode("utf-8"))
    return bytes(out)


def awareness_with_name(update: bytes, *, name: str, role: str) -> bytes:
    """The same awareness update with each state's user name and role set by the server.

    Cursors are labelled with who the server knows the socket belongs to, so a participant
    cannot show their cursor under someone else's name.
    """
    entries = []
    for entry in awareness_decode(update):
        state = entry.state
        if state is not None:
            previous = state.get("user")
            user: dict[str, Any] = previous if isinstance(previous, dict) else {}
            state = {**state, "user": {**user, "name": name, "role": role}}
        entries.append(AwarenessEntry(entry.client_id, entry.clock, state))
    return awareness_encode(entries)


def awareness_removal(clocks: dict[int, int]) -> bytes:
    """An update that removes the given clients' states (what a closed tab would send)."""
    return awareness_encode(AwarenessEntry(cid, clock + 1, None) for cid, clock in clocks.items())


# ---------------------------------------------------------------- documents


def doc_from_updates(updates: Iterable[bytes]) -> pycrdt.Doc[Any]:
    """A fresh document with `updates` applied in order: a session's document as it stood when
    the last of them was stored, or a room's copy to try an update on. Every reader of a
    document's past (its code, board, notes) and every trial copy starts here."""
    doc: pycrdt.Doc[Any] = pycrdt.Doc()
    for update in updates:
        doc.apply_update(update)
    return doc


def text_from_updates(updates: Iterable[bytes]) -> str:
    """The document's text after applying `updates` in order."""
    return str(doc_from_updates(updates).get(TEXT_NAME, type=pycrdt.Text))


def _board_elements(board: Any) -> list[dict[str, Any]]:
    """The live (not deleted) elements of a board map, in drawing order (their fractional
    `index`, then id, as Excalidraw orders them). An entry the board's schema does not accept
    (a board stored before the server checked, issue 34) is skipped and logged."""
    elements = []
    for key, value in board.to_py().items():
        problem = boardschema.element_problem(value, key)
        if problem is not None:
            log.warning("skipped a stored board element: %s", problem)
        elif boardschema.is_live(value):
            elements.append(dict(value))
    return boardschema.drawing_order(elements)


def board_live_ids(board: Any) -> set[str]:
    """The ids of a board map's live (not deleted) elements: what the element bound counts."""
    return {key for key, value in board.items() if boardschema.is_live(value)}


def board_from_updates(updates: Iterable[bytes]) -> list[dict[str, Any]]:
    """A design session's board after applying `updates` in order: its live elements."""
    return _board_elements(doc_from_updates(updates).get(BOARD_NAME, type=pycrdt.Map))


def notes_from_updates(updates: Iterable[bytes]) -> str:
    """A design session's notes pane after applying `updates` in order."""
    return str(doc_from_updates(updates).get(NOTES_NAME, type=pycrdt.Text))


def initial_update(code: str) -> bytes:
    """The update that puts the starter code in an empty document."""
    doc: pycrdt.Doc[Any] = pycrdt.Doc()
    text = doc.get(TEXT_NAME, type=pycrdt.Text)
    text += code
    return doc.get_update()


@dataclass
class Room:
    """One session's document as this process knows it: every stored update applied once.

    A cache only: the database is the truth, so a process restart rebuilds it from the log.
    Updates are applied by sequence number (the database id) so an update that arrives twice
    (loaded from the log and broadcast) is applied once.
    """

    session_id: int
    doc: pycrdt.Doc[Any] = field(default_factory=pycrdt.Doc)
    seen: set[int] = field(default_factory=set)
    last_inserted: str = ""

    def __post_init__(self) -> None:
        self.text = self.doc.get(TEXT_NAME, type=pycrdt.Text)
        # What the acceptance bound (interviews/docsize.py) reads without walking the document:
        # the ids of the board's live elements, kept by the map's events, and an upper bound
        # on the encoded document's size (exact when measured, plus what was applied since).
        # The live set is taken once, when first asked for (not while the room is built from
        # the log: reading every element as it is applied would cost more than the apply).
        self.board = self.doc.get(BOARD_NAME, type=pycrdt.Map)
        self.live: set[str] | None = None
        self.size_bound = 0
        # Characters the update being applied inserted into the code, counted by one observer
        # for good (subscribing and unsubscribing around every update cost more than the
        # keystroke's apply itself).
        self.inserted = 0
        self._inserted_parts: list[str] = []  # what it inserted, up to PASTE_TEXT_MAX_CHARS
        self.text.observe(self._text_changed)

    def live_ids(self) -> set[str]:
        """The ids of the board's live elements (kept up to date from the first call on)."""
        if self.live is None:
            self.live = board_live_ids(self.board)
            self.board.observe(self._board_changed)
        return self.live

    def _board_changed(self, event: Any) -> None:
        assert self.live is not None
        for key, change in event.keys.items():
            value = change.get("newValue")
            if boardschema.is_live(value):
                self.live.add(key)
            else:
                self.live.discard(key)

    def size(self) -> int:
        """The encoded document's size now (measured: proportional to the document)."""
        self.size_bound = len(self.doc.get_update())
        return self.size_bound

    def _text_changed(self, event: Any) -> None:
        for op in event.delta:
            if "insert" in op and isinstance(op["insert"], str):
                self.inserted += len(op["insert"])
                if sum(map(len, self._inserted_parts)) < PASTE_TEXT_MAX_CHARS:
                    self._inserted_parts.append(op["insert"])

    def apply(self, seq: int, update: bytes) -> int:
        """Apply a stored update; return how many characters it inserted (0 if seen before).
        What it inserted is `last_inserted` (bounded: a large paste's text, compared with other
        candidates' code by interviews.services.activity.paste_record)."""
        self.last_inserted = ""
        if seq in self.seen:
            return 0
        self.seen.add(seq)
        self.inserted = 0
        self._inserted_parts = []
        self.doc.apply_update(update)
        self.size_bound += len(update)
        self.last_inserted = "".join(self._inserted_parts)[:PASTE_TEXT_MAX_CHARS]
        return self.inserted

    def state_vector(self) -> bytes:
        return self.doc.get_state()

    def diff(self, state_vector: bytes) -> bytes:
        """What a peer with `state_vector` is missing."""
        return self.doc.get_update(state_vector)

    def would_change(self, update: bytes) -> bool:
        """Whether applying `update` would change the document (new content or deletions)."""
        if update == EMPTY_UPDATE:
            return False
        mine = state_vector_parse(self.doc.get_state())
        theirs = state_vector_parse(pycrdt.get_state(update))
        if any(clock > mine.get(client, 0) for client, clock in theirs.items()):
            return True
        # No new items: only its deletions could matter. Try them on a copy.
        # Compared whole (code, board, notes): a deletion in any shared type is a change.
        copy = doc_from_updates([self.doc.get_update()])
        before = copy.get_update()
        copy.apply_update(update)
        return copy.get_update() != before

    def code(self) -> str:
        return str(self.text)
