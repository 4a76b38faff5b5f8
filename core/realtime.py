"""The one channel-group broadcast helper: tasks and services call it, consumers forward.

Realtime is best effort: the database is the truth and pages catch up from it, so a channel
layer fault (Redis down) is logged and swallowed, never raised into grading or a request.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

# Websocket close codes shared by every consumer. One code answers both "no such id" and "not
# yours", so a close code never tells whether an id exists.
CLOSE_MALFORMED = 4400
CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403  # a participant doing what their role may not (a read-only edit)
CLOSE_NOT_FOUND = 4404  # no such object, or not visible to this user
CLOSE_NOT_STARTED = 4425  # a session's door not open yet (its candidate before the start)
CLOSE_GONE = 4410  # a session called off or expired
CLOSE_TOO_LARGE = 4413
CLOSE_DOC_FULL = 4409  # an update that would take the document past its size or element bound
CLOSE_INVALID = 4422  # an update that would store a board element the board cannot hold


@dataclass(frozen=True)
class Refusal:
    """Why a socket's update is not taken: the sender gets one JSON frame
    `{"type": "refused", "reason": ..., "message": ...}` and then the close `code`."""

    reason: str
    message: str
    code: int

    def frame(self) -> dict[str, str]:
        return {"type": "refused", "reason": self.reason, "message": self.message}


def send_event(group: str, payload: dict[str, Any], *, handler: str) -> bool:
    """Send `payload` to every consumer in `group`; `handler` is the consumer method that
    forwards it (the message's `type`). Returns False when the layer is missing or failed."""
    layer = get_channel_layer()
    if layer is None:
        return False
    try:
        async_to_sync(layer.group_send)(group, {"type": handler, "payload": payload})
    except Exception:  # redis-py, channels_redis and asyncio raise many types
        log.warning("broadcast to %s failed; clients catch up from the database", group,
                    exc_info=True)
        return False
    return True
