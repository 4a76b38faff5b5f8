"""The live/solo session page has the practice page's desk (issue 26): the same settings,
kept in the same place, the custom input and the console, and a tall editor; a scratch run the
other participant starts shows on this side too.

As in test_desk.py, the page is the real template and Playwright plays the server: the
session's JSON endpoints, the document socket (a Yjs peer that syncs and acknowledges) and
the submission socket.
"""

from __future__ import annotations

import json
import mimetypes
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from playwright.sync_api import Browser, Page, Request, Route, WebSocketRoute, expect

from core.csp import CURSOR_COLORS
from core.markdown import markdown_render
from interviews.models import InterviewSession
from problems.models import Problem
from tests.csp import NONCE, csp_headers
from tests.frontend.fakes import (
    EXAMPLE,
    ORIGIN,
    STATIC_DIR,
    SUBMISSION_ID,
    FakeUser,
    public_test,
    send,
)

pytestmark = pytest.mark.e2e

SESSION_ID = 5
STARTER = "class TokenBucket:\n    def __init__(self, rate, capacity):\n        pass\n"
# y-protocols' sync messages: [messageSync=0, step] + payload. An empty Yjs update is [0, 0].
SYNC_STEP2_EMPTY = bytes([0, 1, 2, 0, 0])


def session_html(role: str, user_pk: int) -> str:
    problem = Problem(
        slug="token-bucket", title="Token-bucket rate limiter", difficulty="easy",
        statement_md="Implement `TokenBucket`.\n\n" + "More text.\n\n" * 20,
        starter_code=STARTER, published=True,
    )  # fmt: skip
    session = InterviewSession(
        pk=SESSION_ID, problem=problem, kind="live", status="active", duration=timedelta(minutes=45)
    )
    state = {
        "id": SESSION_ID, "kind": "live", "status": "active", "role": role,
        "can_edit": True, "interviewer_can_edit": role == "interviewer",
        "deadline": "2999-01-01T00:00:00+00:00", "server_now": "2998-12-31T23:30:00+00:00",
        "started_at": None, "finished_at": None, "finish_reason": "", "final_submission": None,
        "duration_seconds": 2700, "doc_max_message_bytes": 1_000_000, "questions": [],
        "notes": [], "chat": [], "call_link": "", "submissions": [], "invitation": None,
    }  # fmt: skip
    context = {
        "session": session, "role": role, "state": state,
        "interviewer_side": role != "candidate",
        "statement_html": markdown_render(problem.statement_md), "hints": None,
        "invite_url": "", "panel": None, "chat_max": 500,
        "time_limits": {"cpu_seconds": 2.0, "wall_seconds": 8.0},
        "custom_example": EXAMPLE, "custom_reference": True,
        "cursor_colors": CURSOR_COLORS, "user": FakeUser(user_pk), "csp_nonce": NONCE,
    }  # fmt: skip
    return render_to_string("interviews/session_detail.html", context)


@dataclass
class FakeSession:
    """Serves the session page and its endpoints, and plays both sockets."""

    page_html: str
    runs: list[dict[str, Any]] = field(default_factory=list)
    doc_sockets: list[WebSocketRoute] = field(default_factory=list)
    on_submission: Callable[[WebSocketRoute], None] | None = None

    def http(self, route: Route, request: Request) -> None:
        path = request.url.removeprefix(ORIGIN).split("?")[0]
        if path.startswith("/static/"):
            found = finders.find(path.removeprefix("/static/"))  # every app's static files
            file = Path(str(found)) if found else STATIC_DIR / "missing"
            if not file.is_file():
                route.fulfill(status=404, body="")
                return
            mime = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
            route.fulfill(status=200, body=file.read_bytes(), content_type=mime)
        elif path == f"/sessions/{SESSION_ID}/run" and request.method == "POST":
            body = json.loads(request.post_data or "{}")
            self.runs.append(body)
            answer = {
                "id": SUBMISSION_ID + len(self.runs),
                "mode": body.get("mode"),
                "status": "queued",
            }
            route.fulfill(status=201, body=json.dumps(answer), content_type="application/json")
        elif path.startswith(f"/sessions/{SESSION_ID}/") and path != f"/sessions/{SESSION_ID}/":
            route.fulfill(status=200, body="{}", content_type="application/json")
        else:  # the page, under the site's real Content-Security-Policy
            route.fulfill(
                status=200, body=self.page_html, content_type="text/html", headers=csp_headers()
            )

    def doc_socket(self, ws: WebSocketRoute) -> None:
        self.doc_sockets.append(ws)

        def answer(message: str | bytes) -> None:
            if isinstance(message, str) or len(message) < 2 or message[0] != 0:
                return  # awareness, or not a sync message
            if message[1] == 0:
                ws.send(SYNC_STEP2_EMPTY)  # the page's step 1: "the server has nothing more"
            else:
                send(ws, type="ack")  # an update of the page's: stored

        ws.on_message(answer)

    def submission_socket(self, ws: WebSocketRoute) -> None:
        if self.on_submission:
            self.on_submission(ws)


