"""Wrong: computes leakage-free features correctly but returns them in (entity, timestamp)
order with a fresh index, instead of the order of the input rows."""

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
    # Same-timestamp rows take the features of the first row at that timestamp.
    first = (d.groupby(["entity_id", "timestamp"], sort=False).cumcount() == 0).to_numpy()
    take = np.maximum.accumulate(np.where(first, np.arange(len(d)), 0))
    for name in ("prev_mean_k", "prev_max_k"):
        d[name] = d[name].to_numpy()[take]
    d["_dt"] = pd.to_datetime(d["timestamp"], unit="s")
    timed = d.groupby("entity_id", sort=False).rolling(
        f"{window_seconds}s", on="_dt", closed="left", min_periods=min_periods
    )["value"]
    d["prev_mean_w"] = timed.mean().to_numpy()
    return d[["prev_mean_k", "prev_max_k", "prev_mean_w"]].reset_index(drop=True)
