"""Custom driver for extra-trees-debug (runs inside the sandbox).

Builds ExtraTreesRegressor(**params), fits it on (X, y) and predicts X_test. Small tests give
the data verbatim and get the predictions back as returned (after the harness's normalisation,
so a (1, 1) or (n, n) array stays visibly wrong). Big tests carry a compact `gen` spec expanded
with a splitmix64 stream in NumPy integer arithmetic (bit-identical everywhere) and get the
prediction shape plus an order-sensitive digest back.
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
    n: int, n_test: int, d: int, seed: int, noise: float = 0.1, decimals: int = 3
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A smooth nonlinear target on [-1, 1)^d; rounding X creates duplicate feature values."""
    X = np.round(_uniform(seed, 1, n * d).reshape(n, d) * 2.0 - 1.0, decimals)
    X_test = np.round(_uniform(seed, 2, n_test * d).reshape(n_test, d) * 2.0 - 1.0, decimals)
    weights = 1.0 / (1.0 + np.arange(d))
    y = np.sin(3.0 * X) @ weights + noise * (_uniform(seed, 3, n) - 0.5)
    return X, np.round(y, 6), X_test


def run(solution: Any, data: dict[str, Any]) -> Any:
    if "gen" in data:
        X, y, X_test = generate(**data["gen"])
    else:
        X = np.asarray(data["X"], dtype=np.float64)
        y = np.asarray(data["y"], dtype=np.float64)
        X_test = np.asarray(data["X_test"], dtype=np.float64)
    model = solution.ExtraTreesRegressor(**data["params"])
    model.fit(X, y)
    predictions = model.predict(X_test)
    if "gen" not in data:
        return predictions
    arr = np.asarray(predictions, dtype=np.float64)
    if arr.shape != (X_test.shape[0],):
        return {"shape": list(arr.shape)}
    weights = (np.arange(arr.size) % 89 + 1) / 89.0
    picks = np.linspace(0, arr.size - 1, num=min(arr.size, 20)).astype(np.int64)
    return {
        "shape": list(arr.shape),
        "sum": float(arr.sum()),
        "weighted_sum": float(arr @ weights),
        "sample": arr[picks].tolist(),
    }
