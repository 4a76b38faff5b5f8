"""The shared board-element vectors (tests/fixtures/board_elements.json) and random values
for the board schema's tests (interviews/boardschema.py and frontend/js/board/schema.js).

A file beside the tests, not a conftest: the schema's tests, the guard's and the frontend's
import it."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "board_elements.json"


def load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return data


def decode(value: Any) -> Any:
    """{"$number": "NaN"} -> nan, {"$repeat": [item, n]} -> n items (or a repeated string)."""
    if isinstance(value, list):
        return [decode(item) for item in value]
    if isinstance(value, dict):
        if set(value) == {"$number"}:
            return float(value["$number"])
        if set(value) == {"$repeat"}:
            item, count = value["$repeat"]
            return item * count if isinstance(item, str) else [decode(item) for _ in range(count)]
        return {key: decode(item) for key, item in value.items()}
    return value


def encode(value: Any) -> Any:
    """The inverse for what JSON cannot write (NaN, the infinities)."""
    if isinstance(value, float) and not math.isfinite(value):
        return {
            "$number": "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        }
    if isinstance(value, list):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        return {key: encode(item) for key, item in value.items()}
    return value


def element(data: dict[str, Any], case: dict[str, Any]) -> Any:
    """The case's element: its raw value, or its base with `set` and `unset` applied."""
    if case["base"] is None:
        return decode(case["raw"])
    built = dict(data["bases"][case["base"]]) | decode(case["set"])
    for key in case["unset"]:
        built.pop(key, None)
    return built


# ---------------------------------------------------------------- random values

FIELDS = [
    "id",
    "type",
    "x",
    "y",
    "width",
    "height",
    "angle",
    "version",
    "versionNonce",
    "isDeleted",
    "points",
    "text",
    "groupIds",
    "boundElements",
    "roundness",
    "fillStyle",
    "strokeStyle",
    "opacity",
    "fontSize",
    "textAlign",
    "endArrowhead",
    "endBinding",
    "pressures",
    "index",
    "frameId",
    "link",
    "customData",
    "name",
    "lineHeight",
]

# JSON-ish junk: what a hostile page can put into a Y.Map value (Yjs carries any JSON plus
# NaN and the infinities; a huge integer becomes a BigInt).
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(
        [
            "rectangle",
            "arrow",
            "text",
            "freedraw",
            "line",
            "solid",
            "image",
            "0,0 10,10",
            "a0",
            "center",
        ]
    ),
)
junk = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
pairs = st.lists(
    st.lists(
        st.one_of(
            st.floats(allow_nan=True, allow_infinity=True),
            st.integers(-10, 10),
            st.text(max_size=2),
        ),
        min_size=0,
        max_size=3,
    ),
    max_size=5,
)


@st.composite
def board_values(draw: Any) -> tuple[str, Any]:
    """(key, value): usually a valid element of the fixture's bases with a few fields
    replaced by junk or removed, sometimes junk outright."""
    data = load()
    key = draw(st.sampled_from(["el", "other", ""]))
    if draw(st.integers(0, 9)) == 0:
        return key, draw(junk)
    value = dict(data["bases"][draw(st.sampled_from(sorted(data["bases"])))])
    for _ in range(draw(st.integers(0, 3))):
        field = draw(st.sampled_from(FIELDS))
        choice = draw(st.integers(0, 3))
        if choice == 0:
            value.pop(field, None)
        elif choice == 1 and field == "points":
            value[field] = draw(pairs)
        else:
            value[field] = draw(junk)
    return key, value
