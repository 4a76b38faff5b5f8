"""End to end: interview sessions in Debian's chromium, two browser contexts at once.

A live session: the interviewer schedules it, the candidate joins by the link, typing reaches
the other side both ways, a run's results appear on both pages, a clarifying question is
answered by the interviewer, and the replay rebuilds the document with the run and the paste
on its timeline. A solo session: a clarifying question gets the problem's canned answer (or
the advice to state an assumption). A short solo session: the countdown survives a reload,
and at the deadline the server submits the code, whose grading appears on the page.

Everything is real (daphne, Redis, the Celery worker, the Docker sandbox): the `platform` and
`browser` fixtures come from tests/e2e/conftest.py. Screenshots go to /tmp/onsite-e2e-session-*.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from tests.e2e.conftest import People, Platform, people_at

pytestmark = pytest.mark.e2e

PACKAGE = Path(__file__).resolve().parents[2] / "problems" / "bank" / "token-bucket"
GRADING_TIMEOUT_MS = 180_000
SYNC_TIMEOUT_MS = 15_000


def public_count() -> int:
    return len(json.loads((PACKAGE / "tests" / "public.json").read_text()))


def all_count() -> int:
    return public_count() + len(json.loads((PACKAGE / "tests" / "hidden.json").read_text()))


@pytest.fixture
def pages(browser: Browser, platform: Platform) -> Iterator[People]:
    with people_at(browser, platform, viewport={"width": 1600, "height": 1000}) as opened:
        yield opened


class NetworkSwitch:
    """Routes a page's document socket through Playwright so a test can cut it: while "down",
    open sockets are closed (as a dropped network would) and reconnects are refused."""

    def __init__(self) -> None:
        self.down = False
        self.routes: list[WebSocketRoute] = []

    def handle(self, route: WebSocketRoute) -> None:
        if self.down:
            route.close(code=1001)
            return
        server = route.connect_to_server()
        self.routes.append(route)
        self.routes.append(server)

    def cut(self) -> None:
        self.down = True
        for route in self.routes:
            route.close(code=1001)
        self.routes.clear()

    def restore(self) -> None:
        self.down = False


def editor(page: Page) -> str:
    return str(page.evaluate("window.onsiteSession.getCode()"))


def type_at_end(page: Page, text: str) -> None:
    """Types like a person: click into the editor, go to the end, press the keys."""
    page.click("#session-editor .cm-content")
    page.keyboard.press("Control+End")
    page.keyboard.type(text)


def wait_ready(page: Page) -> None:
    expect(page.locator("#session")).to_have_attribute(
        "data-ready", "true", timeout=SYNC_TIMEOUT_MS
    )


def start_solo(page: Page, minutes: str) -> int:
    page.goto("/sessions/")
    page.select_option("#solo-form select[name=problem]", "token-bucket")
    page.fill("#solo-form input[name=minutes]", minutes)
    page.click("#solo-form button[type=submit]")
    expect(page).to_have_url(re.compile(r"/sessions/\d+/$"))
    wait_ready(page)
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def test_live_session_typing_runs_questions_and_replay(pages: People) -> None:
    interviewer = pages.log_in("interviewer")
    interviewer.select_option("#live-form select[name=problem]", "token-bucket")
    interviewer.fill("#live-form input[name=minutes]", "30")
    interviewer.fill("#live-form input[name=candidate]", "candidate")
    interviewer.check("#live-form input[name=interviewer_can_edit]")
    interviewer.click("#live-form button[type=submit]")
    expect(interviewer).to_have_url(re.compile(r"/sessions/\d+/$"))
    session_url = interviewer.url
    invite = interviewer.input_value("#invite-url")
    assert "/sessions/join/" in invite
    wait_ready(interviewer)
    expect(interviewer.locator("#session-timer")).to_have_text("not started")

    # The candidate opens the link and joins: the clock starts on both pages.
    candidate = pages.log_in("candidate")
    network = NetworkSwitch()
    candidate.route_web_socket(re.compile(r"/ws/sessions/\d+/doc/$"), network.handle)
    candidate.goto(invite)
    candidate.click("#join-form button[type=submit]")
    expect(candidate).to_have_url(session_url)
    wait_ready(candidate)
    expect(candidate.locator("#session")).to_have_attribute("data-status", "active")
    expect(interviewer.locator("#session")).to_have_attribute(
        "data-status", "active", timeout=SYNC_TIMEOUT_MS
    )
    expect(interviewer.locator("#session-timer")).to_have_text(re.compile(r"^\d\d:\d\d$"))
    starter = (PACKAGE / "starter.py").read_text()
    assert editor(candidate) == editor(interviewer) == starter

    # Typing propagates both ways.
    type_at_end(candidate, "# typed by the candidate\n")
    expect(interviewer.locator("#session-editor .cm-content")).to_contain_text(
        "# typed by the candidate", timeout=SYNC_TIMEOUT_MS
    )
    type_at_end(interviewer, "# typed by the interviewer\n")
    expect(candidate.locator("#session-editor .cm-content")).to_contain_text(
        "# typed by the interviewer", timeout=SYNC_TIMEOUT_MS
    )
    # The interviewer's cursor is shown to the candidate under the interviewer's name.
    expect(candidate.locator(".cm-ySelectionInfo")).to_contain_text(
        ["interviewer"], timeout=SYNC_TIMEOUT_MS
    )

    # The candidate's connection drops; both keep typing; on reconnect nothing is lost.
    network.cut()
    expect(candidate.locator("#connection")).to_have_attribute("data-state", "offline")
    type_at_end(candidate, "# typed while offline\n")
    interviewer.click("#session-editor .cm-content")
    interviewer.keyboard.press("Control+Home")
    interviewer.keyboard.type("# meanwhile, the interviewer\n")
    network.restore()
    expect(candidate.locator("#connection")).to_have_attribute(
        "data-state", "synced", timeout=SYNC_TIMEOUT_MS
    )
    for page in (candidate, interviewer):
        for line in ("# typed while offline", "# meanwhile, the interviewer"):
            expect(page.locator("#session-editor .cm-content")).to_contain_text(
                line, timeout=SYNC_TIMEOUT_MS
            )
    assert editor(candidate) == editor(interviewer)
    merged = editor(candidate)
    assert merged.count("# typed while offline\n") == 1
    assert merged.count("# meanwhile, the interviewer\n") == 1

    # A run's results appear on both pages (the candidate pastes the reference first).
    reference = (PACKAGE / "reference.py").read_text()
    candidate.evaluate("code => window.onsiteSession.setCode(code)", reference)
    candidate.evaluate("window.onsiteSession.flush(5000)")
    expect(interviewer.locator("#session-editor .cm-content")).to_contain_text(
        "Reference solution", timeout=SYNC_TIMEOUT_MS
    )
    candidate.click("#run-button")
    n = public_count()
    for page in (candidate, interviewer):
        expect(page.locator("#result-summary")).to_contain_text(
            f"passed {n} of {n}", timeout=GRADING_TIMEOUT_MS
        )
        expect(page.locator("#result-summary .verdict")).to_have_text("AC")
    # The paste is on the interviewer's activity feed.
    expect(interviewer.locator("#activity .activity-paste")).to_have_count(1)

    # A live clarifying question waits for the interviewer, whose answer reaches the candidate.
    candidate.fill("#question-form textarea", "Is the bucket full when it is created?")
    candidate.click("#question-form button[type=submit]")
    expect(candidate.locator("#questions .q-waiting")).to_have_count(1, timeout=60_000)
    answer_box = interviewer.locator("#questions .answer-form textarea")
    expect(answer_box).to_have_value(re.compile("Full"), timeout=SYNC_TIMEOUT_MS)
    expect(interviewer.locator("#questions .q-match")).to_contain_text("a key question")
    answer_box.fill("Yes: it starts full.")
    interviewer.click("#questions .answer-form button")
    expect(candidate.locator("#questions .q-answer")).to_contain_text(
        "Yes: it starts full.", timeout=SYNC_TIMEOUT_MS
    )
    candidate.screenshot(path="/tmp/onsite-e2e-session-candidate.png", full_page=True)
    interviewer.screenshot(path="/tmp/onsite-e2e-session-interviewer.png", full_page=True)

    # The replay: the document at the end, the starter at the start, the run and paste marked.
    final_code = editor(candidate)
    replay = interviewer.context.new_page()
    replay.on("pageerror", lambda error: pages.errors.append(f"replay: {error}"))
    replay.goto(session_url + "replay/")
    expect(replay.locator("#replay")).to_have_attribute("data-ready", "true")
    assert replay.evaluate("window.onsiteReplay.code()") == final_code
    expect(replay.locator("#replay-timeline .mark[data-kind=run]")).to_have_count(1)
    expect(replay.locator("#replay-timeline .mark[data-kind=paste]")).to_have_count(1)
    expect(replay.locator("#replay-marks")).to_contain_text("Question: Is the bucket full")
    replay.evaluate("window.onsiteReplay.seek(0)")
    assert replay.evaluate("window.onsiteReplay.code()") == starter
    replay.select_option("#replay-speed", "32")
    replay.click("#replay-play")
    expect(replay.locator("#replay")).to_have_attribute("data-playing", "false", timeout=60_000)
    assert replay.evaluate("window.onsiteReplay.code()") == final_code
    # A deep link to a moment (what evidence links use) opens the replay there.
    replay.goto(session_url + "replay/#t=0")
    expect(replay.locator("#replay")).to_have_attribute("data-position", "0")
    assert replay.evaluate("window.onsiteReplay.code()") == starter
    replay.screenshot(path="/tmp/onsite-e2e-session-replay.png", full_page=True)


def test_solo_question_gets_the_canned_answer_or_the_advice_to_assume(pages: People) -> None:
    candidate = pages.log_in("candidate")
    start_solo(candidate, "30")

    candidate.fill("#question-form textarea", "Does the bucket begin full?")
    candidate.click("#question-form button[type=submit]")
    first = candidate.locator("#questions .question").nth(0)
    expect(first.locator(".q-answer")).to_contain_text(
        "Full: a new client may burst up to capacity", timeout=60_000
    )
    expect(first).to_have_attribute("data-source", "canned")

    candidate.fill("#question-form textarea", "Which keyboard layout do you prefer?")
    candidate.click("#question-form button[type=submit]")
    second = candidate.locator("#questions .question").nth(1)
    expect(second).to_have_attribute("data-source", "assumption", timeout=60_000)
    expect(second.locator(".q-answer")).to_contain_text(
        "That is not specified here: state your assumption"
    )

    candidate.fill("#note-form textarea", "O(1) per call: two floats of state")
    candidate.click("#note-form button[type=submit]")
    expect(candidate.locator("#notes .note-text")).to_have_text(
        ["O(1) per call: two floats of state"]
    )


def test_the_deadline_submits_the_code_and_the_countdown_survives_a_reload(
    pages: People,
) -> None:
    candidate = pages.log_in("candidate")
    start_solo(candidate, "0.4")  # 24 seconds
    deadline = candidate.get_attribute("#session-timer", "data-deadline")
    assert deadline

    reference = (PACKAGE / "reference.py").read_text()
    candidate.evaluate("code => window.onsiteSession.setCode(code)", reference)
    assert candidate.evaluate("window.onsiteSession.flush(5000)") is True

    # A reload reads the same server deadline and the same (server-side) document.
    candidate.reload()
    wait_ready(candidate)
    assert candidate.get_attribute("#session-timer", "data-deadline") == deadline
    assert editor(candidate) == reference

    # At the deadline the server submits the code: the page shows it and its grading.
    expect(candidate.locator("#session")).to_have_attribute(
        "data-status", "finished", timeout=90_000
    )
    expect(candidate.locator("#session-banner")).to_contain_text("Time is up")
    total = all_count()
    expect(candidate.locator("#result-summary")).to_contain_text(
        f"passed {total} of {total}", timeout=GRADING_TIMEOUT_MS
    )
    expect(candidate.locator("#session")).to_have_attribute("data-can-edit", "false")
    candidate.screenshot(path="/tmp/onsite-e2e-session-deadline.png", full_page=True)


def test_an_edit_over_the_message_cap_stops_with_a_message_and_is_never_resent(
    pages: People,
) -> None:
    """The page knows the server's cap (from its state) and never sends a larger change: it
    says why and stops, instead of reconnecting and resending the same change forever."""
    candidate = pages.log_in("candidate")
    session_id = start_solo(candidate, "30")
    cap = int(
        candidate.evaluate(
            f"fetch('/sessions/{session_id}/state')"
            ".then(r => r.json()).then(s => s.doc_max_message_bytes)"
        )
    )
    sent: list[int] = []
    candidate.on(
        "websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(len(payload)))
    )
    before = editor(candidate)

    candidate.evaluate("n => window.onsiteSession.setCode('#'.repeat(n))", cap + 1024)

    connection = candidate.locator("#connection")
    expect(connection).to_have_attribute("data-state", "closed", timeout=SYNC_TIMEOUT_MS)
    expect(connection).to_contain_text("too large to send")
    candidate.wait_for_timeout(3000)  # longer than the first reconnect delays
    assert all(size <= cap for size in sent)
    expect(connection).to_have_attribute("data-state", "closed")
    # Nothing of the oversized change reached the server's copy.
    candidate.reload()
    wait_ready(candidate)
    assert editor(candidate) == before
