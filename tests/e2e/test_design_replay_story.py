"""End to end: a design round's replay tells the story, and its report reads on a phone
(issue 38, 4).

A finished live design session whose board was drawn in five updates: the candidate's first
shapes, more a few seconds later (one burst with them), a later move and removal, and the
interviewer's box straight after (another person: another burst). The replay lists one
timeline entry per burst ("Board: added 4 — by candidate") while the stroke buttons still step
through every stroke; loaded straight at 390 px its board is drawn (ink on the canvas), and
the report does not scroll sideways at 390 px although a rubric line holds a long unbroken
token. The final diagram downloads from the report as SVG and PNG.

Screenshots: var/screenshots/design-replay/*.png.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import Platform, people_at
from tests.e2e.design_pages import report_seed
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

SHOTS = SCREENSHOTS / "design-replay"
SYNC_MS = 30_000

# The report's seed, with three more board updates before the session ends, and a rubric line
# with a token too long for a phone's line (the bank's batch API has one like it).
MORE = r"""
from problems.models import Problem
third = board_update(done.pk, [dict(box("q", 240, 150, 180, 70, "Request queue")[0], x=300,
                     version=2), dict(arrow("a3", 420, 185, 80, 0), isDeleted=True, version=2)],
                     author_id=candidate.pk)
fourth = board_update(done.pk, box("i", 0, 300, 200, 70, "Metrics?", color="#e03131",
                      fill="#ffc9c9"), author_id=interviewer.pk)
fifth = board_update(done.pk, [e for n in range(21) for e in box(
                     f"m{chr(97 + n)}", 800 + (n % 7) * 320, 400 + (n // 7) * 600, 200, 70,
                     f"Shard {n}")], author_id=candidate.pk)
DocUpdate.objects.filter(pk=fifth).update(created_at=start + timedelta(minutes=20))
DocUpdate.objects.filter(pk=third).update(created_at=start + timedelta(minutes=14))
DocUpdate.objects.filter(pk=fourth).update(created_at=start + timedelta(minutes=14, seconds=5))
version = ProblemVersion.objects.get(pk=problem.live_version_id)
version.rubric = [dict(c, strong=c["strong"] + " Status: validating→in_progress→finalizing→"
                       "completed/expired/cancelled/failed, x-ratelimit-remaining-requests/tokens.")
                  for c in version.rubric]
version.save(update_fields=["rubric"])
Problem.objects.filter(pk=problem.pk).update(rubric=version.rubric)
"""
SEED = report_seed("batch-api-replay-e2e").replace(
    "DocUpdate.objects.filter(pk=first)",
    "DocUpdate.objects.filter(pk=first)", 1
).replace("services.session_finish_by(", MORE + "services.session_finish_by(", 1)

INK = """(() => {
  const canvas = document.querySelector('#replay-board canvas.excalidraw__canvas.static');
  const { width, height } = canvas;
  const pixels = canvas.getContext('2d').getImageData(0, 0, width, height).data;
  let ink = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    if (pixels[i + 3] > 0 && (pixels[i] < 200 || pixels[i + 1] < 200 || pixels[i + 2] < 200)) ink++;
  }
  return { ink, width, height };
})()"""


def sideways(page: Page) -> int:
    root = "document.documentElement"
    return int(page.evaluate(f"{root}.scrollWidth - {root}.clientWidth"))


def test_the_replay_tells_the_story_in_bursts_and_reads_on_a_phone(
    browser: Browser, platform: Platform
) -> None:
    done = platform.shell(SEED).split()[-2]
    SHOTS.mkdir(parents=True, exist_ok=True)
    with people_at(browser, platform, viewport={"width": 1440, "height": 900}) as people:
        page = people.log_in("interviewer", f"/sessions/{done}/replay/")
        expect(page.locator("#replay")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
        bursts = page.locator("#replay-marks .item-board")
        expect(bursts).to_have_count(5)
        expect(bursts.nth(0)).to_contain_text("Board: added 4 — by candidate (4 on the board)")
        expect(bursts.nth(1)).to_contain_text("Board: added 7 — by candidate (11 on the board)")
        expect(bursts.nth(2)).to_contain_text(
            "Board: moved 1, removed 1 — by candidate (10 on the board)"
        )
        expect(bursts.nth(3)).to_contain_text("Board: added 2 — by interviewer (12 on the board)")
        expect(bursts.nth(4)).to_contain_text("Board: added 42 — by candidate (54 on the board)")
        # The stroke buttons step through every stroke (here one stroke per burst but the
        # last two, which one person's pause does not split: strokes follow shapes drawn).
        page.locator("#replay-stroke-prev").click()
        expect(page.locator("#replay-stroke-at")).to_contain_text("of")
        before = int(page.locator("#replay").get_attribute("data-position") or 0)
        page.locator("#replay-stroke-prev").click()
        after = int(page.locator("#replay").get_attribute("data-position") or 0)
        assert after < before
        page.locator("#replay-stroke-next").click()
        assert int(page.locator("#replay").get_attribute("data-position") or 0) == before
        page.screenshot(path=str(SHOTS / "replay-1440.png"), full_page=True)
    with people_at(browser, platform, viewport={"width": 390, "height": 844}) as people:
        page = people.log_in("interviewer", f"/sessions/{done}/replay/")
        expect(page.locator("#replay")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
        page.wait_for_timeout(500)
        drawn = page.evaluate(INK)
        page.screenshot(path=str(SHOTS / "replay-390.png"), full_page=True)
        assert drawn["ink"] > 200, drawn
        assert sideways(page) <= 0

    # The candidate's report: at 390 px nothing scrolls sideways (the long rubric token
    # wraps), and the final diagram downloads as SVG and as PNG.
    for width in (1440, 390):
        viewport = {"width": width, "height": 900}
        with people_at(browser, platform, viewport=viewport) as people:
            page = people.log_in("candidate", f"/sessions/{done}/report/")
            expect(page.locator("#report-strong")).to_contain_text("validating→in_progress")
            expect(page.locator("#report-board-image")).to_be_visible()
            page.wait_for_load_state("networkidle")
            assert sideways(page) <= 0, f"the report scrolls sideways at {width} px"
            page.screenshot(path=str(SHOTS / f"report-{width}.png"), full_page=True)
            with page.expect_download() as svg:
                page.locator("#board-download-svg").click()
            assert svg.value.suggested_filename.endswith(".svg")
            assert svg.value.path().read_bytes().lstrip().startswith((b"<svg", b"<?xml"))
            with page.expect_download() as png:
                page.locator("#board-download-png").click()
            assert png.value.suggested_filename.endswith("-diagram.png")
            assert png.value.path().read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
