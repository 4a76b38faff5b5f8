"""Session pages and the small JSON endpoints the session page calls.

Pages: the list (start a solo session, schedule a live one), the invitation, the session, the
replay. JSON endpoints answer `{"detail": ...}` with a 4xx on a refused request; every one of
them checks the deadline first (through the services), so a page left open past the deadline
cannot do anything but see that the session is over.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.endpoints import Body, json_endpoint, text_field
from core.errors import ApplicationError
from core.markdown import markdown_render
from core.ratelimit import rate_limit_check
from core.roles import is_interviewer, may_add_co_interviewer, may_end_session
from grading.sandboxing import statement_time_limits
from interviews import matching, selectors, services
from interviews.models import InterviewSession
from interviews.review import selectors as review_selectors
from interviews.services import SessionError
from problems.models import Problem


def _minutes(raw: Any) -> timedelta:
    try:
        minutes = float(raw)
    except (TypeError, ValueError, OverflowError):
        raise SessionError("bad_duration", "the duration is a number of minutes") from None
    if not math.isfinite(minutes):  # NaN, inf
        raise SessionError("bad_duration", "the duration is a number of minutes")
    # Past the longest session the service refuses it anyway (with its message); capping
    # first keeps 1e20 minutes from overflowing timedelta on the way there.
    return timedelta(minutes=max(-1.0, min(minutes, settings.ONSITE_SESSION_MAX_MINUTES + 1.0)))


def _participant_session(request: HttpRequest, session_id: int) -> tuple[InterviewSession, str]:
    """The session and the user's role in it; 404 for anyone else (no existence leak)."""
    session = get_object_or_404(
        InterviewSession.objects.select_related("problem", "candidate", "interviewer"),
        pk=session_id,
    )
    role = services.session_role(session, request.user)
    if role is None:
        raise Http404("No such session.")
    return session, role


# ---------------------------------------------------------------- pages


@login_required
@require_GET
def session_list(request: HttpRequest) -> HttpResponse:
    """`/sessions/`: my sessions; start a solo one; interviewers schedule a live one."""
    context = {
        "sessions": selectors.sessions_of(request.user)[:50],
        "problems": Problem.objects.offered().filter(live_version__isnull=False)
        .order_by("title").only("slug", "title", "difficulty"),
        "default_minutes": settings.ONSITE_SESSION_DEFAULT_MINUTES,
        "is_interviewer": is_interviewer(request.user),
        "error": request.GET.get("error", ""),
    }
    return render(request, "interviews/session_list.html", context)


def _back_with_error(exc: ApplicationError) -> HttpResponse:
    from urllib.parse import urlencode

    return redirect(reverse("interviews:list") + "?" + urlencode({"error": exc.message}))


@login_required
@require_POST
def session_start(request: HttpRequest) -> HttpResponse:
    """Form: start a solo session now."""
    try:
        rate_limit_check(request=request, scope="sessions")
        session = services.session_start_solo(
            candidate=request.user, problem_slug=request.POST.get("problem", ""),
            duration=_minutes(request.POST.get("minutes")),
        )
    except ApplicationError as exc:
        return _back_with_error(exc)
    return redirect("interviews:detail", session_id=session.pk)


