"""A y-sync client for tests: a real pycrdt Doc talking to the session socket.

It speaks the same protocol as the page's provider (frontend/js/session/provider.js): on
connect it sends its state vector (step 1) and answers the server's step 1 with what the
server misses (step 2); each local edit is sent as one update and counted until acknowledged.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pycrdt
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from config.routing import websocket_urlpatterns
from interviews import collab


class WithUser:
    """ASGI middleware that puts a given user into the scope (what AuthMiddleware would do)."""

    def __init__(self, app: Any, user: Any) -> None:
        self.app, self.user = app, user

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        return await self.app(dict(scope, user=self.user), receive, send)


def doc_path(session_id: int) -> str:
    return f"/ws/sessions/{session_id}/doc/"


class YClient:
    def __init__(self, user: Any, session_id: int, *, doc: pycrdt.Doc[Any] | None = None) -> None:
        self.user = user
        self.session_id = session_id
        self.doc: pycrdt.Doc[Any] = doc if doc is not None else pycrdt.Doc()
        self.text = self.doc.get(collab.TEXT_NAME, type=pycrdt.Text)
        self.events: list[dict[str, Any]] = []
        self.awareness: list[collab.AwarenessEntry] = []
        self.pending = 0  # updates sent, not yet acknowledged
        self.communicator: WebsocketCommunicator | None = None
        self.close_code: int | None = None
        self.frame_sizes: list[int] = []  # every binary frame received, in bytes

    # -------------------------------------------------------------- connection

    async def connect(self) -> None:
        """Open the socket and complete the initial sync both ways."""
        app = WithUser(URLRouter(websocket_urlpatterns), self.user)
        self.communicator = WebsocketCommunicator(app, doc_path(self.session_id))
        connected, _ = await self.communicator.connect(timeout=30)
        assert connected
        self._got_step2 = False
        await self.send(collab.sync_step1_frame(self.doc.get_state()))
        # The server's step 1 comes first; answering it uploads offline edits.
        await self.pump(until=lambda c: c._got_step2 and c.pending == 0)

    async def disconnect(self) -> None:
        if self.communicator is not None:
            await self.communicator.disconnect()
            self.communicator = None

    async def send(self, frame: bytes) -> None:
        assert self.communicator is not None
        await self.communicator.send_to(bytes_data=frame)

    # -------------------------------------------------------------- editing

    def local_edit(self, edit: Any) -> bytes:
        """Apply `edit(text)` locally and return the update it made (not sent)."""
        before = self.doc.get_state()
        edit(self.text)
        return self.doc.get_update(before)

    async def edit(self, edit: Any, *, wait_ack: bool = True) -> bytes:
        update = self.local_edit(edit)
        self.pending += 1
        await self.send(collab.update_frame(update))
        if wait_ack:
            await self.flush()
        return update

    async def flush(self, timeout: float = 5) -> None:
        await self.pump(until=lambda c: c.pending == 0, timeout=timeout)

    # -------------------------------------------------------------- receiving

    _got_step2 = False

    async def receive_one(self, timeout: float = 30) -> dict[str, Any]:
        assert self.communicator is not None
        message = await self.communicator.receive_output(timeout=timeout)
        if message["type"] == "websocket.close":
            self.close_code = message.get("code")
            return message
        if message.get("bytes") is not None:
            self.frame_sizes.append(len(message["bytes"]))
            await self._handle_frame(message["bytes"])
        else:
            event = json.loads(message["text"])
            if event.get("type") in ("ack", "refused"):
                self.pending -= 1
            self.events.append(event)
        return message

    async def pump(self, *, until: Any, timeout: float = 30) -> None:
        while not until(self):
            message = await self.receive_one(timeout=timeout)
            if message["type"] == "websocket.close":
                raise AssertionError(f"socket closed with {message.get('code')}")

    async def drain(self, timeout: float = 0.3) -> None:
        """Take whatever arrives until the socket is quiet for `timeout` seconds."""
        assert self.communicator is not None
        while not await self.communicator.receive_nothing(timeout=timeout):
            await self.receive_one()

    async def _handle_frame(self, frame: bytes) -> None:
        message = collab.parse_message(frame)
        if message.kind == "step1":
            self.pending += 1
            await self.send(collab.sync_step2_frame(self.doc.get_update(message.payload)))
        elif message.kind in ("step2", "update"):
            if message.payload != collab.EMPTY_UPDATE:
                self.doc.apply_update(message.payload)
            if message.kind == "step2":
                self._got_step2 = True
        elif message.kind == "awareness":
            self.awareness.extend(collab.awareness_decode(message.payload))

    async def expect_close(self, timeout: float = 5) -> int | None:
        """Wait for the server to close the socket, then disconnect as a real server does after
        a close: the consumer runs its disconnect handler and exits. (Left running, it would be
        cancelled mid-handler when the test's event loop closes, which could hang that loop.)"""
        assert self.communicator is not None
        while True:
            message = await self.communicator.receive_output(timeout=timeout)
            if message["type"] == "websocket.close":
                self.close_code = message.get("code")
                await self.communicator.disconnect(code=self.close_code or 1000, timeout=30)
                self.communicator = None
                return self.close_code

    @property
    def code(self) -> str:
        return str(self.text)


async def close_code_for(user: Any, session_id: int) -> int | None:
    app = WithUser(URLRouter(websocket_urlpatterns), user)
    communicator = WebsocketCommunicator(app, doc_path(session_id))
    connected, _ = await communicator.connect(timeout=30)
    assert connected
    output = await communicator.receive_output(timeout=30)  # the door's answer, however late
    code = output.get("code") if output["type"] == "websocket.close" else None
    # Disconnect as a real server does (after a close too): the consumer exits now, where
    # `wait()` alone gave it a second and then cancelled it. (Still one second at most: a
    # disconnect that comes right after the close can find channels-redis's receive unable
    # to stop until its Redis read times out; `disconnect` cancels it after that second.)
    await communicator.disconnect(code=code or 1000)
    return code


def append(text: str) -> Callable[[pycrdt.Text], None]:
    def edit(ytext: pycrdt.Text) -> None:
        ytext += text

    return edit


async def refused_close(client: YClient) -> int | None:
    """Take the frames until the server closes (keeping the JSON events in client.events),
    then disconnect; the close code."""
    while True:
        message = await client.receive_one()
        if message["type"] == "websocket.close":
            assert client.communicator is not None
            await client.communicator.disconnect(code=client.close_code or 1000, timeout=30)
            client.communicator = None
            return client.close_code
