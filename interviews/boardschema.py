"""What a board element may be: the one schema of the design round's whiteboard, Django-free.

The board (the Y.Map "board" of a session's document, interviews/collab.py) maps an element
id to an Excalidraw element, a JSON object. The server refuses an update that would store an
element this schema does not accept (interviews/boardguard.py); every reader (the SVG, the
snapshot, the replay's and the report's boards) skips, and logs, an element it does not
accept, so a board stored before the check still loads. Its twin for the browser is
frontend/js/board/schema.js: the same rules and the same messages, kept equal by the shared
vectors of tests/fixtures/board_elements.json, which both test suites read.

The rules:

- The value is a plain JSON object (not a nested shared type) of at most `MAX_KEYS` keys.
- `id`: a string of 1 to `MAX_ID_CHARS` characters, equal to its key in the map.
- `type`: one the board offers (`TYPES`). Images, embeds, iframes and magic frames are not:
  their content lives outside the element (files, URLs), and the board loads nothing.
- `version`: an integer from 0 to 2**53 (Excalidraw's reconciliation compares it).
- Every other known field is optional (the browser puts Excalidraw's default in for a missing
  one), but when present it has its type: coordinates, sizes and angles are finite numbers
  within `COORD_LIMIT`; colours, indices and ids bounded strings; the enums their values;
  `isDeleted` and `locked` booleans; `groupIds` a bounded list of strings; `boundElements` a
  bounded list of {id, type}; `roundness` null or {type, value}; bindings null or an object.
- Lines and arrows have `points`, freehand strokes too: a list of at most `MAX_POINTS`
  [x, y] pairs of finite numbers within `COORD_LIMIT` (what crashed Excalidraw, issue 34,
  was a string there). A text has `text`, at most `MAX_TEXT_CHARS` characters.
- Fields the schema does not know are kept as they are (a newer Excalidraw adds fields).

A deleted element (`isDeleted: true`) must be just as well-formed: Excalidraw keeps deleted
elements in its scene (they travel as tombstones) and reads them too.

Numbers are JSON's: an integer and a float are the same kind of value (the browser has one
number type), a boolean is not a number, NaN and the infinities are not finite.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from typing import Any

TYPES = ("rectangle", "ellipse", "diamond", "line", "arrow", "freedraw", "text", "frame")
LINEAR = ("line", "arrow")
MAX_KEYS = 64
MAX_ID_CHARS = 128
MAX_STRING_CHARS = 256  # colours, indices, enum-like strings
MAX_LINK_CHARS = 2048
MAX_TEXT_CHARS = 20_000
MAX_POINTS = 20_000
MAX_GROUPS = 64
MAX_BOUND = 1000
COORD_LIMIT = 1e7
MAX_INTEGER = 2**53
MAX_FONT_SIZE = 10_000

FILL_STYLES = ("hachure", "cross-hatch", "solid", "zigzag")
STROKE_STYLES = ("solid", "dashed", "dotted")
TEXT_ALIGNS = ("left", "center", "right")
VERTICAL_ALIGNS = ("top", "middle", "bottom")
ARROWHEADS = ("arrow", "bar", "dot", "circle", "circle_outline", "triangle",
              "triangle_outline", "diamond", "diamond_outline", "crowfoot_one",
              "crowfoot_many", "crowfoot_one_or_many")
BOUND_TYPES = ("arrow", "text")
_KIND = re.compile(r"[A-Za-z_-]{1,40}")  # a type named in a message as it is


class Invalid(ValueError):
    """What is wrong with a field: its name and a phrase ("must be a finite number")."""

    def __init__(self, field: str, what: str) -> None:
        super().__init__(f"{field} {what}")
        self.field = field
        self.what = what


# ---------------------------------------------------------------- value checks


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _finite(value: Any, limit: float = COORD_LIMIT) -> bool:
    if not _is_number(value):
        return False
    if isinstance(value, int):  # exact: a huge integer is no float (math.isfinite overflows)
        return abs(value) <= limit
    return math.isfinite(value) and abs(value) <= limit


def _integer(value: Any, low: float = -MAX_INTEGER) -> bool:
    return _finite(value, MAX_INTEGER) and value >= low and float(value).is_integer()


def _string(value: Any, most: int, least: int = 0) -> bool:
    return isinstance(value, str) and least <= len(value) <= most


def _point(value: Any) -> bool:
    return (isinstance(value, list) and len(value) == 2
            and _finite(value[0]) and _finite(value[1]))


def _one_of(options: tuple[str, ...]) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, str) and value in options


def _nullable(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: value is None or check(value)


def _roundness(value: Any) -> bool:
    if value is None:
        return True
    if not isinstance(value, dict) or not _integer(value.get("type"), 0):
        return False
    return "value" not in value or value["value"] is None or _finite(value["value"])


def _bound_elements(value: Any) -> bool:
    if value is None:
        return True
    return isinstance(value, list) and len(value) <= MAX_BOUND and all(
        isinstance(item, dict) and _string(item.get("id"), MAX_ID_CHARS, 1)
        and item.get("type") in BOUND_TYPES for item in value)


def _binding(value: Any) -> bool:
    if value is None:
        return True
    if not isinstance(value, dict) or not _string(value.get("elementId"), MAX_ID_CHARS, 1):
        return False
    for key in ("focus", "gap"):
        if key in value and not _finite(value[key]):
            return False
    return "fixedPoint" not in value or value["fixedPoint"] is None or _point(
        value["fixedPoint"])


def _groups(value: Any) -> bool:
    return isinstance(value, list) and len(value) <= MAX_GROUPS and all(
        _string(item, MAX_ID_CHARS, 1) for item in value)


def _points(value: Any) -> bool:
    return isinstance(value, list) and len(value) <= MAX_POINTS and all(
        _point(item) for item in value)


def _pressures(value: Any) -> bool:
    return isinstance(value, list) and len(value) <= MAX_POINTS and all(
        _finite(item, 1e3) for item in value)


def _custom(value: Any) -> bool:
    return isinstance(value, dict)


# Each known field: (the check, the phrase a person reads when it fails).
_COORD = (_finite, "must be a finite number")
_STRING = (lambda v: _string(v, MAX_STRING_CHARS), f"must be a string of at most "
           f"{MAX_STRING_CHARS} characters")
_BOOL = (lambda v: isinstance(v, bool), "must be true or false")
_INT = (_integer, "must be an integer")
_ID_OR_NULL = (_nullable(lambda v: _string(v, MAX_ID_CHARS, 1)),
               f"must be null or a string of 1 to {MAX_ID_CHARS} characters")
_TEXT = (lambda v: _string(v, MAX_TEXT_CHARS),
         f"must be a string of at most {MAX_TEXT_CHARS} characters")
_POINTS = (_points, f"must be a list of at most {MAX_POINTS} [x, y] pairs of finite numbers")
_ARROWHEAD = (_nullable(_one_of(ARROWHEADS)), "must be null or a known arrowhead")

COMMON_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "x": _COORD, "y": _COORD, "width": _COORD, "height": _COORD, "angle": _COORD,
    "strokeColor": _STRING, "backgroundColor": _STRING,
    "fillStyle": (_one_of(FILL_STYLES), f"must be one of {', '.join(FILL_STYLES)}"),
    "strokeWidth": (lambda v: _finite(v, 1000), "must be a number from -1000 to 1000"),
    "strokeStyle": (_one_of(STROKE_STYLES), f"must be one of {', '.join(STROKE_STYLES)}"),
    "roughness": (lambda v: _finite(v, 1000), "must be a number from -1000 to 1000"),
    "opacity": (lambda v: _finite(v, 100) and v >= 0, "must be a number from 0 to 100"),
    "seed": _INT, "versionNonce": _INT,
    "index": (_nullable(lambda v: _string(v, MAX_STRING_CHARS)),
              f"must be null or a string of at most {MAX_STRING_CHARS} characters"),
    "isDeleted": _BOOL, "locked": _BOOL,
    "groupIds": (_groups, f"must be a list of at most {MAX_GROUPS} ids"),
    "frameId": _ID_OR_NULL,
    "roundness": (_roundness, "must be null or {type, value}"),
    "boundElements": (_bound_elements, f"must be null or a list of at most {MAX_BOUND} "
                      "{id, type} (type arrow or text)"),
    "updated": (lambda v: _finite(v, MAX_INTEGER), "must be a finite number"),
    "link": (_nullable(lambda v: _string(v, MAX_LINK_CHARS)),
             f"must be null or a string of at most {MAX_LINK_CHARS} characters"),
    "customData": (_nullable(_custom), "must be null or an object"),
}
LINEAR_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "points": _POINTS,
    "lastCommittedPoint": (_nullable(_point), "must be null or an [x, y] pair"),
    "startBinding": (_binding, "must be null or a binding {elementId, focus, gap}"),
    "endBinding": (_binding, "must be null or a binding {elementId, focus, gap}"),
    "startArrowhead": _ARROWHEAD, "endArrowhead": _ARROWHEAD,
    "elbowed": _BOOL,
}
FREEDRAW_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "points": _POINTS,
    "pressures": (_pressures, f"must be a list of at most {MAX_POINTS} finite numbers"),
    "simulatePressure": _BOOL,
    "lastCommittedPoint": (_nullable(_point), "must be null or an [x, y] pair"),
}
TEXT_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "text": _TEXT, "originalText": _TEXT,
    "fontSize": (lambda v: _finite(v, MAX_FONT_SIZE) and v > 0,
                 f"must be a number above 0 and at most {MAX_FONT_SIZE}"),
    "fontFamily": _INT,
    "textAlign": (_one_of(TEXT_ALIGNS), f"must be one of {', '.join(TEXT_ALIGNS)}"),
    "verticalAlign": (_one_of(VERTICAL_ALIGNS), f"must be one of {', '.join(VERTICAL_ALIGNS)}"),
    "containerId": _ID_OR_NULL,
    "autoResize": _BOOL,
    "lineHeight": (lambda v: _finite(v, 100) and v > 0, "must be a number above 0 and at most 100"),
    "baseline": _COORD,
}
FRAME_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "name": (_nullable(lambda v: _string(v, MAX_STRING_CHARS)),
             f"must be null or a string of at most {MAX_STRING_CHARS} characters"),
}
TYPE_FIELDS = {"line": LINEAR_FIELDS, "arrow": LINEAR_FIELDS, "freedraw": FREEDRAW_FIELDS,
               "text": TEXT_FIELDS, "frame": FRAME_FIELDS}
REQUIRED = {"line": ("points",), "arrow": ("points",), "freedraw": ("points",),
            "text": ("text",)}


# ---------------------------------------------------------------- the element


def _check(key: Any, value: Any) -> None:
    if not isinstance(value, dict):
        raise Invalid("the value", "must be an object (an Excalidraw element)")
    if len(value) > MAX_KEYS:
        raise Invalid("the element", f"must have at most {MAX_KEYS} fields")
    ident = value.get("id")
    if not _string(ident, MAX_ID_CHARS, 1):
        raise Invalid("id", f"must be a string of 1 to {MAX_ID_CHARS} characters")
    if key is not None and ident != key:
        raise Invalid("id", "must be the element's key in the board")
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in TYPES:
        raise Invalid("type", f"must be one of {', '.join(TYPES)}")
    if not _integer(value.get("version"), 0):
        raise Invalid("version", "must be an integer from 0")
    for field in REQUIRED.get(kind, ()):
        if field not in value or value[field] is None:
            raise Invalid(field, f"is missing (every {kind} has one)")
    extra = TYPE_FIELDS.get(kind, {})
    for field, (ok, what) in (COMMON_FIELDS | extra).items():
        if field in value and not ok(value[field]):
            raise Invalid(field, what)


def _label(key: Any, value: Any) -> str:
    ident = value.get("id") if isinstance(value, dict) else None
    name = ident if isinstance(ident, str) else key if isinstance(key, str) else ""
    kind = value.get("type") if isinstance(value, dict) else None
    shown = json.dumps(name[:40], ensure_ascii=False)
    return f"{shown} ({kind})" if isinstance(kind, str) and _KIND.fullmatch(kind) else shown


def element_problem(value: Any, key: Any = None) -> str | None:
    """None when `value` is an element the board may hold (under `key`, when given), else a
    sentence a person can read: which element, which field, what it must be."""
    try:
        _check(key, value)
    except Invalid as problem:
        return f"The board element {_label(key, value)} cannot be drawn: {problem}."
    return None


def is_element(value: Any, key: Any = None) -> bool:
    return element_problem(value, key) is None


# ---------------------------------------------------------------- live elements, drawing order
# The one place the server decides which elements are on the board and in what order they are
# drawn: the document's readers (interviews/collab.py: the board at a moment, the live ids its
# size bound counts) and the picture (interviews/board.py) ask here.


def is_live(value: Any) -> bool:
    """Whether a board entry is an element a person sees: an object Excalidraw has not
    deleted (a deleted one stays in the scene as a tombstone, `isDeleted: true`)."""
    return isinstance(value, dict) and not value.get("isDeleted")


def drawing_order(elements: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Elements as Excalidraw draws them: by their fractional `index`, then by id."""
    return sorted(elements, key=lambda e: (str(e.get("index") or ""), str(e.get("id") or "")))


