"""Wrong (too slow): correct tie handling, but compares every (positive, negative) pair,
O(n_pos * n_neg), hopeless at 10^6 samples."""

from __future__ import annotations

from collections.abc import Sequence


def roc_auc(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    if len(labels) != len(scores):
        raise ValueError("length mismatch")
    pos = [s for s, y in zip(scores, labels, strict=True) if y == 1]
    neg = [s for s, y in zip(scores, labels, strict=True) if y == 0]
    if not pos or not neg:
        return None
    won = 0.0
    for p in pos:
        for q in neg:
            if p > q:
                won += 1.0
            elif p == q:
                won += 0.5
    return won / (len(pos) * len(neg))
