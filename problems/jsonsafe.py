"""JSON that keeps NaN and ±inf through databases that refuse them.

Test inputs and expected outputs may hold non-finite floats (a rolling mean over too little
history is NaN). Python's json writes them as bare `NaN`, which is not JSON: SQLite's JSON_VALID
and PostgreSQL's jsonb reject it. Stored values tag them instead: {"$float": "nan"}.
"""

from __future__ import annotations

import json
import math
from typing import Any

TAG = "$float"
_NAMES = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def tag_floats(value: Any) -> Any:
    """A copy of `value` with every non-finite float replaced by its tag."""
    if isinstance(value, float) and not math.isfinite(value):
        return {TAG: "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if isinstance(value, list | tuple):
        return [tag_floats(v) for v in value]
    if isinstance(value, dict):
        return {k: tag_floats(v) for k, v in value.items()}
    return value


def _untag(obj: dict[str, Any]) -> Any:
    if len(obj) == 1 and TAG in obj and obj[TAG] in _NAMES:
        return _NAMES[obj[TAG]]
    return obj


class TaggedFloatEncoder(json.JSONEncoder):
    def iterencode(self, o: Any, _one_shot: bool = False) -> Any:
        return super().iterencode(tag_floats(o), _one_shot)


class TaggedFloatDecoder(json.JSONDecoder):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("object_hook", _untag)
        super().__init__(*args, **kwargs)
