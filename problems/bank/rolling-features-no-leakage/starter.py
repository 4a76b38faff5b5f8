"""Leakage-free rolling features. Implement rolling_features below."""

from __future__ import annotations

import numpy as np  # noqa: F401  (available if you want it)
import pandas as pd


def rolling_features(
    df: pd.DataFrame, k: int, min_periods: int, window_seconds: int
) -> pd.DataFrame:
    """Return a DataFrame with columns prev_mean_k, prev_max_k, prev_mean_w.

    Row i of the result belongs to row i of `df` (same order, same index) and may only use
    rows of the same entity_id whose timestamp is strictly earlier than row i's timestamp.
    """
    raise NotImplementedError
