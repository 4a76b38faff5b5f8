"""A design session's board as a picture: Excalidraw elements drawn into a safe SVG.

Django-free and pure. The elements come from a browser (the board's Y.Map), so none of them is
trusted: every value that reaches the output is rebuilt here. Numbers are coerced and bounded
(NaN, infinities and strings that are not numbers become defaults), colours are a hex code or
a name from a small set (else the default), text is XML-escaped, and no attribute or element
name of the input is ever copied: the SVG's vocabulary is the few elements written below
(`svg g rect ellipse polygon polyline line circle text`). The picture is bounded too: at most
`MAX_ELEMENTS` elements, `MAX_POINTS` points each and `MAX_TOTAL_POINTS` in all, so a board
of 10,000 elements still renders in bounded time and size.

The drawing is plain geometry (Excalidraw's hand-drawn look is left out): good enough to read
the diagram in a report or a PDF (fpdf2 draws this subset of SVG).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from interviews.boardschema import is_live

MAX_ELEMENTS = 1000
MAX_POINTS = 400  # per line, arrow or freehand stroke (longer ones are thinned)
MAX_TOTAL_POINTS = 40_000
MAX_TEXT_CHARS = 2000
MAX_TEXT_LINES = 60
COORD_LIMIT = 100_000.0  # |x|, |y|, width, height beyond this are clamped
PADDING = 24.0
DEFAULT_STROKE = "#1e1e1e"
BACKGROUND = "#ffffff"
EMPTY_TEXT = "Nothing drawn"

# Named colours a board may use besides hex codes (Excalidraw's palette is hex).
NAMED_COLORS = frozenset({"black", "white", "red", "green", "blue", "orange", "yellow",
                          "purple", "gray", "grey", "pink", "brown", "teal", "cyan"})
_HEX = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_SHAPES = ("rectangle", "ellipse", "diamond")  # what a label may be bound to (and arrows)
_LINES = ("line", "arrow")
_MONO_FAMILIES = {3, 8}  # Excalidraw's Cascadia and Comic Shanns
_ARROWHEADS = frozenset({"arrow", "triangle", "triangle_outline", "bar", "dot", "circle",
                         "circle_outline", "diamond", "diamond_outline"})


# ---------------------------------------------------------------- coercion


def _num(value: Any, default: float = 0.0, *, low: float = -COORD_LIMIT,
         high: float = COORD_LIMIT) -> float:
    """A finite number within [low, high]; anything else is `default`."""
    if isinstance(value, bool):
        return default
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str) and len(value) <= 40:
        try:
            number = float(value)
        except ValueError:
            return default
    else:
        return default
    if not math.isfinite(number):
        return default
    return min(high, max(low, number))


def _fmt(value: float) -> str:
    """A number as SVG writes it: at most two decimals, no exponent."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def color(value: Any, default: str | None) -> str | None:
    """A colour the SVG may carry: a #rgb / #rrggbb code, a name of `NAMED_COLORS`,
    "transparent" as None (no paint), else `default`."""
    if not isinstance(value, str):
        return default
    text = value.strip().lower()
    if text == "transparent":
        return None
    if _HEX.fullmatch(text) or text in NAMED_COLORS:
        return text
    return default


def _text(value: Any) -> str:
    if not isinstance(value, str):
        return ""
    # Characters XML 1.0 cannot hold at all (escaping does not help with these).
    cleaned = re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]", "", value)
    return cleaned[:MAX_TEXT_CHARS]


def _points(element: dict[str, Any], budget: int) -> list[tuple[float, float]]:
    """The element's points in board coordinates (Excalidraw's are relative to x, y),
    thinned to at most MAX_POINTS and the remaining `budget`."""
    raw = element.get("points")
    if not isinstance(raw, list):
        return []
    limit = min(MAX_POINTS, budget)
    if limit < 2:
        return []
    candidates = raw[: MAX_POINTS * 50]  # never walk an unbounded list
    if len(candidates) > limit:
        step = len(candidates) / limit
        candidates = [candidates[int(i * step)] for i in range(limit - 1)] + [candidates[-1]]
    x0, y0 = _num(element.get("x")), _num(element.get("y"))
    out = []
    for point in candidates:
        if isinstance(point, (list, tuple)) and len(point) >= 2:
            out.append((_num(x0 + _num(point[0])), _num(y0 + _num(point[1]))))
    return out


# ---------------------------------------------------------------- one element


