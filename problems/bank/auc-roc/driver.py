"""Custom driver for auc-roc (runs inside the sandbox).

Small tests carry `labels` and `scores` verbatim. Big tests carry a compact `gen` spec that is
expanded here with a seeded splitmix64 stream written in NumPy integer arithmetic, so the data is
bit-identical on every machine and NumPy version (no dependence on NumPy's RNG streams).
A ValueError from the candidate is part of the contract and is reported as {"error": "ValueError"}.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _uniform(seed: int, stream: int, n: int) -> np.ndarray:
    """n floats in [0, 1) from splitmix64 over a counter; uint64 arithmetic wraps by design."""
    base = np.uint64((seed * 1_000_003 + stream * 7_919) % (1 << 64))
    z = (np.arange(1, n + 1, dtype=np.uint64) + base) * _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) / float(1 << 53)


def generate(
    n: int, seed: int, pos_rate: float, levels: int, signal: float, positives_first: bool = False
) -> tuple[list[int], list[float]]:
    """Labels with P(1) = pos_rate; scores = noise + signal * label, optionally quantised to
    `levels` distinct values per unit (levels = 0 keeps full precision). `positives_first`
    lists all positives before all negatives, as when per-class files are concatenated."""
    labels = (_uniform(seed, 1, n) < pos_rate).astype(np.int64)
    scores = _uniform(seed, 2, n) + signal * labels
    if levels > 0:
        scores = np.floor(scores * levels) / levels  # many exact ties, as with calibrated buckets
    if positives_first:
        order = np.argsort(-labels, kind="stable")
        labels, scores = labels[order], scores[order]
    return labels.tolist(), scores.tolist()


def run(solution: Any, data: dict[str, Any]) -> dict[str, Any]:
    if "gen" in data:
        labels, scores = generate(**data["gen"])
    else:
        labels, scores = data["labels"], data["scores"]
    try:
        result = solution.roc_auc(labels, scores)
    except ValueError:
        return {"error": "ValueError"}
    return {"auc": None if result is None else float(result)}
