"""The calibration page (`/loops/calibration/`): every interviewer's rubric levels against the
panel's on the same problems (`loops.calibration`). Admins and recruiters only: anyone else
signed in gets the 403 page that says why, as the review dashboard does."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from core.roles import is_recruiter
from loops import calibration


@login_required
@require_GET
def calibration_page(request: HttpRequest) -> HttpResponse:
    if not is_recruiter(request.user):
        raise PermissionDenied("Calibration is for recruiters and admins: ask an admin to give "
                               "this account the recruiter role.")
    return render(request, "loops/calibration.html", calibration.page_context())
