"""The document's size (interviews/docsize.py) over the real socket, Redis and database:
a document larger than one message still loads, in frames under the limit; an update that
would take the document past its byte or element bound is refused ("the board is full",
4409), not stored, and the socket's next session goes on."""

from __future__ import annotations

from typing import Any

import pycrdt
import pytest
from channels.db import database_sync_to_async

from core.realtime import CLOSE_DOC_FULL
from interviews import collab, docsize, services
from interviews.consumers import ROOMS
from interviews.models import DocUpdate, InterviewSession
from problems.package import package_read
from problems.services import BANK_DIR, problem_load
from tests.factories import client_for, joined_live_session, tiny_problem, user_with_role
from tests.interviews.ydoc_client import YClient, refused_close
from tests.sockets import run_scenario

pytestmark = pytest.mark.django_db(transaction=True)

LIMIT = 20_000  # the message limit in these tests: small, so a few hundred elements cross it


def live() -> tuple[InterviewSession, Any]:
    session, candidate, _ = joined_live_session(tiny_problem())
    return session, candidate


def element(key: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": key,
        "type": "rectangle",
        "version": 1,
        "versionNonce": 7,
        "x": 10,
        "y": 20,
        "width": 100,
        "height": 50,
        "strokeColor": "#1e1e1e",
        "index": f"a{key}",
        **extra,
    }


def board(client: YClient) -> pycrdt.Map[Any]:
    return client.doc.get(collab.BOARD_NAME, type=pycrdt.Map)


async def put(client: YClient, elements: dict[str, dict[str, Any]], *, wait: bool = True) -> None:
    """Set elements in the client's board map and send the update (as the page's binding)."""
    before = client.doc.get_state()
    with client.doc.transaction():
        for key, value in elements.items():
            board(client)[key] = value
    client.pending += 1
    await client.send(collab.update_frame(client.doc.get_update(before)))
    if wait:
        await client.flush()


def live_ids(client: YClient) -> set[str]:
    return collab.board_live_ids(board(client))


def test_a_document_larger_than_one_message_loads_in_frames_under_the_limit(settings: Any) -> None:
    settings.ONSITE_DOC_MAX_MESSAGE_BYTES = LIMIT
    session, candidate = live()

    async def scenario() -> tuple[YClient, YClient, set[str]]:
        writer = YClient(candidate, session.pk)
        await writer.connect()
        for batch in range(12):  # each batch ~9 kB, the whole ~110 kB: five messages' worth
            await put(
                writer,
                {f"e{batch}-{i}": element(f"e{batch}-{i}", text="x" * 100) for i in range(60)},
            )
        written = live_ids(writer)
        ROOMS.clear()  # a fresh process: the room is rebuilt from the stored log
        fresh = YClient(candidate, session.pk)
        await fresh.connect()
        await fresh.disconnect()
        # A page that has half of it: only the rest comes, still under the limit.
        half = YClient(candidate, session.pk)
        rows = await database_sync_to_async(services.doc_updates)(session.pk)
        for update in [data for _, data in rows][:6]:
            half.doc.apply_update(update)
        await half.connect()
        await half.disconnect()
        await writer.disconnect()
        return fresh, half, written

    fresh, half, written = run_scenario(scenario)
    assert len(written) == 720
    stored = services.doc_updates(session.pk)
    assert sum(len(data) for _, data in stored) > 5 * LIMIT
    for client in (fresh, half):
        assert live_ids(client) == written
        assert client.code == services.session_code(session.pk)
        assert max(client.frame_sizes) <= LIMIT
    assert len(fresh.frame_sizes) > 5
    assert sum(half.frame_sizes) < sum(fresh.frame_sizes)
    assert set(e["id"] for e in collab.board_from_updates(d for _, d in stored)) == written


def test_past_the_element_bound_an_update_is_refused_and_not_stored(settings: Any) -> None:
    settings.ONSITE_BOARD_MAX_ELEMENTS = 10
    session, candidate = live()

    async def scenario() -> tuple[int | None, list[dict[str, Any]], set[str]]:
        client = YClient(candidate, session.pk)
        await client.connect()
        await put(client, {f"k{i}": element(f"k{i}") for i in range(10)})  # exactly full
        await put(client, {"k11": element("k11")}, wait=False)
        code = await refused_close(client)
        events = client.events
        # Deleting always goes in; then there is room for one more.
        again = YClient(candidate, session.pk)
        await again.connect()
        await put(again, {"k0": element("k0", isDeleted=True, version=2)})
        await put(again, {"k12": element("k12")})
        ids = live_ids(again)
        await again.disconnect()
        return code, events, ids

    code, events, ids = run_scenario(scenario)
    assert code == CLOSE_DOC_FULL
    refused = [e for e in events if e.get("type") == "refused"]
    assert refused == [
        {"type": "refused", "reason": "board_full", "message": docsize.full_message()}
    ]
    assert "The board is full" in refused[0]["message"] and "10 elements" in refused[0]["message"]
    stored = {
        e["id"] for e in collab.board_from_updates(d for _, d in services.doc_updates(session.pk))
    }
    assert "k11" not in stored and "k11" not in ids
    assert stored == ids == {f"k{i}" for i in range(1, 10)} | {"k12"}


def test_past_the_byte_bound_an_update_is_refused_and_small_edits_still_go(settings: Any) -> None:
    settings.ONSITE_DOC_MAX_BYTES = 30_000
    session, candidate = live()

    async def scenario() -> tuple[int | None, str, int]:
        client = YClient(candidate, session.pk)
        await client.connect()
        await put(client, {"big": element("big", text="y" * 25_000)})
        await client.edit(lambda t: t.__iadd__("# still typing\n"))  # well within the bound
        await put(client, {"more": element("more", text="z" * 10_000)}, wait=False)
        code = await refused_close(client)
        count = await database_sync_to_async(DocUpdate.objects.filter(session=session).count)()
        return code, client.events[-1]["reason"], count

    code, reason, count = run_scenario(scenario)
    assert code == CLOSE_DOC_FULL and reason == "board_full"
    assert count == 3  # the starter code, the big element, the typing: not the last
    assert "# still typing" in services.session_code(session.pk)
    ids = {
        e["id"] for e in collab.board_from_updates(d for _, d in services.doc_updates(session.pk))
    }
    assert ids == {"big"}


@pytest.mark.django_db(transaction=False)
def test_the_design_page_carries_the_bounds_and_an_alert_at_the_board(settings: Any) -> None:
    settings.ONSITE_BOARD_MAX_ELEMENTS = 123
    problem_load(package=package_read(BANK_DIR / "kv-cache-aware-router"))
    candidate = user_with_role("cand", "candidate")
    client = client_for(candidate)
    client.post("/sessions/solo/", {"problem": "kv-cache-aware-router", "minutes": "45"})
    session = InterviewSession.objects.get()
    page = client.get(f"/sessions/{session.pk}/").content.decode()
    board = page.split('id="session-board"', 1)[1].split(">", 1)[0]
    assert 'data-board-max-elements="123"' in board
    assert f'data-doc-max-bytes="{settings.ONSITE_DOC_MAX_BYTES}"' in board
    assert f'data-doc-max-message-bytes="{settings.ONSITE_DOC_MAX_MESSAGE_BYTES}"' in board
    alert = page.split('id="board-alert"', 1)[1].split(">", 1)[0]
    assert 'role="alert"' in alert and "hidden" in alert
    # Above the board, inside its pane.
    assert page.index('id="board-alert"') < page.index('id="session-board"')
