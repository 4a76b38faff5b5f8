"""ROC AUC from scratch. Implement roc_auc below."""

from __future__ import annotations

from collections.abc import Sequence


def roc_auc(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    """Return the ROC AUC of `scores` against the binary `labels` (0 or 1).

    * A tied (positive, negative) pair counts 1/2.
    * Return None when the labels do not contain both classes.
    * Raise ValueError when len(labels) != len(scores).
    """
    raise NotImplementedError
