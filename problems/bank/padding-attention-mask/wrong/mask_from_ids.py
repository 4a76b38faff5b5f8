"""Wrong: builds the attention mask from the ids (`ids != pad_id`) instead of the lengths, so a
real token whose id equals pad_id is masked out as if it were padding."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def pad_batch(seqs: Sequence[Sequence[int]], pad_id: int) -> tuple[np.ndarray, np.ndarray]:
    """Right-pad `seqs` to the longest length T.

    Returns (ids, attention_mask), both int64 of shape [B, T]: ids holds the tokens followed by
    pad_id, the mask holds 1 on real tokens and 0 on padding.
    """
    lengths = np.fromiter((len(s) for s in seqs), dtype=np.int64, count=len(seqs))
    width = int(lengths.max()) if lengths.size else 0
    mask = np.arange(width) < lengths[:, None]  # [B, T], True on real tokens
    ids = np.full((len(seqs), width), pad_id, dtype=np.int64)
    # Row-major boolean assignment fills each row's first len(s) slots in order, which is
    # exactly the concatenation of the sequences: no per-row Python work beyond flattening.
    ids[mask] = np.fromiter(
        (tok for s in seqs for tok in s), dtype=np.int64, count=int(lengths.sum())
    )
    return ids, (ids != pad_id).astype(np.int64)  # the bug: the mask comes from the ids


def causal_padding_mask(attention_mask: np.ndarray) -> np.ndarray:
    """Boolean [B, T, T]: query i may attend to key j iff j <= i and both are real tokens.

    Rows of padded queries are entirely False.
    """
    real = np.asarray(attention_mask).astype(bool)  # [B, T]
    causal = np.tri(real.shape[1], dtype=bool)  # [T, T], True where j <= i
    # Masks are right-padded, so a real query i only reaches keys j <= i < length, all real:
    # the key-side check is implied, and one broadcast AND over [B, T, T] is enough.
    return causal[None, :, :] & real[:, :, None]


def masked_mean_pool(embeddings: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
    """Mean of `embeddings` [B, T, D] over real tokens only, as float64 [B, D].

    Padded positions may hold anything (even NaN or inf), so they are selected out with
    np.where rather than multiplied by 0 (NaN * 0 is NaN). An empty sequence pools to zeros.
    """
    emb = np.asarray(embeddings, dtype=np.float64)
    real = np.asarray(attention_mask).astype(bool)  # [B, T]
    kept = np.where(real[:, :, None], emb, 0.0)  # [B, T, D]
    summed = np.einsum("btd->bd", kept)  # einsum reduces the middle axis faster than sum(axis=1)
    counts = real.sum(axis=1, keepdims=True)  # [B, 1]
    return summed / np.maximum(counts, 1)  # an empty row has summed == 0, so it pools to 0
