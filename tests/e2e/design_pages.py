"""What the design rounds' browser tests share: the seeds they run in the platform's shell
(each with its own problem, so two tests on one platform never meet) and the board's helpers:
draw a shape with the mouse, read the board's element ids."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.e2e.conftest import Platform

SYNC_MS = 20_000

# A design problem of its own (`slug`), one finished and released design round on it with
# two strokes and a scorecard, and one running round; prints the two session ids.
_REPORT_SEED = r"""
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
             "roundness": {"type": 3} if kind == "rectangle" else None,
             # Excalidraw draws a label with its container, which must name it.
             "boundElements": [{"type": "text", "id": id + "-t"}]},
            {"id": id + "-t", "type": "text", "index": "b" + id, "version": 1, "x": x,
             "y": y + h / 2 - 12, "width": w, "height": 25, "text": text, "fontSize": 18,
             "textAlign": "center", "containerId": id}]

def arrow(id, x, y, dx, dy):
    return {"id": id, "type": "arrow", "index": "c" + id, "version": 1, "x": x, "y": y,
            "points": [[0, 0], [dx, dy]], "endArrowhead": "arrow"}

reference = (box("r1", 0, 0, 180, 70, "API + auth") + box("r2", 260, 0, 200, 70, "Job queue",
             color="#2f9e44", fill="#b2f2bb") + box("r3", 260, 140, 200, 70, "Batcher (GPU)")
             + [arrow("ra", 180, 35, 80, 0), arrow("rb", 360, 70, 0, 70)])
problem = design_problem("{slug}", reference_board=reference, reference_text=(
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


def report_seed(slug: str) -> str:
    """The report seed for a problem named `slug` (each test its own: the platform is shared
    by the tests of one worker, and a problem's slug is unique)."""
    return _REPORT_SEED.replace("{slug}", slug)


BOARD_SIZE_SEED = """
from datetime import timedelta
from django.contrib.auth.models import User
from django.utils import timezone
from interviews import services
from interviews.models import InterviewSession
from problems.models import CONTENT_FIELDS, DESIGN, Problem, ProblemVersion

problem, created = Problem.objects.get_or_create(slug="design-board-size", defaults={{
    "title": "Design a URL shortener", "kind": DESIGN, "difficulty": "medium",
    "statement_md": "Design a **URL shortener** for 10k writes/s.",
    "hints": ["Start from the read path: what is read per redirect?"],
    "starter_code": "", "reference_code": "", "published": True}})
if created:
    version = Problem.objects.get(slug="token-bucket").live_version
    version.pk = None
    version.problem = problem
    version.number = 1
    for name in CONTENT_FIELDS:
        if name not in ("rubric", "clarifications"):
            setattr(version, name, getattr(problem, name))
    version.public_tests, version.hidden_tests = [], []
    version.driver = {{}}  # a design round has no tests, so no driver and no input constraints
    version.save()
    problem.live_version = version
    problem.rubric = version.rubric
    problem.save()
# Offered whatever a background validation of the copied version said (it has no tests).
ProblemVersion.objects.filter(pk=problem.live_version_id).update(validation="passed")
interviewer = User.objects.get(username="interviewer")
if "{status}" == "active":
    now = timezone.now()
    session = InterviewSession.objects.create(
        problem=problem, kind="live", status="active", interviewer_can_edit=True,
        candidate=User.objects.get(username="candidate"), interviewer=interviewer,
        duration=timedelta(minutes=45), started_at=now, deadline=now + timedelta(minutes=45))
else:
    session = services.session_schedule_live(
        interviewer=interviewer, problem_slug=problem.slug, duration=timedelta(minutes=45),
        interviewer_can_edit=True)
print(session.pk, session.invite_token or "")
"""

# The board at its largest: ONSITE_BOARD_MAX_ELEMENTS freehand strokes, as many points each as
# keeps the encoded document just under ONSITE_DOC_MAX_BYTES, stored through the services in
# updates that each fit in one message (as pages would have sent them).
def seed(platform: Platform, status: str) -> tuple[int, str]:
    printed = platform.shell(BOARD_SIZE_SEED.format(status=status)).strip().splitlines()[-1]
    sid, _, token = printed.partition(" ")
    return int(sid), token


def draw(page: Page, tool: str, box: tuple[float, float, float, float]) -> None:
    """Draw one shape with the mouse: pick the tool, drag across `box` (fractions of the
    canvas: left, top, right, bottom). The board is wide enough for Excalidraw's desktop
    layout (issue 38), whose shape properties panel covers the canvas's left edge while a tool
    is picked: a box starts right of it."""
    # The tool is a radio input under its icon: the click lands on the icon, inside its label.
    page.locator(f'#session-board [data-testid="toolbar-{tool}"]').click(force=True)
    canvas = page.locator("#session-board canvas.interactive")
    area = canvas.bounding_box()
    assert area is not None
    left, top, right, bottom = box
    page.mouse.move(area["x"] + area["width"] * left, area["y"] + area["height"] * top)
    page.mouse.down()
    for step in range(1, 6):
        page.mouse.move(
            area["x"] + area["width"] * (left + (right - left) * step / 5),
            area["y"] + area["height"] * (top + (bottom - top) * step / 5),
        )
    page.mouse.up()
    page.keyboard.press("Escape")


def board_ids(page: Page) -> list[str]:
    return sorted(e["id"] for e in page.evaluate("window.onsiteSession.board.elements()"))


def wait_for_ids(page: Page, count: int) -> list[str]:
    """The page's element ids once it has `count` of them (polled: the policy forbids the
    eval that page.wait_for_function needs)."""
    for _ in range(SYNC_MS // 100):
        ids = board_ids(page)
        if len(ids) >= count:
            return ids
        page.wait_for_timeout(100)
    raise AssertionError(f"the board never had {count} elements: {board_ids(page)}")


