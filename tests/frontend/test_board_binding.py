"""The whiteboard's Yjs binding (frontend/js/board/binding.js), run by node against two real
Y.Docs and stand-ins for Excalidraw's API (tests/frontend/js/board_binding.mjs): concurrent
edits of one element converge without ping-pong, the newer version wins, nothing is echoed,
deletions travel, a late joiner gets the board, a read-only board sends nothing; and (issue 34)
an element the board's schema refuses (an arrow whose points are a string) is never handed to
Excalidraw, live or on a reload, and is reported once, while the rest of the board is drawn;
this page's own element the board cannot keep is never written into the document; a big paste
goes out in updates under the message limit, and past the document's bounds what fits is
written, the rest is counted as only on this screen, and later edits still go."""

from __future__ import annotations

from collections.abc import Callable


def test_two_boards_converge_through_the_document(
    node_findings: Callable[[str], dict[str, bool]],
) -> None:
    findings = node_findings("board_binding.mjs")
    assert findings == {name: True for name in findings}, findings
    assert len(findings) == 26
