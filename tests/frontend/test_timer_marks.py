"""The session countdown (frontend/js/session/timer.js) with node and a stand-in clock
(tests/frontend/js/timer_marks.mjs): a screen reader hears the 5 and 1 minute marks once each,
never every second; a page opened late says only the marks still ahead, and more time granted
re-arms them (issue 40.3); the timer also turns amber, then red (issue 40.5's warning)."""

from __future__ import annotations

from collections.abc import Callable


def test_the_timer_announces_the_five_and_one_minute_marks_only(
    node_findings: Callable[[str], dict[str, bool]],
) -> None:
    findings = node_findings("timer_marks.mjs")
    assert findings == {name: True for name in findings}, findings
    assert len(findings) == 5
