"""Wrong: rank-sum AUC with ordinal ranks (argsort of argsort), so tied scores get distinct
ranks and each tied (pos, neg) pair counts 0 or 1 depending on the sort order."""

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
    ranks = np.argsort(np.argsort(s, kind="stable"), kind="stable") + 1
    u = ranks[y == 1].sum() - n_pos * (n_pos + 1) / 2
    return float(u / (n_pos * n_neg))
