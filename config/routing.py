"""Websocket routes of every app, and one answer for any other path."""

from __future__ import annotations

from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import path, re_path

from core.realtime import CLOSE_NOT_FOUND
from grading.consumers import SubmissionConsumer
from interviews.consumers import SessionDocConsumer


class UnknownPathConsumer(AsyncWebsocketConsumer):
    """Any path no route matches: accepted so that the close code arrives, then closed."""

    async def connect(self) -> None:
        await self.accept()
        await self.close(code=CLOSE_NOT_FOUND)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Nothing is read from a socket about to close."""


websocket_urlpatterns = [
    path("ws/submissions/<int:submission_id>/", SubmissionConsumer.as_asgi()),
    path("ws/sessions/<int:session_id>/doc/", SessionDocConsumer.as_asgi()),
    re_path(r"", UnknownPathConsumer.as_asgi()),
]