def open_session(
    browser: Browser,
    fake: FakeSession,
    *,
    user_pk: int,
    prefs: dict[str, Any] | None = None,
    **viewport: int,
) -> tuple[Page, list[str]]:
    size = {"width": 1440, "height": 900} | viewport
    context = browser.new_context(base_url=ORIGIN, viewport=size)  # type: ignore[arg-type]
    context.add_cookies([{"name": "csrftoken", "value": "csrf-abc", "url": ORIGIN}])
    if prefs is not None:  # what the practice page saved for this user, in this browser
        saved = json.dumps(json.dumps(prefs))
        context.add_init_script(f"localStorage.setItem('onsite:editor-prefs:{user_pk}', {saved})")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.route("**/*", fake.http)
    page.route_web_socket(f"**/ws/sessions/{SESSION_ID}/doc/", fake.doc_socket)
    page.route_web_socket("**/ws/submissions/*/", fake.submission_socket)
    page.goto(f"/sessions/{SESSION_ID}/")
    expect(page.locator("#session")).to_have_attribute("data-ready", "true")
    return page, errors


@pytest.fixture
def candidate(browser: Browser, bundle: Path) -> Iterator[tuple[Page, FakeSession]]:
    fake = FakeSession(page_html=session_html("candidate", 7))
    prefs = {"wrap": True, "fontSize": 16, "theme": "dark", "keymap": "emacs", "layout": "beside"}
    page, errors = open_session(browser, fake, user_pk=7, prefs=prefs)
    yield page, fake
    page.context.close()
    assert errors == [], f"errors in the page: {errors}"


def test_the_session_desk_keeps_the_practice_settings_and_runs_custom_input_and_the_console(
    candidate: tuple[Page, FakeSession],
) -> None:
    page, fake = candidate
    editor = page.locator("#session-editor .cm-editor")
    # The practice page's settings, from the same place, on the same controls.
    expect(editor).to_have_attribute("data-theme", "dark")
    expect(editor).to_have_attribute("data-keymap", "emacs")
    expect(page.locator("#editor-prefs select[name=fontSize]")).to_have_value("16")
    expect(page.locator("#editor-prefs input[name=wrap]")).to_be_checked()
    # Tall enough for a real solution: 17 lines was the complaint.
    line = page.evaluate("document.querySelector('#session-editor .cm-line').offsetHeight")
    height = editor.bounding_box()["height"]  # type: ignore[index]
    assert height / line >= 25
    width = editor.bounding_box()["width"]  # type: ignore[index]
    assert width >= 1440 / 2

    page.evaluate(f"window.onsiteSession.setCode({json.dumps(STARTER)})")

    def custom_answer(ws: WebSocketRoute) -> None:
        ws.send(
            json.dumps(
                public_test(
                    0,
                    "custom input vs reference",
                    "AC",
                    output="[true]",
                    expected="[true]",
                    stdout="hi\n",
                )
            )
        )
        send(ws, type="done", verdict="AC", passed=1, total=1, score=1.0, by_tag={})

    fake.on_submission = custom_answer
    page.click("#tab-custom")
    assert json.loads(page.locator("#custom-input").input_value()) == EXAMPLE
    page.click("#custom-run-button")
    expect(page.locator("#custom-output")).to_contain_text("Same answer as the reference")
    assert fake.runs == [{"mode": "custom", "input": EXAMPLE}]
    # Focus went to the results, not to the page, and a shortcut brings it back.
    assert page.evaluate("document.activeElement.id") == "custom-panel"
    page.keyboard.press("Control+Shift+E")
    assert page.evaluate("document.activeElement.closest('#session-editor') !== null")

    def console_answer(ws: WebSocketRoute) -> None:
        ws.send(json.dumps(public_test(0, "script", "AC", stdout="printed\n")))
        send(ws, type="done", verdict="AC", passed=1, total=1, score=1.0, by_tag={})

    fake.on_submission = console_answer
    page.keyboard.press("Control+;")  # the console's key, from the editor
    expect(page.locator("#console-output .console .output-text")).to_have_text("printed\n")
    expect(page.locator("#console-panel")).to_be_visible()
    expect(page.locator("#results")).to_be_hidden()
    assert fake.runs[-1] == {"mode": "script"}


