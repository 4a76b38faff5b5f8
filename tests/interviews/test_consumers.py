"""The session document socket with real pycrdt client documents, the real Redis channel layer
and the real database: who may join, sync both ways, persistence before broadcast, limits."""

from __future__ import annotations

from datetime import timedelta
from functools import partial
from typing import Any

import pycrdt
import pytest
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from interviews import collab, services
from interviews.consumers import (
    CLOSE_FORBIDDEN,
    CLOSE_MALFORMED,
    CLOSE_NOT_FOUND,
    CLOSE_TOO_LARGE,
    CLOSE_UNAUTHENTICATED,
    ROOMS,
)
from interviews.models import DocUpdate, InterviewSession, SessionEvent
from tests.factories import joined_live_session, tiny_problem, user_with_role
from tests.interviews.ydoc_client import YClient, append, close_code_for, doc_path
from tests.sockets import run_scenario

pytestmark = pytest.mark.django_db(transaction=True)

STARTER = "def solve(x):\n    pass\n"


def live(*, interviewer_can_edit: bool = False) -> tuple[InterviewSession, Any, Any]:
    return joined_live_session(tiny_problem(), interviewer_can_edit=interviewer_can_edit)


def stored_updates(session: InterviewSession) -> int:
    return DocUpdate.objects.filter(session=session).count()


# ---------------------------------------------------------------- who may join


def test_only_participants_join_and_the_close_code_does_not_tell_whether_the_id_exists() -> None:
    session, _, _ = live()
    outsider = user_with_role("other", "candidate")
    admin = user_with_role("root", None, admin=True)
    close_code = partial(run_scenario, close_code_for)
    assert close_code(AnonymousUser(), session.pk) == CLOSE_UNAUTHENTICATED
    assert close_code(outsider, session.pk) == CLOSE_NOT_FOUND
    assert close_code(admin, session.pk) == CLOSE_NOT_FOUND
    assert close_code(outsider, 999_999) == CLOSE_NOT_FOUND


def test_without_the_auth_middleware_user_the_real_stack_closes_4401() -> None:
    from config.asgi import application

    session, _, _ = live()

    async def scenario() -> int | None:
        communicator = WebsocketCommunicator(
            application, doc_path(session.pk), headers=[(b"origin", b"http://localhost")]
        )
        connected, _ = await communicator.connect(timeout=30)
        assert connected
        output = await communicator.receive_output(timeout=5)
        await communicator.disconnect(code=output.get("code") or 1000)  # see close_code_for
        return output.get("code")

    assert run_scenario(scenario) == CLOSE_UNAUTHENTICATED


# ---------------------------------------------------------------- sync


def test_edits_propagate_both_ways_when_the_interviewer_may_edit() -> None:
    session, candidate, interviewer = live(interviewer_can_edit=True)

    async def scenario() -> tuple[str, str]:
        cand, inter = YClient(candidate, session.pk), YClient(interviewer, session.pk)
        await cand.connect()
        await inter.connect()
        assert cand.code == inter.code == STARTER
        await cand.edit(append("# from the candidate\n"))
        await inter.pump(until=lambda c: "candidate" in c.code)
        await inter.edit(lambda t: t.insert(0, "# from the interviewer\n"))
        await cand.pump(until=lambda c: "interviewer" in c.code)
        await cand.disconnect()
        await inter.disconnect()
        return cand.code, inter.code

    cand_code, inter_code = run_scenario(scenario)
    expected = "# from the interviewer\n" + STARTER + "# from the candidate\n"
    assert cand_code == inter_code == expected
    assert services.session_code(session.pk) == cand_code
    authors = list(
        DocUpdate.objects.filter(session=session)
        .order_by("id")
        .values_list("author__username", flat=True)
    )
    assert authors == [None, "cand", "int"]


def test_a_read_only_interviewer_watches_and_cannot_change_anything() -> None:
    session, candidate, interviewer = live(interviewer_can_edit=False)

    async def scenario() -> int | None:
        cand, inter = YClient(candidate, session.pk), YClient(interviewer, session.pk)
        await cand.connect()
        await inter.connect()  # its sync reply changes nothing, so it is acknowledged
        await cand.edit(append("x = 1\n"))
        await inter.pump(until=lambda c: "x = 1" in c.code)
        await inter.edit(append("# sneaky\n"), wait_ack=False)
        code = await inter.expect_close()
        await cand.drain()
        assert "sneaky" not in cand.code
        await cand.disconnect()
        return code

    assert run_scenario(scenario) == CLOSE_FORBIDDEN
    assert "sneaky" not in services.session_code(session.pk)
    assert stored_updates(session) == 2  # the starter and the candidate's edit


