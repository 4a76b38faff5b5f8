"""Outgoing webhooks: `session.finished` and `session.scored`, HMAC-SHA256 signed.

The body is signed as sent (`X-Onsite-Signature: sha256=<hex of HMAC(secret, body)>`), so a
receiver verifies the exact bytes before parsing them. Each delivery is a Celery task on the io
queue (never a grading slot), retried
with exponential backoff (base * 2**attempt seconds) until the receiver answers 2xx or the
attempts run out; the delivery id stays the same across retries, so receivers can deduplicate.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import urllib.error
import urllib.request
import uuid
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.utils import timezone

from grading.lanes import IO_QUEUE
from interviews.models import SessionEvent

log = logging.getLogger(__name__)

SESSION_FINISHED = "session.finished"
SESSION_SCORED = "session.scored"


class DeliveryFailed(Exception):
    """The receiver did not answer 2xx (or could not be reached)."""


def sign(body: bytes, secret: str) -> str:
    """The signature header's value for `body`."""
    digest = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def verify(body: bytes, secret: str, header: str) -> bool:
    """Constant-time check of a signature header (what a receiver does)."""
    return hmac.compare_digest(sign(body, secret), header)


def post(url: str, body: bytes, *, event: str, delivery: str) -> int:
    """POST one delivery; the HTTP status, or DeliveryFailed for anything but 2xx."""
    request = urllib.request.Request(  # noqa: S310 - the URL comes from the operator's settings
        url, data=body, method="POST",
        headers={"Content-Type": "application/json", "X-Onsite-Event": event,
                 "X-Onsite-Delivery": delivery,
                 "X-Onsite-Signature": sign(body, settings.ONSITE_WEBHOOK_SECRET)},
    )
    try:
        with urllib.request.urlopen(  # noqa: S310
            request, timeout=settings.ONSITE_WEBHOOK_TIMEOUT_SECONDS
        ) as response:
            status = int(response.status)
    except urllib.error.HTTPError as exc:
        raise DeliveryFailed(f"HTTP {exc.code}") from exc
    except (urllib.error.URLError, OSError) as exc:
        raise DeliveryFailed(str(exc)) from exc
    if not 200 <= status < 300:
        raise DeliveryFailed(f"HTTP {status}")
    return status


def backoff_seconds(attempt: int) -> float:
    """Seconds before retry number `attempt + 1` (0-based attempt): base, 2*base, 4*base..."""
    return float(settings.ONSITE_WEBHOOK_BACKOFF_SECONDS) * (2**attempt)


@shared_task(bind=True, name="interviews.review.webhook_deliver", ignore_result=True,
             max_retries=None)
def webhook_deliver(self: Any, url: str, body: str, event: str, delivery: str) -> int:
    """Deliver one webhook, retrying with exponential backoff; the final HTTP status."""
    try:
        return post(url, body.encode("utf-8"), event=event, delivery=delivery)
    except DeliveryFailed as exc:
        attempt = int(self.request.retries)
        if attempt + 1 >= settings.ONSITE_WEBHOOK_MAX_ATTEMPTS:
            log.warning("webhook %s to %s gave up after %s attempts: %s", delivery, url,
                        attempt + 1, exc)
            raise
        raise self.retry(exc=exc, countdown=backoff_seconds(attempt)) from exc


def webhook_body(event: str, data: dict[str, Any]) -> str:
    """The JSON body every delivery carries."""
    return json.dumps({"event": event, "sent_at": timezone.now().isoformat(), "data": data},
                      sort_keys=True, separators=(",", ":"))


def webhook_send(event: str, data: dict[str, Any]) -> list[str]:
    """Queue one delivery per configured URL; their delivery ids. A broker outage is logged,
    never raised: a webhook must not break finishing or scoring a session."""
    body = webhook_body(event, data)
    ids: list[str] = []
    for url in settings.ONSITE_WEBHOOK_URLS:
        delivery = str(uuid.uuid4())
        try:
            webhook_deliver.apply_async(args=[url, body, event, delivery], queue=IO_QUEUE)
        except Exception:  # kombu/redis raise many types
            log.exception("could not queue webhook %s for %s", event, url)
            continue
        ids.append(delivery)
    return ids


def session_finished_data(session_id: int) -> dict[str, Any]:
    from interviews.models import InterviewSession

    session = InterviewSession.objects.select_related("problem", "candidate").get(pk=session_id)
    return {
        "session": session.pk,
        "problem": session.problem.slug,
        "kind": session.kind,
        "candidate": session.candidate.get_username() if session.candidate else None,
        "finished_at": session.finished_at.isoformat() if session.finished_at else None,
        "finish_reason": session.finish_reason,
        "final_submission": session.final_submission_id,
    }


@receiver(post_save, sender=SessionEvent, dispatch_uid="review_webhook_session_finished")
def _on_session_event(sender: Any, instance: SessionEvent, created: bool, **kwargs: Any) -> None:
    """The FINISHED event is written once, by whoever finished the session: send after commit,
    so the receiver never learns of a finish that was rolled back."""
    if not created or instance.kind != SessionEvent.Kind.FINISHED:
        return
    if not settings.ONSITE_WEBHOOK_URLS:
        return
    session_id = instance.session_id
    transaction.on_commit(
        lambda: webhook_send(SESSION_FINISHED, session_finished_data(session_id)))
