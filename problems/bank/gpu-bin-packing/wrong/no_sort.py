"""Wrong (WA): plain First-Fit in input order (forgot the "decreasing" part), with an
efficient segment tree, so it is fast but uses more GPUs and gives different placements.
"""

from __future__ import annotations


def first_fit_decreasing(sizes: list[int], capacity: int) -> list[int] | None:
    """Return the GPU index of every replica (input order), or None if one can never fit."""
    n = len(sizes)
    if any(size > capacity for size in sizes):
        return None
    if n == 0:
        return []
    order = range(n)
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
