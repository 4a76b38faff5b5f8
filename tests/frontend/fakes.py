"""The frontend tests' stand-ins: a fake grader answering the page's HTTP and socket calls, the
problem page it serves, and the events it sends."""

from __future__ import annotations

import json
import mimetypes
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.template.loader import render_to_string
from django.test import RequestFactory
from playwright.sync_api import Page, Request, Route, WebSocketRoute

from core.markdown import markdown_render
from frontend.context_processors import limits
from problems.models import Problem
from tests.csp import NONCE, csp_headers

ORIGIN = "http://onsite.test"


STATIC_DIR = Path(__file__).resolve().parents[2] / "frontend" / "static"


STARTER = "class TokenBucket:\n    pass\n"


SUBMISSION_ID = 41


@dataclass
class FakeGrader:
    """Serves the page and static files, answers POST /api/submissions, holds the sockets."""

    page_html: str
    posts: list[dict[str, Any]] = field(default_factory=list)
    csrf_headers: list[str | None] = field(default_factory=list)
    create_status: int = 201
    create_body: dict[str, Any] = field(
        default_factory=lambda: {"id": SUBMISSION_ID, "status": "queued"}
    )
    sockets: list[WebSocketRoute] = field(default_factory=list)
    on_connect: Callable[[WebSocketRoute, int], None] | None = None

    def http(self, route: Route, request: Request) -> None:
        path = request.url.removeprefix(ORIGIN).split("?")[0]
        if path.startswith("/static/"):
            file = STATIC_DIR / path.removeprefix("/static/")
            mime = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
            route.fulfill(status=200, body=file.read_bytes(), content_type=mime)
        elif path == "/api/submissions" and request.method == "POST":
            self.posts.append(json.loads(request.post_data or "{}"))
            self.csrf_headers.append(request.headers.get("x-csrftoken"))
            route.fulfill(
                status=self.create_status,
                body=json.dumps(self.create_body),
                content_type="application/json",
            )
        elif path.startswith("/problems/token-bucket/hints/"):
            number = int(path.rstrip("/").rsplit("/", 1)[1])
            fragment = f'<div class="hint" data-hint="{number}">Hint number {number}</div>'
            route.fulfill(status=200, body=fragment, content_type="text/html")
        else:  # the page, under the site's real Content-Security-Policy
            route.fulfill(
                status=200, body=self.page_html, content_type="text/html", headers=csp_headers()
            )

    def socket(self, ws: WebSocketRoute) -> None:
        self.sockets.append(ws)
        if self.on_connect:
            self.on_connect(ws, len(self.sockets))


def send(ws: WebSocketRoute, **event: Any) -> None:
    ws.send(json.dumps(event))


def wait_for_sockets(page: Page, grader: FakeGrader, count: int) -> WebSocketRoute:
    """Lets the page run until it has opened `count` sockets (bounded: 10 s)."""
    for _ in range(200):
        if len(grader.sockets) >= count:
            return grader.sockets[count - 1]
        page.wait_for_timeout(50)
    raise AssertionError(f"the page opened {len(grader.sockets)} sockets, expected {count}")


def public_test(index: int, name: str, verdict: str, **detail: Any) -> dict[str, Any]:
    return {
        "type": "test",
        "index": index,
        "name": name,
        "verdict": verdict,
        "time_ms": 1.5,
        "hidden": False,
        "tag": "correctness",
        "detail": detail,
    }


def problem_page_html() -> str:
    """The real problem template, rendered for an unsaved problem (no database needed)."""
    problem = Problem(
        slug="token-bucket",
        title="Token-bucket rate limiter",
        difficulty="easy",
        topics=["rate limiting"],
        hints=["one", "two"],
        statement_md="Implement `TokenBucket`.",
        starter_code=STARTER,
        published=True,
    )
    context = {
        "problem": problem,
        "statement_html": markdown_render(problem.statement_md),
        "hint_count": 2,
        "time_limits": {"cpu_seconds": 2.0, "wall_seconds": 8.0},
        **limits(RequestFactory().get("/")),  # what the context processor gives every page
        "csp_nonce": NONCE,
    }
    return render_to_string("frontend/problem_detail.html", context)


EXAMPLE = {"init": [3, 1], "ops": [["allow", 0.0, 1]]}


class FakeUser:
    """Just what the templates read of a signed-in user."""

    is_authenticated = True

    def __init__(self, pk: int) -> None:
        self.pk = pk

    def get_username(self) -> str:
        return f"user{self.pk}"
