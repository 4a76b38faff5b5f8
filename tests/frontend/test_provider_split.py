"""The session provider (frontend/js/session/provider.js) with node and a stand-in WebSocket
(tests/frontend/js/provider_split.mjs): a too-large answer to the server's step 1 goes out as
the page's own updates in frames under the message limit, and a document that comes in
several frames counts as synced only at the last one (issue 34.2, 34.3)."""

from __future__ import annotations

from collections.abc import Callable


def test_a_large_sync_goes_both_ways_in_frames_under_the_limit(
    node_findings: Callable[[str], dict[str, bool]],
) -> None:
    findings = node_findings("provider_split.mjs")
    assert findings == {name: True for name in findings}, findings
    assert len(findings) == 6
