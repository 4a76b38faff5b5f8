"""Wrong: sorts by time and rolls over the whole table, so one user's history leaks into
another user's features (no groupby on entity_id)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def rolling_features(
    df: pd.DataFrame, k: int, min_periods: int, window_seconds: int
) -> pd.DataFrame:
    d = df.assign(_pos=np.arange(len(df))).sort_values(["timestamp", "_pos"])
    prev = d["value"].shift(1)
    d["prev_mean_k"] = prev.rolling(k, min_periods=min_periods).mean()
    d["prev_max_k"] = prev.rolling(k, min_periods=min_periods).max()
    d["_dt"] = pd.to_datetime(d["timestamp"], unit="s")
    timed = d.rolling(f"{window_seconds}s", on="_dt", closed="left", min_periods=min_periods)
    d["prev_mean_w"] = timed["value"].mean().to_numpy()
    return d.sort_values("_pos")[["prev_mean_k", "prev_max_k", "prev_mean_w"]].set_index(df.index)
