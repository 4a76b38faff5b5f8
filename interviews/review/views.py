"""Pages of the review: dashboard, a session's review page, the feedback report (HTML, PDF,
share links) and the candidate's practice history.

Anyone who may not see a session gets the 404 of a session that does not exist.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from core import visibility
from core.edges import form_edge
from core.endpoints import Body, json_endpoint, text_field
from core.errors import ApplicationError
from core.roles import is_interviewer
from interviews.models import InterviewSession, ReportShare
from interviews.review import access, dashboard, pdf, selectors, services
from interviews.services import has_board, session_doors


def _session(session_id: int) -> InterviewSession:
    return get_object_or_404(
        InterviewSession.objects.select_related("problem", "candidate", "interviewer",
                                                "final_submission"),
        pk=session_id,
    )


def _reviewable(request: HttpRequest, session_id: int) -> InterviewSession:
    """The review's door (core.visibility.session_access): its interviewers and admins."""
    session = _session(session_id)
    if session_doors(session, request.user).review != visibility.Door.OPEN:
        raise Http404("No such session.")
    return session


def _back(session_id: int, *, error: str = "", anchor: str = "") -> HttpResponse:
    url = reverse("interviews:review", kwargs={"session_id": session_id})
    if error:
        url += "?" + urlencode({"error": error})
    return redirect(url + anchor)


def _refused(request: HttpRequest, exc: ApplicationError, session_id: int) -> HttpResponse:
    """The review page again, the refusal above it (the form edge's `on_error`)."""
    return _back(session_id, error=exc.message)


def _to_report(request: HttpRequest, session_id: int, **_: Any) -> str:
    return reverse("interviews:report", kwargs={"session_id": session_id}) + "#share"


def _sort_links(request: HttpRequest, current: str) -> dict[str, dict[str, str]]:
    """Per sortable column: the URL that sorts by it (flipping the order when it is the
    current one; back to page 1), the arrow to show and its aria-sort."""
    links = {}
    for key in dashboard.SORTS:
        params = request.GET.copy()
        params.pop("page", None)
        descending = current == f"-{key}"
        params["sort"] = key if descending else f"-{key}"
        arrow = "▼" if descending else "▲" if current == key else ""
        aria = "descending" if descending else "ascending" if current == key else "none"
        links[key] = {"url": "?" + params.urlencode(), "arrow": arrow, "aria": aria}
    return links


def _page_url(request: HttpRequest, number: int) -> str:
    params = request.GET.copy()
    params["page"] = str(number)
    return "?" + params.urlencode()


@login_required
@require_GET
def dashboard_view(request: HttpRequest) -> HttpResponse:
    """`/sessions/review/`: the sessions this reviewer may review, filtered, sorted, paged."""
    if not is_interviewer(request.user):
        raise PermissionDenied(
            "Reviewing is for interviewers and admins: ask an admin to give this account "
            "the interviewer role.")
    filters = dashboard.dashboard_filters_parse(params=request.GET)
    page = dashboard.dashboard_page(user=request.user, filters=filters)
    context = {
        "page": page,
        "rows": page.object_list,
        "previous_url": _page_url(request, page.previous_page_number())
        if page.has_previous() else "",
        "next_url": _page_url(request, page.next_page_number()) if page.has_next() else "",
        "sorts": _sort_links(request, filters.sort),
        "filters": filters,
        "mine": dashboard.MINE,
        "sort_choices": dashboard.SORT_CHOICES,
        "statuses": InterviewSession.Status.values,
        "recommendations": dashboard.recommendation_choices(),
        "interviewers": dashboard.dashboard_interviewers(user=request.user),
        "problems": dashboard.dashboard_problems(user=request.user),
    }
    return render(request, "interviews/review/dashboard.html", context)


@login_required
@require_GET
def review_page(request: HttpRequest, session_id: int) -> HttpResponse:
    """`/sessions/<id>/review/`: runs with every test, notes, signals, the rubric form."""
    session = _reviewable(request, session_id)
    context = selectors.review_context(session, request.user)
    context["error"] = request.GET.get("error", "")
    return render(request, "interviews/review/review.html", context)


@login_required
@form_edge(scope="notes", on_error=_refused)
def review_note(request: HttpRequest, session_id: int) -> HttpResponse:
    session = _reviewable(request, session_id)
    services.review_note_add(session=session, user=request.user,
                             text=request.POST.get("text", ""))
    return _back(session_id, anchor="#review-notes")


def _scores_from_form(session: InterviewSession, post: Any) -> dict[str, dict[str, Any]]:
    return {c: {"level": post.get(f"level-{c}", ""), "comment": post.get(f"comment-{c}", ""),
                "evidence": post.getlist(f"evidence-{c}")}
            for c in services.criteria_of(session)}


