"""Wrong (subtle leakage): shift(1) inside each entity after sorting, which is right until two
events share a timestamp; then the later-listed one sees the earlier one, although both
happened at the same moment. (The time window uses closed="left" and is fine.)"""

from __future__ import annotations

import numpy as np
import pandas as pd


def rolling_features(
    df: pd.DataFrame, k: int, min_periods: int, window_seconds: int
) -> pd.DataFrame:
    d = df.assign(_pos=np.arange(len(df))).sort_values(["entity_id", "timestamp", "_pos"])
    prev = d.groupby("entity_id", sort=False)["value"].shift(1)
    rolled = prev.groupby(d["entity_id"], sort=False).rolling(k, min_periods=min_periods)
    d["prev_mean_k"] = rolled.mean().droplevel(0)
    d["prev_max_k"] = rolled.max().droplevel(0)
    d["_dt"] = pd.to_datetime(d["timestamp"], unit="s")
    timed = d.groupby("entity_id", sort=False).rolling(
        f"{window_seconds}s", on="_dt", closed="left", min_periods=min_periods
    )["value"]
    d["prev_mean_w"] = timed.mean().to_numpy()
    return d.sort_values("_pos")[["prev_mean_k", "prev_max_k", "prev_mean_w"]].set_index(df.index)
