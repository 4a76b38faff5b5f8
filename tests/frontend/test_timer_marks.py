"""The session clock warns before the deadline (issue 40.3, 40.5; frontend/js/session/timer.js
with node, tests/frontend/js/timer_marks.mjs): at 5 and at 1 minute left, once each, never on
every tick, and again after the interviewer extends the session."""

from __future__ import annotations

from collections.abc import Callable


def test_the_clock_says_five_and_one_minute_once_each(
    node_findings: Callable[[str], dict[str, bool]],
) -> None:
    findings = node_findings("timer_marks.mjs")
    assert findings == {name: True for name in findings}, findings
    assert len(findings) == 7
