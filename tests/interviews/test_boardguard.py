"""Only valid elements are ever stored (issue 34.1): the server's check of what an update does
to the board (interviews/boardguard.py), through the real consumer with the real Redis channel
layer and database, and under random updates (Hypothesis); and boards stored before the check
load with their bad elements skipped and logged."""

from __future__ import annotations

import logging
from typing import Any

import pycrdt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.realtime import CLOSE_INVALID
from interviews import boardguard, boardschema, collab, services
from interviews.models import InterviewSession
from interviews.services.boards import board_snapshot_store
from tests import boardvectors
from tests.factories import board_update, design_problem, joined_live_session
from tests.interviews.ydoc_client import YClient, refused_close
from tests.sockets import run_scenario

DATA = boardvectors.load()
ARROW: dict[str, Any] = DATA["bases"]["arrow"] | {"id": "flow"}
BOX: dict[str, Any] = DATA["bases"]["rectangle"] | {"id": "box"}
# The element of the issue: a well-formed y-update setting an arrow whose points are a string.
BAD_ARROW: dict[str, Any] = ARROW | {"version": ARROW["version"] + 1, "points": "0,0 120,40"}
PROBLEM = (
    'The board element "flow" (arrow) cannot be drawn: points must be a list of at most '
    "20000 [x, y] pairs of finite numbers."
)


class Client:
    """A client document beside a room: what a page would send."""

    def __init__(self, room: collab.Room) -> None:
        self.doc: pycrdt.Doc[Any] = pycrdt.Doc()
        self.doc.apply_update(room.doc.get_update())
        self.board = self.doc.get(collab.BOARD_NAME, type=pycrdt.Map)

    def set(self, key: str, value: Any) -> bytes:
        before = self.doc.get_state()
        self.board[key] = value
        return self.doc.get_update(before)


def room_board(room: collab.Room) -> dict[str, Any]:
    board = room.doc.get(collab.BOARD_NAME, type=pycrdt.Map)
    return dict(board.to_py() or {})


# ---------------------------------------------------------------- the check itself


def test_a_valid_element_passes_and_the_issues_arrow_is_refused_even_as_an_overwrite() -> None:
    room = collab.Room(session_id=1)
    client = Client(room)
    first = client.set("flow", ARROW)
    assert boardguard.board_problem(room, first) is None
    room.apply(1, first)
    # An overwrite names its parent only through the entry it replaces: no "board" in it.
    bad = client.set("flow", BAD_ARROW)
    assert b"board" not in bad
    assert boardguard.board_problem(room, bad) == PROBLEM
    # Refused: the room never had it, and the next good update is judged on the room alone.
    assert room_board(room)["flow"]["points"] == ARROW["points"]
    other = Client(room)
    good = other.set("box", BOX)
    assert boardguard.board_problem(room, good) is None
    room.apply(2, good)
    assert set(room_board(room)) == {"flow", "box"}


def test_an_element_under_another_key_a_nested_type_and_code_edits() -> None:
    room = collab.Room(session_id=1)
    client = Client(room)
    assert "key in the board" in (boardguard.board_problem(room, client.set("x", BOX)) or "")
    client = Client(room)
    assert boardguard.board_problem(room, client.set("box", pycrdt.Map({"id": "box"}))) == (
        'The board element "box" cannot be drawn: the value must be an object (an Excalidraw '
        "element)."
    )
    client = Client(room)
    text = client.doc.get(collab.TEXT_NAME, type=pycrdt.Text)
    before = client.doc.get_state()
    text += "print('board')"
    assert boardguard.board_problem(room, client.doc.get_update(before)) is None


def test_content_waiting_for_a_dependency_is_judged_when_it_lands() -> None:
    room = collab.Room(session_id=1)
    client = Client(room)
    first = client.set("box", BOX)
    # An overwrite of that box with a bad value: it depends on the box it replaces.
    second = client.set("box", BOX | {"version": 9, "x": "far"})
    # Sent alone it waits for the box (nothing lands on the board), so it passes, and is
    # stored as a browser that typed offline would have it stored.
    assert boardguard.board_problem(room, second) is None
    room.apply(1, second)
    assert room_board(room) == {}
    # The update that supplies the dependency lands both: it is refused for the bad one.
    assert boardguard.board_problem(room, first) == (
        'The board element "box" (rectangle) cannot be drawn: x must be a finite number.'
    )
    # Never supplied, the waiting content never reaches any board.
    assert room_board(room) == {}
    assert collab.board_from_updates([second]) == []


# ---------------------------------------------------------------- random updates


def _settable(value: Any) -> bool:
    """What pycrdt can write into a map (a Y.Map value): JSON-ish, integers within i64."""
    if isinstance(value, bool) or value is None or isinstance(value, (float, str)):
        return True
    if isinstance(value, int):
        return -(2**63) <= value < 2**63
    if isinstance(value, list):
        return all(_settable(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _settable(v) for k, v in value.items())
    return False


@settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(st.tuples(boardvectors.board_values(), st.booleans()), min_size=1, max_size=6))
def test_random_updates_never_leave_an_invalid_element_on_the_board(
    steps: list[tuple[tuple[str, Any], bool]],
) -> None:
    """Random values (valid elements with fields replaced by junk, and junk) set on the board
    through a client document, some as one update each, some batched with the next: whatever
    the check admits is applied, and the board never holds an element the schema refuses."""
    room = collab.Room(session_id=1)
    client = Client(room)
    seq = 0
    before = client.doc.get_state()
    for (key, value), send_now in steps:
        if not _settable(value):
            continue
        client.board[key or "k"] = value
        if not send_now:
            continue
        update = client.doc.get_update(before)
        seq += 1
        if boardguard.board_problem(room, update) is None:
            room.apply(seq, update)
        # The client's next update starts from what the room has (a refused page reloads).
        client = Client(room)
        before = client.doc.get_state()
    for key, value in room_board(room).items():
        assert boardschema.element_problem(value, key) is None, (key, value)


