"""Routes of the candidate pages (mounted at the site root by config/urls.py)."""

from __future__ import annotations

from django.urls import path

from frontend import views

app_name = "frontend"

urlpatterns = [
    path("", views.problem_list, name="problem_list"),
    path("submissions/", views.practice_history, name="practice_history"),
    path("accessibility/", views.accessibility, name="accessibility"),
    path("accounts/editor-preferences", views.editor_preferences_save, name="editor_preferences"),
    path("problems/<slug:slug>/", views.problem_detail, name="problem_detail"),
    path("problems/<slug:slug>/hints/<int:number>/", views.problem_hint, name="problem_hint"),
]
