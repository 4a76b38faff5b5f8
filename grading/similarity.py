"""Copied code: normalise Python source, fingerprint it by winnowing, score the overlap (pure).

The winnowing is copydetect's (the algorithm MOSS uses: Schleimer, Wilkerson and Aiken,
SIGMOD 2003): `copydetect.utils.winnow` picks the fingerprints from the k-gram hashes and
`copydetect.utils.get_copied_slices` turns matched k-grams back into regions. What we add is
what every solution of one problem shares, taken out before anything is compared:

* the source as Python's own tokenizer reads it: comments, docstrings, blank lines and layout
  are gone; a string literal is one placeholder;
* every name the submission binds itself (variables, parameters, its own functions, classes
  and attributes) is one placeholder `V`, so renaming changes nothing; a name the problem
  forces (those the starter defines: the entry point, its class and methods) and every name
  the code only uses (builtins, modules and their functions, methods of the types it calls)
  stay as written;
* dead code is gone: a block under a constant false test, an assertion of a constant, `pass`,
  an assignment to a name nothing reads, a function or method nothing names;
* every k-gram of the starter and of the reference solution, normalised the same way, is
  boilerplate: it never counts towards a match, so two independent solutions that both follow
  the statement's shape (and often the reference's algorithm) do not look copied.

Hashes are our own stable 64-bit digests of the normalised k-grams (copydetect's
`hashed_kgrams` uses Python's `hash`, which differs between processes: fingerprints stored by
one worker must match those computed by another). A submission's score against another is the
share of its own fingerprints found in the other's: 1.0 for a full copy, about one half for
half of it copied, whatever the other holds besides.
"""

from __future__ import annotations

import ast
import bisect
import builtins
import hashlib
import io
import keyword
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from copydetect.utils import get_copied_slices, winnow

# k: tokens per k-gram (the noise threshold: a match shorter than this is never seen).
# A window of WINDOW k-grams keeps one fingerprint each, so any common run of at least
# K_TOKENS + WINDOW - 1 tokens is guaranteed to be found (the guarantee threshold).
K_TOKENS = 10
WINDOW = 4
# A submission with fewer fingerprints of its own than this (after the starter and the
# reference are taken out) is too small to call copied: its score is 0.
MIN_FINGERPRINTS = 3
# A matched stretch shorter than this many tokens is an idiom, not a copy (see `share`).
MIN_RUN_TOKENS = 30
# The default flag threshold (the setting ONSITE_SIMILARITY_THRESHOLD); the labelled set in
# bench/similarity_data/ measures precision and recall at it (`python -m bench similarity`).
DEFAULT_THRESHOLD = 0.3

PLACEHOLDER_NAME = "V"
PLACEHOLDER_STRING = "S"
_DROPPED = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}
_BUILTIN_NAMES = frozenset(dir(builtins))
_STATEMENT_START = {tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}


@dataclass(frozen=True)
class Token:
    """One normalised token and where it sits in the original source (character offsets)."""

    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Fingerprints:
    """A document's winnowed fingerprints: each hash and the token indexes it was taken at."""

    tokens: tuple[Token, ...]
    positions: dict[int, tuple[int, ...]]

    @property
    def hashes(self) -> frozenset[int]:
        return frozenset(self.positions)


@dataclass(frozen=True)
class Region:
    """A matched stretch of one source: 1-based first and last line, and character offsets."""

    first_line: int
    last_line: int
    start: int
    end: int


def forced_names(starter: str) -> frozenset[str]:
    """The names the problem forces: every function, class and method the starter defines.

    Its parameters are not forced (the harness passes arguments by position): renaming one must
    change nothing, so they become placeholders like any other name.
    """
    tree = _parse(starter)
    if tree is None:
        return frozenset()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
    return frozenset(names)


def bound_names(source: str | ast.Module) -> frozenset[str] | None:
    """Names the source binds itself: assigned, parameters, its defs, classes, imports' aliases.

    An attribute counts when the source assigns it (`self.capacity = ...`); an attribute it only
    reads (`heap.append`, `heapq.heappush`) is a library's name and stays. None when the source
    does not parse.
    """
    tree = source if isinstance(source, ast.Module) else _parse(source)
    if tree is None:
        return None
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.alias) and node.asname:
            names.add(node.asname)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            names.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return frozenset(names)


