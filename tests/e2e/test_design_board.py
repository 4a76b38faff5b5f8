"""End to end: the design round's shared whiteboard in two browsers (issue 29).

A live design session (a problem of kind "design"): the candidate and the interviewer each
draw a shape with the mouse on the board, the boards converge (the same element ids in both
pages and in the server's stored document, `interviews.collab.board_from_updates`), the notes
pane syncs, a reload and a late joiner get the board back, the board turns read-only when the
interviewer ends the session, and the replay's scrubbing shows the board growing (fewer
elements early, all of them at the end) and cites a moment. No page may load anything from
another origin nor hit the Content-Security-Policy (the conftest's CspGuard).

Screenshots at 1440 and 390 px: var/screenshots/design/*.png.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect

from tests.e2e.conftest import People, Platform, people_at
from tests.e2e.design_pages import board_ids, draw, wait_for_ids
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

SHOTS = SCREENSHOTS / "design"
SYNC_MS = 20_000
VIEWPORT: ViewportSize = {"width": 1440, "height": 1000}
PHONE: ViewportSize = {"width": 390, "height": 844}

# A design problem beside the e2e platform's token-bucket (its rubric reused for the cite),
# and a live session between the demo candidate and interviewer, already running.
SEED = """
from datetime import timedelta
from django.contrib.auth.models import User
from django.utils import timezone
from interviews.models import InterviewSession
from problems.models import CONTENT_FIELDS, DESIGN, Problem

problem, created = Problem.objects.get_or_create(slug="design-batch-api", defaults={
    "title": "Design a batch inference API", "kind": DESIGN, "difficulty": "hard",
    "statement_md": "Design a **batch inference API** for 2,000 requests/s of 1k-token prompts.",
    "starter_code": "", "reference_code": "", "published": True})
if created:
    version = Problem.objects.get(slug="token-bucket").live_version
    version.pk = None
    version.problem = problem
    version.number = 1
    for name in CONTENT_FIELDS:
        if name not in ("rubric", "clarifications"):
            setattr(version, name, getattr(problem, name))
    version.public_tests, version.hidden_tests = [], []
    version.driver = {}  # a design round has no tests, so no driver and no input constraints
    version.save()
    problem.live_version = version
    problem.rubric = version.rubric
    problem.save()
now = timezone.now()
session = InterviewSession.objects.create(
    problem=problem, kind="live", status="active", interviewer_can_edit=True,
    candidate=User.objects.get(username="candidate"),
    interviewer=User.objects.get(username="interviewer"),
    duration=timedelta(minutes=45), started_at=now, deadline=now + timedelta(minutes=45))
print(session.pk)
"""

SERVER_BOARD = """
import json
from interviews.collab import board_from_updates, notes_from_updates
from interviews.services.documents import doc_updates
updates = [data for _, data in doc_updates({sid})]
board = board_from_updates(updates)
print(json.dumps({{"ids": sorted(e["id"] for e in board),
                  "versions": sorted([e["id"], e["version"], e["versionNonce"]] for e in board),
                  "notes": notes_from_updates(updates)}}))
"""


@pytest.fixture
def people(browser: Browser, platform: Platform) -> Iterator[People]:
    with people_at(browser, platform, viewport=VIEWPORT) as opened:
        yield opened


class OutsideRequests:
    """Every request a context makes to another origin than the site's (there must be none),
    and every request of the site's that failed (a font the build did not copy, say)."""

    def __init__(self, base_url: str) -> None:
        self.origin = urlsplit(base_url).netloc
        self.seen: list[str] = []
        self.failed: list[str] = []

    def watch(self, context: BrowserContext) -> None:
        context.on("request", self._request)
        context.on("response", self._response)

    def _response(self, response) -> None:  # type: ignore[no-untyped-def]
        if response.status >= 400:
            self.failed.append(f"{response.status} {response.url}")

    def _request(self, request) -> None:  # type: ignore[no-untyped-def]
        url = urlsplit(request.url)
        if url.scheme in ("data", "blob", "about"):
            return
        if url.netloc != self.origin:
            self.seen.append(request.url)


