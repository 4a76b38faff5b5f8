"""Padding and attention masks for a batch of variable-length sequences."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def pad_batch(seqs: Sequence[Sequence[int]], pad_id: int) -> tuple[np.ndarray, np.ndarray]:
    """Right-pad to the longest sequence: return (ids, attention_mask), both integer [B, T]."""
    raise NotImplementedError


def causal_padding_mask(attention_mask: np.ndarray) -> np.ndarray:
    """Boolean [B, T, T]: out[b, i, j] is True iff j <= i and tokens i and j are both real."""
    raise NotImplementedError


def masked_mean_pool(embeddings: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
    """Float [B, D]: mean of embeddings [B, T, D] over the real tokens of each row."""
    raise NotImplementedError
