"""The session provider (frontend/js/session/provider.js) with node and a stand-in WebSocket
(tests/frontend/js/provider_split.mjs): a too-large answer to the server's step 1 goes out as
the page's own updates in frames under the message limit, and a document that comes in
several frames counts as synced only at the last one (issue 34.2, 34.3)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"
SCRIPT = Path(__file__).resolve().parent / "js" / "provider_split.mjs"


def test_a_large_sync_goes_both_ways_in_frames_under_the_limit() -> None:
    if shutil.which("node") is None or not (FRONTEND / "node_modules" / "yjs").is_dir():
        pytest.skip("node and frontend/node_modules are needed (cd frontend && npm ci)")
    done = subprocess.run(["node", str(SCRIPT), str(FRONTEND)], capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    findings = json.loads(done.stdout.strip().splitlines()[-1])
    assert findings == {name: True for name in findings}, findings
    assert len(findings) == 6
