"""Routes of the authoring studio (mounted at /studio/ by config/urls.py)."""

from __future__ import annotations

from django.urls import path

from studio import views

app_name = "studio"

urlpatterns = [
    path("", views.studio_index, name="index"),
    path("new/", views.problem_new, name="new"),
    path("import/", views.problem_import, name="import"),
    path("<slug:slug>/", views.studio_problem, name="problem"),
    path("<slug:slug>/statement/", views.statement_save, name="statement"),
    path("<slug:slug>/statement/preview/", views.statement_preview, name="preview"),
    path("<slug:slug>/tests/", views.tests_save, name="tests"),
    path("<slug:slug>/parts/", views.parts_save, name="parts"),
    path("<slug:slug>/test/", views.test_save, name="test_save"),
    path(
        "<slug:slug>/test/<str:where>/<int:index>/<str:op>/",
        views.test_action,
        name="test_action",
    ),
    path("<slug:slug>/wrong/", views.wrong_add, name="wrong_add"),
    path("<slug:slug>/wrong/<int:index>/delete/", views.wrong_delete, name="wrong_delete"),
    path("<slug:slug>/export.zip", views.problem_export, name="export"),
    path("<slug:slug>/coauthors/", views.coauthor_add, name="coauthor_add"),
    path(
        "<slug:slug>/coauthors/<int:user_id>/remove/",
        views.coauthor_remove,
        name="coauthor_remove",
    ),
    path("<slug:slug>/publish/", views.problem_publish, name="publish"),
    path("<slug:slug>/unpublish/", views.problem_unpublish, name="unpublish"),
    path("<slug:slug>/v<int:number>/", views.version_detail, name="version"),
    path("<slug:slug>/v<int:number>/panel/", views.version_panel, name="version_panel"),
    path("<slug:slug>/v<int:number>/validate/", views.version_validate, name="validate"),
    path("<slug:slug>/v<int:number>/regrade/", views.version_regrade, name="regrade"),
    path("<slug:slug>/v<int:number>/live/", views.version_live, name="live"),
    path("<slug:slug>/v<int:number>/limit/", views.version_apply_limit, name="apply_limit"),
]
