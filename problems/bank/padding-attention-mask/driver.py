"""Custom driver for padding-attention-mask (runs inside the sandbox).

Modes (by input keys):
* "seqs": small explicit case. Calls all three functions and returns every array in full
  (masks as 0/1 ints) with its shape and a dtype check. causal_padding_mask and
  masked_mean_pool always get a correct, driver-built int64 mask, so a padding bug is not
  counted three times.
* "steps": a training-loop workload: the mask and pool functions are called once per step on
  modest batches, as a model would. Every step's output shape is checked; the first
  `distinct` steps (one per distinct batch) are checksummed in full.
* "big": one large batch, checksummed.
* "pad": a large pad_batch call, checksummed.
Generated data comes from a splitmix64 stream in NumPy integer arithmetic (bit-identical on
every machine). Padded embedding slots are filled with junk (huge values or NaN) on purpose.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_JUNK = {"nan": np.nan, "big": 1e9, "inf": np.inf, "zero": 0.0}


def _uniform(seed: int, stream: int, n: int) -> np.ndarray:
    """n floats in [0, 1) from splitmix64 over a counter; uint64 arithmetic wraps by design."""
    base = np.uint64((seed * 1_000_003 + stream * 7_919) % (1 << 64))
    z = (np.arange(1, n + 1, dtype=np.uint64) + base) * _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) / float(1 << 53)


def _lengths(seed: int, stream: int, count: int, width: int) -> np.ndarray:
    """Lengths in [0, width], with both ends well represented."""
    return np.floor(_uniform(seed, stream, count) * (width + 1)).astype(np.int64)


def _mask(lengths: np.ndarray, width: int) -> np.ndarray:
    return (np.arange(width) < lengths[:, None]).astype(np.int64)


def _embeddings(seed: int, stream: int, mask: np.ndarray, dim: int, junk: str) -> np.ndarray:
    batch, width = mask.shape
    emb = np.round(_uniform(seed, stream, batch * width * dim) * 4.0 - 2.0, 3)
    emb = emb.reshape(batch, width, dim)
    emb[mask == 0] = _JUNK[junk]
    return emb


def _is_int(arr: np.ndarray) -> bool:
    return arr.dtype.kind in "iu"


def _small(solution: Any, data: dict[str, Any]) -> dict[str, Any]:
    seqs = data["seqs"]
    ids, attention = solution.pad_batch(seqs, data["pad_id"])
    ids, attention = np.asarray(ids), np.asarray(attention)
    lengths = np.array([len(s) for s in seqs], dtype=np.int64)
    width = int(lengths.max()) if lengths.size else 0
    mask = _mask(lengths, width)
    dim = int(data["dim"])
    if "embeddings" in data:
        emb = np.array(data["embeddings"], dtype=np.float64).reshape(len(seqs), width, dim)
    else:
        emb = _embeddings(data.get("seed", 0), 1, mask, dim, data.get("junk", "big"))
    causal = np.asarray(solution.causal_padding_mask(mask.copy()))
    pooled = np.asarray(solution.masked_mean_pool(emb.copy(), mask.copy()))
    return {
        "ids": ids.tolist(),
        "ids_shape": list(ids.shape),
        "ids_integer": _is_int(ids),
        "attention_mask": attention.tolist(),
        "attention_mask_shape": list(attention.shape),
        "attention_mask_integer": _is_int(attention),
        "causal": causal.astype(np.int8).tolist(),
        "causal_shape": list(causal.shape),
        "causal_bool": causal.dtype == np.bool_,
        "pooled": pooled.tolist(),
        "pooled_shape": list(pooled.shape),
    }


def _digest_causal(causal: np.ndarray) -> dict[str, Any]:
    weights = np.arange(1, causal.shape[0] + 1) % 101
    return {
        "shape": list(causal.shape),
        "bool": causal.dtype == np.bool_,
        "by_position": causal.sum(axis=0, dtype=np.int64).tolist(),
        "by_row": int(causal.sum(axis=(1, 2), dtype=np.int64) @ weights),
    }


def _digest_pooled(pooled: np.ndarray) -> dict[str, Any]:
    weights = (np.arange(pooled.shape[0]) % 89 + 1) / 89.0
    return {
        "shape": list(pooled.shape),
        "sum": np.nan_to_num(pooled.sum(axis=0), nan=12345.0).tolist(),
        "weighted": float(np.nan_to_num(weights @ pooled.sum(axis=1), nan=12345.0)),
    }


def _steps(solution: Any, data: dict[str, Any]) -> dict[str, Any]:
    steps, batch, width, dim = data["steps"], data["batch"], data["width"], data["dim"]
    seed, distinct = data["seed"], data["distinct"]
    masks = [_mask(_lengths(seed, 10 + r, batch, width), width) for r in range(distinct)]
    embs = [_embeddings(seed, 50 + r, masks[r], dim, data["junk"]) for r in range(distinct)]
    digests: list[Any] = []
    wrong_shape = 0
    for step in range(steps):
        r = step % distinct
        causal = np.asarray(solution.causal_padding_mask(masks[r]))
        pooled = np.asarray(solution.masked_mean_pool(embs[r], masks[r]))
        if step < distinct:
            digests.append([_digest_causal(causal), _digest_pooled(pooled)])
        elif causal.shape != (batch, width, width) or pooled.shape != (batch, dim):
            wrong_shape += 1
    return {"digests": digests, "wrong_shape_steps": wrong_shape}


def _big(solution: Any, data: dict[str, Any]) -> dict[str, Any]:
    batch, width, dim, seed = data["batch"], data["width"], data["dim"], data["seed"]
    mask = _mask(_lengths(seed, 1, batch, width), width)
    emb = _embeddings(seed, 2, mask, dim, data["junk"])
    causal = np.asarray(solution.causal_padding_mask(mask))
    causal_digest = _digest_causal(causal)
    del causal  # free the [B, T, T] mask before pooling: both must fit in the memory limit
    return {
        "causal": causal_digest,
        "pooled": _digest_pooled(np.asarray(solution.masked_mean_pool(emb, mask))),
    }


def _pad(solution: Any, data: dict[str, Any]) -> dict[str, Any]:
    batch, width, seed, pad_id = data["batch"], data["width"], data["seed"], data["pad_id"]
    lengths = _lengths(seed, 1, batch, width)
    tokens = np.floor(_uniform(seed, 2, int(lengths.sum())) * 50_000).astype(np.int64)
    bounds = np.cumsum(lengths)[:-1]
    seqs = [part.tolist() for part in np.split(tokens, bounds)]
    ids, attention = solution.pad_batch(seqs, pad_id)
    ids, attention = np.asarray(ids), np.asarray(attention)
    weights = np.arange(ids.shape[1] if ids.ndim == 2 else 0) % 13 + 1
    return {
        "ids_shape": list(ids.shape),
        "attention_mask_shape": list(attention.shape),
        "ids_by_column": ids.sum(axis=0, dtype=np.int64).tolist(),
        "ids_weighted": int(ids.sum(axis=1, dtype=np.int64) @ (np.arange(ids.shape[0]) % 7 + 1)),
        "attention_mask_by_column": attention.sum(axis=0, dtype=np.int64).tolist(),
        "attention_mask_weighted": int(attention.sum(axis=0, dtype=np.int64) @ weights),
    }


def run(solution: Any, data: dict[str, Any]) -> dict[str, Any]:
    mode = data.get("mode", "small")
    if mode == "steps":
        return _steps(solution, data)
    if mode == "big":
        return _big(solution, data)
    if mode == "pad":
        return _pad(solution, data)
    return _small(solution, data)


# ---------------------------------------------------------------- the input's format
# check_input is called by the studio (in the sandbox) on every test an author saves: it names
# the first thing wrong with one test's input, or returns None when the input fits.


def _fmt_int(value: Any, what: str, lo: int | None = None, hi: int | None = None) -> str | None:
    if not isinstance(value, int) or isinstance(value, bool):
        return f"{what} must be an integer"
    if lo is not None and value < lo:
        return f"{what} must be at least {lo}, got {value}"
    if hi is not None and value > hi:
        return f"{what} must be at most {hi}, got {value}"
    return None


def _fmt_number(
    value: Any, what: str, lo: float | None = None, hi: float | None = None
) -> str | None:
    if not isinstance(value, int | float) or isinstance(value, bool) or value != value:
        return f"{what} must be a number"
    if lo is not None and value < lo:
        return f"{what} must be at least {lo}, got {value}"
    if hi is not None and value > hi:
        return f"{what} must be at most {hi}, got {value}"
    return None


def _fmt_object(
    value: Any, what: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
) -> str | None:
    if not isinstance(value, dict):
        return f"{what} must be an object"
    missing = [key for key in required if key not in value]
    if missing:
        return f"{what} needs {', '.join(repr(key) for key in missing)}"
    unknown = sorted(set(value) - set(required) - set(optional))
    if unknown:
        known = ", ".join(repr(key) for key in (*required, *optional))
        return f"{what} has no field {unknown[0]!r} (it takes {known})"
    return None


def _fmt_list(value: Any, what: str, most: int | None = None) -> str | None:
    if not isinstance(value, list):
        return f"{what} must be a list"
    if most is not None and len(value) > most:
        return f"{what} has {len(value)} items, at most {most} are allowed"
    return None


def _fmt_first(*checks: Callable[[], str | None]) -> str | None:
    """The first problem of `checks`, tried in order (a later one may rely on an earlier)."""
    for check in checks:
        if problem := check():
            return problem
    return None


def _seqs_problem(seqs: Any) -> str | None:
    if not isinstance(seqs, list):
        return '"seqs" must be a list of token lists'
    for i, seq in enumerate(seqs):
        if not isinstance(seq, list):
            return f'"seqs" #{i} must be a list of token ids'
        if bad := next(
            (p for j, t in enumerate(seq) if (p := _fmt_int(t, f'"seqs"[{i}][{j}]', 0))), None
        ):
            return bad
    return None


def _embeddings_problem(data: dict[str, Any]) -> str | None:
    seqs, emb, dim = data["seqs"], data["embeddings"], data["dim"]
    width = max((len(s) for s in seqs), default=0)
    if not isinstance(emb, list) or len(emb) != len(seqs):
        return f'"embeddings" must hold one [width][dim] block per sequence ({len(seqs)})'
    for i, block in enumerate(emb):
        if not isinstance(block, list) or len(block) != width:
            return f'"embeddings" #{i} must hold {width} vectors (the padded width)'
        for j, vector in enumerate(block):
            if not isinstance(vector, list) or len(vector) != dim:
                return f'"embeddings"[{i}][{j}] must be {dim} numbers'
            if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in vector):
                return f'"embeddings"[{i}][{j}] must be numbers'
    return None


def _junk_problem(data: dict[str, Any]) -> str | None:
    junk = data.get("junk", "big")
    return None if junk in _JUNK else f'"junk" must be one of {", ".join(sorted(_JUNK))}'


def check_input(data: Any) -> str | None:
    """A small case {"seqs", "pad_id", "dim", and "embeddings" or "seed"/"junk"}, or a
    generated one with "mode": "steps" | "big" | "pad" (see the modes above)."""
    if not isinstance(data, dict):
        return "the input must be an object"
    mode = data.get("mode", "small")
    common = (
        lambda: _fmt_int(data["batch"], '"batch"', 1, 100_000),
        lambda: _fmt_int(data["width"], '"width"', 1, 4096),
        lambda: _fmt_int(data["seed"], '"seed"', 0),
    )
    if mode == "steps":
        return _fmt_first(
            lambda: _fmt_object(
                data,
                "the input",
                ("mode", "steps", "batch", "width", "dim", "seed", "distinct", "junk"),
            ),
            *common,
            lambda: _fmt_int(data["steps"], '"steps"', 1, 100_000),
            lambda: _fmt_int(data["dim"], '"dim"', 1, 4096),
            lambda: _fmt_int(data["distinct"], '"distinct"', 1, data["steps"]),
            lambda: _junk_problem(data),
        )
    if mode == "big":
        return _fmt_first(
            lambda: _fmt_object(
                data, "the input", ("mode", "batch", "width", "dim", "seed", "junk")
            ),
            *common,
            lambda: _fmt_int(data["dim"], '"dim"', 1, 4096),
            lambda: _junk_problem(data),
        )
    if mode == "pad":
        return _fmt_first(
            lambda: _fmt_object(data, "the input", ("mode", "batch", "width", "seed", "pad_id")),
            *common,
            lambda: _fmt_int(data["pad_id"], '"pad_id"'),
        )
    if mode != "small":
        return '"mode" must be "small", "steps", "big" or "pad"'
    return _fmt_first(
        lambda: _fmt_object(
            data, "the input", ("seqs", "pad_id", "dim"), ("mode", "embeddings", "seed", "junk")
        ),
        lambda: _seqs_problem(data["seqs"]),
        lambda: _fmt_int(data["pad_id"], '"pad_id"'),
        lambda: _fmt_int(data["dim"], '"dim"', 1, 4096),
        lambda: _fmt_int(data.get("seed", 0), '"seed"', 0),
        lambda: _junk_problem(data),
        lambda: _embeddings_problem(data) if "embeddings" in data else None,
    )
