"""Custom driver for rolling-features-no-leakage (runs inside the sandbox).

Builds the pandas DataFrame the candidate receives (columns entity_id, timestamp, value; rows
in the given, unsorted order; default RangeIndex), calls rolling_features, and reads each
feature column back positionally as floats (NaN preserved). Big tests carry a compact `gen`
spec expanded with a splitmix64 stream in NumPy integer arithmetic (bit-identical everywhere)
and get a digest back instead of full columns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

FEATURES = ("prev_mean_k", "prev_max_k", "prev_mean_w")
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
    n: int, seed: int, entities: int, span: int, start: int = 1_700_000_000
) -> pd.DataFrame:
    """n rows over `entities` ids with integer timestamps in [start, start + span), shuffled."""
    ent = np.floor(_uniform(seed, 1, n) * entities).astype(np.int64)
    ts = start + np.floor(_uniform(seed, 2, n) * span).astype(np.int64)
    val = np.round((_uniform(seed, 3, n) - 0.5) * 200.0, 2)
    return pd.DataFrame(
        {
            "entity_id": pd.Series([f"user_{i:05d}" for i in ent.tolist()], dtype=object),
            "timestamp": ts,
            "value": val,
        }
    )


def _column(result: Any, name: str, n: int) -> np.ndarray:
    column = result[name]
    arr = pd.to_numeric(pd.Series(column)).to_numpy(dtype=np.float64, na_value=np.nan)
    if arr.shape != (n,):
        raise ValueError(f"column {name!r} has shape {arr.shape}, expected ({n},)")
    return arr


def _digest(arr: np.ndarray) -> dict[str, Any]:
    """Order-sensitive summary of a long column: NaN count, sums, and sampled rows."""
    n = arr.size
    weights = (np.arange(n) % 97 + 1) / 97.0
    picks = np.linspace(0, n - 1, num=min(n, 25)).astype(np.int64)
    return {
        "nan": int(np.isnan(arr).sum()),
        "sum": float(np.nansum(arr)),
        "weighted_sum": float(np.nansum(arr * weights)),
        "sample": arr[picks].tolist(),
    }


def run(solution: Any, data: dict[str, Any]) -> dict[str, Any]:
    if "gen" in data:
        df = generate(**data["gen"])
    else:
        df = pd.DataFrame(
            {
                "entity_id": pd.Series([r[0] for r in data["rows"]], dtype=object),
                "timestamp": pd.Series([r[1] for r in data["rows"]], dtype="int64"),
                "value": pd.Series([r[2] for r in data["rows"]], dtype="float64"),
            }
        )
    result = solution.rolling_features(df, data["k"], data["min_periods"], data["window_seconds"])
    if len(result) != len(df):
        return {"error": f"expected {len(df)} rows, got {len(result)}"}
    columns = {name: _column(result, name, len(df)) for name in FEATURES}
    if "gen" in data:
        return {name: _digest(arr) for name, arr in columns.items()}
    return {name: arr.tolist() for name, arr in columns.items()}


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


def _row_problem(number: int, row: Any) -> str | None:
    if not isinstance(row, list) or len(row) != 3:
        return f"row #{number} must be [entity_id, timestamp, value], got {row!r}"
    entity, timestamp, value = row
    if not isinstance(entity, str):
        return f"row #{number}'s entity_id must be a string"
    if problem := _fmt_int(timestamp, f"row #{number}'s timestamp"):
        return problem
    if not isinstance(value, int | float) or isinstance(value, bool):
        return f"row #{number}'s value must be a number"
    return None


def check_input(data: Any) -> str | None:
    """{"rows": [[entity_id, timestamp, value], ...], "k": int, "min_periods": int,
    "window_seconds": int}, or {"gen": {...}} in place of "rows" for a big table."""
    params = ("k", "min_periods", "window_seconds")
    rows = "gen" if isinstance(data, dict) and "gen" in data else "rows"
    problem = _fmt_first(
        lambda: _fmt_object(data, "the input", (rows, *params)),
        lambda: _fmt_int(data["k"], '"k"', 1),
        lambda: _fmt_int(data["min_periods"], '"min_periods"', 1),
        lambda: _fmt_int(data["window_seconds"], '"window_seconds"', 1),
    )
    if problem or rows == "rows":
        return problem or _fmt_first(
            lambda: _fmt_list(data["rows"], '"rows"'),
            lambda: next(
                (p for number, row in enumerate(data["rows"]) if (p := _row_problem(number, row))),
                None,
            ),
        )
    gen = data["gen"]
    return _fmt_first(
        lambda: _fmt_object(gen, '"gen"', ("n", "seed", "entities", "span"), ("start",)),
        lambda: _fmt_int(gen["n"], '"gen.n"', 0, 5_000_000),
        lambda: _fmt_int(gen["seed"], '"gen.seed"', 0),
        lambda: _fmt_int(gen["entities"], '"gen.entities"', 1),
        lambda: _fmt_int(gen["span"], '"gen.span"', 1),
        lambda: _fmt_int(gen.get("start", 0), '"gen.start"', 0),
    )
