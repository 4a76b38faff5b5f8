"""Blocks that a higher app adds to the session pages, without interviews importing it.

The dependency rule (docs/architecture.md) forbids interviews to import loops; loops registers
its blocks here in its `AppConfig.ready` instead: the session page shows, for a loop's round,
where the candidate goes next; the sessions list links the loop builder. A block is a function
of the request (and the session and the viewer's role) that returns rendered HTML, or "" for
nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest
from django.utils.safestring import SafeString

from interviews.models import InterviewSession

SessionBlock = Callable[[HttpRequest, InterviewSession, Any], SafeString | str]
ListBlock = Callable[[HttpRequest], SafeString | str]
_session_blocks: list[SessionBlock] = []
_list_blocks: list[ListBlock] = []


def session_block_register(block: SessionBlock) -> None:
    if block not in _session_blocks:
        _session_blocks.append(block)


def list_block_register(block: ListBlock) -> None:
    if block not in _list_blocks:
        _list_blocks.append(block)


def session_blocks(request: HttpRequest, session: InterviewSession, role: Any) -> list[Any]:
    """The registered blocks of a session's page, rendered (empty ones left out)."""
    return [html for block in _session_blocks if (html := block(request, session, role))]


def list_blocks(request: HttpRequest) -> list[Any]:
    """The registered blocks of the sessions list, rendered (empty ones left out)."""
    return [html for block in _list_blocks if (html := block(request))]
