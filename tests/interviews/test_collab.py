"""The y-sync wire protocol and the server's document (pure logic, real pycrdt)."""

from __future__ import annotations

from typing import Any

import pycrdt
import pytest

from interviews import collab


def doc_with(text: str) -> tuple[pycrdt.Doc[Any], pycrdt.Text]:
    doc: pycrdt.Doc[Any] = pycrdt.Doc()
    ytext = doc.get(collab.TEXT_NAME, type=pycrdt.Text)
    ytext += text
    return doc, ytext


def test_frames_round_trip_through_the_strict_parser() -> None:
    doc, _ = doc_with("hello")
    update = doc.get_update()
    assert collab.parse_message(collab.update_frame(update)) == collab.Message("update", update)
    assert collab.parse_message(collab.sync_step2_frame(update)).kind == "step2"
    state = doc.get_state()
    assert collab.parse_message(collab.sync_step1_frame(state)) == collab.Message("step1", state)
    assert collab.parse_message(collab.query_awareness_frame()).kind == "query_awareness"


@pytest.mark.parametrize(
    "frame",
    [
        b"",
        b"\x00",
        b"\x00\x00",
        b"\x00\x00\x05\x01",
        b"\x02\x00",
        b"\x03\x00",
        b"\x00\x01\x03\xff\xff\xff",
        b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff",
    ],
)
def test_malformed_frames_are_refused(frame: bytes) -> None:
    with pytest.raises(collab.MalformedMessage):
        collab.parse_message(frame)


def test_awareness_states_are_relabelled_with_the_servers_name_for_the_socket() -> None:
    update = collab.awareness_encode(
        [
            collab.AwarenessEntry(
                7, 3, {"user": {"name": "boss", "color": "#123"}, "cursor": None}
            ),
            collab.AwarenessEntry(8, 1, None),
        ]
    )
    stamped = collab.awareness_decode(
        collab.awareness_with_name(update, name="ann", role="candidate")
    )
    assert stamped[0].state == {
        "user": {"name": "ann", "color": "#123", "role": "candidate"},
        "cursor": None,
    }
    assert stamped[1] == collab.AwarenessEntry(8, 1, None)
    removal = collab.awareness_decode(collab.awareness_removal({7: 3}))
    assert removal == [collab.AwarenessEntry(7, 4, None)]


def test_the_room_applies_each_stored_update_once_and_counts_inserted_characters() -> None:
    source, ytext = doc_with("abc")
    room = collab.Room(session_id=1)
    assert room.apply(1, source.get_update()) == 3
    assert room.apply(1, source.get_update()) == 0  # seen: the log and a broadcast overlap
    before = source.get_state()
    ytext += "x" * 100
    assert room.apply(2, source.get_update(before)) == 100
    assert room.code() == "abc" + "x" * 100


def test_would_change_tells_echoes_from_edits_including_pure_deletions() -> None:
    source, ytext = doc_with("hello world")
    room = collab.Room(session_id=1)
    room.apply(1, source.get_update())
    # A client that has everything answers a sync with its delete set only: no change.
    assert room.would_change(source.get_update(room.state_vector())) is False
    assert room.would_change(collab.EMPTY_UPDATE) is False
    before = source.get_state()
    del ytext[0:6]  # a deletion adds no new items, only to the delete set
    assert room.would_change(source.get_update(before)) is True
    assert room.code() == "hello world"  # would_change changes nothing itself


def test_text_from_updates_replays_in_order() -> None:
    source, ytext = doc_with("a")
    updates = [source.get_update()]
    for ch in "bcd":
        before = source.get_state()
        ytext += ch
        updates.append(source.get_update(before))
    assert [collab.text_from_updates(updates[:n]) for n in range(5)] == [
        "",
        "a",
        "ab",
        "abc",
        "abcd",
    ]


def test_a_design_sessions_board_and_notes_are_read_from_the_same_document() -> None:
    doc: pycrdt.Doc[Any] = pycrdt.Doc()
    board = doc.get(collab.BOARD_NAME, type=pycrdt.Map)
    notes = doc.get(collab.NOTES_NAME, type=pycrdt.Text)
    board["late"] = {"id": "late", "type": "text", "index": "a2", "text": "GPU pool", "version": 1}
    board["early"] = {"id": "early", "type": "rectangle", "index": "a1", "version": 1}
    board["gone"] = {
        "id": "gone",
        "type": "arrow",
        "index": "a3",
        "isDeleted": True,
        "version": 2,
        "points": [[0, 0], [10, 0]],
    }
    notes += "10k QPS x 500 tokens"
    update = doc.get_update()
    assert [e["id"] for e in collab.board_from_updates([update])] == ["early", "late"]
    assert collab.notes_from_updates([update]) == "10k QPS x 500 tokens"
    assert collab.text_from_updates([update]) == ""


def test_deleting_a_board_element_is_a_change_the_room_keeps() -> None:
    doc: pycrdt.Doc[Any] = pycrdt.Doc()
    board = doc.get(collab.BOARD_NAME, type=pycrdt.Map)
    board["box"] = {"id": "box", "type": "rectangle", "index": "a1"}
    room = collab.Room(session_id=1)
    room.apply(1, doc.get_update())
    before = doc.get_state()
    del board["box"]
    deletion = doc.get_update(before)
    assert room.would_change(deletion)
    room.apply(2, deletion)
    assert not room.would_change(deletion)


def test_every_reader_of_a_past_document_applies_the_updates_to_one_fresh_document() -> None:
    doc: pycrdt.Doc[Any] = pycrdt.Doc()
    doc.get(collab.TEXT_NAME, type=pycrdt.Text).insert(0, "x = 1")
    first = doc.get_update()
    board = doc.get(collab.BOARD_NAME, type=pycrdt.Map)
    board["r"] = {"id": "r", "type": "rectangle", "version": 1, "index": "a1"}
    board["gone"] = {"id": "gone", "type": "rectangle", "version": 1, "isDeleted": True}
    doc.get(collab.NOTES_NAME, type=pycrdt.Text).insert(0, "10k rps")
    updates = [first, doc.get_update(pycrdt.get_state(first))]
    fresh = collab.doc_from_updates(updates)
    assert fresh.get_state() == doc.get_state()
    assert collab.text_from_updates(updates) == "x = 1"
    assert [e["id"] for e in collab.board_from_updates(updates)] == ["r"]
    assert collab.notes_from_updates(updates) == "10k rps"
