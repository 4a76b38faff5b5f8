"""Fixtures for the interviews tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from tests.interviews.mail import Inbox
from tests.services import free_port
from tests.webhooks import hooks, receiver  # noqa: F401 - the webhook receiver's fixtures


@pytest.fixture
def inbox(settings: Any) -> Iterator[Inbox]:
    handler = Inbox()
    port = handler.port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.DEFAULT_FROM_EMAIL = handler.sender
    try:
        yield handler
    finally:
        controller.stop()
