"""Fixtures of the loop tests: the SMTP inbox of the interviews tests, and the webhook receiver
(tests/webhooks.py: a real HTTP server on 127.0.0.1, Celery eager so deliveries land before
the test reads)."""

from __future__ import annotations

from tests.interviews.conftest import inbox
from tests.webhooks import hooks, receiver

__all__ = ["hooks", "inbox", "receiver"]