def test_a_second_tab_of_the_candidate_joins_the_same_document() -> None:
    session, candidate, _ = live()

    async def scenario() -> tuple[str, str]:
        first, second = YClient(candidate, session.pk), YClient(candidate, session.pk)
        await first.connect()
        await first.edit(append("a = 1\n"))
        await second.connect()
        await second.edit(append("b = 2\n"))
        await first.pump(until=lambda c: "b = 2" in c.code)
        await first.disconnect()
        await second.disconnect()
        return first.code, second.code

    first_code, second_code = run_scenario(scenario)
    assert first_code == second_code == STARTER + "a = 1\nb = 2\n"


def test_a_client_that_typed_while_disconnected_merges_without_losing_a_character() -> None:
    session, candidate, interviewer = live(interviewer_can_edit=True)

    async def scenario() -> tuple[str, str, str]:
        cand = YClient(candidate, session.pk)
        inter = YClient(interviewer, session.pk)
        await cand.connect()
        await inter.connect()
        await cand.edit(append("online = 1\n"))
        await inter.pump(until=lambda c: "online" in c.code)
        await cand.disconnect()
        # Offline: the candidate keeps typing, one keystroke at a time, while the
        # interviewer edits the same line region.
        for ch in "offline = 2\n":
            cand.local_edit(append(ch))
        await inter.edit(lambda t: t.insert(len(STARTER), "# meanwhile\n"))
        # Reconnect with the same document: the sync uploads the offline keystrokes.
        await cand.connect()
        await cand.flush()
        await inter.pump(until=lambda c: "offline = 2" in c.code)
        await cand.disconnect()
        await inter.disconnect()
        return cand.code, inter.code

    cand_code, inter_code = run_scenario(scenario)
    stored = services.session_code(session.pk)
    assert cand_code == inter_code == stored
    for piece in ("online = 1\n", "offline = 2\n", "# meanwhile\n"):
        assert stored.count(piece) == 1
    assert len(stored) == len(STARTER + "online = 1\n" + "offline = 2\n" + "# meanwhile\n")


# ---------------------------------------------------------------- persistence


def test_acknowledged_edits_survive_a_server_restart() -> None:
    session, candidate, _ = live()

    async def before_restart() -> None:
        client = YClient(candidate, session.pk)
        await client.connect()
        for line in ("def solve(x):\n", "    return x + 1\n"):
            await client.edit(append(line))  # returns once the server acknowledged it
        await client.disconnect()

    run_scenario(before_restart)
    ROOMS.clear()  # what a process restart does to the in-memory documents

    async def after_restart() -> str:
        fresh = YClient(candidate, session.pk)
        await fresh.connect()
        await fresh.disconnect()
        return fresh.code

    assert run_scenario(after_restart) == STARTER + "def solve(x):\n    return x + 1\n"
    rows = list(DocUpdate.objects.filter(session=session).order_by("id"))
    assert len(rows) == 3 and all(r.created_at is not None for r in rows)
    assert [r.author_id for r in rows[1:]] == [candidate.pk, candidate.pk]


# ---------------------------------------------------------------- limits


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        (b"\x07", CLOSE_MALFORMED),  # unknown message type
        (b"\x00\x02\x05abc", CLOSE_MALFORMED),  # update shorter than its length prefix
        (b"\x00\x02\x04\xff\xff\xff\xff", CLOSE_MALFORMED),  # bytes that are not an update
        (b"\x00\x09\x00", CLOSE_MALFORMED),  # unknown sync step
        (b"\x01\x05{bad}", CLOSE_MALFORMED),  # awareness that is not an awareness update
        (collab.update_frame(b"\x00\x00") + b"\x00", CLOSE_MALFORMED),  # trailing bytes
        (b"\x00\x02" + collab.var_bytes(b"\x00" * (1024 * 1024 + 1)), CLOSE_TOO_LARGE),
        # Over the app's limit, under Daphne's: the app's 4413 is what the browser gets.
        (b"\x00\x02" + collab.var_bytes(b"\x00" * (600 * 1024)), CLOSE_TOO_LARGE),
    ],
    ids=[
        "type",
        "truncated",
        "garbage",
        "step",
        "awareness",
        "trailing",
        "oversized",
        "over-app-limit",
    ],
)
def test_malformed_or_oversized_messages_close_and_change_nothing(
    frame: bytes, expected: int
) -> None:
    session, candidate, _ = live()
    before = stored_updates(session)

    async def scenario() -> int | None:
        client = YClient(candidate, session.pk)
        await client.connect()
        await client.send(frame)
        return await client.expect_close()

    assert run_scenario(scenario) == expected
    assert stored_updates(session) == before
    assert services.session_code(session.pk) == STARTER


