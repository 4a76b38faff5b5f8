"""Custom driver for auc-roc (runs inside the sandbox).

Small tests carry `labels` and `scores` verbatim. Big tests carry a compact `gen` spec that is
expanded here with a seeded splitmix64 stream written in NumPy integer arithmetic, so the data is
bit-identical on every machine and NumPy version (no dependence on NumPy's RNG streams).
A ValueError from the candidate is part of the contract and is reported as {"error": "ValueError"}.
"""

from __future__ import annotations

from collections.abc import Callable
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


# ---------------------------------------------------------------- the input's format
# check_input is called by the studio (in the sandbox) on every test an author saves: it names
# the first thing wrong with one test's input, or returns None when the input fits.


def _fmt_int(value: Any, what: str, lo: int | None = None, hi: int | None = None) -> str | None:
    if not isinstance(value, int) or isinstance(value, bool):
        return f"{what} must be an integer"
    if lo is not None and value < lo:
        return f"{what} must be at least {lo}, got {value}"
    if hi is not None and value > hi:
        return f"{what} must be at most {hi}, got {value}"
    return None


def _fmt_number(
    value: Any, what: str, lo: float | None = None, hi: float | None = None
) -> str | None:
    if not isinstance(value, int | float) or isinstance(value, bool) or value != value:
        return f"{what} must be a number"
    if lo is not None and value < lo:
        return f"{what} must be at least {lo}, got {value}"
    if hi is not None and value > hi:
        return f"{what} must be at most {hi}, got {value}"
    return None


def _fmt_object(
    value: Any, what: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
) -> str | None:
    if not isinstance(value, dict):
        return f"{what} must be an object"
    missing = [key for key in required if key not in value]
    if missing:
        return f"{what} needs {', '.join(repr(key) for key in missing)}"
    unknown = sorted(set(value) - set(required) - set(optional))
    if unknown:
        known = ", ".join(repr(key) for key in (*required, *optional))
        return f"{what} has no field {unknown[0]!r} (it takes {known})"
    return None


def _fmt_list(value: Any, what: str, most: int | None = None) -> str | None:
    if not isinstance(value, list):
        return f"{what} must be a list"
    if most is not None and len(value) > most:
        return f"{what} has {len(value)} items, at most {most} are allowed"
    return None


def _fmt_first(*checks: Callable[[], str | None]) -> str | None:
    """The first problem of `checks`, tried in order (a later one may rely on an earlier)."""
    for check in checks:
        if problem := check():
            return problem
    return None


def check_input(data: Any) -> str | None:
    """Small tests: {"labels": [0|1, ...], "scores": [number, ...]} (the lengths may differ:
    the ValueError that earns is part of the problem); big ones: {"gen": {...}}."""
    if isinstance(data, dict) and "gen" in data:
        gen = data["gen"]
        return _fmt_first(
            lambda: _fmt_object(data, "the input", ("gen",)),
            lambda: _fmt_object(
                gen, '"gen"', ("n", "seed", "pos_rate", "levels", "signal"), ("positives_first",)
            ),
            lambda: _fmt_int(gen["n"], '"gen.n"', 0, 5_000_000),
            lambda: _fmt_int(gen["seed"], '"gen.seed"', 0),
            lambda: _fmt_number(gen["pos_rate"], '"gen.pos_rate"', 0, 1),
            lambda: _fmt_int(gen["levels"], '"gen.levels"', 0),
            lambda: _fmt_number(gen["signal"], '"gen.signal"', -10, 10),
            lambda: (
                None
                if isinstance(gen.get("positives_first", False), bool)
                else '"gen.positives_first" must be true or false'
            ),
        )
    return _fmt_first(
        lambda: _fmt_object(data, "the input", ("labels", "scores")),
        lambda: _fmt_list(data["labels"], '"labels"'),
        lambda: _fmt_list(data["scores"], '"scores"'),
        lambda: next(
            (
                f'"labels" #{i} must be 0 or 1, got {label!r}'
                for i, label in enumerate(data["labels"])
                if _fmt_int(label, "", 0, 1)
            ),
            None,
        ),
        lambda: next(
            (
                p
                for i, score in enumerate(data["scores"])
                if (p := _fmt_number(score, f'"scores" #{i}'))
            ),
            None,
        ),
    )