def _scorecard_posted(session: InterviewSession, post: Any) -> dict[str, Any]:
    return {"recommendation": post.get("recommendation", ""),
            "summary": post.get("summary", ""),
            "scores": _scores_from_form(session, post)}


def _scorecard_refused(request: HttpRequest, exc: ApplicationError,
                       session_id: int) -> HttpResponse:
    """Re-render with every value as sent: one bad entry never wipes the form."""
    session = _reviewable(request, session_id)
    fields = exc.fields if isinstance(exc, services.ScorecardInvalid) else {}
    context = selectors.review_context(session, request.user,
                                       posted=_scorecard_posted(session, request.POST),
                                       field_errors=fields)
    context["error"] = exc.message
    return render(request, "interviews/review/review.html", context, status=400)


@json_endpoint(scope="scorecards")
def _scorecard_autosave(request: HttpRequest, body: Body, session_id: int) -> HttpResponse:
    session = _reviewable(request, session_id)
    card = services.scorecard_save(
        session=session, user=request.user,
        recommendation=text_field(body, "recommendation"), summary=text_field(body, "summary"),
        scores=_scores_from_form(session, request.POST), submit=False)
    return JsonResponse({"saved_at": card.updated_at.isoformat()})


@login_required
@form_edge(scope="scorecards", on_error=_scorecard_refused, pages=("forbidden",),
           autosave=_scorecard_autosave)
def scorecard_post(request: HttpRequest, session_id: int) -> HttpResponse:
    """The rubric form: save a draft, or submit (final). The page's autosave (an
    `X-Autosave: 1` POST of the same form) is a JSON endpoint and never submits."""
    session = _reviewable(request, session_id)
    posted = _scorecard_posted(session, request.POST)
    services.scorecard_save(
        session=session, user=request.user, recommendation=posted["recommendation"],
        summary=posted["summary"], scores=posted["scores"],
        submit=request.POST.get("action") == "submit",
    )
    return _back(session_id, anchor="#scorecard")


@login_required
@json_endpoint(scope="scorecards")
def scorecard_cite(request: HttpRequest, body: Body, session_id: int) -> HttpResponse:
    """The replay's cite buttons: `{"criterion", "evidence": "<kind>:<value>"}` adds one item
    to the criterion of the user's draft; answers the item's label."""
    session = _reviewable(request, session_id)
    score, chip = services.scorecard_evidence_add(
        session=session, user=request.user, criterion=text_field(body, "criterion"),
        token=text_field(body, "evidence"))
    return JsonResponse({"criterion": score.criterion, "label": chip.label,
                         "count": len(score.evidence), "board": chip.board})


@login_required
@form_edge(scope="reviews", on_error=_refused)
def release(request: HttpRequest, session_id: int) -> HttpResponse:
    session = _reviewable(request, session_id)
    services.scores_release(session=session, user=request.user)
    return _back(session_id)


@login_required
@form_edge(scope="reviews", on_error=_refused, pages=("forbidden",))
def assign(request: HttpRequest, session_id: int) -> HttpResponse:
    session = _reviewable(request, session_id)
    services.reviewer_assign(session=session, user=request.user,
                             username=request.POST.get("username", ""))
    return _back(session_id)


# ---------------------------------------------------------------- the report


def _report_session(request: HttpRequest, session_id: int) -> InterviewSession:
    """The finished session whose report the user may read."""
    session = _session(session_id)
    if access.report_role(session, request.user) is None:
        raise Http404("No such session.")
    if session.status != InterviewSession.Status.FINISHED:
        raise Http404("The report exists once the session is over.")
    return session


def _shared_session(token: str) -> InterviewSession:
    share = (ReportShare.objects.select_related("session").filter(
        token=token, revoked_at__isnull=True).first())
    if share is None or share.session.status != InterviewSession.Status.FINISHED:
        raise Http404("No such report.")
    return _session(share.session_id)


