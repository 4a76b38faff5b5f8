"""Place model replicas on GPUs with First-Fit-Decreasing (see the statement for the exact rules)."""

from __future__ import annotations


def first_fit_decreasing(sizes: list[int], capacity: int) -> list[int] | None:
    """Return assignment[i] = GPU index of replica i, or None if some replica can never fit."""
    raise NotImplementedError