def shots(page: Page, name: str) -> None:
    """The page at 1440 px and at 390 px (which must not scroll sideways), back to 1440."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, viewport in (("1440", VIEWPORT), ("390", PHONE)):
        page.set_viewport_size(viewport)
        page.wait_for_timeout(400)  # Excalidraw re-lays its toolbar out on resize
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= viewport["width"], f"{name} scrolls sideways at {width} px ({wide} px)"
    page.set_viewport_size(VIEWPORT)


def open_session(people: People, username: str, session_id: int) -> Page:
    page = people.log_in(username, f"/sessions/{session_id}/")
    expect(page.locator("#session")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
    expect(page.locator("#session-board .excalidraw canvas.interactive")).to_be_visible()
    return page


def board_versions(page: Page) -> list[list[Any]]:
    """Each live element as [id, version, versionNonce]: equal lists are equal boards."""
    elements = page.evaluate("window.onsiteSession.board.elements()")
    return sorted([e["id"], e["version"], e["versionNonce"]] for e in elements)


def server_board(platform: Platform, session_id: int) -> dict[str, Any]:
    return json.loads(platform.shell(SERVER_BOARD.format(sid=session_id)).strip().splitlines()[-1])


def test_two_people_draw_on_one_board_which_reloads_ends_read_only_and_replays(
    people: People, platform: Platform
) -> None:
    session_id = int(platform.shell(SEED).strip().splitlines()[-1])
    outside = OutsideRequests(platform.base_url)

    candidate = open_session(people, "candidate", session_id)
    outside.watch(candidate.context)
    interviewer = open_session(people, "interviewer", session_id)
    outside.watch(interviewer.context)
    assert outside.failed == [] and outside.seen == [], (outside.failed[:5], outside.seen[:5])
    # A design round has no code desk: no Run, no Submit, no results.
    for page in (candidate, interviewer):
        expect(page.locator("#run-button")).to_have_count(0)
        expect(page.locator("#submit-button")).to_have_count(0)
        expect(page.locator("#design-notes .cm-content")).to_be_visible()
        expect(page.locator("#questions-panel")).to_be_visible()

    # ------------------------------------------------------------ both draw with the mouse
    draw(candidate, "rectangle", (0.3, 0.25, 0.45, 0.45))
    first = wait_for_ids(interviewer, 1)
    draw(interviewer, "ellipse", (0.5, 0.3, 0.7, 0.5))
    draw(candidate, "diamond", (0.32, 0.6, 0.45, 0.75))
    wait_for_ids(candidate, 3)
    wait_for_ids(interviewer, 3)
    candidate.evaluate("window.onsiteSession.flush(4000)")
    interviewer.evaluate("window.onsiteSession.flush(4000)")
    together = board_ids(candidate)
    assert len(together) == 3 and set(first) <= set(together)
    assert board_ids(interviewer) == together
    types = sorted(e["type"] for e in candidate.evaluate("window.onsiteSession.board.elements()"))
    assert types == ["diamond", "ellipse", "rectangle"]

    # ------------------------------------------------------------ the notes pane
    notes = "QPS 2000 x 1k tokens = 2M tokens/s; ~40 GPUs at 50k tok/s each"
    candidate.locator("#design-notes .cm-content").click()
    candidate.keyboard.type(notes)
    # The text itself (the pane also shows the other person's caret with their name).
    expect(interviewer.locator("#design-notes .cm-line").first).to_contain_text(
        notes, timeout=SYNC_MS
    )
    assert interviewer.evaluate("window.onsiteSession.getNotes()") == notes
    candidate.evaluate("window.onsiteSession.flush(4000)")

    # The two pages agree to each element's version (concurrent shapes may still be settling
    # their stacking order for a moment), and so does the server's stored document.
    for _ in range(SYNC_MS // 100):
        if board_versions(candidate) == board_versions(interviewer):
            break
        candidate.wait_for_timeout(100)
    for page in (candidate, interviewer):
        page.evaluate("window.onsiteSession.flush(4000)")
    stored = server_board(platform, session_id)
    assert stored["ids"] == together
    assert board_versions(candidate) == board_versions(interviewer) == stored["versions"]
    assert stored["notes"] == notes

    shots(candidate, "candidate-session")
    shots(interviewer, "interviewer-session")

    # ------------------------------------------------------------ reload, late joiner
    candidate.reload()
    expect(candidate.locator("#session")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
    assert wait_for_ids(candidate, 3) == together
    expect(candidate.locator("#design-notes .cm-line").first).to_contain_text(notes)
    late = people.log_in("interviewer", f"/sessions/{session_id}/")
    outside.watch(late.context)
    expect(late.locator("#session")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
    assert wait_for_ids(late, 3) == together
    late.context.close()

    # A fourth shape after the reload still reaches the other browser.
    draw(candidate, "rectangle", (0.55, 0.6, 0.75, 0.8))
    assert len(wait_for_ids(interviewer, 4)) == 4
    candidate.evaluate("window.onsiteSession.flush(4000)")
    final_ids = board_ids(candidate)
    assert server_board(platform, session_id)["ids"] == final_ids

    # ------------------------------------------------------------ the end: read-only
    interviewer.once("dialog", lambda dialog: dialog.accept())
    interviewer.locator("#finish-button").click()
    expect(candidate.locator("#session")).to_have_attribute(
        "data-status", "finished", timeout=SYNC_MS
    )
    expect(candidate.locator("#session")).to_have_attribute("data-can-edit", "false")
    expect(candidate.locator('#session-board [data-testid="toolbar-rectangle"]')).to_have_count(0)
    expect(candidate.locator("#design-notes .cm-content")).to_have_attribute(
        "aria-readonly", "true"
    )

    # ------------------------------------------------------------ the replay
    replay = interviewer
    replay.goto(f"/sessions/{session_id}/replay/")
    expect(replay.locator("#replay")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
    board = replay.locator("#replay-board")
    expect(board).to_have_attribute("data-count", str(len(final_ids)), timeout=SYNC_MS)
    expect(replay.locator("#replay-notes .cm-content")).to_have_text(notes)
    duration = replay.evaluate("window.onsiteReplay.duration")
    counts = []
    for fraction in (0.0, 0.5, 1.0):
        replay.evaluate(f"window.onsiteReplay.seek({int(duration * fraction)})")
        counts.append(replay.evaluate("window.onsiteReplay.boardCount()"))
    assert counts[0] < counts[-1] == len(final_ids), counts
    assert counts == sorted(counts), counts
    # Early on: the board as it was, with fewer shapes.
    first_shape_t = replay.evaluate("window.onsiteReplay.firstBoardAt()")
    replay.evaluate(f"window.onsiteReplay.seek({first_shape_t})")
    assert 1 <= replay.evaluate("window.onsiteReplay.boardCount()") < len(final_ids)
    expect(board).to_have_attribute(
        "data-count", str(replay.evaluate("window.onsiteReplay.boardCount()"))
    )
    # The board's bursts are marks on the timeline (issue 38): the first one shows the first
    # shape, and who drew it; the other person's shape is another burst.
    strokes = replay.locator("#replay-marks .item-board")
    expect(strokes.first).to_contain_text("Board: added 1 — by candidate (1 on the board)")
    assert strokes.count() >= 3
    strokes.first.locator(".mark-time").click()
    expect(board).to_have_attribute("data-count", "1")
    # A scorer cites that board moment, as they cite a run.
    if replay.locator("#replay-cite").count():
        strokes.first.locator("button.cite").click()
        expect(replay.locator("#cite-status")).to_have_attribute("data-state", "saved")
        replay.locator("#cite-moment").click()
        expect(replay.locator("#cite-status")).to_contain_text("Added")
    replay.evaluate(f"window.onsiteReplay.seek({duration})")
    expect(board).to_have_attribute("data-count", str(len(final_ids)))
    shots(replay, "replay")

    assert outside.seen == [], f"requests outside the site: {outside.seen}"
    assert outside.failed == [], f"requests that failed: {outside.failed}"


# ---------------------------------------------------------------- issue 34: bad elements

# The element of issue 34: well-formed Yjs, an arrow whose points are a string. Excalidraw
# crashed on it (`points.reduce is not a function`) on both pages, for good.
BAD_ARROW = {
    "id": "evil",
    "type": "arrow",
    "x": 0,
    "y": 0,
    "width": 10,
    "height": 10,
    "version": 9,
    "versionNonce": 1,
    "isDeleted": False,
    "groupIds": [],
    "points": "0,0 10,10",
}
STORE_BAD = """
from tests.factories import board_update
board_update({sid}, [{element!r}])
"""


def hostile_socket(
    platform: Platform, page: Page, session_id: int, key: str, element: dict[str, Any]
) -> tuple[list[dict[str, Any]], int | None]:
    """A raw websocket with the page's own cookie (the candidate's session): sync, then one
    well-formed update setting `element` under `key` on the board. Returns the JSON events the
    server sent and its close code."""
    import pycrdt
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    from interviews import collab

    cookie = "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies())
    url = platform.base_url.replace("http", "ws", 1) + f"/ws/sessions/{session_id}/doc/"
    events: list[dict[str, Any]] = []
    doc: pycrdt.Doc[Any] = pycrdt.Doc()
    board = doc.get(collab.BOARD_NAME, type=pycrdt.Map)
    headers = {"Cookie": cookie, "Origin": platform.base_url}
    with connect(url, additional_headers=headers) as socket:
        socket.send(collab.sync_step1_frame(doc.get_state()))
        synced = False
        while not synced:
            frame = socket.recv(timeout=SYNC_MS / 1000)
            if isinstance(frame, str):
                events.append(json.loads(frame))
                continue
            message = collab.parse_message(frame)
            if message.kind == "step1":
                socket.send(collab.sync_step2_frame(doc.get_update(message.payload)))
            elif message.kind in ("step2", "update"):
                doc.apply_update(message.payload)
                synced = synced or message.kind == "step2"
        before = doc.get_state()
        board[key] = element
        socket.send(collab.update_frame(doc.get_update(before)))
        try:
            while True:
                frame = socket.recv(timeout=SYNC_MS / 1000)
                if isinstance(frame, str):
                    events.append(json.loads(frame))
        except ConnectionClosed as closed:
            return events, closed.rcvd.code if closed.rcvd else None
    return events, None


def board_has(page: Page, key: str) -> bool:
    return bool(page.evaluate(f"window.onsiteSession.doc.getMap('board').has({key!r})"))


def test_a_bad_element_is_refused_skipped_where_stored_and_never_blanks_a_board(
    people: People, platform: Platform
) -> None:
    session_id = int(platform.shell(SEED).strip().splitlines()[-1])
    candidate = open_session(people, "candidate", session_id)
    interviewer = open_session(people, "interviewer", session_id)
    draw(candidate, "rectangle", (0.3, 0.25, 0.45, 0.45))
    drawn = wait_for_ids(interviewer, 1)
    candidate.evaluate("window.onsiteSession.flush(4000)")

    # ------------------------------------------------------------ the hostile socket
    events, code = hostile_socket(platform, candidate, session_id, "evil", BAD_ARROW)
    assert code == 4422, (code, events)
    refusal = next(e for e in events if e.get("type") == "refused")
    assert refusal["reason"] == "invalid_board"
    assert refusal["message"] == (
        'The board element "evil" (arrow) cannot be drawn: points '
        "must be a list of at most 20000 [x, y] pairs of finite "
        "numbers."
    )
    assert {"type": "ack"} not in events[events.index(refusal) :]
    # The other side never receives it; both pages still draw the board, and keep working.
    interviewer.wait_for_timeout(1000)
    for page in (candidate, interviewer):
        assert not board_has(page, "evil")
        assert board_ids(page) == drawn
        expect(page.locator("#session-board .board-skipped")).to_be_hidden()
        expect(page.locator("#session-board canvas.interactive")).to_be_visible()
    draw(interviewer, "ellipse", (0.5, 0.3, 0.7, 0.5))
    both = wait_for_ids(candidate, 2)
    interviewer.evaluate("window.onsiteSession.flush(4000)")
    assert server_board(platform, session_id)["ids"] == both
    candidate.reload()
    expect(candidate.locator("#session")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
    assert wait_for_ids(candidate, 2) == both

    # ------------------------------------------------------------ an out-of-date page
    # A page that writes a bad element into the document itself (its binding never would):
    # the server refuses, the page says so at the board and stops; its board still draws.
    candidate.evaluate("""window.onsiteSession.doc.getMap('board').set('stale',
        {id: 'stale', type: 'arrow', version: 1, x: 0, y: 0, points: 'not points'})""")
    alert = candidate.locator("#session-board .board-alert")
    expect(alert).to_be_visible(timeout=SYNC_MS)
    expect(alert).to_have_attribute("role", "alert")
    expect(alert).to_contain_text(
        'Your last change was not saved. The board element "stale" '
        "(arrow) cannot be drawn: points must be a list"
    )
    expect(candidate.locator("#connection")).to_contain_text("refused a change")
    expect(candidate.locator("#session-board .board-skipped")).to_contain_text(
        "1 element could not be drawn and was skipped."
    )
    assert board_ids(candidate) == both
    shots(candidate, "refused-change")
    interviewer.wait_for_timeout(500)
    assert not board_has(interviewer, "stale")
    candidate.reload()
    expect(candidate.locator("#session")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
    assert wait_for_ids(candidate, 2) == both
    expect(candidate.locator("#session-board .board-alert")).to_be_hidden()

    # ------------------------------------------------------------ a board stored before the check
    platform.shell(STORE_BAD.format(sid=session_id, element=BAD_ARROW | {"id": "old"}))
    interviewer.reload()
    expect(interviewer.locator("#session")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
    assert wait_for_ids(interviewer, 2) == both
    expect(interviewer.locator("#session-board .board-skipped")).to_have_text(
        "1 element could not be drawn and was skipped.", timeout=SYNC_MS
    )
    assert server_board(platform, session_id)["ids"] == both
    shots(interviewer, "skipped-element")

    # ------------------------------------------------------------ the replay
    interviewer.once("dialog", lambda dialog: dialog.accept())
    interviewer.locator("#finish-button").click()
    expect(interviewer.locator("#session")).to_have_attribute(
        "data-status", "finished", timeout=SYNC_MS
    )
    interviewer.goto(f"/sessions/{session_id}/replay/")
    expect(interviewer.locator("#replay")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
    board = interviewer.locator("#replay-board")
    expect(board).to_have_attribute("data-count", "2", timeout=SYNC_MS)
    # Drawn, not only handed over (Excalidraw's own initial load once blanked the first scene).
    expect(board).to_have_attribute("data-drawn", "2")
    expect(board.locator(".board-skipped")).to_have_text(
        "1 element could not be drawn and was skipped."
    )
    shots(interviewer, "replay-skipped")
