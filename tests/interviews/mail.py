"""An SMTP inbox (aiosmtpd) that the invitation and schedule tests read."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage
from typing import Any


class Inbox:
    """aiosmtpd handler: keeps every message the server accepted."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.port = 0
        self.sender = "Onsite <invites@onsite.test>"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        self.messages.append(parsed)
        return "250 Message accepted for delivery"
