"""Wrong: handles ties and runs in O(n log n), but returns 0.5 ("a random classifier") when a
class is missing, instead of None: the metric is undefined there, not mediocre."""

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
        return 0.5
    order = np.argsort(s, kind="stable")
    s_sorted = s[order]
    is_pos = y[order] == 1
    # Negatives strictly below each tie group, plus half of the negatives inside it.
    starts = np.flatnonzero(np.r_[True, s_sorted[1:] != s_sorted[:-1]])
    neg_per_group = np.add.reduceat((~is_pos).astype(np.int64), starts)
    pos_per_group = np.add.reduceat(is_pos.astype(np.int64), starts)
    neg_below = np.cumsum(neg_per_group) - neg_per_group
    won = np.sum(pos_per_group * (neg_below + 0.5 * neg_per_group))
    return float(won / (n_pos * n_neg))
