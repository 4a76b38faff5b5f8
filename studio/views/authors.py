"""Co-authors: the owner (or an admin) lets another author edit the problem, or stops."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse

from core.edges import form_edge
from studio.services.authors import problem_coauthor_add, problem_coauthor_remove
from studio.views.access import author_required, editable, problem_back, problem_page_redirect


def _authors_back(request: HttpRequest, slug: str) -> str:
    return problem_back(request, slug) + "#authors"


@author_required
@form_edge(scope="studio", back=_authors_back)
def coauthor_add(request: HttpRequest, slug: str) -> HttpResponse:
    problem = editable(request, slug)
    user = problem_coauthor_add(problem=problem, username=request.POST.get("username", "").strip())
    messages.success(request, f"{user.username} can now edit {problem.title}.")
    return problem_page_redirect(problem, "authors")


@author_required
@form_edge(scope="studio", back=problem_back)
def coauthor_remove(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    problem = editable(request, slug)
    problem_coauthor_remove(problem=problem, user_id=user_id)
    messages.success(request, "Co-author removed.")
    return problem_page_redirect(problem, "authors")
