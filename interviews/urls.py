"""Routes of the session pages and their JSON endpoints (mounted at /sessions/)."""

from __future__ import annotations

from django.urls import path

from interviews import views
from interviews.review import views as review_views

app_name = "interviews"

urlpatterns = [
    path("", views.session_list, name="list"),
    path("review/", review_views.dashboard_view, name="review_dashboard"),
    path("history/", review_views.history, name="history"),
    path("shared/<str:token>/", review_views.shared_report, name="shared_report"),
    path("shared/<str:token>/pdf", review_views.shared_report_pdf, name="shared_report_pdf"),
    path("shared/<str:token>/board.svg", review_views.shared_board, name="shared_board"),
    path("<int:session_id>/review/", review_views.review_page, name="review"),
    path("<int:session_id>/review/notes", review_views.review_note, name="review_note"),
    path("<int:session_id>/review/scorecard", review_views.scorecard_post, name="scorecard"),
    path("<int:session_id>/review/cite", review_views.scorecard_cite, name="scorecard_cite"),
    path("<int:session_id>/review/release", review_views.release, name="release"),
    path("<int:session_id>/review/assign", review_views.assign, name="assign"),
    path("<int:session_id>/report/", review_views.report, name="report"),
    path("<int:session_id>/report.pdf", review_views.report_pdf, name="report_pdf"),
    path("<int:session_id>/report/board.svg", review_views.report_board, name="report_board"),
    path("<int:session_id>/report/share", review_views.share_create, name="share_create"),
    path("<int:session_id>/report/share/<int:share_id>/revoke", review_views.share_revoke,
         name="share_revoke"),
    path("solo/", views.session_start, name="start"),
    path("solo/<slug:slug>/v<int:number>/", views.session_start_version, name="start_version"),
    path("live/", views.session_schedule, name="schedule"),
    path("join/<str:token>/", views.session_join, name="join"),
    path("<int:session_id>/", views.session_detail, name="detail"),
    path("<int:session_id>/state", views.session_state, name="state"),
    path("<int:session_id>/run", views.session_run, name="run"),
    path("<int:session_id>/finish", views.session_finish, name="finish"),
    path("<int:session_id>/done", views.session_done, name="done"),
    path("<int:session_id>/extend", views.session_extend, name="extend"),
    path("<int:session_id>/co-interviewers", views.co_interviewer_add, name="co_interviewers"),
    path("<int:session_id>/questions", views.question_ask, name="ask"),
    path("<int:session_id>/questions/<int:question_id>/answer", views.question_answer,
         name="answer"),
    path("<int:session_id>/notes", views.note_add, name="notes"),
    path("<int:session_id>/hints", views.hint_reveal, name="hint"),
    path("<int:session_id>/events", views.page_event, name="events"),
    path("<int:session_id>/settings", views.session_settings, name="settings"),
    path("<int:session_id>/chat", views.chat_send, name="chat"),
    path("<int:session_id>/call-link", views.call_link_set, name="call_link"),
    path("<int:session_id>/private-notes", views.private_note_add, name="private_notes"),
    path("<int:session_id>/canned/<int:index>", views.canned_send, name="canned"),
    path("<int:session_id>/hints/reveal", views.hint_reveal_for_candidate, name="hint_reveal"),
    path("<int:session_id>/schedule/", views.schedule_manage, name="schedule_manage"),
    path("<int:session_id>/replay/", views.session_replay, name="replay"),
    path("<int:session_id>/replay/data", views.replay_data, name="replay_data"),
]
