"""Session pages and the small JSON endpoints the session page calls.

Pages: the list (start a solo session, schedule a live one), the invitation, the session, the
replay. JSON endpoints answer `{"detail": ...}` with a 4xx on a refused request; every one of
them checks the deadline first (through the services), so a page left open past the deadline
cannot do anything but see that the session is over.
"""

from __future__ import annotations

import math
from datetime import UTC, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from core.edges import form_edge
from core.endpoints import Body, json_endpoint, text_field
from core.errors import ApplicationError, error_status
from core.roles import is_interviewer, may_add_co_interviewer, may_end_session
from core.visibility import DOOR_STATUS, Door
from grading.problempage import problem_page_of, version_page_of
from interviews import docsize, hooks, matching, selectors, services
from interviews.forms import RescheduleForm, ScheduleForm
from interviews.models import InterviewSession, ScheduleChange
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


def _list_context(request: HttpRequest, schedule_form: ScheduleForm | None = None
                  ) -> dict[str, Any]:
    interviewer = is_interviewer(request.user)
    return {
        "sessions": selectors.sessions_of(request.user)[:50],
        "problems": Problem.objects.offered().filter(live_version__isnull=False)
        .order_by("title").only("slug", "title", "difficulty"),
        "default_minutes": settings.ONSITE_SESSION_DEFAULT_MINUTES,
        "is_interviewer": interviewer,
        "schedule_form": (schedule_form or ScheduleForm()) if interviewer else None,
        "early_minutes": settings.ONSITE_JOIN_EARLY_MINUTES,
        "error": request.GET.get("error", ""),
        "extra_blocks": hooks.list_blocks(request),  # the loop builder's link (interviews.hooks)
    }


@login_required
@require_GET
def session_list(request: HttpRequest) -> HttpResponse:
    """`/sessions/`: my sessions; start a solo one; interviewers schedule a live one."""
    return render(request, "interviews/session_list.html", _list_context(request))


def _back_with_error(request: HttpRequest, exc: ApplicationError) -> HttpResponse:
    from urllib.parse import urlencode

    return redirect(reverse("interviews:list") + "?" + urlencode({"error": exc.message}))


@login_required
@form_edge(scope="sessions", on_error=_back_with_error)
def session_start(request: HttpRequest) -> HttpResponse:
    """Form: start a solo session now."""
    session = services.session_start_solo(
        candidate=request.user, problem_slug=request.POST.get("problem", ""),
        duration=_minutes(request.POST.get("minutes")),
    )
    return redirect("interviews:detail", session_id=session.pk)


def _version_start_refused(request: HttpRequest, exc: ApplicationError, *_: Any,
                           **__: Any) -> HttpResponse:
    return _back_with_error(request, exc)


