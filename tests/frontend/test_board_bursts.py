"""The replay's story of the board (frontend/js/session/bursts.js) with node
(tests/frontend/js/board_bursts.mjs): consecutive board edits by one person with pauses under
the gap are one burst (one timeline entry), summarised as what it left added, moved, changed
or removed and by whom (issue 38, 4)."""

from __future__ import annotations

from collections.abc import Callable


def test_board_edits_group_into_bursts_that_say_what_they_left_and_who(
    node_findings: Callable[[str], dict[str, bool]],
) -> None:
    findings = node_findings("board_bursts.mjs")
    assert findings == {name: True for name in findings}, findings
    assert len(findings) == 10
