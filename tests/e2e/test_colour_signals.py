"""End to end: colour is never the only signal (issue 40.4).

The pages that colour a verdict, a state, a level or a notice are walked as the people who see
them (the problem list's difficulty pills and solved/attempted/new marks, the history's
verdicts, the sessions' states, the studio's validation states, a design round's report,
review, replay with its notice of an element it could not draw, and its live room): each
coloured signal carries words too (tests/e2e/a11y.py COLOURED: its text, visually hidden or
not, or an aria-label), and the problem list's status marks differ by shape as well as hue
(filled, a thick ring, a thin ring). The results panel and its occupancy plot, drawn in the
page from the grader's events, are checked the same way in tests/frontend/test_results_colour.py.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.a11y import colour_only
from tests.e2e.conftest import Platform, people_at
from tests.e2e.design_pages import report_seed

pytestmark = pytest.mark.e2e

SYNC_MS = 30_000

# Runs and submits of the candidate's (a solved problem, an attempted one, and the design
# problem of the report seed never tried), then a board element stored as no page would have
# (the replay skips it and says so in its notice). Prints the finished and running sessions.
SEED = report_seed("colour-signals-design").replace(
    "running, _ = live()",
    r"""
import pycrdt
from grading.models import Submission
from interviews import collab
from interviews.services import doc_updates
from problems.models import Problem
from tests.factories import tiny_problem

attempted = tiny_problem("colour-signals-attempted")
ProblemVersion.objects.filter(pk=attempted.live_version_id).update(
    validation=ProblemVersion.Validation.PASSED, validated_at=timezone.now())
bucket = Problem.objects.get(slug="token-bucket")
for problem, mode, verdict, passed in [(bucket, "run", "WA", 1), (bucket, "run", "TLE", 0),
                                       (bucket, "submit", "AC", 2), (attempted, "run", "RE", 0)]:
    Submission.objects.create(user=candidate, problem=problem, version=problem.live_version,
                              mode=mode, code="x = 1\n", verdict=verdict, status="done",
                              passed=passed, total=2)
doc = pycrdt.Doc()
board = doc.get(collab.BOARD_NAME, type=pycrdt.Map)
for _, data in doc_updates(done.pk):
    doc.apply_update(data)
before = doc.get_state()
board["bad"] = {"id": "bad", "type": "rectangle", "version": 1, "x": "left"}
DocUpdate.objects.create(session=done, author=candidate, data=doc.get_update(before),
                         created_at=start + timedelta(minutes=13))
running, _ = live()""",
    1,
)


def said(page: Page, name: str, checked: dict[str, int]) -> None:
    """Every coloured signal on the page carries words; `checked` gathers what was seen."""
    seen, unsaid = colour_only(page)
    assert unsaid == [], f"{name}: " + "\n".join(unsaid)
    for selector, count in seen.items():
        checked[selector] = checked.get(selector, 0) + count


MARK_SHAPE = """() => [...document.querySelectorAll(".status-mark")].map((mark) => {
  const style = getComputedStyle(mark);
  const filled = !/rgba\\(.*, 0\\)|transparent/.test(style.backgroundColor);
  return [mark.className, `${filled ? "filled" : "ring"} ${style.borderTopWidth}`];
})"""


def test_every_coloured_signal_carries_words_or_shape(browser: Browser, platform: Platform) -> None:
    done, running = platform.shell(SEED).split()[-2:]
    checked: dict[str, int] = {}
    with people_at(browser, platform, viewport={"width": 1440, "height": 900}) as people:
        candidate = people.log_in("candidate", "/")
        said(candidate, "problems", checked)
        # The solved, attempted and new marks differ by shape, not by hue alone.
        shapes = dict(candidate.evaluate(MARK_SHAPE))
        solved, attempted, new = (
            shapes[f"status-mark status-{s}"] for s in ("solved", "attempted", "new")
        )
        assert len({solved, attempted, new}) == 3, shapes
        for path in ("/submissions/", "/sessions/", "/sessions/history/",
                     f"/sessions/{done}/report/", f"/sessions/{running}/"):  # fmt: skip
            candidate.goto(path)
            candidate.wait_for_load_state("load")
            said(candidate, path, checked)

        interviewer = people.log_in("interviewer", "/sessions/")
        said(interviewer, "/sessions/", checked)
        for path in ("/sessions/review/", f"/sessions/{done}/review/", f"/sessions/{running}/"):
            interviewer.goto(path)
            interviewer.wait_for_load_state("load")
            said(interviewer, path, checked)
        interviewer.goto(f"/sessions/{done}/replay/")
        expect(interviewer.locator("#replay")).to_have_attribute(
            "data-ready", "true", timeout=SYNC_MS
        )
        # The element no page could have drawn: the board's notice says so in words.
        notice = interviewer.locator("#replay-board .board-skipped")
        expect(notice).to_have_text("1 element could not be drawn and was skipped.")
        said(interviewer, "replay", checked)

        author = people.log_in("author", "/studio/")
        said(author, "/studio/", checked)
        author.goto("/studio/token-bucket/")
        said(author, "/studio/token-bucket/", checked)
    # The walk met each kind of signal it is there for.
    for selector in (".verdict", ".status", ".status-mark", ".difficulty", ".kind-badge",
                     ".badge", ".level-badge", ".state", ".rec", ".board-notice",
                     ".mark-item", ".connection"):  # fmt: skip
        assert checked.get(selector, 0) > 0, (selector, checked)
