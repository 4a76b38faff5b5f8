"""REST API: create a submission, read it back, list your own."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.models import User
from django.core.paginator import EmptyPage, Paginator
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import ErrorBody, StrictCharField, StrictSlugField, error_responses
from grading import selectors
from grading.models import Submission
from grading.services import submission_create


class SubmissionIn(serializers.Serializer[Any]):
    problem = StrictSlugField(max_length=80)
    # Size is enforced by the service (64 KB, in bytes); this only bounds the parser's work.
    code = StrictCharField(allow_blank=True, trim_whitespace=False, max_length=1_000_000)
    mode = serializers.ChoiceField(choices=Submission.Mode.values)
    # Mode "custom": the input to run, as JSON in the problem's own test form.
    input = serializers.JSONField(required=False, allow_null=True)
    # An author's try-out of one version of their problem (a draft, perhaps): graded on it.
    version = serializers.IntegerField(required=False, min_value=1, max_value=2**31 - 1)


IDEMPOTENCY_HEADER = "Idempotency-Key"
IDEMPOTENCY_PARAMETER = OpenApiParameter(
    IDEMPOTENCY_HEADER,
    str,
    OpenApiParameter.HEADER,
    description="Optional, 1 to 255 visible ASCII characters, unique per submission (a UUID): "
    "the same key with the same request returns the first submission instead of a new one; "
    "with a different request, 422.",
)
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
        "lane": serializers.CharField(),
        # While it waits: {ahead, running, slots, wait_seconds} (grading/queueing.py); else null.
        "queue": serializers.DictField(allow_null=True),
        "verdict": serializers.CharField(),
        "passed": serializers.IntegerField(),
        "total": serializers.IntegerField(),
        "score": serializers.FloatField(),
        "by_tag": serializers.DictField(),
        # Results by rule: {rule: [broken in, judged in]}, each group's rule, and the sentence.
        "by_rule": serializers.DictField(),
        "group_rules": serializers.DictField(),
        "rules_line": serializers.CharField(),
        # The verdict line's sentences (grading.judge.verdict_text): summary, failing, groups.
        "verdict_text": serializers.DictField(),
        "created_at": serializers.DateTimeField(),
        "tests": serializers.ListField(child=serializers.DictField()),
    },
)


PAGE_SIZE_DEFAULT = 20
PAGE_SIZE_MAX = 100


class SubmissionListQuery(serializers.Serializer[Any]):
    page = serializers.IntegerField(min_value=1, default=1)
    page_size = serializers.IntegerField(
        min_value=1, max_value=PAGE_SIZE_MAX, default=PAGE_SIZE_DEFAULT
    )
    problem = serializers.SlugField(max_length=80, required=False)
    mode = serializers.ChoiceField(choices=Submission.Mode.values, required=False)


SUMMARIES = inline_serializer(
    "SubmissionSummary",
    many=True,
    fields={
        "id": serializers.IntegerField(),
        "problem": serializers.CharField(),
        "mode": serializers.CharField(),
        "status": serializers.CharField(),
        "verdict": serializers.CharField(),
        "passed": serializers.IntegerField(),
        "total": serializers.IntegerField(),
        "score": serializers.FloatField(),
        "by_tag": serializers.DictField(),
        "worst_by_tag": serializers.DictField(),
        "created_at": serializers.DateTimeField(),
        "code": serializers.CharField(),
    },
)
PAGE = inline_serializer(
    "SubmissionPage",
    {
        "count": serializers.IntegerField(),
        "page": serializers.IntegerField(),
        "pages": serializers.IntegerField(),
        "next": serializers.CharField(allow_null=True),
        "previous": serializers.CharField(allow_null=True),
        "results": SUMMARIES,
    },
)


class SubmissionListView(APIView):
    throttle_scope = "submissions"

    def get_throttles(self) -> list[Any]:
        # Only creating a submission costs sandbox time; reading your list is not rate-limited.
        return super().get_throttles() if self.request.method == "POST" else []

    @extend_schema(
        operation_id="submissions_list",  # else it collides with the detail's (spectacular.W001)
        parameters=[SubmissionListQuery],
        responses={200: PAGE, **error_responses(400, 401, 429),
                   404: OpenApiResponse(ErrorBody, "no such page")},
    )
    def get(self, request: Request) -> Response:
        """The caller's own submissions, newest first, a page at a time."""
        query = SubmissionListQuery(data=request.query_params)
        if not query.is_valid():
            return Response({"detail": _first_error(query.errors), "code": "invalid"}, status=400)
        params = query.validated_data
        submissions = selectors.submissions_of(request.user, problem_slug=params.get("problem", ""))
        if "mode" in params:
            submissions = submissions.filter(mode=params["mode"])
        paginator = Paginator(submissions, params["page_size"])
        try:
            page = paginator.page(params["page"])
        except EmptyPage:
            return Response({"detail": f"no page {params['page']}", "code": "not_found"},
                            status=404)

        def link(number: int | None) -> str | None:
            if number is None:
                return None
            return request.build_absolute_uri(
                f"{request.path}?{urlencode({**request.query_params.dict(), 'page': number})}"
            )

        return Response(
            {
                "count": paginator.count,
                "page": page.number,
                "pages": paginator.num_pages,
                "next": link(page.next_page_number() if page.has_next() else None),
                "previous": link(page.previous_page_number() if page.has_previous() else None),
                "results": [selectors.submission_summary(s) for s in page.object_list],
            }
        )

    @extend_schema(
        request=SubmissionIn,
        parameters=[IDEMPOTENCY_PARAMETER],
        responses={201: CREATED, **error_responses(400, 401, 403, 409, 413, 415, 429),
                   422: OpenApiResponse(ErrorBody, "Idempotency-Key reused for another request"),
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
        # A refusal (GradingError) is answered by the API's one exception handler (core.api).
        # Idempotency-Key (IETF draft): the same key with the same request answers with the
        # first submission (a double click grades once); with another request, 422.
        submission = submission_create(
            user=request.user,
            problem_slug=incoming.validated_data["problem"],
            code=incoming.validated_data["code"],
            mode=incoming.validated_data["mode"],
            custom_input=incoming.validated_data.get("input"),
            version_number=incoming.validated_data.get("version"),
            idempotency_key=request.headers.get(IDEMPOTENCY_HEADER, ""),
            refuse_unworked=True,
        )
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
