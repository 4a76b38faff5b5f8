"""REST API of the loops (mounted at /api/loops/): list, detail with rounds, create, and the
schedule's changes (the loop page's four: move or cancel the loop, move or cancel one round).

The same rules as the pages (`loops.access`): a loop the user may not see answers 404, as if it
did not exist; building one is for interviewers, recruiters and admins; a refusal of the
service is the API's one error body (core.api), never a server error.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import StrictCharField, error_responses
from interviews.services import SessionError
from loops import access
from loops.models import Loop
from loops.services import scheduling
from loops.services.scheduling import MAX_ROUNDS, RoundPlan, loop_schedule

ROUND = inline_serializer("LoopRound", {
    "position": serializers.IntegerField(),
    "label": serializers.CharField(),
    "session": serializers.IntegerField(),
    "problem": serializers.CharField(),
    "interviewer": serializers.CharField(allow_null=True),
    "co_interviewers": serializers.ListField(child=serializers.CharField()),
    "scheduled_for": serializers.DateTimeField(allow_null=True),
    "minutes": serializers.IntegerField(),
    "break_minutes": serializers.IntegerField(),
    "status": serializers.CharField(),
})
LOOP = inline_serializer("Loop", {
    "id": serializers.IntegerField(),
    "title": serializers.CharField(),
    "kind": serializers.CharField(),
    "status": serializers.CharField(),
    "candidate": serializers.CharField(allow_null=True),
    "candidate_timezone": serializers.CharField(),
    "created_by": serializers.CharField(allow_null=True),
    "created_at": serializers.DateTimeField(),
})
LOOP_DETAIL = inline_serializer("LoopDetail", {"loop": LOOP,
                                               "rounds": serializers.ListField(child=ROUND)})


class RoundIn(serializers.Serializer[Any]):
    label = StrictCharField(required=False, allow_blank=True, max_length=60)  # type: ignore[assignment]  # a declared field, not Field.label
    problem = StrictCharField(max_length=100)
    interviewer = StrictCharField(max_length=150)
    co_interviewers = serializers.ListField(child=StrictCharField(max_length=150),
                                            required=False, max_length=10)
    start = serializers.DateTimeField()
    minutes = serializers.IntegerField(min_value=1, max_value=24 * 60)


class LoopIn(serializers.Serializer[Any]):
    title = StrictCharField(max_length=120)
    candidate_email = serializers.EmailField(required=False, allow_blank=True)
    candidate = StrictCharField(required=False, allow_blank=True, max_length=150)
    candidate_timezone = StrictCharField(required=False, default="UTC", max_length=64)
    call_link = StrictCharField(required=False, allow_blank=True, max_length=500)
    rounds = serializers.ListField(child=RoundIn(), min_length=1, max_length=MAX_ROUNDS)


class ScheduleChangeIn(serializers.Serializer[Any]):
    ACTIONS = ("reschedule", "cancel", "round_reschedule", "round_cancel")
    action = serializers.ChoiceField(choices=ACTIONS)
    position = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ROUNDS)
    start = serializers.DateTimeField(required=False)
    minutes = serializers.IntegerField(required=False, min_value=1, max_value=24 * 60)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        action = attrs["action"]
        needs = {"reschedule": ("start",), "round_reschedule": ("position", "start", "minutes"),
                 "round_cancel": ("position",), "cancel": ()}[action]
        missing = [name for name in needs if name not in attrs]
        if missing:
            raise serializers.ValidationError({missing[0]: f"{action} needs {missing[0]}"})
        return attrs


def loop_public(loop: Loop) -> dict[str, Any]:
    return {
        "id": loop.pk, "title": loop.title, "kind": loop.kind, "status": loop.status,
        "candidate": loop.candidate.get_username() if loop.candidate else None,
        "candidate_timezone": loop.candidate_timezone,
        "created_by": loop.created_by.get_username() if loop.created_by else None,
        "created_at": loop.created_at.isoformat(),
    }


def rounds_public(loop: Loop) -> list[dict[str, Any]]:
    rounds = (loop.rounds.select_related("session__problem", "session__interviewer")
              .prefetch_related("session__review_assignments__interviewer")
              .order_by("position"))
    return [{
        "position": r.position, "label": r.label, "session": r.session_id,
        "problem": r.session.problem.slug,
        "interviewer": r.session.interviewer.get_username() if r.session.interviewer else None,
        "co_interviewers": [a.interviewer.get_username()
                            for a in r.session.review_assignments.all()],
        "scheduled_for": r.session.scheduled_for.isoformat() if r.session.scheduled_for
        else None,
        "minutes": int(r.session.duration.total_seconds() // 60),
        "break_minutes": int(r.break_after.total_seconds() // 60),
        "status": r.session.status_now(),
    } for r in rounds]


class LoopListView(APIView):
    throttle_scope = "sessions"

    @extend_schema(operation_id="loops_list", responses={200: inline_serializer(
        "LoopList", {"loops": serializers.ListField(child=LOOP)}),
        **error_responses(401, 403, 429)})
    def get(self, request: Request) -> Response:
        """The loops the user sees: as their candidate, creator, hiring manager or one of their
        interviewers; recruiters and admins every loop."""
        loops = (access.loops_visible_to(request.user).select_related("candidate", "created_by")
                 .order_by("-created_at", "-id")[:200])
        return Response({"loops": [loop_public(loop) for loop in loops]})

    @extend_schema(operation_id="loops_create", request=LoopIn, responses={
        201: LOOP_DETAIL, **error_responses(400, 401, 403, 404, 409, 413, 415, 429)})
    def post(self, request: Request) -> Response:
        """Build a loop (interviewers, recruiters, admins): rounds in order, each with its
        problem, interviewer, co-interviewers, start and length. The candidate gets one
        invitation with a calendar entry per round; `loop.scheduled` is sent to the webhooks."""
        if not access.loop_build_allowed(request.user):
            raise SessionError("forbidden", "only interviewers, recruiters and admins build loops")
        incoming = LoopIn(data=request.data)
        if not incoming.is_valid():
            field, messages = next(iter(incoming.errors.items()))
            return Response({"detail": f"{field}: {messages}", "code": "invalid"}, status=400)
        data = incoming.validated_data
        plans = [RoundPlan(problem=r["problem"], interviewer=r["interviewer"], start=r["start"],
                           duration=timedelta(minutes=r["minutes"]), label=r.get("label", ""),
                           co_interviewers=tuple(r.get("co_interviewers", ())))
                 for r in data["rounds"]]
        loop = loop_schedule(
            by=request.user, title=data["title"], rounds=plans,
            candidate_email=data.get("candidate_email", ""),
            candidate=data.get("candidate", ""),
            candidate_timezone=data.get("candidate_timezone", "UTC"),
            call_link=data.get("call_link", ""),
            site=request.build_absolute_uri("/").rstrip("/"))
        return Response({"loop": loop_public(loop), "rounds": rounds_public(loop)}, status=201)


class LoopDetailView(APIView):
    @extend_schema(operation_id="loops_retrieve", responses={
        200: LOOP_DETAIL, **error_responses(401, 403, 404, 429)})
    def get(self, request: Request, loop_id: int) -> Response:
        """One loop and its rounds in order (each round's session id opens it in the review
        API)."""
        loop = Loop.objects.select_related("candidate", "created_by").filter(pk=loop_id).first()
        if loop is None or not access.loop_visible(loop, request.user):
            return Response({"detail": "no such loop", "code": "not_found"}, status=404)
        return Response({"loop": loop_public(loop), "rounds": rounds_public(loop)})


class LoopScheduleView(APIView):
    throttle_scope = "sessions"

    @extend_schema(operation_id="loops_schedule_change", request=ScheduleChangeIn, responses={
        200: LOOP_DETAIL, **error_responses(400, 401, 403, 404, 409, 413, 415, 429)})
    def post(self, request: Request, loop_id: int) -> Response:
        """Change the loop's schedule as its page does, by whoever may there (recruiters,
        admins, the loop's creator): `reschedule` the whole loop to a new first `start` (before any
        round has started), `cancel` it, `round_reschedule` one round (`position`, `start`,
        `minutes`: never onto its neighbours) or `round_cancel` it. The candidate and the
        interviewers get the updated calendar entries; the answer is the loop as it is now."""
        loop = Loop.objects.filter(pk=loop_id).first()
        if loop is None or not access.loop_visible(loop, request.user):
            return Response({"detail": "no such loop", "code": "not_found"}, status=404)
        if not access.loop_manage_allowed(loop, request.user):
            raise SessionError("forbidden", "only recruiters, admins and the loop's creator "
                                            "change its schedule")
        incoming = ScheduleChangeIn(data=request.data)
        if not incoming.is_valid():
            field, messages = next(iter(incoming.errors.items()))
            return Response({"detail": f"{field}: {messages}", "code": "invalid"}, status=400)
        data = incoming.validated_data
        site = request.build_absolute_uri("/").rstrip("/")
        action = data["action"]
        if action == "reschedule":
            scheduling.loop_reschedule(loop_id=loop.pk, user=request.user, start=data["start"],
                                       site=site)
        elif action == "cancel":
            scheduling.loop_cancel(loop_id=loop.pk, user=request.user, site=site)
        elif action == "round_reschedule":
            scheduling.loop_round_reschedule(
                loop_id=loop.pk, position=data["position"], user=request.user,
                start=data["start"], duration=timedelta(minutes=data["minutes"]), site=site)
        else:
            scheduling.loop_round_cancel(loop_id=loop.pk, position=data["position"],
                                         user=request.user, site=site)
        loop.refresh_from_db()
        return Response({"loop": loop_public(loop), "rounds": rounds_public(loop)})