class _Canvas:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.min_x = self.min_y = math.inf
        self.max_x = self.max_y = -math.inf
        self.points_left = MAX_TOTAL_POINTS
        self.drawn = 0

    def extend(self, xs: Iterable[float], ys: Iterable[float]) -> None:
        for x in xs:
            self.min_x, self.max_x = min(self.min_x, x), max(self.max_x, x)
        for y in ys:
            self.min_y, self.max_y = min(self.min_y, y), max(self.max_y, y)

    def box(self, x: float, y: float, w: float, h: float, angle: float) -> None:
        """Widen the bounds by a box rotated by `angle` about its centre."""
        cx, cy = x + w / 2, y + h / 2
        cos, sin = math.cos(angle), math.sin(angle)
        corners = [(px - cx, py - cy) for px, py in ((x, y), (x + w, y), (x, y + h),
                                                     (x + w, y + h))]
        self.extend([cx + dx * cos - dy * sin for dx, dy in corners],
                    [cy + dx * sin + dy * cos for dx, dy in corners])


def _stroke_attrs(element: dict[str, Any]) -> str:
    stroke = color(element.get("strokeColor"), DEFAULT_STROKE)
    width = _num(element.get("strokeWidth"), 2.0, low=0.5, high=16.0)
    attrs = [f'stroke={quoteattr(stroke or "none")}', f'stroke-width="{_fmt(width)}"']
    style = element.get("strokeStyle")
    if style == "dashed":
        attrs.append(f'stroke-dasharray="{_fmt(width * 4)} {_fmt(width * 3)}"')
    elif style == "dotted":
        attrs.append(f'stroke-dasharray="{_fmt(width)} {_fmt(width * 2.5)}"')
    opacity = _num(element.get("opacity"), 100.0, low=0.0, high=100.0)
    if opacity < 100:
        attrs.append(f'opacity="{_fmt(opacity / 100)}"')
    return " ".join(attrs)


def _fill_attr(element: dict[str, Any]) -> str:
    fill = color(element.get("backgroundColor"), None)
    return f'fill={quoteattr(fill or "none")}'


def _rotation(angle: float, cx: float, cy: float) -> str:
    if not angle:
        return ""
    return f' transform="rotate({_fmt(math.degrees(angle))} {_fmt(cx)} {_fmt(cy)})"'


def _geometry(element: dict[str, Any]) -> tuple[float, float, float, float, float]:
    x, y = _num(element.get("x")), _num(element.get("y"))
    w = _num(element.get("width"), 0.0, low=0.0)
    h = _num(element.get("height"), 0.0, low=0.0)
    angle = _num(element.get("angle"), 0.0, low=-2 * math.pi, high=2 * math.pi)
    return x, y, w, h, angle


def _shape(canvas: _Canvas, element: dict[str, Any], kind: str) -> None:
    x, y, w, h, angle = _geometry(element)
    canvas.box(x, y, w, h, angle)
    paint = f"{_stroke_attrs(element)} {_fill_attr(element)}"
    turn = _rotation(angle, x + w / 2, y + h / 2)
    if kind == "rectangle":
        radius = min(w, h) * 0.25 if element.get("roundness") else 0.0
        corner = f' rx="{_fmt(min(radius, 32.0))}"' if radius else ""
        canvas.parts.append(f'<rect x="{_fmt(x)}" y="{_fmt(y)}" width="{_fmt(w)}" '
                            f'height="{_fmt(h)}"{corner} {paint}{turn}/>')
    elif kind == "ellipse":
        canvas.parts.append(f'<ellipse cx="{_fmt(x + w / 2)}" cy="{_fmt(y + h / 2)}" '
                            f'rx="{_fmt(w / 2)}" ry="{_fmt(h / 2)}" {paint}{turn}/>')
    else:
        corners = ((x + w / 2, y), (x + w, y + h / 2), (x + w / 2, y + h), (x, y + h / 2))
        points = " ".join(f"{_fmt(px)},{_fmt(py)}" for px, py in corners)
        canvas.parts.append(f'<polygon points="{points}" {paint}{turn}/>')
    canvas.drawn += 1


