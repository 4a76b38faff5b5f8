"""Routes of the loop pages and their endpoints (mounted at `/loops/`)."""

from __future__ import annotations

from django.urls import URLPattern, path

from loops import views_calibration, views_practice

app_name = "loops"

urlpatterns: list[URLPattern] = []

# Calibration (issue 39, point 4): admins and recruiters.
urlpatterns += [
    path("calibration/", views_calibration.calibration_page, name="calibration"),
]

# A mock onsite for one person (issue 39, point 5): book, take the rounds, read the report.
urlpatterns += [
    path("practice/", views_practice.practice_list, name="practice"),
    path("practice/book", views_practice.practice_book, name="practice_book"),
    path("practice/<int:loop_id>/", views_practice.practice_loop, name="practice_loop"),
    path("practice/<int:loop_id>/rounds/<int:position>/start", views_practice.practice_start,
         name="practice_start"),
]
