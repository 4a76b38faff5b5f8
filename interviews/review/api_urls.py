"""Routes of the review API (mounted at /api/review/)."""

from __future__ import annotations

from django.urls import path

from interviews.review.api import (
    ReviewReportView,
    ReviewScoresView,
    ReviewSessionDetailView,
    ReviewSessionListView,
)

urlpatterns = [
    path("sessions", ReviewSessionListView.as_view(), name="api-review-sessions"),
    path("sessions/<int:session_id>", ReviewSessionDetailView.as_view(),
         name="api-review-session"),
    path("sessions/<int:session_id>/scores", ReviewScoresView.as_view(),
         name="api-review-scores"),
    path("sessions/<int:session_id>/report", ReviewReportView.as_view(),
         name="api-review-report"),
]
