"""Publishing a problem (its live version must have passed validation) and hiding it."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from core.edges import form_edge
from studio.services import publishing
from studio.views.access import (
    author_required,
    editable,
    problem_back,
    problem_url,
    request_user,
)


@author_required
@form_edge(scope="studio", back=problem_back)
def problem_publish(request: HttpRequest, slug: str) -> HttpResponse:
    problem = editable(request, slug)
    publishing.problem_publish(
        problem=problem,
        user=request_user(request),
        confirm_low_limit=request.POST.get("confirm_low_limit") == "on",
    )
    messages.success(request, f"{problem.title} is published.")
    return problem_url(problem)


@author_required
@form_edge(scope="studio", back=problem_back)
def problem_unpublish(request: HttpRequest, slug: str) -> HttpResponse:
    problem = editable(request, slug)
    publishing.problem_unpublish(problem=problem)
    messages.success(request, f"{problem.title} is hidden from candidates.")
    return problem_url(problem)


@author_required
@form_edge(scope="studio", back=problem_back)
def problem_archive(request: HttpRequest, slug: str) -> HttpResponse:
    problem = editable(request, slug)
    publishing.problem_archive(problem=problem)
    messages.success(request, f"{problem.title} is archived: hidden from candidates, its "
                     "history kept. Publish it again to bring it back.")
    return problem_url(problem)


@author_required
@form_edge(scope="studio", back=problem_back)
def problem_delete(request: HttpRequest, slug: str) -> HttpResponse:
    """Delete a draft; the form asks for the slug typed again, as the confirmation."""
    problem = editable(request, slug)
    if request.POST.get("confirm_slug", "").strip() != problem.slug:
        messages.error(request, f"Type {problem.slug} to confirm deleting it.")
        return problem_url(problem)
    publishing.problem_delete(problem=problem)
    messages.success(request, f"{problem.title} is deleted.")
    return redirect("studio:index")
