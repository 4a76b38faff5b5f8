"""The websocket a page opens to follow one submission's grading live.

The socket is one-way: whatever the client sends (text, binary, JSON or not) is ignored.
A submission that does not exist and one the user may not see close alike (4404).
"""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from core.realtime import CLOSE_NOT_FOUND, CLOSE_UNAUTHENTICATED
from grading import events, realtime, selectors

__all__ = ["CLOSE_NOT_FOUND", "CLOSE_UNAUTHENTICATED", "SubmissionConsumer"]


class SubmissionConsumer(AsyncWebsocketConsumer):
    """Joins the submission's group for the user's audience, replays what is known, forwards."""

    groups: list[str] = []

    async def connect(self) -> None:
        user = self.scope.get("user")
        submission_id = int(self.scope["url_route"]["kwargs"]["submission_id"])
        # Accept first so the close code reaches the browser (a refused handshake has none).
        await self.accept()
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        access = await database_sync_to_async(selectors.submission_access)(
            user=user, submission_id=submission_id
        )
        if access is None or not access.allowed:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        # Join before reading the snapshot, so nothing between the two is missed; the page
        # ignores a test it already has.
        self.group = realtime.submission_group(submission_id, staff=access.staff)
        await self.channel_layer.group_add(self.group, self.channel_name)
        for event in await database_sync_to_async(events.submission_replay)(
            submission_id=submission_id, staff=access.staff
        ):
            await self.send_json(event)

    async def disconnect(self, code: int) -> None:
        group = getattr(self, "group", None)
        if group:
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """This socket is one-way: anything the client sends is ignored, garbage included."""

    async def send_json(self, content: Any) -> None:
        await self.send(text_data=json.dumps(content))

    async def submission_event(self, message: dict[str, Any]) -> None:
        await self.send_json(message["payload"])