def test_a_text_frame_is_not_part_of_the_protocol() -> None:
    session, candidate, _ = live()

    async def scenario() -> int | None:
        client = YClient(candidate, session.pk)
        await client.connect()
        assert client.communicator is not None
        await client.communicator.send_to(text_data='{"type": "update"}')
        return await client.expect_close()

    assert run_scenario(scenario) == CLOSE_MALFORMED


# ---------------------------------------------------------------- the deadline


def test_edits_after_the_deadline_are_refused_and_the_last_code_is_submitted() -> None:
    session, candidate, _ = live()

    async def scenario() -> list[dict[str, Any]]:
        client = YClient(candidate, session.pk)
        await client.connect()
        await client.edit(append("answer = 42\n"))
        await sync_overdue(session)
        await client.edit(append("too_late = True\n"))
        await client.drain()
        await client.disconnect()
        return client.events

    events = run_scenario(scenario)
    assert {"type": "refused", "reason": "time is up", "status": "finished"} in events
    assert any(e["type"] == "finished" and e["submission"] for e in events)
    session.refresh_from_db()
    assert session.status == "finished" and session.final_submission is not None
    assert session.final_submission.code == STARTER + "answer = 42\n"
    assert "too_late" not in services.session_code(session.pk)


def test_an_extension_moves_the_open_sockets_deadline_too() -> None:
    """The document socket keeps the deadline it was opened with; the interviewer's extension
    reaches it on the broadcast, so an edit after the old deadline is kept (issue 40.5)."""
    import asyncio
    import time

    from channels.db import database_sync_to_async

    session, candidate, interviewer = live()
    soon = 6.0  # seconds: the clock the socket opens with
    InterviewSession.objects.filter(pk=session.pk).update(
        deadline=timezone.now() + timedelta(seconds=soon))
    opened = time.monotonic()

    async def scenario() -> list[dict[str, Any]]:
        client = YClient(candidate, session.pk)
        await client.connect()
        await database_sync_to_async(services.session_extend)(
            session_id=session.pk, user=interviewer, minutes=5)
        await client.pump(until=lambda c: any(e.get("type") == "extended" for e in c.events))
        await asyncio.sleep(max(0.0, soon + 0.5 - (time.monotonic() - opened)))
        await client.edit(append("after_the_old_deadline = 1\n"))
        await client.drain()
        await client.disconnect()
        return client.events

    events = run_scenario(scenario)
    assert not any(e.get("type") == "refused" for e in events), events
    assert "after_the_old_deadline" in services.session_code(session.pk)


async def sync_overdue(session: InterviewSession) -> None:
    from channels.db import database_sync_to_async

    await database_sync_to_async(
        lambda: InterviewSession.objects.filter(pk=session.pk).update(
            deadline=timezone.now() - timedelta(seconds=1)
        )
    )()


# ---------------------------------------------------------------- awareness and events


def test_cursors_carry_the_name_the_server_knows_and_vanish_when_the_tab_closes() -> None:
    session, candidate, interviewer = live()

    async def scenario() -> list[collab.AwarenessEntry]:
        cand, inter = YClient(candidate, session.pk), YClient(interviewer, session.pk)
        await inter.connect()
        await cand.connect()
        spoofed = collab.awareness_encode(
            [
                collab.AwarenessEntry(
                    cand.doc.client_id,
                    1,
                    {"user": {"name": "int", "color": "#f00"}, "cursor": {"anchor": 1, "head": 1}},
                )
            ]
        )
        await cand.send(collab.awareness_frame(spoofed))
        await inter.pump(until=lambda c: len(c.awareness) >= 1)
        await cand.disconnect()
        await inter.pump(until=lambda c: len(c.awareness) >= 2)
        await inter.disconnect()
        return inter.awareness

    announced, removed = run_scenario(scenario)[:2]
    assert announced.state is not None
    assert announced.state["user"] == {"name": "cand", "color": "#f00", "role": "candidate"}
    assert removed.client_id == announced.client_id and removed.state is None


