"""Build a design problem's reference board (reference/board.json) from a compact layout.

A layout (a `layout.toml` beside this file's boards/ folder) lists boxes and the arrows between
them:

    [[box]]
    id = "api"                        # unique in the layout
    label = "API gateway\\nauth, quotas"
    at = [0, 0]                       # x, y of the top-left corner
    size = [200, 80]                  # width, height (default 180 x 70)
    shape = "rectangle"               # or "ellipse", "diamond"
    color = "blue"                    # a fill from COLORS (default "white")

    [[arrow]]
    from = "api"
    to = "queue"
    label = "enqueue"                 # optional
    dashed = false                    # optional

    [[note]]                          # free text, e.g. a title or an estimate
    text = "Peak 2k req/s"
    at = [0, -60]
    size = 20                         # font size (default 16)

The output is a list of Excalidraw 0.18 elements with every field the editor's restore
expects (ids, fractional indices, seeds and nonces all derived from the layout, so the output
is deterministic and a rerun rewrites the same file): boxes carry their label as a bound text,
arrows are bound to the boxes at both ends and carry theirs as a bound text too.

    .venv/bin/python problems/bank/_tools/board.py            # rewrite every board
    .venv/bin/python problems/bank/_tools/board.py --check    # exit 1 if one is out of date
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BANK = HERE.parent
LAYOUTS = HERE / "boards"

COLORS = {
    "white": "transparent",
    "blue": "#a5d8ff",
    "green": "#b2f2bb",
    "yellow": "#ffec99",
    "red": "#ffc9c9",
    "violet": "#d0bfff",
    "grey": "#e9ecef",
    "orange": "#ffd8a8",
}
STROKE = "#1e1e1e"
FONT_FAMILY = 5  # Excalifont, Excalidraw 0.18's default hand-drawn font
LINE_HEIGHT = 1.25
CHAR_WIDTH = 0.55  # of the font size: a fair average for a label's width
DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
UPDATED = 1767225600000  # 2026-01-01T00:00:00Z, fixed so reruns are identical


def _number(key: str, bits: int = 31) -> int:
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big") % (2**bits - 1) + 1


def _index(n: int) -> str:
    """The n-th fractional index (Excalidraw orders elements by these keys)."""
    if n < len(DIGITS):
        return "a" + DIGITS[n]
    return "b" + DIGITS[n // len(DIGITS)] + DIGITS[n % len(DIGITS)]


def _base(ident: str, kind: str, x: float, y: float, w: float, h: float) -> dict[str, Any]:
    return {
        "id": ident,
        "type": kind,
        "x": round(x, 2),
        "y": round(y, 2),
        "width": round(w, 2),
        "height": round(h, 2),
        "angle": 0,
        "strokeColor": STROKE,
        "backgroundColor": "transparent",
        "fillStyle": "solid",
        "strokeWidth": 2,
        "strokeStyle": "solid",
        "roughness": 1,
        "opacity": 100,
        "groupIds": [],
        "frameId": None,
        "index": "",
        "roundness": None,
        "seed": _number("seed:" + ident),
        "version": 1,
        "versionNonce": _number("nonce:" + ident),
        "isDeleted": False,
        "boundElements": None,
        "updated": UPDATED,
        "link": None,
        "locked": False,
    }


def _text(ident: str, text: str, *, x: float, y: float, size: int, container: str | None,
          align: str = "center") -> dict[str, Any]:
    lines = text.split("\n")
    width = max(len(line) for line in lines) * size * CHAR_WIDTH
    height = len(lines) * size * LINE_HEIGHT
    if container is not None:  # centred on (x, y)
        x, y = x - width / 2, y - height / 2
    element = _base(ident, "text", x, y, width, height)
    element.update({
        "text": text,
        "fontSize": size,
        "fontFamily": FONT_FAMILY,
        "textAlign": align,
        "verticalAlign": "middle" if container else "top",
        "containerId": container,
        "originalText": text,
        "autoResize": True,
        "lineHeight": LINE_HEIGHT,
    })
    return element


def _edge(box: dict[str, Any], toward: tuple[float, float], gap: float = 6.0) -> tuple[float, float]:
    """Where the line from `box`'s centre toward `toward` leaves the box, `gap` beyond it."""
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    dx, dy = toward[0] - cx, toward[1] - cy
    if dx == 0 and dy == 0:
        return cx, cy
    half_w, half_h = box["width"] / 2 + gap, box["height"] / 2 + gap
    scale = min(half_w / abs(dx) if dx else math.inf, half_h / abs(dy) if dy else math.inf)
    return cx + dx * scale, cy + dy * scale