def normalise(source: str, *, keep: Iterable[str] = ()) -> tuple[Token, ...]:
    """The source as normalised tokens (see the module's docstring); `keep`: names left as written.

    Source the tokenizer cannot read to its end keeps the tokens read so far (a half-typed
    submission still has a fingerprint).
    """
    kept = frozenset(keep) | _BUILTIN_NAMES
    tree = _parse(source)
    bound = bound_names(tree) if tree is not None else None
    line_starts = _line_starts(source)
    dead = _merged(_dead_spans(tree, line_starts, kept)) if tree is not None else []
    dead_starts = [first for first, _ in dead]
    raw = _raw_tokens(source)
    out: list[Token] = []
    for index, tok in enumerate(raw):
        if tok.type in _DROPPED:
            continue
        start = line_starts[tok.start[0] - 1] + tok.start[1]
        at = bisect.bisect_right(dead_starts, start) - 1
        if at >= 0 and start < dead[at][1]:
            continue
        if tok.type == tokenize.STRING and _is_docstring(raw, index):
            continue
        if tok.type == tokenize.NEWLINE and (not out or out[-1].text == ";"):
            continue  # a dropped docstring or a blank statement leaves no separator behind
        end = line_starts[tok.end[0] - 1] + tok.end[1]
        # Source that does not parse: every name not kept and not read off an object is its own.
        own = (tok.string in bound) if bound is not None else not (out and out[-1].text == ".")
        out.append(Token(_normal_text(tok, own=own and tok.string not in kept), start, end))
    return tuple(out)


def boilerplate(*sources: str, keep: Iterable[str] = (), k: int = K_TOKENS) -> frozenset[int]:
    """Every k-gram hash of the given sources (the starter, the reference): never a match."""
    hashes: set[int] = set()
    for source in sources:
        hashes.update(kgram_hashes(normalise(source, keep=keep), k=k).tolist())
    return frozenset(hashes)


def fingerprint(
    source: str,
    *,
    keep: Iterable[str] = (),
    ignore: frozenset[int] = frozenset(),
    k: int = K_TOKENS,
    window: int = WINDOW,
) -> Fingerprints:
    """Winnow the normalised source's k-grams (copydetect's `winnow`), less the `ignore` hashes."""
    tokens = normalise(source, keep=keep)
    hashes = kgram_hashes(tokens, k=k)
    if len(hashes) == 0:
        return Fingerprints(tokens, {})
    selected, indexes = winnow(hashes, window_size=window, remove_duplicates=False)
    positions: dict[int, list[int]] = {}
    for value, at in zip(selected.tolist(), indexes.tolist(), strict=True):
        if value not in ignore:
            positions.setdefault(value, []).append(at)
    return Fingerprints(tokens, {h: tuple(sorted(set(at))) for h, at in positions.items()})


def kgram_hashes(tokens: tuple[Token, ...], *, k: int = K_TOKENS) -> np.ndarray:
    """A stable signed 64-bit digest of every run of k consecutive normalised tokens."""
    texts = [t.text for t in tokens]
    values = [_digest("\x00".join(texts[i : i + k])) for i in range(max(0, len(texts) - k + 1))]
    return np.array(values, dtype=np.int64)


def share(own: Fingerprints, other: Iterable[int], *, k: int = K_TOKENS) -> float:
    """The share of `own` fingerprints found in `other`, counting only long matched stretches.

    A fingerprint counts when it lies in a stretch of `own` at least MIN_RUN_TOKENS long whose
    every k-gram fingerprint is found in `other`: two independent solutions share short idioms
    the statement invites (`if key not in self.cache: return -1`), a copy shares whole
    functions. 0 when `own` has too few fingerprints to judge.
    """
    if len(own.positions) < MIN_FINGERPRINTS:
        return 0.0
    common = own.hashes.intersection(other)
    if not common:
        return 0.0
    at = np.array(sorted(i for h in common for i in own.positions[h]), dtype=np.int64)
    slices = get_copied_slices(at, k)
    long_runs = [
        (first, last)
        for first, last in zip(slices[0].tolist(), slices[1].tolist(), strict=True)
        if last - first >= MIN_RUN_TOKENS
    ]
    counted = {h for h in common if any(a <= i < b for i in own.positions[h] for a, b in long_runs)}
    return len(counted) / len(own.positions)