@login_required
# Someone else's draft is answered as missing, as its try page is (`unknown_problem`: a 404).
@form_edge(scope="sessions", on_error=_version_start_refused, pages=("unknown_problem",))
def session_start_version(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """Form (the studio's version page): an author's solo round on a version, a draft too."""
    session = services.session_start_version_solo(
        author=request.user, problem_slug=slug, number=number,
        duration=_minutes(request.POST.get("minutes")),
    )
    return redirect("interviews:detail", session_id=session.pk)


def _schedule_refused(request: HttpRequest, exc: ApplicationError) -> HttpResponse:
    """The list again with every value of the schedule form kept, the refusal at its field."""
    form = ScheduleForm(request.POST)
    form.is_valid()
    form.service_error(exc.code, exc.message)
    return render(request, "interviews/session_list.html", _list_context(request, form),
                  status=400)


@login_required
@form_edge(scope="sessions", on_error=_schedule_refused)
def session_schedule(request: HttpRequest) -> HttpResponse:
    """Form (interviewers): schedule a live session, e-mail the invitation (with a calendar
    entry) to the candidate and the interviewer; the session page shows the link with a Copy
    button. A refused form comes back with every value kept and each error at its field."""
    form = ScheduleForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        session = services.session_schedule_live(
            interviewer=request.user, problem_slug=data["problem"],
            duration=form.duration(), candidate=data["candidate"],
            # Unticked: the problem's default (a design board: everyone draws).
            interviewer_can_edit=data["interviewer_can_edit"] or None,
            candidate_opens_hints=data["candidate_opens_hints"],
            scheduled_for=data["scheduled_for"], candidate_email=data["email"],
            call_link=data["call_link"], extra_time=form.extra_time(),
        )
        if services.invitation_recipients(session):
            services.invitation_enqueue(session_id=session.pk,
                                        join_url=_join_url(request, session))
        return redirect("interviews:detail", session_id=session.pk)
    return render(request, "interviews/session_list.html", _list_context(request, form),
                  status=400)


def _join_url(request: HttpRequest, session: InterviewSession) -> str:
    return request.build_absolute_uri(
        reverse("interviews:join", kwargs={"token": session.invite_token}))


def _join_page(request: HttpRequest, session: InterviewSession, *, error: str = "",
               status: int = 200) -> HttpResponse:
    """The invitation's page: joinable, the waiting room (too early), cancelled, or refused."""
    cancelled = session.status == InterviewSession.Status.CANCELLED
    expired = not cancelled and services.session_expired(session)
    opens = services.join_opens_at(session)
    waiting = not cancelled and not error and services.join_too_early(session)
    context = {
        "session": session, "error": error, "cancelled": cancelled, "waiting": waiting,
        "expired": expired,
        "opens_at": opens,
        "seconds_left": max(0, math.ceil((opens - timezone.now()).total_seconds()))
        if waiting and opens else 0,
        "early_minutes": settings.ONSITE_JOIN_EARLY_MINUTES,
    }
    return render(request, "interviews/join.html", context, status=status)


@login_required
@form_edge(scope="sessions", methods=("GET", "POST"))
def session_join(request: HttpRequest, token: str) -> HttpResponse:
    """The invitation link. GET shows what joining means (or the waiting room before the
    link opens, or that the interview was cancelled); POST starts the clock (a link preview or
    a prefetch must never start someone's interview)."""
    session = InterviewSession.objects.select_related("problem", "interviewer").filter(
        invite_token=token).first()
    if session is None:
        raise Http404("No such invitation.")
    role = services.session_role(session, request.user)
    if session.status == InterviewSession.Status.CANCELLED or services.session_expired(session):
        if services.schedule_change_allowed(session, request.user):
            return redirect("interviews:schedule_manage", session_id=session.pk)
        return _join_page(request, session, status=410)
    refusal = services.session_join_refusal(session, request.user)
    if refusal:  # said before any click: the wrong account never sees a Join button
        return _join_page(request, session, error=refusal, status=403)
    already_in = role in services.INTERVIEWER_ROLES or (
        role == "candidate" and session.status != "scheduled")
    if services.join_too_early(session) and not already_in:
        # The waiting room: a POST before the link opens starts nothing either.
        return _join_page(request, session, status=409 if request.method == "POST" else 200)
    if request.method == "POST" or already_in:
        try:
            session = services.session_join(token=token, user=request.user)
        except ApplicationError as exc:
            return _join_page(request, session, error=exc.message, status=403)
        return redirect("interviews:detail", session_id=session.pk)
    return _join_page(request, session)


@login_required
@require_GET
def session_detail(request: HttpRequest, session_id: int) -> HttpResponse:
    """`/sessions/<id>/`: statement, shared editor, countdown, results, questions, notes.

    Which page, by who knocks and when (core.visibility.session_access): the candidate waits
    in the waiting room (the invitation's page) until the start; a session called off or
    expired sends its interviewers to its schedule and shows anyone else that it is gone."""
    session, role = _participant_session(request, session_id)
    door = services.session_doors(session, request.user).page
    if door == Door.SCHEDULE:
        return redirect("interviews:schedule_manage", session_id=session.pk)
    if door in (Door.WAITING, Door.GONE):
        return _join_page(request, session, status=DOOR_STATUS[door])
    if door != Door.OPEN:
        raise Http404("No such session.")
    if session.status != InterviewSession.Status.FINISHED:
        matching.warm_up()
    state = selectors.session_state(session=session, role=role)
    context = {
        "session": session,
        "role": role,
        "state": state,
        # The statement, the limits and the Custom input tab, as on the practice page (its
        # runs are graded on the problem's live version).
        **(version_page_of(session.problem_version) if session.problem_version
           else problem_page_of(session.problem)),
        "hints": services.candidate_hints(session) if role == "candidate" else None,
        "invite_url": _join_url(request, session)
        if role == "interviewer" and session.invite_token else "",
        # The interviewers' private side panel (a co-interviewer's too): their page only.
        "panel": selectors.interviewer_panel(session=session, user=request.user)
        if role in services.INTERVIEWER_ROLES else None,
        "interviewer_side": role in services.INTERVIEWER_ROLES,
        # Who ends it: the interviewer of a live session; the candidate says "I'm done".
        "may_end": may_end_session(request.user, candidate_id=session.candidate_id,
                                   interviewer_id=session.interviewer_id),
        "may_add_co_interviewer": may_add_co_interviewer(
            request.user, interviewer_id=session.interviewer_id),
        "chat_max": services.MAX_CHAT_CHARS,
        "board_limits": docsize.page_limits(),
        "accommodation": selectors.accommodation_note(session, request.user),
        # What a higher app adds (a loop's "next round": interviews.hooks), and what comes
        # after the session for its candidate (a practice loop's next round), shown once over.
        "extra_blocks": hooks.session_blocks(request, session, role),
        "next_step": hooks.next_step(session, request.user) if role == "candidate" else None,
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
    return render(request, "interviews/session_replay.html", {
        "session": session, "cite": cite})


# ---------------------------------------------------------------- JSON
# Each on the one JSON edge (core.endpoints): method, rate-limit scope, the bounded body, and
# every ApplicationError (or a 404 for a session that is not yours) as its JSON answer.


@login_required
@json_endpoint(methods=["GET"])
def session_state(request: HttpRequest, body: Body, session_id: int) -> JsonResponse:
    session, role = _participant_session(request, session_id)
    # The room's JSON (chat, questions, the clock): not before the start for the candidate.
    services.door_check(services.session_doors(session, request.user).work)
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
                                      mode=text_field(body, "mode", "run"),
                                      custom_input=body.get("input"),
                                      idempotency_key=request.headers.get("Idempotency-Key", ""))
    return JsonResponse({"id": submission.pk, "mode": submission.mode,
                         "status": submission.status}, status=201)


@login_required
@json_endpoint(scope="session_actions")
def session_finish(request: HttpRequest, body: Body, session_id: int) -> JsonResponse:
    session = services.session_finish_by(session_id=session_id, user=request.user)
    return JsonResponse({"status": session.status, "submission": session.final_submission_id})


@login_required
@json_endpoint(scope="session_actions")
def session_extend(request: HttpRequest, body: Body, session_id: int) -> JsonResponse:
    """The interviewer gives the running session more time: `{"minutes": 5}`. The answer has
    the new deadline and, where the session is a loop's round whose next round now starts
    before it ends, that round (`runs_into`: what and when; it keeps its start)."""
    session = services.session_extend(session_id=session_id, user=request.user,
                                      minutes=body.get("minutes"))
    return JsonResponse({"deadline": session.deadline.isoformat() if session.deadline else None,
                         "runs_into": services.extension_runs_into(session, request.user)})


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
    services.door_check(services.session_doors(session, request.user).work)
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


# ---------------------------------------------------------------- the schedule (issue 27)


def _managed_session(request: HttpRequest, session_id: int) -> InterviewSession:
    """A live session whose schedule this user may change; 404 for anyone else."""
    session = get_object_or_404(
        InterviewSession.objects.select_related("problem", "candidate", "interviewer"),
        pk=session_id, kind=InterviewSession.Kind.LIVE,
    )
    if services.session_doors(session, request.user).schedule != Door.OPEN:
        raise Http404("No such session.")
    return session


def _minutes_label(duration: timedelta) -> float | int:
    """30, not 30.0, in the form's Minutes field."""
    minutes = round(duration.total_seconds() / 60, 2)
    return int(minutes) if minutes == int(minutes) else minutes


def _schedule_page(request: HttpRequest, session: InterviewSession, *,
                   form: RescheduleForm | None = None, error: str = "",
                   status: int = 200) -> HttpResponse:
    if form is None:
        start = session.scheduled_for
        form = RescheduleForm(initial={
            "minutes": _minutes_label(session.duration),
            # The page's script puts the viewer's own zone into tz; these are the UTC values
            # until it re-renders them (a form posted without a script reads them as UTC).
            "starts_date": start.astimezone(UTC).date() if start else None,
            "starts_time": start.astimezone(UTC).time() if start else None,
        })
    context = {
        "session": session,
        "form": form,
        "error": error,
        "done": request.GET.get("done", "") if request.method == "GET" else "",
        "changes": list(session.schedule_changes.select_related("by").order_by("-at", "-id")),
        "recipients": services.invitation_recipients(session),
        "scheduled": session.status == InterviewSession.Status.SCHEDULED,
        "keeper": hooks.schedule_keeper(session, request.user),
        "invite_url": _join_url(request, session) if session.invite_token else "",
        "opens_at": services.join_opens_at(session),
        "early_minutes": settings.ONSITE_JOIN_EARLY_MINUTES,
    }
    return render(request, "interviews/schedule.html", context, status=status)


DONE_ACTIONS = {
    ScheduleChange.Action.RESCHEDULED: "rescheduled",
    ScheduleChange.Action.RESENT: "resent",
    ScheduleChange.Action.CANCELLED: "cancelled",
}


def _schedule_change_refused(request: HttpRequest, exc: ApplicationError,
                             session_id: int) -> HttpResponse:
    """The schedule page again: a refused reschedule with its values and the error at its
    field; any other refusal above the page."""
    session = _managed_session(request, session_id)
    if request.POST.get("action", "") == "reschedule":
        form = RescheduleForm(request.POST)
        if not form.is_valid() or exc.code in ("bad_start", "bad_duration"):
            form.service_error(exc.code, exc.message)
            return _schedule_page(request, session, form=form, status=400)
        return _schedule_page(request, session, form=form,
                              error=exc.message[:1].upper() + exc.message[1:],
                              status=error_status(exc))
    return _schedule_page(request, session, error=exc.message[:1].upper() + exc.message[1:],
                          status=error_status(exc))


@login_required
@form_edge(scope="sessions", methods=("GET", "POST"), on_error=_schedule_change_refused)
def schedule_manage(request: HttpRequest, session_id: int) -> HttpResponse:
    """`/sessions/<id>/schedule/`: the session's interviewer(s) and admins reschedule, resend
    or cancel; each change e-mails both sides an updated calendar entry. POST's `action` says
    which; a refused reschedule comes back with its values and the error at its field."""
    session = _managed_session(request, session_id)
    if request.method == "GET":
        return _schedule_page(request, session)
    action = request.POST.get("action", "")
    join_url = _join_url(request, session)
    if action == "reschedule":
        form = RescheduleForm(request.POST)
        if not form.is_valid():
            return _schedule_page(request, session, form=form, status=400)
        change = services.session_reschedule(
            session_id=session.pk, user=request.user,
            scheduled_for=form.cleaned_data["scheduled_for"], duration=form.duration(),
            join_url=join_url)
    elif action == "resend":
        change = services.session_invitation_resend(session_id=session.pk,
                                                    user=request.user, join_url=join_url)
    elif action == "cancel":
        change = services.session_cancel(session_id=session.pk, user=request.user,
                                         join_url=join_url)
    else:
        raise SessionError("bad_action", "choose reschedule, resend or cancel")
    done = DONE_ACTIONS.get(ScheduleChange.Action(change.action), "")
    return redirect(reverse("interviews:schedule_manage", kwargs={"session_id": session.pk})
                    + f"?done={done}")