def _arrowhead(kind: Any, tip: tuple[float, float], before: tuple[float, float],
               element: dict[str, Any]) -> str:
    """The head at `tip` of a segment coming from `before`."""
    if kind not in _ARROWHEADS:
        return ""
    dx, dy = tip[0] - before[0], tip[1] - before[1]
    length = math.hypot(dx, dy)
    if length == 0:
        return ""
    ux, uy = dx / length, dy / length
    width = _num(element.get("strokeWidth"), 2.0, low=0.5, high=16.0)
    size = min(max(10.0, width * 5), length * 0.9 if length > 4 else 10.0)
    stroke = color(element.get("strokeColor"), DEFAULT_STROKE) or "none"
    tx, ty = tip
    if kind == "bar":
        return (f'<line x1="{_fmt(tx - uy * size / 2)}" y1="{_fmt(ty + ux * size / 2)}" '
                f'x2="{_fmt(tx + uy * size / 2)}" y2="{_fmt(ty - ux * size / 2)}" '
                f'stroke={quoteattr(stroke)} stroke-width="{_fmt(width)}"/>')
    if kind.startswith(("dot", "circle")):
        fill = "none" if kind.endswith("outline") else stroke
        return (f'<circle cx="{_fmt(tx)}" cy="{_fmt(ty)}" r="{_fmt(size / 3)}" '
                f'fill={quoteattr(fill)} stroke={quoteattr(stroke)} '
                f'stroke-width="{_fmt(width)}"/>')
    spread = math.radians(25)
    left = (tx - size * (ux * math.cos(spread) - uy * math.sin(spread)),
            ty - size * (uy * math.cos(spread) + ux * math.sin(spread)))
    right = (tx - size * (ux * math.cos(spread) + uy * math.sin(spread)),
             ty - size * (uy * math.cos(spread) - ux * math.sin(spread)))
    if kind == "arrow":
        points = " ".join(f"{_fmt(px)},{_fmt(py)}" for px, py in (left, tip, right))
        return (f'<polyline points="{points}" fill="none" stroke={quoteattr(stroke)} '
                f'stroke-width="{_fmt(width)}"/>')
    fill = "none" if kind.endswith("outline") else stroke
    points = " ".join(f"{_fmt(px)},{_fmt(py)}" for px, py in (left, tip, right))
    return (f'<polygon points="{points}" fill={quoteattr(fill)} stroke={quoteattr(stroke)} '
            f'stroke-width="{_fmt(width)}"/>')


def _polyline(canvas: _Canvas, element: dict[str, Any], kind: str) -> None:
    points = _points(element, canvas.points_left)
    if len(points) < 2:
        return
    canvas.points_left -= len(points)
    canvas.extend([p[0] for p in points], [p[1] for p in points])
    path = " ".join(f"{_fmt(px)},{_fmt(py)}" for px, py in points)
    paint = _stroke_attrs(element)
    closed = kind == "line" and len(points) > 2 and points[0] == points[-1]
    fill = _fill_attr(element) if closed else 'fill="none"'
    parts = [f'<polyline points="{path}" {fill} {paint}/>']
    if kind == "arrow":
        parts.append(_arrowhead(element.get("endArrowhead"), points[-1], points[-2], element))
        parts.append(_arrowhead(element.get("startArrowhead"), points[0], points[1], element))
    if kind == "freedraw":
        parts = [f'<polyline points="{path}" fill="none" {paint}/>']
    canvas.parts.append(f'<g stroke-linecap="round" stroke-linejoin="round">'
                        f'{"".join(parts)}</g>')
    canvas.drawn += 1


def _frame(canvas: _Canvas, element: dict[str, Any]) -> None:
    """A frame (a named region of the board): a thin outline with its name above it."""
    x, y, w, h, _ = _geometry(element)
    canvas.box(x, y - 20, w, h + 20, 0.0)
    canvas.parts.append(f'<rect x="{_fmt(x)}" y="{_fmt(y)}" width="{_fmt(w)}" '
                        f'height="{_fmt(h)}" rx="4" fill="none" stroke="#868e96" '
                        'stroke-width="1"/>')
    name = _text(element.get("name")).splitlines()
    if name and name[0].strip():
        canvas.parts.append(f'<text x="{_fmt(x)}" y="{_fmt(y - 6)}" font-family="sans-serif" '
                            f'font-size="14" fill="#868e96">{escape(name[0][:200])}</text>')
    canvas.drawn += 1


