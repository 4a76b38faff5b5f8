"""Reference: First-Fit-Decreasing placement of model replicas onto GPUs.

Order: size descending, ties by replica index ascending. Each replica goes to the lowest-index
GPU whose free memory is >= its size; a new GPU is opened only when none fits.

"Lowest-index GPU with free >= size" is answered by a max segment tree over the free memory of
GPU slots 0..n-1 (n replicas never need more than n GPUs; an unopened GPU has full capacity and
sits to the right of every opened one, so opening a GPU needs no special case): descend to the
leftmost leaf whose free memory is >= size. O(n log n) overall instead of O(n * gpus).
"""

from __future__ import annotations


def first_fit_decreasing(sizes: list[int], capacity: int) -> list[int] | None:
    """Return the GPU index of every replica (input order), or None if one can never fit."""
    n = len(sizes)
    if any(size > capacity for size in sizes):
        return None
    if n == 0:
        return []
    # sorted() is stable and keeps that stability with reverse=True, so equal sizes stay in
    # ascending index order (a (size, index) key with reverse=True would flip the tie-break).
    order = sorted(range(n), key=sizes.__getitem__, reverse=True)
    leaves = 1 << (n - 1).bit_length()
    tree = [capacity] * (2 * leaves)  # tree[k] = max free memory among the GPUs under node k
    assignment = [0] * n
    for replica in order:
        need = sizes[replica]
        node = 1
        while node < leaves:  # leftmost leaf with free >= need; the root always qualifies
            node <<= 1
            if tree[node] < need:
                node += 1
        assignment[replica] = node - leaves
        tree[node] -= need
        node >>= 1
        while node:
            left, right = tree[2 * node], tree[2 * node + 1]
            best = left if left >= right else right
            if tree[node] == best:
                break  # ancestors are unchanged too
            tree[node] = best
            node >>= 1
    return assignment
