"""REST API: create a submission, read it back."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import ErrorBody, StrictCharField, StrictSlugField, error_responses
from core.errors import error_status
from grading import selectors
from grading.services import GradingError, submission_create


class SubmissionIn(serializers.Serializer[Any]):
    problem = StrictSlugField(max_length=80)
    # Size is enforced by the service (64 KB, in bytes); this only bounds the parser's work.
    code = StrictCharField(allow_blank=True, trim_whitespace=False, max_length=1_000_000)
    mode = serializers.ChoiceField(choices=["run", "submit"])


CREATED = inline_serializer(
    "SubmissionCreated", {"id": serializers.IntegerField(), "status": serializers.CharField()}
)
DETAIL = inline_serializer(
    "SubmissionDetail",
    {
        "id": serializers.IntegerField(),
        "problem": serializers.CharField(),
        "mode": serializers.CharField(),
        "status": serializers.CharField(),
        "message": serializers.CharField(),
        "verdict": serializers.CharField(),
        "passed": serializers.IntegerField(),
        "total": serializers.IntegerField(),
        "score": serializers.FloatField(),
        "by_tag": serializers.DictField(),
        "created_at": serializers.DateTimeField(),
        "tests": serializers.ListField(child=serializers.DictField()),
    },
)


class SubmissionListView(APIView):
    throttle_scope = "submissions"

    @extend_schema(
        request=SubmissionIn,
        responses={201: CREATED, **error_responses(400, 401, 403, 413, 415, 429),
                   404: OpenApiResponse(ErrorBody, "unknown problem")},
    )
    def post(self, request: Request) -> Response:
        incoming = SubmissionIn(data=request.data)
        if not incoming.is_valid():
            return Response({"detail": _first_error(incoming.errors), "code": "invalid"},
                            status=400)
        if not isinstance(request.user, User):  # IsAuthenticated already refused anonymous
            return Response({"detail": "authentication required",
                             "code": "not_authenticated"}, status=401)
        try:
            submission = submission_create(
                user=request.user,
                problem_slug=incoming.validated_data["problem"],
                code=incoming.validated_data["code"],
                mode=incoming.validated_data["mode"],
            )
        except GradingError as exc:
            return Response({"detail": exc.message, "code": exc.code}, status=error_status(exc))
        return Response({"id": submission.pk, "status": submission.status}, status=201)


class SubmissionDetailView(APIView):
    @extend_schema(responses={200: DETAIL, **error_responses(401, 403, 404, 429)})
    def get(self, request: Request, submission_id: int) -> Response:
        access = selectors.submission_access(user=request.user, submission_id=submission_id)
        if access is None or not access.allowed:  # not yours answers like missing
            return Response({"detail": "no such submission", "code": "not_found"}, status=404)
        submission = selectors.submission_get(submission_id=submission_id)
        return Response(selectors.submission_detail(submission=submission, staff=access.staff))


def _first_error(errors: Any) -> str:
    for field, messages in errors.items():
        return f"{field}: {messages[0]}"
    return "invalid request"
