"""Wrong (too slow): correct results, but the mask and the pooling loop over the batch in
Python, paying interpreter overhead once per row on every training step."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def pad_batch(seqs: Sequence[Sequence[int]], pad_id: int) -> tuple[np.ndarray, np.ndarray]:
    width = max((len(s) for s in seqs), default=0)
    ids = np.full((len(seqs), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(seqs), width), dtype=np.int64)
    for row, seq in enumerate(seqs):
        ids[row, : len(seq)] = seq
        mask[row, : len(seq)] = 1
    return ids, mask


def causal_padding_mask(attention_mask: np.ndarray) -> np.ndarray:
    batch, width = attention_mask.shape
    out = np.zeros((batch, width, width), dtype=bool)
    lower = np.tri(width, dtype=bool)
    for row in range(batch):
        length = int(attention_mask[row].sum())
        out[row, :length, :length] = lower[:length, :length]
    return out


def masked_mean_pool(embeddings: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
    batch, _, dim = embeddings.shape
    out = np.zeros((batch, dim))
    for row in range(batch):
        length = int(attention_mask[row].sum())
        if length:
            out[row] = embeddings[row, :length].mean(axis=0)
    return out
