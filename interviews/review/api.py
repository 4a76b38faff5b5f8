"""REST API of the review: sessions, scores, reports (same rules as the pages).

A session the user may not see answers 404, as if it did not exist.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core import visibility
from core.api import StrictCharField, error_responses
from core.roles import is_interviewer
from interviews.models import InterviewSession, Scorecard
from interviews.review import access, dashboard, selectors, services
from interviews.review.suggest import (
    integrity_note,
    session_signals,
    signals_public,
    suggestions,
)
from interviews.services import session_doors

SESSION = inline_serializer(
    "ReviewSession",
    {
        "id": serializers.IntegerField(),
        "problem": serializers.CharField(),
        "kind": serializers.CharField(),
        "status": serializers.CharField(),
        "candidate": serializers.CharField(allow_null=True),
        "interviewer": serializers.CharField(allow_null=True),
        "created_at": serializers.DateTimeField(),
        "finished_at": serializers.DateTimeField(allow_null=True),
        "final_submission": serializers.IntegerField(allow_null=True),
    },
)
SESSION_DETAIL = inline_serializer(
    "ReviewSessionDetail",
    {
        "session": SESSION,
        "role": serializers.CharField(),
        "runs": serializers.ListField(child=serializers.DictField()),
        "signals": serializers.DictField(allow_null=True),
    },
)
SCORES = inline_serializer(
    "ReviewScores",
    {
        "own": serializers.DictField(allow_null=True),
        "others": serializers.ListField(child=serializers.DictField()),
        "others_hidden": serializers.BooleanField(),
        "suggestions": serializers.DictField(),
        "integrity": serializers.CharField(allow_null=True),
        "outcome": serializers.DictField(allow_null=True),
    },
)


class ScoreIn(serializers.Serializer[Any]):
    level = serializers.IntegerField(min_value=1, max_value=4, required=False, allow_null=True)
    comment = StrictCharField(required=False, allow_blank=True, max_length=4000)
    evidence = serializers.ListField(child=serializers.DictField(), required=False,
                                     max_length=services.MAX_EVIDENCE)


class ScorecardIn(serializers.Serializer[Any]):
    recommendation = serializers.ChoiceField(choices=Scorecard.Recommendation.values,
                                             required=False, allow_blank=True)
    summary = StrictCharField(required=False, allow_blank=True, max_length=4000)
    scores = serializers.DictField(child=ScoreIn(), required=False)
    submit = serializers.BooleanField(required=False, default=False)


REPORT = inline_serializer("ReviewReport", {"session": serializers.IntegerField(),
                                            "outcome": serializers.DictField(allow_null=True),
                                            "hidden_by_tag": serializers.DictField()})


def session_summary(session: InterviewSession) -> dict[str, Any]:
    return {
        "id": session.pk,
        "problem": session.problem.slug,
        "kind": session.kind,
        "status": session.status,
        "candidate": session.candidate.get_username() if session.candidate else None,
        "interviewer": session.interviewer.get_username() if session.interviewer else None,
        "created_at": session.created_at.isoformat(),
        "finished_at": session.finished_at.isoformat() if session.finished_at else None,
        "final_submission": session.final_submission_id,
    }


def _visible(request: Request, session_id: int) -> tuple[InterviewSession, str] | None:
    session = (InterviewSession.objects.select_related("problem", "candidate", "interviewer")
               .filter(pk=session_id).first())
    if session is None:
        return None
    role = access.report_role(session, request.user)
    # The candidate's door by state (core.visibility.session_access): not before the start.
    if role == access.CANDIDATE and (
            session_doors(session, request.user).api != visibility.Door.OPEN):
        return None
    return (session, role) if role else None


def _missing() -> Response:
    return Response({"detail": "no such session", "code": "not_found"}, status=404)


def _scorecard_public(card: Scorecard) -> dict[str, Any]:
    view = selectors.scorecard_view(card)
    view["submitted_at"] = card.submitted_at.isoformat() if card.submitted_at else None
    return view


class ReviewSessionListView(APIView):
    @extend_schema(operation_id="review_sessions_list", responses={200: inline_serializer(
        "ReviewSessionList", {"sessions": serializers.ListField(child=SESSION)}),
        **error_responses(401, 403, 429)})
    def get(self, request: Request) -> Response:
        """Sessions the user reviews (filters as the dashboard) plus their own as candidate."""
        filters = dashboard.dashboard_filters_parse(params=request.query_params)
        if is_interviewer(request.user):
            qs = dashboard.dashboard_sessions(user=request.user, filters=filters)
        else:
            qs = InterviewSession.objects.none()
        own = InterviewSession.objects.filter(candidate_id=request.user.pk)
        ids = set(qs.values_list("pk", flat=True)) | set(own.values_list("pk", flat=True))
        sessions = (InterviewSession.objects.filter(Q(pk__in=ids))
                    .select_related("problem", "candidate", "interviewer")
                    .order_by("-created_at")[:200])
        return Response({"sessions": [session_summary(s) for s in sessions]})


class ReviewSessionDetailView(APIView):
    @extend_schema(responses={200: SESSION_DETAIL, **error_responses(401, 403, 404, 429)})
    def get(self, request: Request, session_id: int) -> Response:
        found = _visible(request, session_id)
        if found is None:
            return _missing()
        session, role = found
        reviewer = role != access.CANDIDATE
        viewer = access.session_viewer(session, request.user)
        return Response({
            "session": session_summary(session),
            "role": role,
            "runs": selectors.session_runs(
                session, staff=visibility.may_see(visibility.HIDDEN_TEST_IO, viewer)),
            "signals": signals_public(session_signals(session)) if reviewer else None,
        })


class ReviewScoresView(APIView):
    throttle_scope = "scorecards"
    @extend_schema(responses={200: SCORES, **error_responses(401, 403, 404, 429)})
    def get(self, request: Request, session_id: int) -> Response:
        """A reviewer's own scorecard, the others' (once theirs is submitted), suggestions;
        a candidate only the released outcome."""
        found = _visible(request, session_id)
        if found is None:
            return _missing()
        session, role = found
        outcome = selectors.released_outcome(session)
        if role == access.CANDIDATE:
            return Response({"own": None, "others": [], "others_hidden": False,
                             "suggestions": {}, "integrity": None, "outcome": outcome})
        own = Scorecard.objects.filter(session=session, interviewer_id=request.user.pk).first()
        cards = (session.scorecards.exclude(interviewer_id=request.user.pk)
                 .exclude(submitted_at=None))
        visible = access.can_see_other_scores(session, request.user)
        signals = session_signals(session)
        hints = suggestions(signals, services.criteria_of(session))
        return Response({
            "own": _scorecard_public(own) if own else None,
            "others": [_scorecard_public(c) for c in cards] if visible else [],
            "others_hidden": not visible and cards.exists(),
            "suggestions": {k: {"level": v.level, "why": v.why} for k, v in hints.items()},
            # Pastes and tab leaves: beside the suggestions, never inside a reason.
            "integrity": integrity_note(signals),
            "outcome": outcome,
        })

    @extend_schema(request=ScorecardIn, responses={
        200: SCORES, **error_responses(400, 401, 403, 404, 409, 413, 415, 429)})
    def post(self, request: Request, session_id: int) -> Response:
        """Save (or with `submit`, lock) the user's scorecard; a submit of a submitted card
        amends it until the scores are released (recorded on its history)."""
        found = _visible(request, session_id)
        if found is None or found[1] == access.CANDIDATE:
            return _missing()
        incoming = ScorecardIn(data=request.data)
        if not incoming.is_valid():
            field, messages = next(iter(incoming.errors.items()))
            return Response({"detail": f"{field}: {messages}", "code": "invalid"}, status=400)
        data = incoming.validated_data
        # A refusal (SessionError) is answered by the API's one exception handler (core.api).
        services.scorecard_save(
            session=found[0], user=request.user,
            recommendation=data.get("recommendation", ""), summary=data.get("summary", ""),
            scores={k: dict(v) for k, v in data.get("scores", {}).items()},
            submit=data.get("submit", False),
        )
        return self.get(request, session_id)


class ReviewReportView(APIView):
    @extend_schema(responses={200: REPORT, **error_responses(401, 403, 404, 429)})
    def get(self, request: Request, session_id: int) -> Response:
        """The candidate feedback report (what the candidate reads), once the session ended."""
        found = _visible(request, session_id)
        if found is None or found[0].status != InterviewSession.Status.FINISHED:
            return _missing()
        return Response(selectors.report_public(selectors.report_data(found[0])))
