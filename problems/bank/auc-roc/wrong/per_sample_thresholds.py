"""Wrong: builds the ROC curve with one point per sample instead of one per distinct score,
then integrates with the trapezoid rule. Inside a run of tied scores the curve becomes a
staircase that follows the (arbitrary) sort order instead of one diagonal segment."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def roc_auc(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    if len(labels) != len(scores):
        raise ValueError("length mismatch")
    y = np.asarray(labels, dtype=np.int64)
    s = np.asarray(scores, dtype=np.float64)
    n_pos = int(y.sum())
    n_neg = y.size - n_pos
    if n_pos == 0 or n_neg == 0:
        return None
    order = np.argsort(-s, kind="stable")  # lower the threshold past one sample at a time
    tpr = np.r_[0.0, np.cumsum(y[order] == 1) / n_pos]
    fpr = np.r_[0.0, np.cumsum(y[order] == 0) / n_neg]
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
