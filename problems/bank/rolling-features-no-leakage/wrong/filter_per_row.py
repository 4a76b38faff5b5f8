"""Wrong (too slow): exact semantics, but filters the whole table once per row, which is
O(n^2) with pandas overhead on every row."""

from __future__ import annotations

import numpy as np
import pandas as pd


def rolling_features(
    df: pd.DataFrame, k: int, min_periods: int, window_seconds: int
) -> pd.DataFrame:
    rows = []
    for _, row in df.iterrows():
        t = row["timestamp"]
        history = df[(df["entity_id"] == row["entity_id"]) & (df["timestamp"] < t)]
        history = history.sort_values("timestamp", kind="stable")
        last_k = history["value"].iloc[-k:]
        recent = history.loc[history["timestamp"] >= t - window_seconds, "value"]
        enough_k = len(last_k) >= min_periods
        rows.append(
            {
                "prev_mean_k": last_k.mean() if enough_k else np.nan,
                "prev_max_k": last_k.max() if enough_k else np.nan,
                "prev_mean_w": recent.mean() if len(recent) >= min_periods else np.nan,
            }
        )
    return pd.DataFrame(rows, index=df.index, columns=["prev_mean_k", "prev_max_k", "prev_mean_w"])
