"""Websocket routes of every app."""

from __future__ import annotations

from django.urls import path

from grading.consumers import SubmissionConsumer

websocket_urlpatterns = [
    path("ws/submissions/<int:submission_id>/", SubmissionConsumer.as_asgi()),
]
