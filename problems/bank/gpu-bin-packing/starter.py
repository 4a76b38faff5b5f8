"""Place model replicas on GPUs with First-Fit-Decreasing (exact rules: see the statement)."""

from __future__ import annotations


def first_fit_decreasing(sizes: list[int], capacity: int) -> list[int] | None:
    """Return assignment[i] = GPU index of replica i, or None if some replica can never fit."""
    raise NotImplementedError
