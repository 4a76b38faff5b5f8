"""Routes of the session pages and their JSON endpoints (mounted at /sessions/)."""

from __future__ import annotations

from django.urls import path

from interviews import views

app_name = "interviews"

urlpatterns = [
    path("", views.session_list, name="list"),
    path("solo/", views.session_start, name="start"),
    path("live/", views.session_schedule, name="schedule"),
    path("join/<str:token>/", views.session_join, name="join"),
    path("<int:session_id>/", views.session_detail, name="detail"),
    path("<int:session_id>/state", views.session_state, name="state"),
    path("<int:session_id>/run", views.session_run, name="run"),
    path("<int:session_id>/finish", views.session_finish, name="finish"),
    path("<int:session_id>/questions", views.question_ask, name="ask"),
    path("<int:session_id>/questions/<int:question_id>/answer", views.question_answer,
         name="answer"),
    path("<int:session_id>/notes", views.note_add, name="notes"),
    path("<int:session_id>/events", views.page_event, name="events"),
    path("<int:session_id>/settings", views.session_settings, name="settings"),
    path("<int:session_id>/replay/", views.session_replay, name="replay"),
    path("<int:session_id>/replay/data", views.replay_data, name="replay_data"),
]
