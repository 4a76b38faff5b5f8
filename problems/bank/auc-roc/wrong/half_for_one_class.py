"""Wrong: handles ties and runs in O(n log n), but returns 0.5 (a "random classifier") when a
class is missing instead of None, and silently truncates mismatched inputs with zip()."""

from __future__ import annotations

from collections.abc import Sequence


def roc_auc(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    pairs = sorted(zip(scores, labels))
    n_pos = sum(y for _, y in pairs)
    n_neg = len(pairs) - n_pos
    if n_pos == 0 or n_neg == 0:
        return 0.5
    won = 0.0
    neg_below = 0
    i = 0
    while i < len(pairs):
        j = i
        pos_here = neg_here = 0
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            if pairs[j][1] == 1:
                pos_here += 1
            else:
                neg_here += 1
            j += 1
        won += pos_here * neg_below + 0.5 * pos_here * neg_here
        neg_below += neg_here
        i = j
    return won / (n_pos * n_neg)
