"""Custom driver for extra-trees-debug (runs inside the sandbox).

Builds ExtraTreesRegressor(**params), fits it on (X, y) and predicts X_test. Small tests give
the data verbatim and get the predictions back as returned (after the harness's normalisation,
so a (1, 1) or (n, n) array stays visibly wrong). Big tests carry a compact `gen` spec expanded
with a splitmix64 stream in NumPy integer arithmetic (bit-identical everywhere) and get the
prediction shape plus an order-sensitive digest back.
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


_PARAMS = ("n_estimators", "max_depth", "min_samples_split", "seed")


def _matrix_problem(value: Any, what: str) -> str | None:
    if not isinstance(value, list):
        return f"{what} must be a list of rows"
    widths = set()
    for i, row in enumerate(value):
        if not isinstance(row, list) or not row:
            return f"{what} row #{i} must be a non-empty list of numbers"
        if bad := next(
            (p for j, x in enumerate(row) if (p := _fmt_number(x, f"{what}[{i}][{j}]"))), None
        ):
            return bad
        widths.add(len(row))
    return None if len(widths) <= 1 else f"every row of {what} must have as many features"


def _params_problem(params: Any) -> str | None:
    return _fmt_first(
        lambda: _fmt_object(params, '"params"', (), _PARAMS),
        lambda: _fmt_int(params.get("n_estimators", 10), '"params.n_estimators"', 1, 1000),
        lambda: _fmt_int(params.get("max_depth", 8), '"params.max_depth"', 0, 64),
        lambda: _fmt_int(params.get("min_samples_split", 2), '"params.min_samples_split"', 1),
        lambda: _fmt_int(params.get("seed", 0), '"params.seed"', 0),
    )


def check_input(data: Any) -> str | None:
    """{"X": [[x, ...], ...], "y": [y, ...], "X_test": [[x, ...], ...], "params": {...}} or
    {"gen": {"n", "n_test", "d", "seed", ...}, "params": {...}}."""
    if isinstance(data, dict) and "gen" in data:
        gen = data["gen"]
        return _fmt_first(
            lambda: _fmt_object(data, "the input", ("gen", "params")),
            lambda: _params_problem(data["params"]),
            lambda: _fmt_object(gen, '"gen"', ("n", "n_test", "d", "seed"), ("noise", "decimals")),
            lambda: _fmt_int(gen["n"], '"gen.n"', 1, 1_000_000),
            lambda: _fmt_int(gen["n_test"], '"gen.n_test"', 0, 1_000_000),
            lambda: _fmt_int(gen["d"], '"gen.d"', 1, 1000),
            lambda: _fmt_int(gen["seed"], '"gen.seed"', 0),
            lambda: _fmt_number(gen.get("noise", 0.1), '"gen.noise"', 0),
            lambda: _fmt_int(gen.get("decimals", 3), '"gen.decimals"', 0, 15),
        )
    return _fmt_first(
        lambda: _fmt_object(data, "the input", ("X", "y", "X_test", "params")),
        lambda: _params_problem(data["params"]),
        lambda: _matrix_problem(data["X"], '"X"'),
        lambda: _matrix_problem(data["X_test"], '"X_test"'),
        lambda: _fmt_list(data["y"], '"y"'),
        lambda: next(
            (p for i, v in enumerate(data["y"]) if (p := _fmt_number(v, f'"y" #{i}'))), None
        ),
        lambda: (
            None
            if len(data["y"]) == len(data["X"]) and data["X"]
            else f'"X" and "y" must be as long, and not empty: {len(data["X"])}, {len(data["y"])}'
        ),
        lambda: (
            None
            if not data["X_test"] or len(data["X_test"][0]) == len(data["X"][0])
            else '"X_test" must have as many features as "X"'
        ),
    )
