"""Wrong (RE): raises ValueError for a replica larger than a GPU instead of returning None.
"""

from __future__ import annotations


def first_fit_decreasing(sizes: list[int], capacity: int) -> list[int] | None:
    """Return the GPU index of every replica (input order), or None if one can never fit."""
    n = len(sizes)
    for size in sizes:
        if size > capacity:
            raise ValueError(f"replica of {size} GB does not fit a {capacity} GB GPU")
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
