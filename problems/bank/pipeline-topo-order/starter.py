"""Plan an ML pipeline into parallel layers, or report the stages on a cycle (see the statement)."""

from __future__ import annotations


def plan_stages(stages: dict[str, list[str]]) -> dict[str, list]:
    """Return {"layers": [[...], ...]}, {"cycle": [...]} or {"unknown": [...]}."""
    raise NotImplementedError