def _centre(box: dict[str, Any]) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def build(layout: dict[str, Any]) -> list[dict[str, Any]]:
    """The Excalidraw elements of `layout` (see the module docstring), in drawing order."""
    elements: list[dict[str, Any]] = []
    boxes: dict[str, dict[str, Any]] = {}
    for item in layout.get("box", []):
        ident = item["id"]
        width, height = item.get("size", [180, 70])
        x, y = item["at"]
        box = _base(ident, item.get("shape", "rectangle"), x, y, width, height)
        box["backgroundColor"] = COLORS[item.get("color", "white")]
        box["roundness"] = {"type": 3} if box["type"] == "rectangle" else {"type": 2}
        label = _text(f"{ident}-label", item["label"], x=box["x"] + width / 2,
                      y=box["y"] + height / 2, size=item.get("font", 16), container=ident)
        box["boundElements"] = [{"type": "text", "id": label["id"]}]
        boxes[ident] = box
        elements += [box, label]
    for number, item in enumerate(layout.get("arrow", [])):
        start_box, end_box = boxes[item["from"]], boxes[item["to"]]
        start = _edge(start_box, _centre(end_box))
        end = _edge(end_box, _centre(start_box))
        ident = f"arrow-{item['from']}-{item['to']}-{number}"
        arrow = _base(ident, "arrow", start[0], start[1], abs(end[0] - start[0]),
                      abs(end[1] - start[1]))
        arrow.update({
            "strokeStyle": "dashed" if item.get("dashed") else "solid",
            "roundness": {"type": 2},
            "points": [[0, 0], [round(end[0] - start[0], 2), round(end[1] - start[1], 2)]],
            "lastCommittedPoint": None,
            "startBinding": {"elementId": start_box["id"], "focus": 0, "gap": 6},
            "endBinding": {"elementId": end_box["id"], "focus": 0, "gap": 6},
            "startArrowhead": None,
            "endArrowhead": "arrow",
            "elbowed": False,
        })
        for box in (start_box, end_box):
            box["boundElements"].append({"type": "arrow", "id": ident})
        elements.append(arrow)
        if item.get("label"):
            label = _text(f"{ident}-label", item["label"], x=(start[0] + end[0]) / 2,
                          y=(start[1] + end[1]) / 2, size=14, container=ident)
            arrow["boundElements"] = [{"type": "text", "id": label["id"]}]
            elements.append(label)
    for number, item in enumerate(layout.get("note", [])):
        elements.append(_text(f"note-{number}", item["text"], x=item["at"][0], y=item["at"][1],
                              size=item.get("size", 16), container=None, align="left"))
    for n, element in enumerate(elements):
        element["index"] = _index(n)
    return elements


def render(layout_path: Path) -> str:
    """board.json's text for the layout at `layout_path`."""
    layout = tomllib.loads(layout_path.read_text(encoding="utf-8"))
    return json.dumps(build(layout), indent=1, ensure_ascii=False) + "\n"


def targets() -> list[tuple[Path, Path]]:
    """(layout, board.json) for every layout: boards/<slug>.toml → <slug>/reference/board.json."""
    return [(layout, BANK / layout.stem / "reference" / "board.json")
            for layout in sorted(LAYOUTS.glob("*.toml"))]


def main(argv: list[str]) -> int:
    stale = []
    for layout, board in targets():
        text = render(layout)
        if "--check" in argv:
            if not board.exists() or board.read_text(encoding="utf-8") != text:
                stale.append(board)
            continue
        board.parent.mkdir(parents=True, exist_ok=True)
        board.write_text(text, encoding="utf-8")
        print(f"wrote {board.relative_to(BANK)}")
    for board in stale:
        print(f"out of date: {board.relative_to(BANK)} (rerun without --check)")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
