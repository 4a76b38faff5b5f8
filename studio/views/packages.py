"""Packages in and out: a `.zip` uploaded as a problem (or a new version of one) and a
problem downloaded as one."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_GET

from core.edges import form_edge
from problems.package import PackageError
from studio import selectors
from studio.forms import (
    ImportForm,
)
from studio.services.errors import ProblemActionError
from studio.services.packages import MAX_UPLOAD_BYTES, problem_export_zip, problem_import_zip
from studio.views.access import author_required, index_back, problem_url, request_user


@author_required
@form_edge(scope="studio", back=index_back)
def problem_import(request: HttpRequest) -> HttpResponse:
    """Upload a package `.zip` (the problems/bank/ folder format)."""
    form = ImportForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, "Choose a package .zip to import.")
        return redirect("studio:index")
    user = request_user(request)
    assert user is not None  # author_required
    upload = form.cleaned_data["archive"]
    if upload.size > MAX_UPLOAD_BYTES:
        messages.error(request, f"The archive is larger than {MAX_UPLOAD_BYTES} bytes.")
        return redirect("studio:index")
    try:
        problem, version, new = problem_import_zip(data=upload.read(), user=user)
    except PackageError as exc:
        messages.error(request, f"Refused, nothing imported: {exc}")
        return redirect("studio:index")
    except ProblemActionError as exc:
        messages.error(request, exc.message)
        return redirect("studio:index")
    what = "imported as a new problem" if new else f"imported as v{version.number}"
    messages.success(request, f"{problem.title} {what}; it is validated in the background.")
    return problem_url(problem)


@author_required
@require_GET
def problem_export(request: HttpRequest, slug: str) -> HttpResponse:
    """The problem as a package `.zip` (`?v=N` for a version; default the live one)."""
    problem = selectors.studio_problem_get(slug=slug)
    version = None
    if request.GET.get("v"):
        try:
            number = int(request.GET["v"])
        except ValueError as exc:
            raise Http404("no such version") from exc
        version = selectors.studio_version_get(problem=problem, number=number)
    data = problem_export_zip(problem=problem, version=version)
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{problem.slug}.zip"'
    return response
