"""What a viewer sees of a graded test: the one builder every channel calls.

The JSON API (`selectors.submission_detail`), the websocket (grading.events: the live frames
and `events.submission_replay` for a late joiner), the review page and its PDF
(interviews/review/selectors.py) and the candidate's report all build a test's view here, so
a hidden test is redacted one way everywhere. What the viewer may see is the policy's
(`core.visibility`'s HIDDEN_TEST_IO row): this module asks it once per audience and knows no
rule of its own.

* An audience that may see hidden tests' I/O reads every test whole: name, group, detail.
* Any other reads a public test whole and nothing of a hidden one (`None`): even which hidden
  test failed is a leak, so hidden tests reach it only as counts (a progress count while
  grading, pass counts per tag afterwards).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from core import visibility
from core.visibility import Channel, Viewer


class GradedTest(Protocol):
    """A finished test: a `judge.TestVerdict` while grading, a stored `models.TestResult`."""

    @property
    def index(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def verdict(self) -> str: ...
    @property
    def time_ms(self) -> float: ...
    @property
    def cpu_ms(self) -> float: ...
    @property
    def tag(self) -> str: ...
    @property
    def hidden(self) -> bool: ...
    @property
    def detail(self) -> Any: ...
    @property
    def group(self) -> str | None: ...


@dataclass(frozen=True)
class Audience:
    """Who reads, as far as tests go: whether the policy shows them hidden tests' I/O."""

    hidden_io: bool

    @classmethod
    def of(cls, viewer: Viewer | None, channel: Channel) -> Audience:
        return cls(visibility.may_see(visibility.HIDDEN_TEST_IO, viewer, channel))


# The two audiences a websocket group or a report is built for.
STAFF = Audience(hidden_io=True)
CANDIDATE = Audience(hidden_io=False)


def graded_test_view(test: GradedTest, *, audience: Audience) -> dict[str, Any] | None:
    """What `audience` sees of one test; None when it sees nothing of it (a hidden test)."""
    if test.hidden and not audience.hidden_io:
        return None
    return {
        "index": test.index,
        "name": test.name,
        "verdict": test.verdict,
        "time_ms": test.time_ms,
        "cpu_ms": test.cpu_ms,
        "hidden": test.hidden,
        "tag": test.tag,
        "group": test.group or None,
        "detail": dict(test.detail or {}),
    }


def graded_tests_view(tests: Iterable[GradedTest], *, audience: Audience) -> list[dict[str, Any]]:
    """The views of the tests `audience` may see, in order."""
    views = (graded_test_view(test, audience=audience) for test in tests)
    return [view for view in views if view is not None]
