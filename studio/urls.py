"""Routes of the authoring studio (mounted at /studio/ by config/urls.py)."""

from __future__ import annotations

from django.urls import path

from studio.views import authors, packages, problems, publishing, testcases, tryout, versions

app_name = "studio"

urlpatterns = [
    path("", problems.studio_index, name="index"),
    path("new/", problems.problem_new, name="new"),
    path("import/", packages.problem_import, name="import"),
    path("<slug:slug>/", problems.studio_problem, name="problem"),
    path("<slug:slug>/statement/", problems.statement_save, name="statement"),
    path("<slug:slug>/statement/preview/", problems.statement_preview, name="preview"),
    path("<slug:slug>/tests/", testcases.tests_save, name="tests"),
    path("<slug:slug>/limits/", testcases.limits_save, name="limits"),
    path("<slug:slug>/parts/", problems.parts_save, name="parts"),
    path("<slug:slug>/test/", testcases.test_save, name="test_save"),
    path("<slug:slug>/tests/rebuild/", testcases.generated_rebuild, name="generated_rebuild"),
    path(
        "<slug:slug>/test/<str:where>/<int:index>/<str:op>/",
        testcases.test_action,
        name="test_action",
    ),
    path("<slug:slug>/wrong/", problems.wrong_add, name="wrong_add"),
    path("<slug:slug>/wrong/<int:index>/delete/", problems.wrong_delete, name="wrong_delete"),
    path("<slug:slug>/known/", problems.known_add, name="known_add"),
    path("<slug:slug>/known/<int:index>/delete/", problems.known_delete, name="known_delete"),
    path("<slug:slug>/export.zip", packages.problem_export, name="export"),
    path("<slug:slug>/coauthors/", authors.coauthor_add, name="coauthor_add"),
    path(
        "<slug:slug>/coauthors/<int:user_id>/remove/",
        authors.coauthor_remove,
        name="coauthor_remove",
    ),
    path("<slug:slug>/publish/", publishing.problem_publish, name="publish"),
    path("<slug:slug>/unpublish/", publishing.problem_unpublish, name="unpublish"),
    path("<slug:slug>/archive/", publishing.problem_archive, name="archive"),
    path("<slug:slug>/delete/", publishing.problem_delete, name="delete"),
    path("<slug:slug>/v<int:number>/", versions.version_detail, name="version"),
    path("<slug:slug>/v<int:number>/panel/", versions.version_panel, name="version_panel"),
    path("<slug:slug>/v<int:number>/validate/", versions.version_validate, name="validate"),
    path("<slug:slug>/v<int:number>/regrade/", versions.version_regrade, name="regrade"),
    path("<slug:slug>/v<int:number>/live/", versions.version_live, name="live"),
    path("<slug:slug>/v<int:number>/limit/", versions.version_apply_limit, name="apply_limit"),
    path("<slug:slug>/v<int:number>/try/", tryout.version_tryout, name="tryout"),
    path(
        "<slug:slug>/v<int:number>/try/hints/<int:hint>/",
        tryout.version_tryout_hint,
        name="tryout_hint",
    ),
    path(
        "<slug:slug>/v<int:number>/test/<str:where>/<int:index>/<str:part>.json",
        versions.test_download,
        name="test_download",
    ),
]
