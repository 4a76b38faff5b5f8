"""Routes of the loops API (mounted at /api/loops/)."""

from __future__ import annotations

from django.urls import path

from loops.api import LoopDetailView, LoopListView, LoopScheduleView

urlpatterns = [
    path("", LoopListView.as_view(), name="api-loops"),
    path("<int:loop_id>", LoopDetailView.as_view(), name="api-loop"),
    path("<int:loop_id>/schedule", LoopScheduleView.as_view(), name="api-loop-schedule"),
]
