"""Routes of the loop pages and their endpoints (mounted at `/loops/`)."""

from __future__ import annotations

from django.urls import URLPattern, path

from loops import views_calibration

app_name = "loops"

urlpatterns: list[URLPattern] = []

# Calibration (issue 39, point 4): admins and recruiters.
urlpatterns += [
    path("calibration/", views_calibration.calibration_page, name="calibration"),
]
