"""Reference solution: ROC AUC as the normalised Mann-Whitney U statistic."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def roc_auc(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    """Return the ROC AUC of `scores` against binary `labels`.

    Ties count one half: AUC = P(score_pos > score_neg) + 0.5 * P(score_pos == score_neg).
    Returns None when either class is missing; raises ValueError on a length mismatch.
    """
    if len(labels) != len(scores):
        raise ValueError(f"length mismatch: {len(labels)} labels, {len(scores)} scores")
    y = np.asarray(labels, dtype=np.int64)
    s = np.asarray(scores, dtype=np.float64)
    n = y.size
    n_pos = int(y.sum())
    n_neg = n - n_pos
    if n_pos == 0 or n_neg == 0:
        return None  # AUC is undefined without both classes

    # One O(n log n) sort; a stable sort is not needed because ties get one shared rank.
    order = np.argsort(s, kind="stable")
    s_sorted = s[order]
    # Tie groups are maximal runs of equal scores in sorted order: [starts[g], ends[g]).
    starts = np.flatnonzero(np.r_[True, s_sorted[1:] != s_sorted[:-1]])
    ends = np.r_[starts[1:], n]
    # The 1-based average rank of a group is (starts + 1 + ends) / 2; keep twice that value
    # so that the whole computation stays in exact integer arithmetic until the final divide.
    twice_rank = np.repeat(starts + ends + 1, ends - starts)
    twice_rank_sum_pos = int(twice_rank[y[order] == 1].sum())
    # U = rank_sum_pos - n_pos (n_pos + 1) / 2 counts the (pos, neg) pairs won by the positive,
    # with each tied pair counted as 1/2.
    twice_u = twice_rank_sum_pos - n_pos * (n_pos + 1)
    return twice_u / (2 * n_pos * n_neg)