def _text_element(canvas: _Canvas, element: dict[str, Any],
                  containers: dict[str, tuple[float, float, float, float]]) -> None:
    text = _text(element.get("text"))
    lines = text.splitlines()[:MAX_TEXT_LINES]
    if not any(line.strip() for line in lines):
        return
    size = _num(element.get("fontSize"), 20.0, low=4.0, high=400.0)
    line_height = _num(element.get("lineHeight"), 1.25, low=0.8, high=3.0) * size
    x, y, w, h, angle = _geometry(element)
    container = containers.get(str(element.get("containerId") or ""))
    if container is not None and w == 0 and h == 0:
        # A label without its own box: centred in its container.
        cx, cy, cw, ch = container
        w, h = cw, len(lines) * line_height
        x, y = cx, cy + (ch - h) / 2
    align = element.get("textAlign")
    if container is not None and align not in ("left", "right"):
        align = "center"
    anchor, ax = {"center": ("middle", x + w / 2), "right": ("end", x + w)}.get(
        str(align), ("start", x))
    family = element.get("fontFamily")
    font = "monospace" if isinstance(family, int) and family in _MONO_FAMILIES else "sans-serif"
    fill = color(element.get("strokeColor"), DEFAULT_STROKE) or DEFAULT_STROKE
    canvas.box(x, y, max(w, 1.0), max(h, len(lines) * line_height), angle)
    rows = []
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        baseline = y + number * line_height + (line_height + size * 0.7) / 2
        rows.append(f'<text x="{_fmt(ax)}" y="{_fmt(baseline)}" font-family="{font}" '
                    f'font-size="{_fmt(size)}" fill={quoteattr(fill)} '
                    f'text-anchor="{anchor}">{escape(line)}</text>')
    turn = _rotation(angle, x + w / 2, y + h / 2)
    canvas.parts.append(f"<g{turn}>{''.join(rows)}</g>" if turn else "".join(rows))
    canvas.drawn += 1


# ---------------------------------------------------------------- the picture


def _empty_svg() -> str:
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 320 120" width="320" '
            'height="120" role="img" aria-label="Nothing drawn">'
            f'<rect x="0" y="0" width="320" height="120" fill="{BACKGROUND}"/>'
            '<text x="160" y="66" font-family="sans-serif" font-size="16" fill="#6b7280" '
            f'text-anchor="middle">{EMPTY_TEXT}</text></svg>')


def board_elements(raw: Any) -> list[dict[str, Any]]:
    """The drawable elements of an untrusted list, in its order (the board's drawing order:
    interviews.collab's readers, a package's reference list): live ones
    (`boardschema.is_live`), at most MAX_ELEMENTS."""
    if not isinstance(raw, list):
        return []
    out = []
    for item in raw:
        if is_live(item):
            out.append(item)
            if len(out) >= MAX_ELEMENTS:
                break
    return out


def board_svg(elements: list[dict[str, Any]]) -> str:
    """The board as a self-contained SVG document (a string), its viewBox fitted to what is
    drawn with `PADDING` around it; "Nothing drawn" for an empty board."""
    items = board_elements(elements)
    containers = {}
    for element in items:
        if element.get("type") in _SHAPES and isinstance(element.get("id"), str):
            x, y, w, h, _ = _geometry(element)
            containers[element["id"]] = (x, y, w, h)
    canvas = _Canvas()
    for element in items:
        kind = element.get("type")
        if kind in _SHAPES:
            _shape(canvas, element, str(kind))
        elif kind in _LINES or kind == "freedraw":
            _polyline(canvas, element, str(kind))
        elif kind == "text":
            _text_element(canvas, element, containers)
        elif kind in ("frame", "magicframe"):
            _frame(canvas, element)
    if not canvas.drawn or not math.isfinite(canvas.min_x):
        return _empty_svg()
    left, top = canvas.min_x - PADDING, canvas.min_y - PADDING
    width = max(canvas.max_x - canvas.min_x + 2 * PADDING, 64.0)
    height = max(canvas.max_y - canvas.min_y + 2 * PADDING, 64.0)
    view = f"{_fmt(left)} {_fmt(top)} {_fmt(width)} {_fmt(height)}"
    label = f"Board: {canvas.drawn} element{'' if canvas.drawn == 1 else 's'}"
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{view}" '
            f'width="{_fmt(width)}" height="{_fmt(height)}" role="img" aria-label="{label}">'
            f'<rect x="{_fmt(left)}" y="{_fmt(top)}" width="{_fmt(width)}" '
            f'height="{_fmt(height)}" fill="{BACKGROUND}"/>'
            f'{"".join(canvas.parts)}</svg>')


def board_count(elements: list[dict[str, Any]]) -> int:
    """How many elements a person sees on the board (what a board moment's label says): a
    shape's label is part of its shape, not an element of its own."""
    return sum(1 for e in board_elements(elements)
               if not (e.get("type") == "text" and e.get("containerId")))
