"""Who gets into the studio, and the small helpers every studio view shares."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect
from django.urls import reverse

from core.roles import is_author
from problems.models import Problem, ProblemVersion
from studio import selectors
from studio.permissions import problem_can_edit

View = Callable[..., HttpResponse]


def author_required(view: View) -> View:
    """Authors and admins only. Signed out: the login page; signed in without the role: 403."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not is_author(request.user):
            raise PermissionDenied("The studio is for problem authors.")
        return view(request, *args, **kwargs)

    return wrapper


def editable(request: HttpRequest, slug: str) -> Problem:
    """The problem, if this user may change it; other authors read it but get 403 here."""
    problem = selectors.studio_problem_get(slug=slug)
    if not problem_can_edit(user=request.user, problem=problem):
        raise PermissionDenied("Only the problem's owner, its co-authors and admins edit it.")
    return problem


def request_user(request: HttpRequest) -> User | None:
    return request.user if isinstance(request.user, User) else None


def problem_url(problem: Problem) -> HttpResponseRedirect:
    return redirect("studio:problem", slug=problem.slug)


def version_url(version: ProblemVersion) -> HttpResponseRedirect:
    return redirect("studio:version", slug=version.problem.slug, number=version.number)


def problem_page_redirect(problem: Problem, anchor: str) -> HttpResponseRedirect:
    response = problem_url(problem)
    response["Location"] += f"#{anchor}"
    return response


# Where a refused studio button goes back to, its refusal as a message (core.edges.form_edge).


def index_back(request: HttpRequest, **_: Any) -> str:
    return reverse("studio:index")


def problem_back(request: HttpRequest, slug: str, **_: Any) -> str:
    return reverse("studio:problem", kwargs={"slug": slug})


def version_back(request: HttpRequest, slug: str, number: int, **_: Any) -> str:
    return reverse("studio:version", kwargs={"slug": slug, "number": number})
