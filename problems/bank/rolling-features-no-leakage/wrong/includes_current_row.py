"""Wrong (leakage): the windows include the current row itself. rolling(k) without a shift,
and a time window closed on the right (pandas' default), so each feature sees the value it
is supposed to help predict."""

from __future__ import annotations

import numpy as np
import pandas as pd


def rolling_features(
    df: pd.DataFrame, k: int, min_periods: int, window_seconds: int
) -> pd.DataFrame:
    d = df.assign(_pos=np.arange(len(df))).sort_values(["entity_id", "timestamp", "_pos"])
    rolled = d.groupby("entity_id", sort=False)["value"].rolling(k, min_periods=min_periods)
    d["prev_mean_k"] = rolled.mean().droplevel(0)
    d["prev_max_k"] = rolled.max().droplevel(0)
    d["_dt"] = pd.to_datetime(d["timestamp"], unit="s")
    timed = d.groupby("entity_id", sort=False).rolling(
        f"{window_seconds}s", on="_dt", min_periods=min_periods
    )["value"]
    d["prev_mean_w"] = timed.mean().to_numpy()
    return d.sort_values("_pos")[["prev_mean_k", "prev_max_k", "prev_mean_w"]].set_index(df.index)
