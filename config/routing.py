"""Websocket routes of every app."""

from __future__ import annotations

from django.urls import path

from grading.consumers import SubmissionConsumer
from interviews.consumers import SessionDocConsumer

websocket_urlpatterns = [
    path("ws/submissions/<int:submission_id>/", SubmissionConsumer.as_asgi()),
    path("ws/sessions/<int:session_id>/doc/", SessionDocConsumer.as_asgi()),
]