def matched_regions(
    a: Fingerprints, b: Fingerprints, *, source_a: str, source_b: str, k: int = K_TOKENS
) -> tuple[list[Region], list[Region]]:
    """The stretches of each source that the two share, side by side (copydetect's slices)."""
    common = a.hashes & b.hashes
    at_a = [i for h in common for i in a.positions[h]]
    at_b = [i for h in common for i in b.positions[h]]
    return (
        _regions(at_a, a.tokens, source_a, k=k),
        _regions(at_b, b.tokens, source_b, k=k),
    )


def _regions(indexes: list[int], tokens: tuple[Token, ...], source: str, *, k: int) -> list[Region]:
    if not indexes:
        return []
    slices = get_copied_slices(np.array(indexes, dtype=np.int64), k)
    regions: list[Region] = []
    for first, last in zip(slices[0].tolist(), slices[1].tolist(), strict=True):
        start = tokens[int(first)].start
        end = tokens[min(int(last), len(tokens)) - 1].end
        regions.append(
            Region(source.count("\n", 0, start) + 1, source.count("\n", 0, end) + 1, start, end)
        )
    return regions


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping spans (a dead block inside a dead function) as disjoint ones, in order."""
    out: list[tuple[int, int]] = []
    for first, last in sorted(spans):
        if out and first <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], last))
        else:
            out.append((first, last))
    return out


def _dead_spans(
    tree: ast.Module, line_starts: list[int], kept: frozenset[str]
) -> list[tuple[int, int]]:
    """Character spans of statements that do nothing (see the module's docstring)."""
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    named = read | {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
    }
    spans: list[tuple[int, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and _is_dead(node, read=read, named=named, kept=kept):
            end_line, end_col = node.end_lineno or node.lineno, node.end_col_offset or 0
            spans.append(
                (
                    line_starts[node.lineno - 1] + node.col_offset,
                    line_starts[end_line - 1] + end_col,
                )
            )
    return spans


def _is_dead(node: ast.stmt, *, read: set[str], named: set[str], kept: frozenset[str]) -> bool:
    match node:
        case ast.If(test=ast.Constant(value=v), orelse=[]) | ast.While(test=ast.Constant(value=v)):
            return not v
        case ast.Assert(test=ast.Constant(value=v)):
            return bool(v)
        case ast.Pass():
            return True
        case ast.Assign(targets=targets):
            return all(isinstance(t, ast.Name) and t.id not in read for t in targets)
        case ast.AnnAssign(target=ast.Name(id=name)) | ast.AugAssign(target=ast.Name(id=name)):
            return name not in read
        case ast.FunctionDef(name=name) | ast.AsyncFunctionDef(name=name):
            return name not in named and name not in kept and not name.startswith("__")
    return False


def _digest(text: str) -> int:
    raw = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(raw, "big", signed=True)


def _normal_text(tok: tokenize.TokenInfo, *, own: bool) -> str:
    if tok.type == tokenize.STRING:
        return PLACEHOLDER_STRING
    if tok.type == tokenize.NEWLINE:
        return ";"
    if tok.type == tokenize.NAME and own and not keyword.iskeyword(tok.string):
        return PLACEHOLDER_NAME
    return tok.string


def _is_docstring(raw: list[tokenize.TokenInfo], index: int) -> bool:
    """A string that is a whole statement (a docstring, or a string left as a comment)."""
    previous = next(
        (t for t in reversed(raw[:index]) if t.type not in (tokenize.NL, tokenize.COMMENT)), None
    )
    following = next(
        (t for t in raw[index + 1 :] if t.type not in (tokenize.NL, tokenize.COMMENT)), None
    )
    starts = previous is None or previous.type in _STATEMENT_START
    ends = following is None or following.type in (tokenize.NEWLINE, tokenize.ENDMARKER)
    return starts and ends


def _raw_tokens(source: str) -> list[tokenize.TokenInfo]:
    found: list[tokenize.TokenInfo] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            found.append(tok)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return found


def _line_starts(source: str) -> list[int]:
    starts = [0]
    for line in io.StringIO(source):
        starts.append(starts[-1] + len(line))
    return starts


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None