# ---------------------------------------------------------------- the real consumer


def live_design() -> tuple[InterviewSession, Any, Any]:
    return joined_live_session(design_problem(), interviewer_can_edit=True)


def board_of(client: YClient) -> pycrdt.Map[Any]:
    return client.doc.get(collab.BOARD_NAME, type=pycrdt.Map)


@pytest.mark.django_db(transaction=True)
def test_the_consumer_refuses_a_bad_element_with_4422_and_the_other_side_never_gets_it() -> None:
    session, candidate, interviewer = live_design()

    async def scenario() -> tuple[int | None, list[dict[str, Any]], dict[str, Any]]:
        cand, inter = YClient(candidate, session.pk), YClient(interviewer, session.pk)
        await cand.connect()
        await inter.connect()
        before = cand.doc.get_state()
        board_of(cand)["flow"] = ARROW
        cand.pending += 1
        await cand.send(collab.update_frame(cand.doc.get_update(before)))
        await cand.flush()
        await inter.pump(until=lambda c: "flow" in board_of(c))
        before = cand.doc.get_state()
        board_of(cand)["flow"] = BAD_ARROW
        await cand.send(collab.update_frame(cand.doc.get_update(before)))
        code = await refused_close(cand)
        await inter.drain(timeout=0.5)
        seen = dict(board_of(inter).to_py() or {})
        await inter.disconnect()
        return code, cand.events, seen

    code, events, seen = run_scenario(scenario)
    assert code == CLOSE_INVALID
    assert {"type": "refused", "reason": "invalid_board", "message": PROBLEM} in events
    assert {"type": "ack"} in events  # the good one was acknowledged, the bad one not
    assert seen["flow"]["points"] == ARROW["points"]
    stored = collab.board_from_updates(data for _, data in services.doc_updates(session.pk))
    assert [e["points"] for e in stored] == [ARROW["points"]]
    # And no stored update holds it, waiting or not: applied alone, each keeps the arrow good.
    for _, data in services.doc_updates(session.pk):
        assert b"0,0 120,40" not in data


@pytest.mark.django_db(transaction=True)
def test_a_board_stored_before_the_check_loads_with_its_bad_elements_skipped_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    session, candidate, _ = live_design()
    board_update(session.pk, [BOX, BAD_ARROW])  # stored directly, as before the check
    with caplog.at_level(logging.WARNING, logger="interviews.collab"):
        elements = collab.board_from_updates(data for _, data in services.doc_updates(session.pk))
    assert [e["id"] for e in elements] == ["box"]
    assert PROBLEM in caplog.text

    async def scenario() -> list[str]:
        # A page that loads that board still syncs (the server sends the document as stored;
        # the browser skips the element, tests/frontend/test_board_binding.py) and may edit.
        cand = YClient(candidate, session.pk)
        await cand.connect()
        before = cand.doc.get_state()
        board_of(cand)["box"] = BOX | {"version": BOX["version"] + 1, "x": 50}
        cand.pending += 1
        await cand.send(collab.update_frame(cand.doc.get_update(before)))
        await cand.flush()
        await cand.disconnect()
        return sorted(board_of(cand).keys())

    assert run_scenario(scenario) == ["box", "flow"]
    elements = collab.board_from_updates(data for _, data in services.doc_updates(session.pk))
    assert [(e["id"], e["x"]) for e in elements] == [("box", 50)]
    # The report's picture (the snapshot kept when the session finishes) draws the rest.
    snapshot = board_snapshot_store(session_id=session.pk)
    assert snapshot is not None and snapshot.error == ""
    assert [e["id"] for e in snapshot.elements] == ["box"]
    assert 'aria-label="Board: 1 element"' in snapshot.svg


def test_a_coding_sessions_room_keeps_no_shadow_yet_its_board_is_checked() -> None:
    room = collab.Room(session_id=1)
    client = Client(room)
    text = client.doc.get(collab.TEXT_NAME, type=pycrdt.Text)
    before = client.doc.get_state()
    text += "x = 1\n"
    assert boardguard.board_problem(room, client.doc.get_update(before), design=False) is None
    assert room.doc not in boardguard._shadows
    first = Client(room).set("flow", BAD_ARROW)
    assert boardguard.board_problem(room, first, design=False) == PROBLEM
    good = Client(room).set("flow", ARROW)
    assert boardguard.board_problem(room, good, design=False) is None
    room.apply(1, good)
    # An overwrite (no "board" in its bytes) of an entry the board has: still checked.
    bad = Client(room).set("flow", BAD_ARROW)
    assert b"board" not in bad
    assert boardguard.board_problem(room, bad, design=False) == PROBLEM
    assert room.doc not in boardguard._shadows


def test_waiting_content_survives_a_refusal_and_is_still_judged_when_it_lands() -> None:
    room = collab.Room(session_id=1)
    client = Client(room)
    first = client.set("box", BOX)
    waiting = client.set("box", BOX | {"version": 9, "x": "far"})  # waits for `first`
    assert boardguard.board_problem(room, waiting) is None
    room.apply(1, waiting)
    # A refusal in between rebuilds the shadow from the room's document, which leaves
    # waiting content out: the shadow keeps it anyway.
    assert boardguard.board_problem(room, Client(room).set("flow", BAD_ARROW)) == PROBLEM
    assert boardguard.board_problem(room, first) == (
        'The board element "box" (rectangle) cannot be drawn: x must be a finite number.'
    )