def test_a_large_paste_is_recorded_and_shown_to_the_interviewer() -> None:
    session, candidate, interviewer = live()

    async def scenario() -> list[dict[str, Any]]:
        cand, inter = YClient(candidate, session.pk), YClient(interviewer, session.pk)
        await cand.connect()
        await inter.connect()
        await cand.edit(append("y"))  # typing: no event
        await cand.edit(append("# pasted\n" * 20))
        await inter.pump(until=lambda c: any(e.get("kind") == "paste" for e in c.events))
        await cand.disconnect()
        await inter.disconnect()
        return inter.events

    events = run_scenario(scenario)
    paste = next(e for e in events if e.get("kind") == "paste")
    assert paste["chars"] == len("# pasted\n" * 20) and paste["by"] == "cand"
    recorded = SessionEvent.objects.get(session=session, kind="paste")
    assert recorded.data["chars"] == 180 and recorded.actor_id == candidate.pk


def test_the_activity_signals_never_reach_the_candidates_own_socket() -> None:
    """Issue 25 (the ACTIVITY_SIGNALS row): a paste and a tab leave reach the interviewer's
    socket only; the candidate's own socket, like their replay, carries neither."""
    from channels.db import database_sync_to_async

    from interviews.services import page_event_report

    session, candidate, interviewer = live()

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        cand, inter = YClient(candidate, session.pk), YClient(interviewer, session.pk)
        await cand.connect()
        await inter.connect()
        await cand.edit(append("# pasted\n" * 20))
        await database_sync_to_async(page_event_report)(
            session_id=session.pk, user=candidate, kind="tab_hidden"
        )
        await inter.pump(
            until=lambda c: {"paste", "tab_hidden"} <= {e.get("kind") for e in c.events}
        )
        await cand.drain(timeout=1.0)
        await cand.disconnect()
        await inter.disconnect()
        return cand.events, inter.events

    seen_by_candidate, seen_by_interviewer = run_scenario(scenario)
    assert {"paste", "tab_hidden"} <= {e.get("kind") for e in seen_by_interviewer}
    assert not {"paste", "tab_hidden"} & {e.get("kind") for e in seen_by_candidate}, (
        seen_by_candidate
    )


def test_an_update_stored_by_another_server_process_reaches_this_ones_sockets() -> None:
    from channels.db import database_sync_to_async
    from channels.layers import get_channel_layer

    from interviews import realtime

    session, candidate, interviewer = live()

    async def scenario() -> str:
        watcher = YClient(interviewer, session.pk)
        await watcher.connect()
        # Another process's socket: its own document, stored, then published to the group of
        # room channels (what that process's consumer does after storing).
        other: pycrdt.Doc = pycrdt.Doc()
        other.apply_update(watcher.doc.get_update())
        other_text = other.get(collab.TEXT_NAME, type=pycrdt.Text)
        before = other.get_state()
        other_text += "# from another process\n"
        update = other.get_update(before)
        seq = await database_sync_to_async(services.doc_update_store)(
            session_id=session.pk, author_id=candidate.pk, data=update
        )
        layer = get_channel_layer()
        assert layer is not None
        await layer.group_send(
            realtime.doc_group(session.pk),
            {"type": realtime.UPDATE_TYPE, "seq": seq, "data": update, "origin": "elsewhere"},
        )
        await watcher.pump(until=lambda c: "another process" in c.code)
        await watcher.disconnect()
        return watcher.code

    assert run_scenario(scenario) == STARTER + "# from another process\n"


def test_the_apps_message_limit_stays_below_daphnes_so_4413_arrives() -> None:
    import inspect

    from daphne.server import Server
    from django.conf import settings

    daphne_default = (
        inspect.signature(Server.__init__).parameters["websocket_max_message_size"].default
    )
    assert daphne_default == settings.DAPHNE_WEBSOCKET_MAX_MESSAGE_BYTES
    assert daphne_default > settings.ONSITE_DOC_MAX_MESSAGE_BYTES
