"""End to end: a design round's report (the final diagram, the notes, a cited board moment once
released) and the cockpit's private reference design, in Debian's chromium at 1440 and 390 px,
under the Content-Security-Policy guard. The rows go straight into the platform's database
(`Platform.shell`); the board is real Yjs updates stored through the session's document door.

Screenshots: var/screenshots/design-report-*.png, design-review-*.png, design-cockpit-*.png.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import Platform, people_at
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

SEED = r"""
from datetime import timedelta
from django.contrib.auth.models import User
from django.utils import timezone
from interviews import services
from interviews.models import DocUpdate, InterviewSession
from interviews.review import services as review
from problems.models import ProblemVersion
from tests.factories import board_update, design_problem

def box(id, x, y, w, h, text, kind="rectangle", color="#1971c2", fill="#a5d8ff"):
    return [{"id": id, "type": kind, "index": "a" + id, "version": 1, "x": x, "y": y,
             "width": w, "height": h, "strokeColor": color, "backgroundColor": fill,
             "roundness": {"type": 3} if kind == "rectangle" else None},
            {"id": id + "-t", "type": "text", "index": "b" + id, "version": 1, "x": x,
             "y": y + h / 2 - 12, "width": w, "height": 25, "text": text, "fontSize": 18,
             "textAlign": "center", "containerId": id}]

def arrow(id, x, y, dx, dy):
    return {"id": id, "type": "arrow", "index": "c" + id, "version": 1, "x": x, "y": y,
            "points": [[0, 0], [dx, dy]], "endArrowhead": "arrow"}

reference = (box("r1", 0, 0, 180, 70, "API + auth") + box("r2", 260, 0, 200, 70, "Job queue",
             color="#2f9e44", fill="#b2f2bb") + box("r3", 260, 140, 200, 70, "Batcher (GPU)")
             + [arrow("ra", 180, 35, 80, 0), arrow("rb", 360, 70, 0, 70)])
problem = design_problem("batch-api-e2e", reference_board=reference, reference_text=(
    "- **Submit** jobs to a durable queue; return a job id.\n"
    "- A batcher packs requests by model and sequence length.\n- Results in object storage."))
# Validated, as an author's problem is before it is offered: a version left pending is handed
# to the running platform's validator by its sweeper, and this small package (no
# clarifications, no hints) fails the design kind's checks, which withdrew it mid-seed.
ProblemVersion.objects.filter(pk=problem.live_version_id).update(
    validation=ProblemVersion.Validation.PASSED, validated_at=timezone.now())
interviewer = User.objects.get(username="interviewer")
candidate = User.objects.get(username="candidate")

def live():
    s = services.session_schedule_live(interviewer=interviewer, problem_slug=problem.slug,
                                       duration=timedelta(minutes=45))
    services.session_join(token=s.invite_token, user=candidate)
    start = timezone.now() - timedelta(minutes=30)
    InterviewSession.objects.filter(pk=s.pk).update(started_at=start)
    return s, start

done, start = live()
first = board_update(done.pk, box("c", 0, 0, 160, 70, "Clients", kind="ellipse",
                     color="#1e1e1e", fill="#ffec99") + box("g", 240, 0, 180, 70, "API gateway"),
                     author_id=candidate.pk)
second = board_update(done.pk, box("q", 240, 150, 180, 70, "Request queue", color="#2f9e44",
                      fill="#b2f2bb") + box("w", 500, 150, 200, 70, "GPU workers x 8",
                      color="#e03131", fill="#ffc9c9") + [arrow("a1", 160, 35, 80, 0),
                      arrow("a2", 330, 70, 0, 80), arrow("a3", 420, 185, 80, 0)],
                      notes="Peak: 10k req/s x 2 KB = 20 MB/s\nBatch 32 -> ~310 batches/s\n"
                            "8 GPUs x 45 batches/s each = 360 batches/s (16% headroom)",
                      author_id=candidate.pk)
DocUpdate.objects.filter(pk=first).update(created_at=start + timedelta(minutes=4))
DocUpdate.objects.filter(pk=second).update(created_at=start + timedelta(minutes=12))
services.session_finish_by(session_id=done.pk, user=interviewer)
scores = {"requirements": {"level": 3, "comment": "Pinned down the peak load first.",
                           "evidence": ["moment:300000"]},
          "architecture": {"level": 3, "comment": "A clear queue in front of the GPU pool.",
                           "evidence": ["moment:780000"]}}
review.scorecard_save(session=done, user=interviewer, recommendation="yes",
                      summary="A sound design with its estimates written down.", scores=scores,
                      submit=True)
review.scores_release(session=done, user=interviewer)
running, _ = live()
print(done.pk, running.pk)
"""


def test_a_design_rounds_report_and_the_cockpits_reference_design(
    browser: Browser, platform: Platform
) -> None:
    done, running = platform.shell(SEED).split()[-2:]
    for width in (1440, 390):
        with people_at(browser, platform, viewport={"width": width, "height": 900}) as people:
            candidate = people.log_in("candidate", f"/sessions/{done}/report/")
            board = candidate.locator("#report-board img.board-image")
            expect(board).to_be_visible()
            assert (
                candidate.evaluate("document.querySelector('#report-board img').naturalWidth") > 0
            )
            expect(candidate.locator("#report-board-notes")).to_contain_text("20 MB/s")
            moments = candidate.locator(".report-board-moment img")
            expect(moments).to_have_count(2)
            expect(candidate.locator(".report-board-moment figcaption").first).to_contain_text(
                "Board at 05:00"
            )
            candidate.wait_for_load_state("networkidle")
            candidate.screenshot(
                path=str(SCREENSHOTS / f"design-report-{width}.png"), full_page=True
            )

            reviewer = people.log_in("interviewer", f"/sessions/{done}/review/")
            expect(reviewer.locator("#review-board img.board-image")).to_be_visible()
            expect(reviewer.locator("#scorecard")).to_contain_text("Board at 13:00")
            reviewer.wait_for_load_state("networkidle")
            reviewer.screenshot(
                path=str(SCREENSHOTS / f"design-review-{width}.png"), full_page=True
            )

            interviewer = people.log_in("interviewer", f"/sessions/{running}/")
            tab = interviewer.locator("[data-tab-button=rubric]")
            if tab.count() and tab.is_visible():
                tab.click()
            interviewer.locator("#reference-panel summary").click()
            expect(interviewer.locator("#reference-board svg")).to_be_visible()
            expect(interviewer.locator("#reference-design-text")).to_contain_text("batcher")
            interviewer.locator("#reference-panel").scroll_into_view_if_needed()
            interviewer.screenshot(
                path=str(SCREENSHOTS / f"design-cockpit-{width}.png"), full_page=True
            )
