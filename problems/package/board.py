"""A design package's reference board: Excalidraw elements, bounded and checked."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from problems.package.fields import read_json
from problems.package.model import PackageError

DESIGN_BOARD = "reference/board.json"
# Excalidraw element types a reference board may hold. Images, embeds and iframes are left
# out: their content lives outside the element (files, URLs), and nothing loads from outside.
BOARD_TYPES = (
    "rectangle", "diamond", "ellipse", "arrow", "line", "freedraw", "text", "frame",
    "magicframe",
)
MAX_BOARD_BYTES = 1024 * 1024
MAX_BOARD_ELEMENTS = 2000
MAX_BOARD_ID_CHARS = 100
MAX_BOARD_TEXT_CHARS = 5000


def read_board(path: Path) -> tuple[dict[str, Any], ...]:
    """The board in `path` (at most MAX_BOARD_BYTES of JSON), checked."""
    return board_check(read_json(path, max_bytes=MAX_BOARD_BYTES), path)


def board_check(raw: Any, path: Path | str = DESIGN_BOARD) -> tuple[dict[str, Any], ...]:
    """`raw` as a reference board: a list of Excalidraw elements, each an object with a unique
    string id, a known type, finite coordinates and sizes, and (a text) a string text. Raises
    PackageError naming `path` and the element's field (`[3].type`)."""
    if not isinstance(raw, list):
        raise PackageError(path, "file", "must be a JSON list of Excalidraw elements")
    if len(raw) > MAX_BOARD_ELEMENTS:
        raise PackageError(path, "elements", f"more than {MAX_BOARD_ELEMENTS} elements")
    seen: set[str] = set()
    for index, element in enumerate(raw):
        where = f"[{index}]"
        if not isinstance(element, dict):
            raise PackageError(path, where, "must be an object (an Excalidraw element)")
        ident = element.get("id")
        if not isinstance(ident, str) or not 0 < len(ident) <= MAX_BOARD_ID_CHARS:
            raise PackageError(path, f"{where}.id", f"must be a string of 1 to "
                               f"{MAX_BOARD_ID_CHARS} characters")
        if ident in seen:
            raise PackageError(path, f"{where}.id", f"duplicate element id {ident!r}")
        seen.add(ident)
        kind = element.get("type")
        if not isinstance(kind, str) or kind not in BOARD_TYPES:
            raise PackageError(path, f"{where}.type", f"{kind!r} is not one of "
                               f"{', '.join(BOARD_TYPES)}")
        for key in ("x", "y", "width", "height", "angle"):
            value = element.get(key, 0)
            if (isinstance(value, bool) or not isinstance(value, (int, float))
                    or not math.isfinite(value) or abs(value) > 1e7):
                raise PackageError(path, f"{where}.{key}", "must be a finite number")
        for key in ("text", "originalText"):
            text = element.get(key)
            if text is not None and not (
                isinstance(text, str) and len(text) <= MAX_BOARD_TEXT_CHARS
            ):
                raise PackageError(path, f"{where}.{key}", f"must be a string of at most "
                                   f"{MAX_BOARD_TEXT_CHARS} characters")
        if kind == "text" and not isinstance(element.get("text"), str):
            raise PackageError(path, f"{where}.text", "missing (a text element has a text)")
        points = element.get("points")
        if points is not None and not (
            isinstance(points, list)
            and all(
                isinstance(p, list) and len(p) == 2
                and all(isinstance(c, (int, float)) and not isinstance(c, bool)
                        and math.isfinite(c) for c in p)
                for p in points
            )
        ):
            raise PackageError(path, f"{where}.points", "must be a list of [x, y] numbers")
        if kind in ("arrow", "line", "freedraw") and not points:
            raise PackageError(path, f"{where}.points", "missing (a line or arrow has points)")
    return tuple(raw)
