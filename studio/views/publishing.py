"""Publishing a problem (its live version must have passed validation) and hiding it."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_POST

from studio.services import publishing
from studio.services.errors import ProblemActionError
from studio.views.access import author_required, editable, problem_url


@author_required
@require_POST
def problem_publish(request: HttpRequest, slug: str) -> HttpResponse:
    problem = editable(request, slug)
    try:
        publishing.problem_publish(problem=problem)
    except ProblemActionError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"{problem.title} is published.")
    return problem_url(problem)


@author_required
@require_POST
def problem_unpublish(request: HttpRequest, slug: str) -> HttpResponse:
    problem = editable(request, slug)
    publishing.problem_unpublish(problem=problem)
    messages.success(request, f"{problem.title} is hidden from candidates.")
    return problem_url(problem)
