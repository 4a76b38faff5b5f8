"""Request bodies as JSON, bounded: the one parser every JSON view and the REST API use.

`json.loads` recurses once per nesting level, so a body of 100k `[` ends in a RecursionError
(a 500) long before any size limit. The depth is therefore measured first, by a flat scan
that never recurses, and a body over the size or depth limit is refused with a clear
`ApplicationError` (400 / 413) before the decoder sees it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from django.conf import settings

from core.errors import ApplicationError

# A JSON string literal (escapes included): its brackets are text, not nesting.
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(rb"[\[\]{}]")


def json_depth(raw: bytes) -> int:
    """The deepest nesting of arrays and objects in `raw` (0 for a scalar), without recursion."""
    depth = deepest = 0
    for match in _BRACKETS.finditer(_STRING.sub(b'""', raw)):
        if match.group() in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def json_body_parse(
    raw: bytes, *, max_bytes: int | None = None, max_depth: int | None = None
) -> Any:
    """`raw` decoded as JSON, or ApplicationError: too_large (413) or bad_json (400)."""
    limit_bytes = settings.ONSITE_JSON_MAX_BYTES if max_bytes is None else max_bytes
    limit_depth = settings.ONSITE_JSON_MAX_DEPTH if max_depth is None else max_depth
    if len(raw) > limit_bytes:
        raise ApplicationError("too_large", f"the JSON body is over {limit_bytes} bytes")
    if json_depth(raw) > limit_depth:
        raise ApplicationError("bad_json", f"the JSON body nests deeper than {limit_depth}")
    try:
        # Infinity/NaN are not JSON: refusing them here keeps `inf` out of every number field.
        data = json.loads(raw or b"null", parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise ApplicationError("bad_json", f"the body is not valid JSON: {exc}") from None
    if b"\\u0000" in raw and _holds_nul(data):
        # PostgreSQL's text columns cannot hold NUL: refused here, it is a 400, not a 500.
        raise ApplicationError("bad_json", "text in the body may not contain NUL characters")
    return data


def _holds_nul(data: Any) -> bool:
    """Whether a decoded body has a NUL in any key or string (flat walk: no recursion)."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def json_object_parse(raw: bytes) -> dict[str, Any]:
    """A JSON object body (an empty body is `{}`); anything else is a bad_json error."""
    data = json_body_parse(raw) if raw.strip() else {}
    if not isinstance(data, dict):
        raise ApplicationError("bad_json", "the JSON body must be an object")
    return data