# What each kind of element is called when the board is read as text (issue 40.3: a canvas
# cannot be read); the browser's own list says the same (frontend/js/session/design.js).
KIND_NAMES = {
    "rectangle": "Box", "ellipse": "Ellipse", "diamond": "Diamond", "arrow": "Arrow",
    "line": "Line", "freedraw": "Drawing", "text": "Text", "frame": "Frame",
}


def board_text(elements: Iterable[dict[str, Any]]) -> list[str]:
    """The board as sentences, in the elements' order: each shape with its label (the text
    inside it), each arrow with the shapes it joins, free text as itself; deleted elements
    left out. The same elements give the same sentences as the browser's `boardText`
    (tests/fixtures/board_text.json)."""
    live = [e for e in elements if is_live(e)]
    by_id = {str(e.get("id")): e for e in live}
    labels: dict[str, str] = {}
    for e in live:
        if e.get("type") == "text" and str(e.get("containerId")) in by_id:
            labels[str(e.get("containerId"))] = str(e.get("text") or "").strip()

    def named(binding: Any) -> str | None:
        target = by_id.get(str(binding.get("elementId"))) if isinstance(binding, dict) else None
        if target is None:
            return None
        label = labels.get(str(target.get("id"))) or (
            str(target.get("text") or "").strip() if target.get("type") == "text" else "")
        kind = KIND_NAMES.get(str(target.get("type")), str(target.get("type")))
        return f"“{label}”" if label else f"a {kind.lower()}"

    lines = []
    for e in live:
        kind_key = str(e.get("type"))
        if kind_key == "text" and str(e.get("containerId")) in by_id:
            continue
        kind = KIND_NAMES.get(kind_key, kind_key)
        label = str(e.get("text") or "").strip() if kind_key == "text" else labels.get(
            str(e.get("id")))
        line = f"{kind}: “{label}”" if label else kind
        if kind_key == "arrow":
            start, end = named(e.get("startBinding")), named(e.get("endBinding"))
            if start:
                line += f" from {start}"
            if end:
                line += f" to {end}"
        lines.append(line)
    return lines
