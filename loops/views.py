"""The loop pages: the list, the builder, the loop's day, its invitation, its schedule changes.

Thin views: the rules are `loops.access` (who sees, who changes) and the services
(`loops.services.scheduling`); a loop the user may not see is the 404 of a missing one.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from core.edges import form_edge
from core.errors import ApplicationError, error_status
from interviews.services import SessionError
from loops import access, selectors
from loops.forms import LoopBuildForm, RoundMoveForm, ZoneStart
from loops.models import Loop
from loops.services import scheduling
from loops.services.mail import loop_of_token

DONE = {
    "rescheduled": "Rescheduled: the candidate and the interviewers get the updated calendar "
                   "entries.",
    "round_rescheduled": "The round was moved: the candidate and its interviewer get the "
                         "updated calendar entry.",
    "round_cancelled": "The round was cancelled: its link no longer opens, and both calendars "
                       "get the cancellation.",
    "cancelled": "The loop was cancelled: every round still to come is called off.",
    "scheduled": "The loop is scheduled: the candidate gets one invitation with every round.",
}


def _site(request: HttpRequest) -> str:
    return request.build_absolute_uri("/").rstrip("/")


def _visible_loop(request: HttpRequest, loop_id: int) -> Loop:
    loop = (Loop.objects.select_related("candidate", "created_by")
            .filter(pk=loop_id, kind=Loop.Kind.LIVE).first())
    if loop is None or not access.loop_visible(loop, request.user):
        raise Http404("No such loop.")
    return loop


@login_required
@require_GET
def loop_list(request: HttpRequest) -> HttpResponse:
    """`/loops/`: the loops the user sees; a link to the builder for those who build."""
    loops = (access.loops_visible_to(request.user).filter(kind=Loop.Kind.LIVE)
             .select_related("candidate").prefetch_related("rounds__session")[:100])
    return render(request, "loops/loop_list.html", {
        "loops": loops, "may_build": access.loop_build_allowed(request.user)})


def _builder(request: HttpRequest, form: LoopBuildForm, status: int = 200) -> HttpResponse:
    return render(request, "loops/loop_new.html", {"form": form}, status=status)


def _build_refused(request: HttpRequest, exc: ApplicationError) -> HttpResponse:
    """The builder again with every value kept, the refusal at its field or above the form."""
    form = LoopBuildForm(request.POST)
    form.is_valid()
    form.service_error(exc.code, exc.message)
    return _builder(request, form, status=400)


@login_required
@form_edge(scope="sessions", methods=("GET", "POST"), on_error=_build_refused)
def loop_new(request: HttpRequest) -> HttpResponse:
    """`/loops/new/`: interviewers, recruiters and admins build a loop; others get the 404."""
    if not access.loop_build_allowed(request.user):
        raise Http404("No such page.")
    if request.method != "POST":
        return _builder(request, LoopBuildForm())
    form = LoopBuildForm(request.POST)
    if not form.is_valid():
        return _builder(request, form, status=400)
    data = form.cleaned_data
    loop = scheduling.loop_schedule(
        by=request.user, title=data["title"], rounds=form.plans(),
        candidate_email=data["email"], candidate=data["candidate"],
        candidate_timezone=data["tz"], call_link=data["call_link"], site=_site(request))
    return redirect(reverse("loops:loop", kwargs={"loop_id": loop.pk}) + "?done=scheduled")


def _form_error(form: ZoneStart) -> str:
    """A refused schedule form's errors, as one line above the schedule."""
    parts = []
    for name, errors in form.errors.items():
        said = " ".join(str(m) for m in errors)
        parts.append(f"{form.fields[name].label}: {said}" if name in form.fields else said)
    return " ".join(parts)


def _loop_page(request: HttpRequest, loop: Loop, *, error: str = "",
               status: int = 200) -> HttpResponse:
    day = selectors.loop_day(loop, request.user)
    manage = (access.loop_manage_allowed(loop, request.user)
              and loop.status == Loop.Status.SCHEDULED)
    context = {
        "loop": loop, "day": day, "manage": manage, "error": error,
        "done": DONE.get(request.GET.get("done", ""), "") if request.method == "GET" else "",
        "is_candidate": loop.candidate_id == request.user.pk,
    }
    return render(request, "loops/loop_detail.html", context, status=status)


