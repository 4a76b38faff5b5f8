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

import json
import shutil
import subprocess
from pathlib import Path

import pytest

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"
SCRIPT = Path(__file__).resolve().parent / "js" / "board_binding.mjs"


def test_two_boards_converge_through_the_document() -> None:
    if shutil.which("node") is None or not (FRONTEND / "node_modules" / "yjs").is_dir():
        pytest.skip("node and frontend/node_modules are needed (cd frontend && npm ci)")
    done = subprocess.run(["node", str(SCRIPT), str(FRONTEND)], capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    findings = json.loads(done.stdout.strip().splitlines()[-1])
    assert findings == {name: True for name in findings}, findings
    assert len(findings) == 26
