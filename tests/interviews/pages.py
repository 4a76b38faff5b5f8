"""What a session page tells its scripts: the state it embeds as JSON."""

from __future__ import annotations

import json
from typing import Any


def page_state(html: str) -> dict[str, Any]:
    start = html.index('<script id="session-state" type="application/json">')
    state: dict[str, Any] = json.loads(html[start:].split(">", 1)[1].split("</script>", 1)[0])
    return state
