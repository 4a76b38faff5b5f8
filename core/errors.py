"""One error type for every refusal a service makes, and one mapping from its code to HTTP.

A service raises `ApplicationError(code, message)`; a view, API view or consumer turns it into
a response with `error_status` (or `error_json` / `error_payload`). Codes not listed are a
client's mistake (400).
"""

from __future__ import annotations

from typing import Any

from django.http import JsonResponse

# A non-participant gets the same 404 as a missing object: no existence leak.
ERROR_STATUS: dict[str, int] = {
    "not_found": 404,
    "not_participant": 404,
    "unknown_problem": 404,
    "no_version": 404,
    "forbidden": 403,
    "not_active": 409,
    # A session's door by state (core.visibility.session_access): the candidate before the
    # start; a session called off or expired.
    "not_started": 409,
    "gone": 410,
    "conflict": 409,
    "not_validated": 409,
    "submitted": 409,
    "not_finished": 409,
    "nothing_to_release": 409,
    # Running or submitting code for a design problem (nothing of it runs).
    "design_problem": 409,
    # A loop's last round standing (cancel the loop instead); a round moved from its own session
    # page (the loop's page keeps the rounds in order). A schedule whose rounds overlap is the
    # request's own mistake ("overlap": 400), whether building the loop or moving a round.
    "last_round": 409,
    "kept_elsewhere": 409,
    "too_large": 413,
    # An Idempotency-Key reused for a different request (the IETF draft's 422).
    "idempotency_key_reused": 422,
    "rate_limited": 429,
}


class ApplicationError(Exception):
    """A request the rules refuse; `code` says why (too_large, not_found, forbidden...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def error_status(exc: ApplicationError) -> int:
    return ERROR_STATUS.get(exc.code, 400)


# Codes answered with the very body of a missing object, not only its status.
ANSWERED_AS_MISSING = frozenset({"not_participant"})


def error_payload(exc: ApplicationError) -> dict[str, Any]:
    code = "not_found" if exc.code in ANSWERED_AS_MISSING else exc.code
    return {"detail": exc.message, "code": code}


def error_json(exc: ApplicationError) -> JsonResponse:
    return JsonResponse(error_payload(exc), status=error_status(exc))
