"""Custom driver for rolling-features-no-leakage (runs inside the sandbox).

Builds the pandas DataFrame the candidate receives (columns entity_id, timestamp, value; rows
in the given, unsorted order; default RangeIndex), calls rolling_features, and reads each
feature column back positionally as floats (NaN preserved). Big tests carry a compact `gen`
spec expanded with a splitmix64 stream in NumPy integer arithmetic (bit-identical everywhere)
and get a digest back instead of full columns.
"""

from __future__ import annotations

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
