"""The hiring packet's pages (thin: loops.services.packet says what it holds, loops.services.
debrief records the decision): the packet (HTML and PDF), the debrief's form posts, and the
candidate's combined feedback report. Anyone who may not open a loop's packet gets the 404
of a missing loop."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from core import visibility
from core.edges import form_edge
from core.errors import ApplicationError
from interviews.review import dashboard
from loops import pdf
from loops.models import Loop
from loops.services import debrief, packet, report


def _loop(loop_id: int) -> Loop:
    return get_object_or_404(
        Loop.objects.select_related("candidate", "hiring_manager", "decided_by", "created_by"),
        pk=loop_id)


def _packet(request: HttpRequest, loop: Loop,
            channel: visibility.Channel = visibility.Channel.PAGE) -> dict[str, Any]:
    try:
        return packet.packet(loop, request.user, channel)
    except packet.PacketMissing:
        raise Http404("No such loop.") from None


def _packet_page(request: HttpRequest, loop: Loop, *, error: str = "",
                 posted: dict[str, str] | None = None, status: int = 200) -> HttpResponse:
    context = _packet(request, loop)
    context["error"] = error
    context["posted"] = posted or {}
    context["pdf_url"] = reverse("loops:packet_pdf", kwargs={"loop_id": loop.pk})
    return render(request, "loops/packet.html", context, status=status)


@login_required
@require_GET
def packet_page(request: HttpRequest, loop_id: int) -> HttpResponse:
    """`/loops/<id>/packet/`: the hiring packet."""
    return _packet_page(request, _loop(loop_id))


@login_required
@require_GET
def packet_pdf(request: HttpRequest, loop_id: int) -> HttpResponse:
    """The packet as a PDF, its times in the zone the page's link sends (`?tz=`), else UTC."""
    loop = _loop(loop_id)
    data = _packet(request, loop, visibility.Channel.PDF)
    body = pdf.packet_pdf(data, zone=dashboard.zone_name(request.GET.get("tz")))
    response = HttpResponse(body, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="onsite-packet-{loop.pk}.pdf"'
    response["Cache-Control"] = "private, no-store"
    return response


def _decision_posted(request: HttpRequest) -> dict[str, str]:
    return {"decision": request.POST.get("decision", ""),
            "reason": request.POST.get("reason", "")}


def _decision_refused(request: HttpRequest, exc: ApplicationError, loop_id: int) -> HttpResponse:
    """The packet again, the refusal above the debrief form, every value as typed."""
    return _packet_page(request, _loop(loop_id), error=exc.message,
                        posted=_decision_posted(request), status=400)


def _to_debrief(loop_id: int) -> HttpResponse:
    return redirect(reverse("loops:packet", kwargs={"loop_id": loop_id}) + "#debrief")


def _back_to_packet(request: HttpRequest, loop_id: int, **_: Any) -> str:
    return reverse("loops:packet", kwargs={"loop_id": loop_id}) + "#debrief"


@login_required
@form_edge(scope="reviews", on_error=_decision_refused, pages=("not_found", "forbidden"))
def packet_decision(request: HttpRequest, loop_id: int) -> HttpResponse:
    """The debrief's form: record or amend the decision and its reason (`action=close`
    records it and closes the loop: final)."""
    posted = _decision_posted(request)
    debrief.decision_record(loop=_loop(loop_id), user=request.user,
                            decision=posted["decision"], reason=posted["reason"],
                            close=request.POST.get("action") == "close")
    return _to_debrief(loop_id)


@login_required
@form_edge(scope="reviews", back=_back_to_packet, pages=("not_found", "forbidden"))
def packet_close(request: HttpRequest, loop_id: int) -> HttpResponse:
    """Close the loop on the decision recorded: no amendment after this."""
    debrief.decision_close(loop=_loop(loop_id), user=request.user)
    return _to_debrief(loop_id)


@login_required
@form_edge(scope="reviews", back=_back_to_packet, pages=("not_found", "forbidden"))
def packet_release(request: HttpRequest, loop_id: int) -> HttpResponse:
    """Release the candidate's combined feedback report."""
    debrief.feedback_release(loop=_loop(loop_id), user=request.user)
    return _to_debrief(loop_id)


@login_required
@require_GET
def loop_report(request: HttpRequest, loop_id: int) -> HttpResponse:
    """`/loops/<id>/report/`: the candidate's combined feedback report (once released)."""
    loop = _loop(loop_id)
    try:
        context = report.combined_report(loop, request.user)
    except packet.PacketMissing:
        raise Http404("No such loop.") from None
    return render(request, "loops/report.html", context)
