"""Candidate pages: thin views that read through selectors and render templates."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from core.editorprefs import editor_prefs_save
from core.endpoints import Body, json_endpoint
from core.markdown import markdown_render
from frontend.selectors import (
    DIFFICULTIES,
    STATUSES,
    ProblemFilters,
    practice_history_list,
    problem_get_visible,
    problem_list_filtered,
    problem_list_published,
    problem_status_by_slug,
    problem_topics_published,
)
from grading.problempage import problem_page_of
from problems.models import Problem


@require_GET
def problem_list(request: HttpRequest) -> HttpResponse:
    """`/`: the published problems, searchable and filtered by topic, difficulty, queue and the
    user's own status (solved / attempted / new)."""
    filters = ProblemFilters.from_params(request.GET)
    status_by_slug = problem_status_by_slug(user=request.user)
    problems = problem_list_filtered(filters=filters, status_by_slug=status_by_slug)
    context = {
        "rows": [(p, status_by_slug.get(p.slug, "new")) for p in problems],
        "filters": filters,
        "topics": problem_topics_published(),
        "difficulties": DIFFICULTIES,
        "queues": Problem.Queue.values,
        "statuses": STATUSES,
        "total": problem_list_published().count(),
        "solved": sum(1 for s in status_by_slug.values() if s == "solved"),
    }
    return render(request, "frontend/problem_list.html", context)


@require_GET
def accessibility(request: HttpRequest) -> HttpResponse:
    """`/accessibility/`: the accessibility statement (issue 40.6), linked from every footer and
    open to everyone, signed in or not."""
    return render(request, "frontend/accessibility.html")


@login_required
@require_GET
def practice_history(request: HttpRequest) -> HttpResponse:
    """`/submissions/`: the user's own Run and Submit history, with verdicts and code."""
    slug = str(request.GET.get("problem", ""))[:80]
    paginator = Paginator(practice_history_list(user=request.user, problem_slug=slug), 20)
    page = paginator.get_page(request.GET.get("page"))
    return render(request, "frontend/history.html", {"page": page, "problem_slug": slug})


@login_required
@require_GET
def problem_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """`/problems/<slug>/`: statement, editor, Run/Submit, results panel, hint reveal. A design
    problem's page has no code desk (nothing of it runs): it starts a solo design round."""
    problem = problem_get_visible(slug=slug, user=request.user)
    # The declared input constraints are rendered into the statement (issue 36.10).
    context = {"problem": problem, **problem_page_of(problem)}
    return render(request, "frontend/problem_detail.html", context)


@login_required
@require_GET
def problem_hint(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """An htmx fragment: hint `number` (1-based) and the button that reveals the next one.

    Hints are fetched one at a time instead of shipped hidden in the page, so a candidate who
    reads the page source sees no hint they did not ask for.
    """
    problem = problem_get_visible(slug=slug, user=request.user)
    hints = list(problem.hints)
    if not 1 <= number <= len(hints):
        raise Http404("No such hint.")
    context = {
        "problem": problem,
        "number": number,
        "hint_html": markdown_render(str(hints[number - 1])),
        "hint_count": len(hints),
        "next_number": number + 1 if number < len(hints) else None,
    }
    return render(request, "frontend/_hint.html", context)


@login_required
@json_endpoint(scope="preferences")
def editor_preferences_save(request: HttpRequest, body: Body) -> HttpResponse:
    """The desk's settings menu: `{name: value, …}` (core/editorprefs.py) stored for the user,
    so another browser opens with them; answers the whole stored set."""
    return JsonResponse({"prefs": editor_prefs_save(user=request.user, changes=body)})
