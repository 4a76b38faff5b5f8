"""A version's page: its validation report and regrade preview (polled by htmx while they
run), and the actions on it: validate, regrade, make live, apply the suggested limit."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from core.edges import form_edge
from problems.models import ProblemVersion
from problems.package import PackageError
from problems.services import problem_to_package
from studio import selectors
from studio.models import Regrade
from studio.permissions import problem_can_edit
from studio.services.conflicts import EditConflict
from studio.services.diffs import files_diff, package_files
from studio.services.errors import ProblemActionError
from studio.services.publishing import limit_below_suggestion, version_make_live
from studio.services.regrades import version_regrade_preview
from studio.services.revisions import Revision, version_revision
from studio.services.rules import version_rules, version_shown_labels
from studio.services.validations import version_validation_request, version_validation_state
from studio.services.versions import version_create
from studio.views.access import (
    author_required,
    editable,
    request_user,
    version_back,
    version_url,
)
from studio.views.conflicts import merged_tell, merging_with

ACTIVE_VALIDATION = (ProblemVersion.Validation.PENDING, ProblemVersion.Validation.RUNNING)
ACTIVE_REGRADE = (Regrade.Status.QUEUED, Regrade.Status.RUNNING)


def _version_context(request: HttpRequest, version: ProblemVersion) -> dict[str, Any]:
    problem = version.problem
    regrade = selectors.regrade_latest(version)
    state = version_validation_state(version)
    report = version.validation_report or {}
    timing = report.get("timing") or {}
    suggested = timing.get("suggested_limit_seconds")
    wall, cpu = version.limits.get("test_wall_seconds"), version.limits.get("test_cpu_seconds")
    return {
        "problem": problem,
        "version": version,
        "state": state,
        "report": report,
        "checks": report.get("checks", []),
        "timing": timing,
        # Offer the suggested limit only when it would change something.
        "limit_differs": suggested is not None and not wall == cpu == suggested,
        "live": problem.live_version_id == version.pk,
        "live_label": selectors.live_label(problem, version),
        "regrade": regrade,
        "regrade_items": selectors.regrade_items(regrade) if regrade else [],
        "transitions": selectors.regrade_transitions(regrade) if regrade else [],
        "can_edit": problem_can_edit(user=request.user, problem=problem),
        # Going live on a published problem below the suggested limit needs a confirmation.
        "low_limit": limit_below_suggestion(version) if problem.published else None,
        "rules": version_rules(version),
        # The state the apply-limit form is based on (merged onto whatever was saved since).
        "version_token": version_revision(version).token,
        "shown_labels": version_shown_labels(version),
        "polling": version.validation in ACTIVE_VALIDATION
        or (regrade is not None and regrade.status in ACTIVE_REGRADE),
    }


@author_required
@require_GET
def version_detail(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """A version: its validation report, its regrade preview, and the actions on it."""
    problem = selectors.studio_problem_get(slug=slug)
    version = selectors.studio_version_get(problem=problem, number=number)
    context = _version_context(request, version) | version_contents(request, version) | {
        "limit_confirmations": selectors.limit_confirmations(version),
    }
    return render(request, "studio/version.html", context)


def version_contents(request: HttpRequest, version: ProblemVersion) -> dict[str, Any]:
    """The version's package as files, and its diff against another version (`?against=N`,
    default the one before it; `?against=` with no number: none)."""
    problem = version.problem
    numbers = list(problem.versions.order_by("-number").values_list("number", flat=True))
    raw = request.GET.get("against")
    if raw is None:
        against = max((n for n in numbers if n < version.number), default=None)
    else:
        against = int(raw) if raw.isdigit() and int(raw) in numbers else None
    files = package_files(problem_to_package(problem=problem, version=version))
    diffs = None
    if against is not None and against != version.number:
        other = selectors.studio_version_get(problem=problem, number=against)
        diffs = files_diff(package_files(problem_to_package(problem=problem, version=other)), files)
    return {
        "files": files,
        "against": against,
        "other_numbers": [n for n in numbers if n != version.number],
        "diffs": diffs,
    }


@author_required
@require_GET
def version_panel(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """An htmx fragment polled while a validation or regrade runs."""
    problem = selectors.studio_problem_get(slug=slug)
    version = selectors.studio_version_get(problem=problem, number=number)
    return render(request, "studio/_version_panel.html", _version_context(request, version))


@author_required
@form_edge(scope="studio", back=version_back)
def version_validate(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    problem = editable(request, slug)
    version = selectors.studio_version_get(problem=problem, number=number)
    # Said by the version panel while it runs (polled, so it goes when the result comes),
    # not by a message that would outlive it (issue 36.10).
    if not version_validation_request(version=version):
        messages.warning(request, f"v{version.number} is being validated already.")
    return version_url(version)


@author_required
@form_edge(scope="studio", back=version_back)
def version_regrade(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    problem = editable(request, slug)
    version = selectors.studio_version_get(problem=problem, number=number)
    regrade = version_regrade_preview(version=version, user=request_user(request))
    messages.info(request, f"Regrading {regrade.total} past submission(s) against v{number}.")
    return version_url(version)


@author_required
@form_edge(scope="studio", back=version_back)
def version_live(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    problem = editable(request, slug)
    version = selectors.studio_version_get(problem=problem, number=number)
    version_make_live(
        version=version,
        user=request_user(request),
        confirm_low_limit=request.POST.get("confirm_low_limit") == "on",
    )
    messages.success(request, f"v{version.number} is live: new submissions grade on it.")
    return version_url(version)


@author_required
@form_edge(scope="studio", back=version_back)
def version_apply_limit(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """A new version from this one with the time limit the validation suggested."""
    problem = editable(request, slug)
    version = selectors.studio_version_get(problem=problem, number=number)
    timing = (version.validation_report or {}).get("timing") or {}
    seconds = timing.get("suggested_limit_seconds")
    if not isinstance(seconds, int | float):
        messages.error(request, "This version has no timing report to take a limit from.")
        return version_url(version)
    limits = {"test_wall_seconds": float(seconds), "test_cpu_seconds": float(seconds)}
    shown = Revision.parse(request.POST.get("base"))
    note = merging_with(request, problem)
    try:
        if shown is not None and shown.number == version.number:
            new, created = version_create(
                problem=problem, limits=limits, user=request_user(request),
                based_on=shown.token, onto=request.POST.get("onto") or None,
            )
        else:  # a form without its base: this version as it is now
            new, created = version_create(
                problem=problem, base=version, limits=limits, user=request_user(request)
            )
    except EditConflict as exc:
        places = "; ".join(
            f"{h.where}: yours {h.mine}, {exc.who}'s {h.theirs}" for h in exc.hunks
        )
        messages.error(request, f"Not saved: {exc.who} changed the same limit since "
                       f"({exc.head_revision.label}): {places}. Set it in the limits form.")
        return version_url(version)
    except (PackageError, ProblemActionError) as exc:
        messages.error(request, str(exc))
        return version_url(version)
    if created:
        messages.success(request, f"Saved as v{new.number} with a {seconds:g} s limit.")
    else:
        messages.info(request, f"v{new.number} already has these tests and limits.")
    merged_tell(request, note)
    return version_url(new)


@author_required
@require_GET
def test_download(
    request: HttpRequest, slug: str, number: int, where: str, index: int, part: str
) -> HttpResponse:
    """One test's whole input or expected output as a JSON file (the table shows its start)."""
    problem = selectors.studio_problem_get(slug=slug)
    version = selectors.studio_version_get(problem=problem, number=number)
    value = selectors.test_part(version=version, where=where, index=index, part=part)
    response = HttpResponse(
        json.dumps(value, allow_nan=True, ensure_ascii=False), content_type="application/json"
    )
    name = f"{problem.slug}-v{version.number}-{where}-{index}-{part}.json"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