@login_required
@require_GET
def loop_detail(request: HttpRequest, loop_id: int) -> HttpResponse:
    """`/loops/<id>/`: the day's schedule in the candidate's zone, each round's link and state,
    the next round; the schedule controls for those who change it."""
    return _loop_page(request, _visible_loop(request, loop_id))


def _change_refused(request: HttpRequest, exc: ApplicationError, loop_id: int) -> HttpResponse:
    loop = _visible_loop(request, loop_id)
    return _loop_page(request, loop, error=exc.message[:1].upper() + exc.message[1:],
                      status=error_status(exc))


def _position(request: HttpRequest) -> int:
    raw = request.POST.get("position", "")
    if not raw.isdigit() or len(raw) > 3:
        raise SessionError("bad_round", "choose a round")
    return int(raw)


@login_required
@form_edge(scope="sessions", on_error=_change_refused)
def loop_schedule_change(request: HttpRequest, loop_id: int) -> HttpResponse:
    """POST `/loops/<id>/schedule`: `action` is reschedule (the whole loop), cancel (the whole
    loop), round_reschedule or round_cancel (with `position`). Who may: `loops.access`."""
    loop = _visible_loop(request, loop_id)
    if not access.loop_manage_allowed(loop, request.user):
        raise Http404("No such loop.")
    action, site = request.POST.get("action", ""), _site(request)
    if action == "reschedule":
        form = ZoneStart(request.POST)
        if not form.is_valid():
            return _loop_page(request, loop, status=400, error=_form_error(form))
        scheduling.loop_reschedule(loop_id=loop.pk, user=request.user,
                                   start=form.start_in(loop.candidate_timezone), site=site)
        done = "rescheduled"
    elif action == "round_reschedule":
        position = _position(request)
        move = RoundMoveForm(request.POST)
        if not move.is_valid():
            return _loop_page(request, loop, status=400,
                              error=f"Round {position}: {_form_error(move)}")
        scheduling.loop_round_reschedule(
            loop_id=loop.pk, position=position, user=request.user,
            start=move.start_in(loop.candidate_timezone),
            duration=timedelta(minutes=move.cleaned_data["minutes"] or 0), site=site)
        done = "round_rescheduled"
    elif action == "round_cancel":
        scheduling.loop_round_cancel(loop_id=loop.pk, position=_position(request),
                                     user=request.user, site=site)
        done = "round_cancelled"
    elif action == "cancel":
        scheduling.loop_cancel(loop_id=loop.pk, user=request.user, site=site)
        done = "cancelled"
    else:
        raise SessionError("bad_action", "choose reschedule, cancel, round_reschedule or "
                                         "round_cancel")
    return redirect(reverse("loops:loop", kwargs={"loop_id": loop.pk}) + f"?done={done}")


def _join_refused(request: HttpRequest, exc: ApplicationError, token: str) -> HttpResponse:
    loop = loop_of_token(token)
    if loop is None:
        raise Http404("No such invitation.")
    return render(request, "loops/loop_join.html", {"loop": loop, "error": exc.message},
                  status=403)


@login_required
@form_edge(scope="sessions", methods=("GET", "POST"), on_error=_join_refused,
           pages=("not_found",))
def loop_join(request: HttpRequest, token: str) -> HttpResponse:
    """The candidate's invitation link. GET says what it is (or goes to the loop page for
    someone who already sees it); POST claims the loop and its rounds (a link preview or a
    prefetch must never claim someone's loop)."""
    loop = loop_of_token(token)
    if loop is None:
        raise Http404("No such invitation.")
    if access.loop_visible(loop, request.user):
        return redirect("loops:loop", loop_id=loop.pk)
    if request.method == "POST":
        loop = scheduling.loop_claim(token=token, user=request.user)
        return redirect("loops:loop", loop_id=loop.pk)
    error = ""
    if loop.candidate_id is not None:
        error = "this invitation is for another candidate"
    elif loop.status == Loop.Status.CANCELLED:
        error = "this loop was cancelled"
    return render(request, "loops/loop_join.html", {
        "loop": loop, "error": error, "rounds": loop.rounds.count()},
        status=403 if error else 200)
