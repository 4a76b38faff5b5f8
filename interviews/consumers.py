"""`/ws/sessions/<id>/doc/`: the collaborative document of one session (y-sync protocol).

The order that makes a server restart lose no acknowledged edit: an update is validated, then
stored in the database, and only then applied to this process's copy, broadcast to the other
participants and acknowledged to its sender (a JSON text frame `{"type": "ack"}`). Binary frames
carry the y-sync protocol (see interviews/collab.py); text frames from the server carry JSON
events (acks, questions, runs, the end of the session). The client sends binary frames only.

Fan-out: the sockets of one process share a `LiveRoom`; an edit reaches the other sockets of
the same process in memory, and other processes through one channel-layer message per process
(group `session.<id>.doc`, one room channel per process). Stores are group-committed
(`UpdateWriter`): edits arriving while a transaction is in flight share the next commit.

Close codes (core/realtime.py): 4401 not logged in, 4404 no such session or not a participant
(one code, so that it never tells whether a session exists), 4425 not started yet (the
candidate before the start), 4410 called off or expired (core.visibility.session_access),
4403 a read-only participant trying to change the document, 4400 malformed message, 4413
message over the limit (which stays below Daphne's own, see settings, so the code does
arrive), 4409 an update that would take the document past its size or element bound
(interviews/docsize.py), 4422 an update that would store a board element the board
cannot hold (interviews/boardguard.py); a JSON "refused" frame (reason "board_full" or
"invalid_board", with a message) comes before either. A document larger than one
message is sent to a joining page in several frames, each under the limit.
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from datetime import datetime
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.utils import timezone

from core.realtime import (
    CLOSE_FORBIDDEN,
    CLOSE_MALFORMED,
    CLOSE_NOT_FOUND,
    CLOSE_TOO_LARGE,
    CLOSE_UNAUTHENTICATED,
    Refusal,
)
from core.visibility import DOOR_CLOSE, Door
from interviews import boardguard, collab, docsize, realtime, selectors, services
from interviews.models import SessionEvent

log = logging.getLogger(__name__)

__all__ = ["CLOSE_FORBIDDEN", "CLOSE_MALFORMED", "CLOSE_NOT_FOUND", "CLOSE_TOO_LARGE",
           "CLOSE_UNAUTHENTICATED", "SessionDocConsumer"]


class LiveRoom:
    """A session's document in this process, and the sockets open on it here.

    Edits fan out to the sockets of the same process directly, in memory; other processes are
    reached through one channel-layer channel per room (not one per socket), so each edit costs
    one Redis message per process instead of one per participant.
    """

    def __init__(self, session_id: int) -> None:
        self.room = collab.Room(session_id)
        self.listeners: set[SessionDocConsumer] = set()
        self.channel = ""
        self.reader: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()

    async def deliver(self, update: bytes, *, skip: SessionDocConsumer | None = None) -> None:
        frame = collab.update_frame(update)
        for listener in list(self.listeners):
            if listener is not skip:
                await listener.deliver_frame(frame)


class RoomRegistry:
    """This process's documents, one per session with a socket open here.

    No lock is needed: rooms are created and changed only on the event loop's thread, and
    loading the log twice is harmless because updates are applied once by sequence number.
    """

    def __init__(self) -> None:
        self.rooms: dict[int, LiveRoom] = {}

    async def acquire(self, session_id: int,
                      consumer: SessionDocConsumer) -> tuple[LiveRoom, list[bytes]]:
        """The session's room, with this consumer in it, and the stored log as just loaded
        (the consumer cuts a large document's first sync from it: docsize.sync_frames)."""
        live = self.rooms.get(session_id)
        if live is None:
            live = self.rooms[session_id] = LiveRoom(session_id)
            layer = get_channel_layer()
            assert layer is not None
            live.channel = await layer.new_channel()
            # Join before loading the log: an update stored meanwhile by another process is
            # then either in what we load or delivered to us afterwards (applied once).
            await layer.group_add(realtime.doc_group(session_id), live.channel)
            live.reader = asyncio.get_running_loop().create_task(self._read(live))
            live.ready.set()
        await live.ready.wait()
        live.listeners.add(consumer)
        rows = await database_sync_to_async(services.doc_updates)(session_id)
        for seq, data in rows:
            live.room.apply(seq, data)
        return live, [data for _, data in rows]

    async def _read(self, live: LiveRoom) -> None:
        """Updates stored by other processes: apply, and hand to this process's sockets."""
        layer = get_channel_layer()
        assert layer is not None
        while True:
            message = await layer.receive(live.channel)
            if message.get("origin") == live.channel:
                continue  # ours: the local sockets already have it
            try:
                # Delivered even when already applied here (loaded from the log by a socket
                # that joined meanwhile): the sockets that were open before still need it.
                live.room.apply(message["seq"], message["data"])
                await live.deliver(message["data"])
            except Exception:  # one bad delivery must not stop the room
                log.exception("session %s: could not deliver an update", live.room.session_id)

    async def release(self, live: LiveRoom, consumer: SessionDocConsumer) -> None:
        live.listeners.discard(consumer)
        session_id = live.room.session_id
        if live.listeners or self.rooms.get(session_id) is not live:
            return
        del self.rooms[session_id]
        if live.reader is not None:
            live.reader.cancel()
        layer = get_channel_layer()
        if layer is not None and live.channel:
            await layer.group_discard(realtime.doc_group(session_id), live.channel)

    def clear(self) -> None:
        """Forget every document (what a process restart does; tests use it)."""
        for live in self.rooms.values():
            if live.reader is not None:
                live.reader.cancel()
        self.rooms.clear()


ROOMS = RoomRegistry()
ACK_FRAME = json.dumps({"type": "ack"})


class UpdateWriter:
    """Group commit: edits arriving while a transaction is in flight go into the next one.

    Every edit is still acknowledged only after the transaction holding it has committed; what
    changes is that many editors share one commit instead of queueing for one each (all
    database calls of a process run on one thread, so one-commit-per-keystroke would cap the
    whole server at a few hundred edits a second, and far fewer on a busy disk).
    """

    def __init__(self) -> None:
        self.queue: list[tuple[tuple[int, int | None, bytes], asyncio.Future[int | None]]] = []
        self.draining = False

    async def store(self, session_id: int, author_id: int | None, data: bytes) -> int | None:
        future: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self.queue.append(((session_id, author_id, data), future))
        if not self.draining:
            self.draining = True
            asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self.queue:
                batch, self.queue = self.queue, []
                try:
                    seqs = await database_sync_to_async(services.doc_updates_store)(
                        [item for item, _ in batch])
                except Exception as exc:  # each waiter sees the failure; nothing was acked
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for (_, future), seq in zip(batch, seqs, strict=True):
                    if not future.done():
                        future.set_result(seq)
        finally:
            self.draining = False


_writers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, UpdateWriter] = (
    weakref.WeakKeyDictionary()
)