def _starts_at(day: str, time: str, zone_name: str) -> datetime | None:
    """The form's date and time read in the scheduler's time zone (the page sends its IANA
    name), as an aware datetime; None when neither was given."""
    day, time = day.strip(), time.strip()
    if not day and not time:
        return None
    if not day or not time:
        raise SessionError("bad_start", "give both a date and a time, or neither")
    try:
        zone = ZoneInfo(zone_name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    try:
        local = datetime.fromisoformat(f"{day}T{time}")
    except ValueError:
        raise SessionError("bad_start", "the start is a date and a time") from None
    return local.replace(tzinfo=zone) if local.tzinfo is None else local


@login_required
@require_POST
def session_schedule(request: HttpRequest) -> HttpResponse:
    """Form (interviewers): schedule a live session, e-mail the invitation (with a calendar
    entry) when an address is given; the session page shows the link with a Copy button."""
    candidate = None
    post = request.POST
    username = post.get("candidate", "").strip()
    try:
        rate_limit_check(request=request, scope="sessions")
        if username:
            candidate = get_user_model().objects.filter(username=username).first()
            if candidate is None:
                raise SessionError("bad_candidate", f"no user {username!r}")
        session = services.session_schedule_live(
            interviewer=request.user, problem_slug=post.get("problem", ""),
            duration=_minutes(post.get("minutes")), candidate=candidate,
            interviewer_can_edit=post.get("interviewer_can_edit") == "on",
            candidate_opens_hints=post.get("candidate_opens_hints") == "on",
            scheduled_for=_starts_at(post.get("starts_date", ""), post.get("starts_time", ""),
                                     post.get("tz", "")),
            candidate_email=post.get("email", ""), call_link=post.get("call_link", ""),
        )
    except ApplicationError as exc:
        return _back_with_error(exc)
    if session.candidate_email:
        services.invitation_enqueue(session_id=session.pk, join_url=_join_url(request, session))
    return redirect("interviews:detail", session_id=session.pk)


def _join_url(request: HttpRequest, session: InterviewSession) -> str:
    return request.build_absolute_uri(
        reverse("interviews:join", kwargs={"token": session.invite_token}))


@login_required
@require_http_methods(["GET", "POST"])
def session_join(request: HttpRequest, token: str) -> HttpResponse:
    """The invitation link. GET shows what joining means; POST starts the clock (a link
    preview or a prefetch must never start someone's interview)."""
    session = InterviewSession.objects.select_related("problem", "interviewer").filter(
        invite_token=token).first()
    if session is None:
        raise Http404("No such invitation.")
    role = services.session_role(session, request.user)
    refusal = services.session_join_refusal(session, request.user)
    if refusal:  # said before any click: the wrong account never sees a Join button
        return render(request, "interviews/join.html", {"session": session, "error": refusal},
                      status=403)
    already_in = role == "interviewer" or (role == "candidate" and session.status != "scheduled")
    if request.method == "POST" or already_in:
        try:
            session = services.session_join(token=token, user=request.user)
        except ApplicationError as exc:
            return render(request, "interviews/join.html", {"session": session,
                                                            "error": exc.message}, status=403)
        return redirect("interviews:detail", session_id=session.pk)
    return render(request, "interviews/join.html", {"session": session, "error": ""})


@login_required
@require_GET
def session_detail(request: HttpRequest, session_id: int) -> HttpResponse:
    """`/sessions/<id>/`: statement, shared editor, countdown, results, questions, notes."""
    session, role = _participant_session(request, session_id)
    if session.status != InterviewSession.Status.FINISHED:
        matching.warm_up()
    state = selectors.session_state(session=session, role=role)
    version = session.problem.live_version  # what its runs are graded on
    context = {
        "session": session,
        "role": role,
        "state": state,
        "statement_html": markdown_render(session.problem.statement_md),
        "hints": services.candidate_hints(session) if role == "candidate" else None,
        "invite_url": _join_url(request, session)
        if role == "interviewer" and session.invite_token else "",
        # The interviewer's private side panel: rendered into their page only.
        "panel": selectors.interviewer_panel(session=session, user=request.user)
        if role == "interviewer" else None,
        # Who ends it: the interviewer of a live session; the candidate says "I'm done".
        "may_end": may_end_session(request.user, candidate_id=session.candidate_id,
                                   interviewer_id=session.interviewer_id),
        "may_add_co_interviewer": may_add_co_interviewer(
            request.user, interviewer_id=session.interviewer_id),
        "chat_max": services.MAX_CHAT_CHARS,
        "time_limits": statement_time_limits(version.limits) if version else None,
    }
    return render(request, "interviews/session_detail.html", context)


@login_required
@require_GET
def session_replay(request: HttpRequest, session_id: int) -> HttpResponse:
    """`/sessions/<id>/replay/`: the document through time, with the timeline's marks."""
    session = get_object_or_404(InterviewSession.objects.select_related("problem"),
                                pk=session_id)
    if not selectors.can_replay(session, request.user):
        raise Http404("No such session.")
    cite = review_selectors.replay_cite(session, request.user,
                                        chosen=request.GET.get("criterion", ""))
    return render(request, "interviews/session_replay.html", {"session": session, "cite": cite})


# ---------------------------------------------------------------- JSON
# Each on the one JSON edge (core.endpoints): method, rate-limit scope, the bounded body, and
# every ApplicationError (or a 404 for a session that is not yours) as its JSON answer.


@login_required
@json_endpoint(methods=["GET"])
def session_state(request: HttpRequest, body: Body, session_id: int) -> JsonResponse:
    session, role = _participant_session(request, session_id)
    return JsonResponse(selectors.session_state(session=session, role=role))


@login_required
@json_endpoint(methods=["GET"])
def replay_data(request: HttpRequest, body: Body, session_id: int) -> JsonResponse:
    session = get_object_or_404(InterviewSession.objects.select_related("problem"),
                                pk=session_id)
    if not selectors.can_replay(session, request.user):
        raise Http404("No such session.")
    return JsonResponse(selectors.replay_data(session=session, user=request.user))


@login_required
@json_endpoint(scope="submissions")
def session_run(request: HttpRequest, body: Body, session_id: int) -> JsonResponse:
    submission = services.session_run(session_id=session_id, user=request.user,
                                      mode=text_field(body, "mode", "run"))
    return JsonResponse({"id": submission.pk, "mode": submission.mode,
                         "status": submission.status}, status=201)


@login_required
@json_endpoint(scope="session_actions")
def session_finish(request: HttpRequest, body: Body, session_id: int) -> JsonResponse:
    session = services.session_finish_by(session_id=session_id, user=request.user)
    return JsonResponse({"status": session.status, "submission": session.final_submission_id})


@login_required
@json_endpoint(scope="session_actions")
def session_done(request: HttpRequest, body: Body, session_id: int) -> JsonResponse:
    """The live candidate's "I'm done": tells the interviewer, ends nothing."""
    event = services.session_candidate_done(session_id=session_id, user=request.user)
    return JsonResponse({"done_at": event.at.isoformat(), "status": "active"})


@login_required
@json_endpoint(scope="session_actions")
def co_interviewer_add(request: HttpRequest, body: Body, session_id: int) -> JsonResponse:
    session, _role = _participant_session(request, session_id)
    services.co_interviewer_add(session=session, user=request.user,
                                username=text_field(body, "username"))
    return JsonResponse({"co_interviewers": services.co_interviewers(session)}, status=201)


@login_required
@json_endpoint(scope="questions")
def question_ask(request: HttpRequest, body: Body, session_id: int) -> JsonResponse:
    question = services.question_ask(session_id=session_id, user=request.user,
                                      text=text_field(body, "text"))
    return JsonResponse(services.question_public(question), status=201)


@login_required
@json_endpoint(scope="questions")
def question_answer(request: HttpRequest, body: Body, session_id: int,
                    question_id: int) -> JsonResponse:
    question = services.question_answer(session_id=session_id, question_id=question_id,
                                        user=request.user, text=text_field(body, "text"))
    return JsonResponse(services.question_public(question))


@login_required
@json_endpoint(scope="notes")
def note_add(request: HttpRequest, body: Body, session_id: int) -> JsonResponse:
    note = services.note_add(session_id=session_id, user=request.user,
                             text=text_field(body, "text"),
                             kind=text_field(body, "kind", "tradeoff"))
    return JsonResponse(services.note_public(note), status=201)


@login_required
@json_endpoint(scope="session_actions")
def page_event(request: HttpRequest, body: Body, session_id: int) -> JsonResponse:
    event = services.page_event_report(session_id=session_id, user=request.user,
                                       kind=text_field(body, "kind"))
    return JsonResponse({"recorded": event is not None})


@login_required
@json_endpoint(scope="session_actions")
def hint_reveal(request: HttpRequest, body: Body, session_id: int) -> HttpResponse:
    """htmx: the candidate's next hint as a list item (recorded for the review)."""
    revealed = services.session_hint_reveal(session_id=session_id, user=request.user)
    if revealed is None:
        return HttpResponse("", status=204)
    number, text = revealed
    return render(request, "interviews/_hint.html", {"number": number, "text": text})


@login_required
@json_endpoint(scope="session_actions")
def session_settings(request: HttpRequest, body: Body, session_id: int) -> JsonResponse:
    can_edit = body.get("interviewer_can_edit") in (True, "true", "on", "1")
    services.session_set_interviewer_edit(session_id=session_id, user=request.user,
                                          can_edit=can_edit)
    return JsonResponse({"interviewer_can_edit": can_edit})


@login_required
@json_endpoint(scope="chat")
def chat_send(request: HttpRequest, body: Body, session_id: int) -> JsonResponse:
    message = services.chat_send(session_id=session_id, user=request.user,
                                 text=text_field(body, "text"))
    return JsonResponse(services.chat_public(message), status=201)


@login_required
@json_endpoint(scope="session_actions")
def call_link_set(request: HttpRequest, body: Body, session_id: int) -> JsonResponse:
    link = services.session_set_call_link(session_id=session_id, user=request.user,
                                          link=text_field(body, "call_link"))
    return JsonResponse({"call_link": link})


@login_required
@json_endpoint(scope="notes")
def private_note_add(request: HttpRequest, body: Body, session_id: int) -> JsonResponse:
    note = services.private_note_add(session_id=session_id, user=request.user,
                                     text=text_field(body, "text"))
    return JsonResponse(services.private_note_public(note), status=201)


@login_required
@json_endpoint(scope="questions")
def canned_send(request: HttpRequest, body: Body, session_id: int, index: int) -> JsonResponse:
    question = services.canned_answer_send(session_id=session_id, user=request.user,
                                           index=index)
    return JsonResponse(services.question_public(question))


@login_required
@json_endpoint(scope="session_actions")
def hint_reveal_for_candidate(request: HttpRequest, body: Body, session_id: int) -> JsonResponse:
    revealed = services.session_hint_reveal_by_interviewer(session_id=session_id,
                                                           user=request.user)
    if revealed is None:
        return JsonResponse({"detail": "every hint is revealed already", "code": "no_hint"},
                            status=409)
    return JsonResponse({"number": revealed[0]})
