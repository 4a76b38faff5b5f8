"""Reference solution: leakage-free per-entity rolling features, vectorised."""

from __future__ import annotations

import numpy as np
import pandas as pd

FEATURES = ("prev_mean_k", "prev_max_k", "prev_mean_w")


def rolling_features(
    df: pd.DataFrame, k: int, min_periods: int, window_seconds: int
) -> pd.DataFrame:
    """Per-row features computed only from strictly earlier rows of the same entity.

    prev_mean_k / prev_max_k: mean / max of the last k visible observations.
    prev_mean_w: mean of the visible observations with timestamp >= t - window_seconds.
    A feature is NaN when it would use fewer than min_periods observations.
    The result has one row per input row, in the input's order and with the input's index.
    """
    n = len(df)
    if n == 0:
        return pd.DataFrame({name: pd.Series(dtype="float64") for name in FEATURES}, index=df.index)
    codes = pd.factorize(df["entity_id"])[0].astype(np.int64)
    ts = df["timestamp"].to_numpy(dtype=np.int64)
    values = df["value"].to_numpy(dtype=np.float64)

    # Sort by (entity, timestamp, input position); lexsort's last key is the primary one.
    order = np.lexsort((np.arange(n), ts, codes))
    e, t, v = codes[order], ts[order], values[order]

    # One sortable int64 key per row: entity block first, then time. The shift keeps
    # t - window_seconds non-negative so a window never reaches into the previous entity.
    shift = int(t.min()) - window_seconds
    span = int(t.max()) - shift + 1
    key = e * span + (t - shift)
    entity_start = np.searchsorted(key, e * span, side="left")
    # Rows with an equal timestamp happened "at the same time": none may see another, so the
    # visible prefix of a row ends before the first row carrying its own (entity, timestamp).
    visible_end = np.searchsorted(key, key, side="left")
    window_start = np.searchsorted(key, key - window_seconds, side="left")

    # Count-based window: the last min(k, visible) rows before visible_end. A k-row rolling
    # aggregate that ends at row visible_end - 1 (and never crosses an entity) is exactly that.
    grouped = pd.Series(v).groupby(e, sort=False).rolling(k, min_periods=1)
    roll_mean = grouped.mean().droplevel(0).sort_index().to_numpy()
    roll_max = grouped.max().droplevel(0).sort_index().to_numpy()
    n_visible = visible_end - entity_start
    count_k = np.minimum(k, n_visible)
    last = np.maximum(visible_end - 1, 0)
    ok_k = count_k >= min_periods
    mean_k = np.where(ok_k, roll_mean[last], np.nan)
    max_k = np.where(ok_k, roll_max[last], np.nan)

    # Time-based window via prefix sums: rows [window_start, visible_end).
    prefix = np.concatenate(([0.0], np.cumsum(v)))
    count_w = visible_end - window_start
    ok_w = count_w >= min_periods
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_w = np.where(ok_w, (prefix[visible_end] - prefix[window_start]) / count_w, np.nan)

    # Scatter back to the input order (order[j] is the input row of sorted row j).
    out = np.empty((n, 3))
    out[order] = np.column_stack((mean_k, max_k, mean_w))
    return pd.DataFrame(out, index=df.index, columns=list(FEATURES))
