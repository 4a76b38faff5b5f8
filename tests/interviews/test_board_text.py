"""The board read as text on the server (issue 40.3): the report's list of the final diagram
says what the live page's list says for the same elements (tests/fixtures/board_text.json)."""

from __future__ import annotations

import json
from pathlib import Path

from interviews.boardschema import board_text

VECTORS = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "board_text.json").read_text()
)


def test_the_server_reads_the_board_as_the_browser_does() -> None:
    assert board_text(VECTORS["elements"]) == VECTORS["lines"]
    assert board_text([]) == []
