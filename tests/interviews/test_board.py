"""The board drawn server-side (interviews/board.py): pure logic, hostile input included."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from typing import Any

from fpdf import FPDF

from interviews import board

SVG = "{http://www.w3.org/2000/svg}"
ALLOWED_TAGS = {"svg", "g", "rect", "ellipse", "polygon", "polyline", "line", "circle", "text"}


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # our own output, parsed to check it


def tags(root: ET.Element) -> list[str]:
    return [el.tag.removeprefix(SVG) for el in root.iter()]


def view_box(root: ET.Element) -> list[float]:
    return [float(v) for v in root.attrib["viewBox"].split()]


def sample() -> list[dict[str, Any]]:
    return [
        {
            "id": "api",
            "type": "rectangle",
            "x": 0,
            "y": 0,
            "width": 200,
            "height": 80,
            "strokeColor": "#1971c2",
            "backgroundColor": "#a5d8ff",
        },
        {
            "id": "label",
            "type": "text",
            "x": 10,
            "y": 28,
            "width": 180,
            "height": 25,
            "text": "API gateway",
            "containerId": "api",
            "fontSize": 20,
        },
        {"id": "db", "type": "ellipse", "x": 300, "y": 0, "width": 120, "height": 80},
        {"id": "q", "type": "diamond", "x": 300, "y": 150, "width": 120, "height": 80},
        {
            "id": "a",
            "type": "arrow",
            "x": 200,
            "y": 40,
            "points": [[0, 0], [100, 0]],
            "endArrowhead": "arrow",
        },
        {"id": "l", "type": "line", "x": 0, "y": 120, "points": [[0, 0], [50, 10]]},
        {
            "id": "f",
            "type": "freedraw",
            "x": 0,
            "y": 150,
            "points": [[i, i % 5] for i in range(50)],
        },
    ]


def test_each_kind_of_element_is_drawn_with_its_colours_and_text() -> None:
    root = parse(board.board_svg(sample()))
    found = tags(root)
    for tag in ("rect", "ellipse", "polygon", "polyline", "text"):
        assert tag in found, tag
    assert set(found) <= ALLOWED_TAGS
    assert root.attrib["aria-label"] == "Board: 7 elements"
    shapes = [el for el in root.iter(f"{SVG}rect") if el.attrib.get("stroke") == "#1971c2"]
    assert shapes and shapes[0].attrib["fill"] == "#a5d8ff"
    texts = [el.text for el in root.iter(f"{SVG}text")]
    assert texts == ["API gateway"]
    # The arrow has a head: a polyline of three points beside its shaft.
    heads = [el for el in root.iter(f"{SVG}polyline") if len(el.attrib["points"].split()) == 3]
    assert heads


def test_the_view_box_fits_the_content_with_padding() -> None:
    left, top, width, height = view_box(parse(board.board_svg(sample())))
    assert left == -board.PADDING and top == -board.PADDING
    assert width == 420 + 2 * board.PADDING  # the ellipse's right edge is at 420
    assert height == 230 + 2 * board.PADDING  # the diamond's bottom is at 230


def test_a_label_without_a_box_is_centred_in_its_container() -> None:
    elements = [
        {"id": "box", "type": "rectangle", "x": 100, "y": 100, "width": 200, "height": 100},
        {
            "id": "t",
            "type": "text",
            "text": "cache",
            "containerId": "box",
            "width": 0,
            "height": 0,
            "x": 0,
            "y": 0,
        },
    ]
    text = next(parse(board.board_svg(elements)).iter(f"{SVG}text"))
    assert text.attrib["x"] == "200" and text.attrib["text-anchor"] == "middle"
    assert 100 < float(text.attrib["y"]) < 200


def test_an_empty_board_is_a_small_nothing_drawn_picture() -> None:
    for empty in (
        [],
        [{"type": "rectangle", "isDeleted": True}],
        [{"type": "text", "text": " "}],
        "not a list",
        None,
    ):
        svg = board.board_svg(empty)  # type: ignore[arg-type]
        assert board.EMPTY_TEXT in svg
        assert view_box(parse(svg)) == [0, 0, 320, 120]


def test_text_is_escaped_and_no_input_markup_survives() -> None:
    hostile = [
        {
            "type": "text",
            "x": 0,
            "y": 0,
            "width": 100,
            "height": 20,
            "text": '<script>alert(1)</script>"><img src=x onerror=alert(2)>&amp;',
        },
        {
            "type": "rectangle",
            "x": 0,
            "y": 40,
            "width": 10,
            "height": 10,
            "strokeColor": 'red" onload="alert(3)',
            "backgroundColor": "url(javascript:alert(4))",
            "onclick": "alert(5)",
            "href": "javascript:alert(6)",
            "style": "fill:red",
        },
        {"type": "<foreignObject>", "x": 1, "y": 1, "width": 5, "height": 5},
        {"type": "text", "x": 0, "y": 60, "text": "javascript:alert(7)", "link": "javascript:x"},
    ]
    svg = board.board_svg(hostile)
    root = parse(svg)
    assert set(tags(root)) <= ALLOWED_TAGS
    assert "<script" not in svg and "<img" not in svg and "foreignObject" not in svg
    for el in root.iter():
        for name, value in el.attrib.items():
            assert not name.startswith("on") and name not in ("href", "style"), name
            assert "javascript" not in value and "url(" not in value, (name, value)
    texts = [el.text for el in root.iter(f"{SVG}text")]
    assert texts[0] == '<script>alert(1)</script>"><img src=x onerror=alert(2)>&amp;'
    rect = [el for el in root.iter(f"{SVG}rect")][1]
    assert rect.attrib["stroke"] == board.DEFAULT_STROKE and rect.attrib["fill"] == "none"


def test_colours_are_hex_or_a_small_set_of_names() -> None:
    assert board.color("#ABC", None) == "#abc"
    assert board.color("#a5d8ff", None) == "#a5d8ff"
    assert board.color("Red", None) == "red"
    assert board.color("transparent", "#000") is None
    for bad in ("#12345", "rgb(1,2,3)", "currentColor", "#zzzzzz", 12, None, "red;x"):
        assert board.color(bad, "#000") == "#000", bad


def test_huge_numbers_nan_and_junk_are_coerced_and_bounded() -> None:
    elements: list[Any] = [
        {
            "type": "rectangle",
            "x": 1e300,
            "y": float("nan"),
            "width": float("inf"),
            "height": "12",
            "angle": 1e9,
            "strokeWidth": 1e6,
            "opacity": -5,
        },
        {"type": "ellipse", "x": "abc", "y": True, "width": [1], "height": {"a": 1}},
        {"type": "arrow", "x": 0, "y": 0, "points": [[0, 0], ["x", None], [1e308, -1e308], 7]},
        {"type": "text", "x": 0, "y": 0, "text": 12345, "fontSize": float("nan")},
        "not a dict",
        42,
        None,
        ["list"],
    ]
    svg = board.board_svg(elements)
    root = parse(svg)
    assert "nan" not in svg.lower() and "inf" not in svg.lower() and "e+" not in svg
    numbers = [
        float(n)
        for n in re.findall(
            r"-?\d+(?:\.\d+)?", " ".join(v for el in root.iter() for v in el.attrib.values())
        )
    ]
    assert max(abs(n) for n in numbers) <= 4 * board.COORD_LIMIT
    widths = [float(el.attrib["stroke-width"]) for el in root.iter() if "stroke-width" in el.attrib]
    assert max(widths) <= 16


def test_ten_thousand_elements_are_bounded_in_count_and_size() -> None:
    # One list of 2000 points that every element shares: the same input as 10,000 copies
    # (board_svg only reads it) without building 20 million lists first.
    stroke = [[j, j] for j in range(2000)]
    many = [{"type": "freedraw", "x": i, "y": i, "points": stroke} for i in range(10_000)]
    svg = board.board_svg(many)
    root = parse(svg)
    assert len(list(root.iter(f"{SVG}polyline"))) <= board.MAX_ELEMENTS
    points = sum(len(el.attrib["points"].split()) for el in root.iter(f"{SVG}polyline"))
    assert points <= board.MAX_TOTAL_POINTS
    assert len(svg) < 2_000_000
    texts = [
        {"type": "text", "x": 0, "y": i * 30, "text": "x" * 50_000 + "\n" * 1000}
        for i in range(10_000)
    ]
    svg = board.board_svg(texts)
    assert len(list(parse(svg).iter(f"{SVG}text"))) <= board.MAX_ELEMENTS
    assert len(svg) < 3_000_000


def test_control_characters_never_make_the_svg_unparseable() -> None:
    svg = board.board_svg([{"type": "text", "x": 0, "y": 0, "text": "a\x00b\x1bc\ufffe"}])
    assert next(parse(svg).iter(f"{SVG}text")).text == "abc"


def test_the_pdf_library_draws_the_board() -> None:
    """fpdf2 embeds this subset of SVG (the report's PDF relies on it)."""
    pdf = FPDF()
    pdf.add_page()
    pdf.image(io.BytesIO(board.board_svg(sample()).encode()), w=150)
    assert bytes(pdf.output()).startswith(b"%PDF")


def test_a_shapes_label_is_part_of_the_shape_in_the_count() -> None:
    elements = sample()  # seven, one of them the gateway's label
    assert board.board_count(elements) == 6
    assert board.board_count([*elements, {"type": "text", "text": "free", "x": 0, "y": 0}]) == 7
    junk: list[Any] = [{"type": "rectangle", "isDeleted": True}, "junk"]
    assert board.board_count(junk) == 0


def test_a_frame_is_an_outline_with_its_escaped_name() -> None:
    svg = board.board_svg(
        [{"type": "frame", "x": 0, "y": 0, "width": 300, "height": 200, "name": "Region <us-east>"}]
    )
    root = parse(svg)
    assert [el.text for el in root.iter(f"{SVG}text")] == ["Region <us-east>"]
    assert "&lt;us-east&gt;" in svg