def update_writer() -> UpdateWriter:
    """This event loop's writer (futures belong to one loop; tests run several loops)."""
    loop = asyncio.get_running_loop()
    writer = _writers.get(loop)
    if writer is None:
        writer = _writers[loop] = UpdateWriter()
    return writer


class SessionDocConsumer(AsyncWebsocketConsumer):
    """One participant's connection to the session's document."""

    live: LiveRoom | None = None
    joined: list[str]
    initial_log: list[bytes] | None = None

    async def connect(self) -> None:
        self.joined = []
        self.closing = False
        self.awareness_clocks: dict[int, int] = {}
        self.session_id = int(self.scope["url_route"]["kwargs"]["session_id"])
        user = self.scope.get("user")
        # Accept first so the close code reaches the browser (a refused handshake has none).
        await self.accept()
        if user is None or not user.is_authenticated:
            await self._close(CLOSE_UNAUTHENTICATED)
            return
        access = await database_sync_to_async(selectors.doc_access)(
            user=user, session_id=self.session_id)
        if access is None or not access.role:
            # Missing and not yours close alike: the code tells nothing about the id.
            await self._close(CLOSE_NOT_FOUND)
            return
        if access.door != Door.OPEN:
            # Not yet (the candidate before the start: the starter and the board stay on the
            # server), or called off: closed before anything of the document is sent.
            await self._close(DOOR_CLOSE[access.door] or CLOSE_NOT_FOUND)
            return
        self.user = user
        self.role = access.role
        self.name = access.name
        self.can_edit = access.can_edit
        self.deadline: datetime | None = access.deadline
        self.finished = access.status == "finished"
        # Join the groups before loading the log: an update stored meanwhile is then either in
        # what we load or delivered to us afterwards (and applied once either way).
        groups = [realtime.session_group(self.session_id)]
        if self.role in services.INTERVIEWER_ROLES:
            groups.append(realtime.interviewer_group(self.session_id))
        for group in groups:
            await self.channel_layer.group_add(group, self.channel_name)
            self.joined.append(group)
        self.live, log = await ROOMS.acquire(self.session_id, self)
        self.room = self.live.room
        # Kept for the answer to the page's step 1 only when the document may need cutting.
        self.initial_log = log if docsize.needs_log(self.room, limit=self._limit()) else None
        await self.send(bytes_data=collab.sync_step1_frame(self.room.state_vector()))
        await self._group_send(realtime.QUERY_AWARENESS_TYPE, {})
        await database_sync_to_async(services.event_record)(
            session_id=self.session_id, kind=SessionEvent.Kind.JOINED, actor=user,
            data={"role": self.role})

    async def disconnect(self, code: int) -> None:
        if self.awareness_clocks:
            # The tab is gone: remove its cursor from everyone else's editor.
            await self._group_send(realtime.AWARENESS_TYPE,
                                   {"data": collab.awareness_removal(self.awareness_clocks)})
        for group in self.joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        if self.live is not None:
            await ROOMS.release(self.live, self)
            self.live = None
            await database_sync_to_async(services.event_record)(
                session_id=self.session_id, kind=SessionEvent.Kind.LEFT, actor=self.user,
                data={"role": self.role})

    # ------------------------------------------------------------ from the client

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.closing or self.live is None:
            return  # closing, or refused at connect: nothing more is processed
        if bytes_data is None:
            size = len((text_data or "").encode("utf-8"))
            await self._close(CLOSE_TOO_LARGE if size > self._limit() else CLOSE_MALFORMED)
            return
        if len(bytes_data) > self._limit():
            await self._close(CLOSE_TOO_LARGE)
            return
        try:
            message = collab.parse_message(bytes_data)
        except collab.MalformedMessage as exc:
            log.info("session %s: malformed message from %s: %s", self.session_id, self.name, exc)
            await self._close(CLOSE_MALFORMED)
            return
        if message.kind == "step1":
            await self._answer_step1(message.payload)
        elif message.kind in ("step2", "update"):
            await self._on_update(message.payload)
        elif message.kind == "awareness":
            await self._on_awareness(message.payload)
        # query_awareness from a client: the server keeps no awareness state to answer with.

    async def _on_update(self, update: bytes) -> None:
        assert self.live is not None
        if update == collab.EMPTY_UPDATE:
            await self._ack()
            return
        if not self.can_edit:
            # A read-only participant's sync reply is acknowledged when it changes nothing
            # (it only echoes what it was sent); an actual edit is a protocol violation.
            if self.room.would_change(update):
                await self._close(CLOSE_FORBIDDEN)
            else:
                await self._ack()
            return
        if self.finished or self.deadline_passed():
            await self._refuse()
            return
        # Past the document's bounds (4409), then a board element the board cannot hold (4422).
        refusal = docsize.overflow_refusal(self.room, update) or await boardguard.board_refusal(
            self.room, self.session_id, update)
        if refusal is not None:
            await self._refuse_update(refusal)
            return
        seq = await update_writer().store(self.session_id, self.user.pk, update)
        if seq is None:
            await self._refuse()
            return
        inserted = self.room.apply(seq, update)
        # Stored: now the other sockets of this process, the other processes, and the sender.
        await self.live.deliver(update, skip=self)
        await self.channel_layer.group_send(
            realtime.doc_group(self.session_id),
            {"type": realtime.UPDATE_TYPE, "seq": seq, "data": update,
             "origin": self.live.channel},
        )
        await self._ack()
        if inserted >= settings.ONSITE_PASTE_CHARS:
            await self._record_paste(inserted, self.room.last_inserted)

    async def _answer_step1(self, state_vector: bytes) -> None:
        """What the page misses, in frames under the message limit (docsize.sync_frames): a
        document larger than one message is sent as its stored updates, grouped."""
        log, self.initial_log = self.initial_log, None
        if log is None and docsize.needs_log(self.room, limit=self._limit()):
            rows = await database_sync_to_async(services.doc_updates)(self.session_id)
            log = [data for _, data in rows]
        frames = docsize.sync_frames(self.room, state_vector, limit=self._limit(), log=log)
        for frame in frames:
            await self.send(bytes_data=frame)

    async def _refuse(self) -> None:
        """An edit the session does not take (over, or not started): never stored; the page
        learns why. An edit is a write: past the deadline it drives the session clock
        (services.session_expire_if_due) as the beat does, so the final code is this one."""
        finished_now = await database_sync_to_async(services.session_expire_if_due)(
            self.session_id)
        status = await database_sync_to_async(services.session_status)(self.session_id)
        if status == "finished":
            self.finished = True
            reason = "time is up" if finished_now or self.deadline_passed() else "session over"
            if not finished_now:
                await database_sync_to_async(services.event_record)(
                    session_id=self.session_id, kind=SessionEvent.Kind.EDIT_REFUSED,
                    actor=self.user)
        else:
            reason = "the session has not started"
        await self._send_json({"type": "refused", "reason": reason, "status": status})

    async def _refuse_update(self, refusal: Refusal) -> None:
        """An update the document may not hold: never stored, applied, broadcast or
        acknowledged; the sender is told why, then closed (the page shows it at the board)."""
        log.warning("session %s: refused an update from %s: %s", self.session_id, self.name,
                    refusal.message)
        await self._send_json(refusal.frame())
        await self._close(refusal.code)

    def deadline_passed(self) -> bool:
        return self.deadline is not None and timezone.now() >= self.deadline

    async def _record_paste(self, inserted: int, text: str) -> None:
        event = await database_sync_to_async(services.paste_record)(
            session_id=self.session_id, actor=self.user, role=self.role, chars=inserted,
            text=text)
        await self.channel_layer.group_send(realtime.interviewer_group(self.session_id), {
            "type": realtime.EVENT_TYPE,
            "payload": {"type": "event", "kind": "paste", "chars": inserted,
                        "at": event.at.isoformat(), "by": self.name,
                        "similar_text": selectors.paste_match_text(event.data)},
        })

    async def _on_awareness(self, update: bytes) -> None:
        stamped = collab.awareness_with_name(update, name=self.name, role=self.role)
        for entry in collab.awareness_decode(stamped):
            if entry.state is None:
                self.awareness_clocks.pop(entry.client_id, None)
            else:
                self.awareness_clocks[entry.client_id] = entry.clock
        await self._group_send(realtime.AWARENESS_TYPE, {"data": stamped})

    # ------------------------------------------------------------ from the group

    async def deliver_frame(self, frame: bytes) -> None:
        """An update another socket of this room stored (called by the room, not the layer)."""
        if self.live is None or self.closing:
            return
        try:
            await self.send(bytes_data=frame)
        except Exception:  # a socket going away must not hold the sender's edit up
            log.debug("session %s: a socket went away during delivery", self.session_id)

    async def doc_awareness(self, event: dict[str, Any]) -> None:
        if event["sender"] != self.channel_name and self.live is not None:
            await self.send(bytes_data=collab.awareness_frame(event["data"]))

    async def doc_query_awareness(self, event: dict[str, Any]) -> None:
        if event["sender"] != self.channel_name and self.live is not None:
            await self.send(bytes_data=collab.query_awareness_frame())

    async def session_event(self, event: dict[str, Any]) -> None:
        if self.live is None:
            return
        payload = event["payload"]
        if payload.get("type") == "finished":
            self.finished = True
        elif payload.get("type") == "settings" and self.role in services.INTERVIEWER_ROLES:
            self.can_edit = bool(payload.get("interviewer_can_edit"))
        elif payload.get("type") in ("started", "extended") and payload.get("deadline"):
            self.deadline = datetime.fromisoformat(payload["deadline"])
        await self._send_json(payload)

    # ------------------------------------------------------------ helpers

    def _limit(self) -> int:
        limit: int = settings.ONSITE_DOC_MAX_MESSAGE_BYTES
        return limit

    async def _group_send(self, kind: str, fields: dict[str, Any]) -> None:
        await self.channel_layer.group_send(
            realtime.session_group(self.session_id),
            {"type": kind, "sender": self.channel_name, **fields},
        )

    async def _ack(self) -> None:
        await self.send(text_data=ACK_FRAME)  # the same text for every edit: encoded once

    async def _send_json(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(payload))

    async def _close(self, code: int) -> None:
        self.closing = True
        await self.close(code=code)
