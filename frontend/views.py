"""Candidate pages: thin views that read through selectors and render templates."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from core.markdown import markdown_render
from frontend.selectors import problem_get_visible, problem_list_published
from grading.sandboxing import statement_time_limits


@require_GET
def problem_list(request: HttpRequest) -> HttpResponse:
    """`/`: every published problem with its difficulty and topics."""
    return render(request, "frontend/problem_list.html", {"problems": problem_list_published()})


@login_required
@require_GET
def problem_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """`/problems/<slug>/`: statement, editor, Run/Submit, results panel, hint reveal."""
    problem = problem_get_visible(slug=slug, user=request.user)
    context = {
        "problem": problem,
        "statement_html": markdown_render(problem.statement_md),
        "hint_count": len(problem.hints),
        "time_limits": (
            statement_time_limits(problem.live_version.limits) if problem.live_version else None
        ),
    }
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