def _pdf_response(request: HttpRequest, session: InterviewSession,
                  channel: visibility.Channel = visibility.Channel.PDF) -> HttpResponse:
    """The report as a PDF, its times in the zone the page's link sends (`?tz=`), else UTC."""
    zone = dashboard.zone_name(request.GET.get("tz"))
    body = pdf.report_pdf(selectors.report_data(session, channel), zone=zone)
    response = HttpResponse(body, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="onsite-report-{session.pk}.pdf"'
    return response


@login_required
@require_GET
def report(request: HttpRequest, session_id: int) -> HttpResponse:
    """`/sessions/<id>/report/`: the candidate feedback report."""
    session = _report_session(request, session_id)
    context = selectors.report_data(session)
    context["shares"] = [
        {"share": s, "url": request.build_absolute_uri(
            reverse("interviews:shared_report", kwargs={"token": s.token}))}
        for s in session.report_shares.all()
    ]
    context["owner_view"] = True
    context["pdf_url"] = reverse("interviews:report_pdf", kwargs={"session_id": session.pk})
    context["board_url"] = reverse("interviews:report_board", kwargs={"session_id": session.pk})
    return render(request, "interviews/review/report.html", context)


MAX_MOMENT_DIGITS = 10  # a moment beyond 115 days is not one of any session's


def _board_response(svg: str) -> HttpResponse:
    """A board's picture, server-drawn (interviews/board.py): its own strict content type,
    never sniffed, never cached where another user could read it."""
    if not svg:
        raise Http404("The diagram is unavailable.")
    response = HttpResponse(svg, content_type="image/svg+xml; charset=utf-8")
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, no-store"
    response["Content-Disposition"] = 'inline; filename="board.svg"'
    return response


@login_required
@require_GET
def report_board(request: HttpRequest, session_id: int) -> HttpResponse:
    """`/sessions/<id>/report/board.svg`: a design round's final diagram; `?t=<ms>`: the
    board at a cited moment. Whoever may read the report (the candidate once it is over; its
    reviewers, who cite moments, at any time); a 404 for everyone else and for a coding
    session."""
    session = _session(session_id)
    role = access.report_role(session, request.user)
    if role is None or not has_board(session):
        raise Http404("No such session.")
    if role == access.CANDIDATE and session.status != InterviewSession.Status.FINISHED:
        raise Http404("The report exists once the session is over.")
    moment = request.GET.get("t")
    if moment is None:
        return _board_response(selectors.report_board(session)[0].get("svg", ""))
    if not moment.isdigit() or len(moment) > MAX_MOMENT_DIGITS:
        raise Http404("No such moment.")
    return _board_response(selectors.board_moment_svg(session, int(moment)))


@require_GET
def shared_board(request: HttpRequest, token: str) -> HttpResponse:
    """A share link's diagram: the final board only (`SHARE_LINK_SECTIONS` "board"); a cited
    moment belongs to the feedback, which no share link carries."""
    session = _shared_session(token)
    if request.GET.get("t") is not None:
        raise Http404("No such moment.")
    if not has_board(session) or not visibility.report_section_visible(
            "board", visibility.Channel.SHARE_LINK):
        raise Http404("No such diagram.")
    response = _board_response(selectors.report_board(session)[0].get("svg", ""))
    response["Referrer-Policy"] = "no-referrer"
    return response


@login_required
@require_GET
def report_pdf(request: HttpRequest, session_id: int) -> HttpResponse:
    return _pdf_response(request, _report_session(request, session_id))


@login_required
@form_edge(scope="reviews", back=_to_report)
def share_create(request: HttpRequest, session_id: int) -> HttpResponse:
    session = _report_session(request, session_id)
    services.share_create(session=session, user=request.user)
    return redirect(reverse("interviews:report", kwargs={"session_id": session_id}) + "#share")


@login_required
@form_edge(scope="reviews", back=_to_report, pages=("not_found",))
def share_revoke(request: HttpRequest, session_id: int, share_id: int) -> HttpResponse:
    session = _report_session(request, session_id)
    services.share_revoke(session=session, user=request.user, share_id=share_id)
    return redirect(reverse("interviews:report", kwargs={"session_id": session_id}) + "#share")


@require_GET
def shared_report(request: HttpRequest, token: str) -> HttpResponse:
    """A share link: anyone holding the token reads the report, until it is revoked."""
    session = _shared_session(token)
    context = selectors.report_data(session, visibility.Channel.SHARE_LINK)
    context["owner_view"] = False
    context["pdf_url"] = reverse("interviews:shared_report_pdf", kwargs={"token": token})
    context["board_url"] = reverse("interviews:shared_board", kwargs={"token": token})
    response = render(request, "interviews/review/report.html", context)
    # The token is in the URL: keep it out of Referer headers sent to other sites.
    response["Referrer-Policy"] = "no-referrer"
    return response


@require_GET
def shared_report_pdf(request: HttpRequest, token: str) -> HttpResponse:
    response = _pdf_response(request, _shared_session(token), visibility.Channel.SHARE_LINK)
    response["Referrer-Policy"] = "no-referrer"
    return response


@login_required
@require_GET
def history(request: HttpRequest) -> HttpResponse:
    """`/sessions/history/`: the user's past sessions as a candidate, levels over time."""
    return render(request, "interviews/review/history.html",
                  selectors.practice_history(request.user))
