"""End to end: everyone in a design room draws (issue 38, 2), in three browsers.

A live design session scheduled through the services without a word about editing: the
candidate, the interviewer and a co-interviewer each draw on the board with the mouse and
every board converges; each sees the other two's pointers named (Excalidraw's collaborators,
over the session's awareness channel) and what they selected; the interviewer follows the
candidate's viewport (the candidate pans, the interviewer's board goes with it); unticking
"Interviewers draw too" locks the board to the candidate. At 1440, 1280 and 390 px.

Screenshots: var/screenshots/design-room/*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from tests.e2e.conftest import People, Platform, people_at
from tests.e2e.design_pages import board_ids, draw, wait_for_ids
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

SHOTS = SCREENSHOTS / "design-room"
SYNC_MS = 30_000
WIDE: ViewportSize = {"width": 1440, "height": 900}
LAPTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}

SEED = """
from datetime import timedelta
from django.contrib.auth.models import User
from interviews import services
from problems.models import ProblemVersion
from tests.factories import design_problem
from django.utils import timezone

reference = [{"id": f"refsecret{n}", "type": "rectangle", "index": f"a{n}", "version": 1,
              "x": n * 260, "y": 0, "width": 200, "height": 80, "strokeColor": "#1971c2",
              "backgroundColor": "#a5d8ff"} for n in range(1, 4)]
problem = design_problem("design-room-e2e", reference_board=reference)
ProblemVersion.objects.filter(pk=problem.live_version_id).update(
    validation=ProblemVersion.Validation.PASSED, validated_at=timezone.now())
interviewer = User.objects.get(username="interviewer")
session = services.session_schedule_live(interviewer=interviewer, problem_slug=problem.slug,
                                         duration=timedelta(minutes=45))
