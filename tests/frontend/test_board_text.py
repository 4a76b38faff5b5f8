"""The board as text (frontend/js/session/design.js boardText) with node
(tests/frontend/js/board_text.mjs): a canvas cannot be read, so the design session lists the
board's elements with their labels, arrows with the shapes they join (issue 40.3)."""

from __future__ import annotations

from collections.abc import Callable


def test_the_board_reads_as_a_list_of_labelled_elements(
    node_findings: Callable[[str], dict[str, bool]],
) -> None:
    findings = node_findings("board_text.mjs")
    assert findings == {name: True for name in findings}, findings
    assert len(findings) == 2
