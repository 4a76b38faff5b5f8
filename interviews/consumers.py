"""`/ws/sessions/<id>/doc/`: the collaborative document of one session (y-sync protocol).

The order that makes a server restart lose no acknowledged edit: an update is validated, then
stored in the database, and only then applied to this process's copy, broadcast to the other
participants and acknowledged to its sender (a JSON text frame `{"type": "ack"}`). Binary frames
carry the y-sync protocol (see interviews/collab.py); text frames from the server carry JSON
events (acks, questions, runs, the end of the session). The client sends binary frames only.

Close codes: 4401 not logged in, 4403 not a participant (or a read-only participant trying to
change the document), 4404 no such session, 4400 malformed message, 4413 message over the limit.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import timezone

from interviews import collab, realtime, selectors, services
from interviews.models import SessionEvent

log = logging.getLogger(__name__)

CLOSE_MALFORMED = 4400
CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_LARGE = 4413


class RoomRegistry:
    """This process's documents, one per session with a socket open here.

    No lock is needed: rooms are created and changed only on the event loop's thread, and
    loading the log twice is harmless because updates are applied once by sequence number.
    """

    def __init__(self) -> None:
        self.rooms: dict[int, collab.Room] = {}

    async def acquire(self, session_id: int) -> collab.Room:
        rows = await database_sync_to_async(services.doc_updates)(session_id)
        room = self.rooms.get(session_id)
        if room is None:
            room = self.rooms[session_id] = collab.Room(session_id)
        for seq, data in rows:
            room.apply(seq, data)
        room.users += 1
        return room

    def release(self, room: collab.Room) -> None:
        room.users -= 1
        if room.users <= 0 and self.rooms.get(room.session_id) is room:
            del self.rooms[room.session_id]

    def clear(self) -> None:
        """Forget every document (what a process restart does; tests use it)."""
        self.rooms.clear()


ROOMS = RoomRegistry()


class SessionDocConsumer(AsyncWebsocketConsumer):
    """One participant's connection to the session's document."""

    room: collab.Room | None = None
    joined: list[str]

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
        await database_sync_to_async(services.session_expire_if_due)(self.session_id)
        access = await database_sync_to_async(selectors.doc_access)(
            user=user, session_id=self.session_id)
        if access is None:
            await self._close(CLOSE_NOT_FOUND)
            return
        if not access.role:
            await self._close(CLOSE_FORBIDDEN)
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
        if self.role == "interviewer":
            groups.append(realtime.interviewer_group(self.session_id))
        for group in groups:
            await self.channel_layer.group_add(group, self.channel_name)
            self.joined.append(group)
        self.room = await ROOMS.acquire(self.session_id)
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
        if self.room is not None:
            ROOMS.release(self.room)
            self.room = None
            await database_sync_to_async(services.event_record)(
                session_id=self.session_id, kind=SessionEvent.Kind.LEFT, actor=self.user,
                data={"role": self.role})

    # ------------------------------------------------------------ from the client

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.closing or self.room is None:
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
            await self.send(bytes_data=collab.sync_step2_frame(self.room.diff(message.payload)))
        elif message.kind in ("step2", "update"):
            await self._on_update(message.payload)
        elif message.kind == "awareness":
            await self._on_awareness(message.payload)
        # query_awareness from a client: the server keeps no awareness state to answer with.

    async def _on_update(self, update: bytes) -> None:
        assert self.room is not None
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
        seq = await database_sync_to_async(services.doc_update_store)(
            session_id=self.session_id, author_id=self.user.pk, data=update)
        if seq is None:
            await self._refuse()
            return
        inserted = self.room.apply(seq, update)
        await self._group_send(realtime.UPDATE_TYPE, {"seq": seq, "data": update})
        await self._ack()
        if inserted >= settings.ONSITE_PASTE_CHARS:
            await self._record_paste(inserted)

    async def _refuse(self) -> None:
        """An edit the session does not take (over, or not started): never stored; the page
        learns why. Past the deadline, this is also where the session gets finished if the
        deadline task has not done it yet."""
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

    def deadline_passed(self) -> bool:
        return self.deadline is not None and timezone.now() >= self.deadline

    async def _record_paste(self, inserted: int) -> None:
        event = await database_sync_to_async(services.event_record)(
            session_id=self.session_id, kind=SessionEvent.Kind.PASTE, actor=self.user,
            data={"chars": inserted, "role": self.role})
        await self.channel_layer.group_send(realtime.interviewer_group(self.session_id), {
            "type": realtime.EVENT_TYPE,
            "payload": {"type": "event", "kind": "paste", "chars": inserted,
                        "at": event.at.isoformat(), "by": self.name},
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

    async def doc_update(self, event: dict[str, Any]) -> None:
        if event["sender"] == self.channel_name or self.room is None:
            return
        self.room.apply(event["seq"], event["data"])
        await self.send(bytes_data=collab.update_frame(event["data"]))

    async def doc_awareness(self, event: dict[str, Any]) -> None:
        if event["sender"] != self.channel_name and self.room is not None:
            await self.send(bytes_data=collab.awareness_frame(event["data"]))

    async def doc_query_awareness(self, event: dict[str, Any]) -> None:
        if event["sender"] != self.channel_name and self.room is not None:
            await self.send(bytes_data=collab.query_awareness_frame())

    async def session_event(self, event: dict[str, Any]) -> None:
        if self.room is None:
            return
        payload = event["payload"]
        if payload.get("type") == "finished":
            self.finished = True
        elif payload.get("type") == "settings" and self.role == "interviewer":
            self.can_edit = bool(payload.get("interviewer_can_edit"))
        elif payload.get("type") == "started" and payload.get("deadline"):
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
        await self._send_json({"type": "ack"})

    async def _send_json(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(payload))

    async def _close(self, code: int) -> None:
        self.closing = True
        await self.close(code=code)
