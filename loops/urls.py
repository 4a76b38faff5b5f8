"""Routes of the loop pages and their endpoints (mounted at `/loops/`)."""

from __future__ import annotations

from django.urls import URLPattern, path

from loops import views

app_name = "loops"

urlpatterns: list[URLPattern] = [
    # -- scheduling (issue 39 point 1): the list, the builder, the day, the invitation
    path("", views.loop_list, name="loops"),
    path("new/", views.loop_new, name="loop_new"),
    path("join/<str:token>/", views.loop_join, name="loop_join"),
    path("<int:loop_id>/", views.loop_detail, name="loop"),
    path("<int:loop_id>/schedule", views.loop_schedule_change, name="loop_schedule"),
    # -- end of scheduling
]
