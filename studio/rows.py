"""Structured editors (issue 28.7): clarifications and rubric criteria posted as rows
(`clar-0-question`, `rub-1-level-3`, ...) and parsed into the very structures the package
stores; the JSON text of each stays available as an advanced view."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms

from problems.package import Clarification, RubricCriterion

MAX_ROWS = 60  # rows read per list; a page never renders more
LEVELS = 4


def rows_posted(data: Mapping[str, Any], prefix: str) -> bool:
    """Whether the form posted any row of `prefix` (an old client posts only the JSON)."""
    return any(str(key).startswith(f"{prefix}-") for key in data)


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key, "")
    return value.strip() if isinstance(value, str) else ""


def hints_from_rows(data: Mapping[str, Any]) -> list[str]:
    """The posted hint rows (`hint-N-text`), in order, the empty ones left out. A hint is one
    line (the package stores them one per line), so a pasted line break becomes a space."""
    hints = [" ".join(_text(data, f"hint-{i}-text").split()) for i in range(MAX_ROWS)]
    return [hint for hint in hints if hint]


def clarifications_from_rows(data: Mapping[str, Any]) -> tuple[Clarification, ...]:
    items, errors = [], []
    for i in range(MAX_ROWS):
        question, answer = _text(data, f"clar-{i}-question"), _text(data, f"clar-{i}-answer")
        if not question and not answer:
            continue  # an empty row (the blank one offered for adding, or one cleared)
        if not question or not answer:
            errors.append(f"clarification row {i + 1} needs both a question and an answer")
            continue
        # The solo matcher's optional phrasings (one per line) and keywords (comma-separated).
        also = tuple(line.strip() for line in _text(data, f"clar-{i}-also").splitlines()
                     if line.strip())  # fmt: skip
        keywords = tuple(word.strip() for word in _text(data, f"clar-{i}-keywords").split(",")
                         if word.strip())  # fmt: skip
        items.append(Clarification(question, answer, data.get(f"clar-{i}-key") == "on",
                                   also=also, keywords=keywords))  # fmt: skip
    if errors:
        raise forms.ValidationError(errors)
    return tuple(items)


def rubric_from_rows(data: Mapping[str, Any]) -> tuple[RubricCriterion, ...]:
    items, errors = [], []
    for i in range(MAX_ROWS):
        criterion, strong = _text(data, f"rub-{i}-criterion"), _text(data, f"rub-{i}-strong")
        levels = tuple(_text(data, f"rub-{i}-level-{n}") for n in range(1, LEVELS + 1))
        weight_text = _text(data, f"rub-{i}-weight")
        if not criterion and not strong and not any(levels):
            continue
        try:
            weight = float(weight_text or "1")
        except ValueError:
            errors.append(f"rubric row {i + 1}: the weight must be a number")
            continue
        if not criterion:
            errors.append(f"rubric row {i + 1} needs a criterion")
            continue
        items.append(RubricCriterion(criterion, weight, strong, levels))
    if errors:
        raise forms.ValidationError(errors)
    return tuple(items)