def test_a_custom_run_the_candidate_started_shows_on_the_interviewers_desk(
    browser: Browser, bundle: Path
) -> None:
    fake = FakeSession(page_html=session_html("interviewer", 9))
    page, errors = open_session(browser, fake, user_pk=9, width=1280, height=800)
    try:
        page.locator("#session-editor .cm-content").click()
        ran_on = {"init": [9, 9], "ops": []}

        def answer(ws: WebSocketRoute) -> None:
            ws.send(json.dumps(public_test(0, "custom input", "AC", output="[]")))
            send(ws, type="done", verdict="AC", passed=1, total=1, score=1.0, by_tag={})

        fake.on_submission = answer
        send(
            fake.doc_sockets[-1],
            type="submission",
            id=SUBMISSION_ID,
            mode="custom",
            input=ran_on,
            by="cand",
            role="candidate",
        )
        send(
            fake.doc_sockets[-1],
            type="event",
            kind="custom_run",
            by="cand",
            at="2999-01-01T00:00:00+00:00",
        )

        expect(page.locator("#custom-panel")).to_be_visible()
        expect(page.locator("#custom-output")).to_contain_text("Returned")
        assert json.loads(page.locator("#custom-input").input_value()) == ran_on
        expect(page.locator("#activity")).to_contain_text("cand ran the code on a custom input")
        # Someone else's run does not take this side's focus out of the editor.
        assert page.evaluate("document.activeElement.closest('#session-editor') !== null")
        assert fake.runs == []
    finally:
        page.context.close()
    assert errors == [], f"errors in the page: {errors}"


def test_a_slow_answer_never_wipes_the_next_question_being_typed(
    candidate: tuple[Page, FakeSession],
) -> None:
    """The box is emptied once a question is stored, unless the person typed on meanwhile: the
    answer to a slow first question (or its echo from the socket first) used to clear the
    second question as it was being written."""
    page, _ = candidate
    held: list[Route] = []
    page.route(f"**/sessions/{SESSION_ID}/questions", lambda route, request: held.append(route))
    box = page.locator("#question-form textarea")
    box.fill("Is the bucket full when it is created?")
    page.click("#question-form button[type=submit]")
    for _ in range(100):
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the question was never posted"
    box.fill("Can a request cost more than the capacity?")  # typed while the first is out
    held[0].fulfill(
        status=201,
        content_type="application/json",
        body=json.dumps(
            {
                "id": 1,
                "text": "Is the bucket full when it is created?",
                "asked_at": "2998-12-31T23:31:00+00:00",
                "answer": "Full.",
                "source": "canned",
            }
        ),
    )
    expect(page.locator("#questions .question")).to_have_count(1)
    expect(box).to_have_value("Can a request cost more than the capacity?")