services.co_interviewer_add(session=session, user=interviewer, username="admin")
services.session_join(token=session.invite_token, user=User.objects.get(username="candidate"))
print(session.pk)
"""


@pytest.fixture
def people(browser: Browser, platform: Platform) -> Iterator[People]:
    with people_at(browser, platform, viewport=WIDE) as opened:
        yield opened


def open_board(people: People, username: str, session_id: int) -> Page:
    page = people.log_in(username, f"/sessions/{session_id}/")
    expect(page.locator("#session")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
    expect(page.locator("#session-board .excalidraw canvas.interactive")).to_be_visible()
    return page


def collaborators(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate("window.onsiteSession.board.collaborators()")
    return found


def wait_for(page: Page, check: Any, what: str) -> Any:
    """Poll `check(page)` until it is truthy (the policy forbids wait_for_function's eval)."""
    for _ in range(SYNC_MS // 100):
        value = check(page)
        if value:
            return value
        page.wait_for_timeout(100)
    raise AssertionError(f"never: {what} ({check(page)!r})")


def hover(page: Page, at: tuple[float, float]) -> None:
    area = page.locator("#session-board canvas.interactive").bounding_box()
    assert area is not None
    page.mouse.move(area["x"] + area["width"] * at[0], area["y"] + area["height"] * at[1])
    page.mouse.move(area["x"] + area["width"] * at[0] + 5, area["y"] + area["height"] * at[1] + 5)


def scroll(page: Page) -> dict[str, float]:
    state: dict[str, float] = page.evaluate(
        "(() => { const s = window.onsiteSession.board.api.getAppState();"
        " return {x: s.scrollX, y: s.scrollY, zoom: s.zoom.value}; })()"
    )
    return state


def test_everyone_in_a_design_room_draws_and_sees_the_others_pointers(
    people: People, platform: Platform
) -> None:
    session_id = int(platform.shell(SEED).strip().splitlines()[-1])
    candidate = open_board(people, "candidate", session_id)
    interviewer = open_board(people, "interviewer", session_id)
    co = open_board(people, "admin", session_id)
    pages = {"candidate": candidate, "interviewer": interviewer, "admin": co}
    expect(interviewer.locator("#interviewer-edit")).to_be_checked()
    for page in pages.values():
        expect(page.locator("#session")).to_have_attribute("data-can-edit", "true")

    # Everyone draws; every board converges.
    draw(candidate, "rectangle", (0.3, 0.25, 0.45, 0.4))
    wait_for_ids(co, 1)
    draw(interviewer, "ellipse", (0.55, 0.25, 0.7, 0.4))
    wait_for_ids(candidate, 2)
    draw(co, "diamond", (0.35, 0.55, 0.5, 0.7))
    for page in pages.values():
        wait_for_ids(page, 3)
    assert board_ids(candidate) == board_ids(interviewer) == board_ids(co)

    # Each sees the other two's pointers, named, and what they selected.
    for page in pages.values():
        hover(page, (0.6, 0.6))
    for name, page in pages.items():
        others = sorted(set(pages) - {name})
        wait_for(
            page,
            lambda p, others=others: sorted(
                c["name"] for c in collaborators(p) if c["pointer"]
            ) == others,
            f"{name} sees {others}'s pointers",
        )
    # The co-interviewer's diamond is still selected after drawing it: the others see that.
    selected = wait_for(
        candidate,
        lambda p: [c["selected"] for c in collaborators(p) if c["name"] == "admin"
                   and c["selected"]],
        "the candidate sees what the co-interviewer selected",
    )
    assert selected[0][0] in board_ids(candidate)
    SHOTS.mkdir(parents=True, exist_ok=True)
    candidate.screenshot(path=str(SHOTS / "candidate-1440.png"))

    # The interviewer follows the candidate: the candidate pans, the interviewer's view goes too.
    candidate_id = next(c["id"] for c in collaborators(interviewer) if c["name"] == "candidate")
    interviewer.evaluate(f"window.onsiteSession.board.follow('{candidate_id}')")
    before = scroll(interviewer)
    candidate.evaluate(
        "window.onsiteSession.board.api.updateScene({appState: {scrollX: -2000, scrollY: -1500}})"
    )
    hover(candidate, (0.5, 0.5))
    wait_for(
        interviewer,
        lambda p: abs(scroll(p)["x"] - before["x"]) > 500,
        "the interviewer's board follows the candidate's",
    )
    assert interviewer.evaluate("window.onsiteSession.board.following()") == candidate_id
    interviewer.screenshot(path=str(SHOTS / "interviewer-following-1440.png"))
    interviewer.evaluate("window.onsiteSession.board.follow(null)")

    # The interviewer opens the reference board full size, in a window over the page that
    # leaves the live board where it was (test_design_layout.py checks both keep Excalidraw's
    # desktop layout); the candidate's page never holds it (issue 38, 3).
    live_box = interviewer.locator("#session-board").bounding_box()
    interviewer.locator("[data-tab-button=rubric]").click()
    interviewer.locator("#reference-panel summary").click()
    interviewer.locator("#reference-open").click()
    expect(interviewer.locator("#reference-open")).to_have_attribute("aria-pressed", "true")
    viewer = interviewer.locator("#reference-viewer-board")
    expect(viewer).to_have_attribute("data-count", "3", timeout=SYNC_MS)
    reference_box = viewer.bounding_box()
    assert live_box is not None and reference_box is not None
    assert interviewer.locator("#session-board").bounding_box() == live_box
    assert reference_box["width"] >= 730, reference_box
    interviewer.screenshot(path=str(SHOTS / "interviewer-reference-1440.png"))
    interviewer.locator("#reference-close").click()
    expect(interviewer.locator("#reference-viewer")).to_be_hidden()
    for page in (candidate,):
        assert page.locator("#reference-board-data, #reference-open").count() == 0
        assert "refsecret" not in page.content()

    # The interviewer locks the board to the candidate: the interviewers watch.
    interviewer.locator("#interviewer-edit").uncheck()
    for page in (interviewer, co):
        expect(page.locator("#session")).to_have_attribute(
            "data-can-edit", "false", timeout=SYNC_MS
        )
    expect(candidate.locator("#session")).to_have_attribute("data-can-edit", "true")

    for name, viewport in (("1280", LAPTOP), ("390", PHONE)):
        for who, page in pages.items():
            page.set_viewport_size(viewport)
            page.wait_for_timeout(300)
            page.screenshot(path=str(SHOTS / f"{who}-{name}.png"))
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= viewport["width"], f"{who} scrolls sideways at {name} px ({wide} px)"
