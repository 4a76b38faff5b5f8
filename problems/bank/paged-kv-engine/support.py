"""Shared by driver.py (inside the sandbox) and checker.py (in the worker), imported as `support`.

One copy of everything both sides must agree on:

* the workload: request specs from a test input (explicit list or a compact seeded generator)
  and the engine's limits (num_blocks, block_size, token_budget);
* the two tiers of the paged model: a pure-Python hash model (public tests) and a small PyTorch
  decoder (hidden tests). Both keep their KV cache in a pool of `num_blocks` blocks of
  `block_size` token slots and read every key/value through the caller's block table, so a
  stale, shared or unwritten block changes the tokens. Neither recomputes a cached position;
* the stop rule (`finish_length`);
* the oracle (`schedule`): the exact step-by-step schedule the statement prescribes for given
  output lengths, which the checker compares with the engine's record.

torch is imported lazily, so the simulated tier needs only the standard library.
"""

from __future__ import annotations

import math
import os
import random
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

PACKAGE = "paged-kv-engine"

SIM_DEFAULTS: dict[str, Any] = {"tier": "sim", "vocab": 32, "seed": 0}
TORCH_DEFAULTS: dict[str, Any] = {
    "tier": "torch", "vocab": 64, "seed": 0, "layers": 2, "d_model": 32, "heads": 2,
    "max_positions": 256,
}
# A token may differ from the one-at-a-time reference only where its two best logits were this
# close: batching, chunking and the device change float32 reduction order, never a clear argmax.
MARGIN_TOLERANCE = 1e-3

_MASK64 = (1 << 64) - 1
_FNV_PRIME = 0x100000001B3


# ------------------------------------------------------------------------------------ requests


class Request:
    """What the candidate's Engine receives: the fields the statement names, nothing else."""

    __slots__ = ("callback", "max_tokens", "prompt", "request_id", "stop_sequence", "stop_token")

    def __init__(self, request_id: str, prompt: list[int], max_tokens: int,
                 stop_token: int | None, stop_sequence: list[int] | None,
                 callback: Callable[[str, list[int]], None]) -> None:
        self.request_id = request_id
        self.prompt = prompt
        self.max_tokens = max_tokens
        self.stop_token = stop_token
        self.stop_sequence = stop_sequence
        self.callback = callback

    def __repr__(self) -> str:
        return (f"Request({self.request_id!r}, prompt={self.prompt}, max_tokens={self.max_tokens}, "
                f"stop_token={self.stop_token}, stop_sequence={self.stop_sequence})")


class RequestSpec:
    """One request of a workload as the graders see it (immutable values only)."""

    __slots__ = ("after", "arrival", "index", "max_tokens", "prompt", "rid", "stop_sequence",
                 "stop_token")

    def __init__(self, index: int, rid: str, prompt: tuple[int, ...], max_tokens: int,
                 stop_token: int | None, stop_sequence: tuple[int, ...] | None,
                 arrival: int, after: int | None = None) -> None:
        self.index = index
        self.rid = rid
        self.prompt = prompt
        self.max_tokens = max_tokens
        self.stop_token = stop_token
        self.stop_sequence = stop_sequence
        self.arrival = arrival
        # Index of the request whose callback submits this one (None: the grader submits it
        # before step `arrival`).
        self.after = after

    def to_request(self, callback: Callable[[str, list[int]], None]) -> Request:
        """A fresh Request with list copies, so an engine mutating them cannot touch our state."""
        seq = list(self.stop_sequence) if self.stop_sequence is not None else None
        return Request(self.rid, list(self.prompt), self.max_tokens, self.stop_token, seq,
                       callback)


class Limits(NamedTuple):
    """The engine's resources in one test: the KV pool and the per-step token budget."""

    num_blocks: int
    block_size: int
    token_budget: int


def limits_of(test_input: dict[str, Any]) -> Limits:
    limits = Limits(int(test_input["num_blocks"]), int(test_input["block_size"]),
                    int(test_input["token_budget"]))
    if min(limits.num_blocks, limits.block_size, limits.token_budget) < 1:
        raise ValueError("num_blocks, block_size and token_budget must be at least 1")
    return limits


def _int_list(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(t, int) for t in value):
        raise ValueError(f"{what} must be a list of ints")
    return tuple(value)


def _geometric(rng: random.Random, mean: float, cap: int) -> int:
    """1 + Geometric(1/mean) by coin flips: exact comparisons, identical on every machine."""
    p = 1.0 / max(mean, 1.0)
    n = 1
    while n < cap and rng.random() >= p:
        n += 1
    return n


def _generated_requests(gen: dict[str, Any], vocab: int) -> list[dict[str, Any]]:
    """Expand {"seed", "n", "prompt_len": [lo, hi], "mean_tokens", "max_cap"} into requests."""
    rng = random.Random(int(gen["seed"]))
    lo, hi = (int(v) for v in gen.get("prompt_len", [3, 8]))
    mean = float(gen.get("mean_tokens", 12))
    cap = int(gen.get("max_cap", 48))
    out = []
    for i in range(int(gen["n"])):
        prompt = [rng.randrange(vocab) for _ in range(rng.randint(lo, hi))]
        out.append({"id": f"g{i}", "prompt": prompt, "max_tokens": _geometric(rng, mean, cap)})
    return out


def parse_requests(test_input: dict[str, Any]) -> list[RequestSpec]:
    """The workload of a test input, in submission order (by arrival, then list order; requests
    submitted from a callback, "after": "<id>", come last and are submitted by that callback).
    Refuses a request that could not fit in the whole pool alone (no schedule could finish it)."""
    model = model_config(test_input)
    limits = limits_of(test_input)
    raw = test_input.get("requests")
    if raw is None and "generate" in test_input:
        raw = _generated_requests(test_input["generate"], int(model["vocab"]))
    ids = {str(item["id"]): i for i, item in enumerate(raw or [])}
    if len(ids) != len(raw or []):
        raise ValueError("request ids must be unique")
    specs = []
    for index, item in enumerate(raw or []):
        stop_seq = item.get("stop_sequence")
        after = item.get("after")
        if after is not None and ids.get(str(after), index) >= index:
            raise ValueError(f"request {item['id']!r}: 'after' must name an earlier request")
        spec = RequestSpec(
            index=index,
            rid=str(item["id"]),
            prompt=_int_list(item["prompt"], "prompt"),
            max_tokens=int(item["max_tokens"]),
            stop_token=None if item.get("stop_token") is None else int(item["stop_token"]),
            stop_sequence=None if stop_seq is None else _int_list(stop_seq, "stop_sequence"),
            arrival=int(item.get("arrival", 0)),
            after=None if after is None else ids[str(after)],
        )
        if not spec.prompt or spec.max_tokens < 0:
            raise ValueError(f"request {spec.rid!r}: empty prompt or negative max_tokens")
        if len(spec.prompt) + spec.max_tokens > limits.num_blocks * limits.block_size:
            raise ValueError(f"request {spec.rid!r} does not fit in the whole KV pool")
        specs.append(spec)
    return sorted(specs, key=lambda s: (s.after is not None, s.arrival, s.index))


# ------------------------------------------------------------------------------------ random


# Self-overlapping stop-sequence shapes over two tokens a, b: a matcher that restarts from
# scratch on a mismatch (no KMP fallback) misses "a a b" after "a a a b", "a b a b" after
# "a b a b a b"...
_STOP_SHAPES = ("aab", "aaab", "aba", "abab", "abaab", "aa", "ab")


def _edge_token(rng: random.Random, vocab: int) -> int:
    """A token id, often one of the two edges: 0 (falsy) and the largest."""
    r = rng.random()
    return 0 if r < 0.25 else vocab - 1 if r < 0.45 else rng.randrange(vocab)


def _restarting_match_end(tokens: Sequence[int], stop: Sequence[int]) -> int | None:
    """Where a streaming matcher that restarts from scratch on a mismatch first reports `stop`
    (a wrong matcher: the generator prefers stop sequences on which it is wrong)."""
    matched = 0
    for n, tok in enumerate(tokens, start=1):
        matched = matched + 1 if tok == stop[matched] else int(tok == stop[0])
        if matched == len(stop):
            return n
    return None


def _stop_sequence(rng: random.Random, prompt: list[int], gen: list[int]) -> list[int]:
    """A stop sequence for a request that generates `gen` (its greedy continuation): a piece
    of `gen` (it stops there, possibly across a preemption), a self-overlapping shape over two
    of its tokens, or the prompt's tail followed by gen's head (it must NOT stop there: only
    generated tokens count). Half the time it prefers one on which a matcher that restarts on
    a mismatch ends the request somewhere else, else one on which a matcher that also reads the
    prompt does."""
    candidates: list[list[int]] = []
    for _ in range(24):
        shape = rng.random()
        if shape < 0.4:
            j = rng.randrange(len(gen))
            candidates.append(gen[j:j + rng.randint(1, min(8, len(gen) - j))])
        elif shape < 0.75:
            a, b = rng.choice(gen), rng.choice(gen)
            candidates.append([a if c == "a" else b for c in rng.choice(_STOP_SHAPES)])
        else:
            t = rng.randint(1, min(len(prompt), 7))
            candidates.append(prompt[-t:] + gen[:rng.randint(1, min(8 - t, len(gen)))])
    if rng.random() < 0.5:
        return candidates[0]

    def right(stop: list[int]) -> int | None:
        return finish_length(gen, len(gen), None, stop)

    # Every piece of gen is a candidate here: the ones a restarting matcher misses are rare.
    pieces = [gen[j:j + k] for j in range(len(gen)) for k in range(2, min(8, len(gen) - j) + 1)]
    restarting = [c for c in candidates + pieces
                  if right(c) is not None and _restarting_match_end(gen, c) != right(c)]
    if restarting:
        return rng.choice(restarting)
    reading_prompt = [c for c in candidates
                      if finish_length(prompt + gen, len(prompt) + len(gen), None, c)
                      not in (None, len(prompt) + (right(c) or 0))]
    return (reading_prompt or candidates)[0]


def _random_request(rng: random.Random, i: int, model: SimPagedModel, capacity: int,
                    arrival: int, earlier: list[dict[str, Any]],
                    spec: dict[str, Any]) -> dict[str, Any]:
    vocab = model.vocab
    plen = rng.randint(1, min(4, capacity))
    room = capacity - plen
    r = rng.random()
    max_tokens = 0 if r < 0.07 or room == 0 else 1 if r < 0.15 else rng.randint(1, room)
    prompt = [_edge_token(rng, vocab) for _ in range(plen)]
    item: dict[str, Any] = {"id": f"r{i}", "prompt": prompt, "max_tokens": max_tokens,
                            "arrival": arrival}
    gen: list[int] = []
    while len(gen) < max_tokens:  # the greedy continuation: what any correct engine generates
        gen.append(model.next_with_margin(prompt + gen)[0])
    kind = rng.random()
    if gen and (kind < 0.35 or kind >= 0.85):
        # 0 when it is generated (an engine testing `if stop_token:` never stops on it).
        r = rng.random()
        item["stop_token"] = (0 if 0 in gen and r < 0.6 else
                              vocab - 1 if r < 0.75 else rng.choice(gen))
    if gen and kind >= 0.35:
        item["stop_sequence"] = _stop_sequence(rng, prompt, gen)
    if spec.get("callback_submits") and earlier and rng.random() < 0.25:
        item["after"] = rng.choice(earlier)["id"]
    return item


def expand_workloads(test_input: dict[str, Any]) -> list[dict[str, Any]]:
    """The workloads of a test: the input itself, or for a randomised test ("random": {"seed",
    "workloads", "max_requests", "num_blocks", "block_sizes", "budgets", "callback_submits"};
    simulated tier only) that many small workloads expanded from the seed, each its own engine
    run: tiny pools (preemption, self-preemption, chained victims), budgets down to 1, edge token
    ids, stop tokens and self-overlapping or prompt-spanning stop sequences chosen from each
    prompt's own continuation, arrivals mid-run and after idle gaps, and (callback_submits)
    requests that a callback submits."""
    spec = test_input.get("random")
    if spec is None:
        return [test_input]
    config = model_config(test_input)
    if config["tier"] != "sim":
        raise ValueError("randomised workloads use the simulated model tier")
    model = SimPagedModel(config, Limits(1, 1, 1))
    rng = random.Random(int(spec["seed"]))
    out = []
    for _ in range(int(spec["workloads"])):
        num_blocks = int(rng.choice(spec.get("num_blocks", (1, 2, 3, 4, 5, 6, 8))))
        block_size = int(rng.choice(spec.get("block_sizes", (1, 2, 3, 4))))
        budget = int(rng.choice(spec.get("budgets", (1, 2, 3, 4, 5, 8, 16))))
        requests: list[dict[str, Any]] = []
        arrival = 0
        for i in range(rng.randint(0, int(spec.get("max_requests", 12)))):
            if rng.random() < 0.3:  # mid-run, and now and then after an idle gap
                arrival += rng.choice((1, 1, 2, 3, 10))
            requests.append(_random_request(rng, i, model, num_blocks * block_size, arrival,
                                            requests, spec))
        out.append({"group": test_input.get("group"), "model": test_input.get("model"),
                    "num_blocks": num_blocks, "block_size": block_size,
                    "token_budget": budget, "requests": requests,
                    "drain": rng.choice(("step", "run_until_idle"))})
    return out


def model_config(test_input: dict[str, Any]) -> dict[str, Any]:
    """The model section of an input with the tier's defaults filled in."""
    raw = dict(test_input.get("model") or {})
    base = TORCH_DEFAULTS if raw.get("tier") == "torch" else SIM_DEFAULTS
    return {**base, **raw}


# ------------------------------------------------------------------------------------ stop rule


def finish_length(tokens: Sequence[int], max_tokens: int, stop_token: int | None,
                  stop_sequence: Sequence[int] | None) -> int | None:
    """How many of `tokens` a request keeps: the first of max_tokens, the stop token, or the stop
    sequence completed as a suffix of the generated tokens. None if `tokens` ends before any."""
    if max_tokens <= 0:
        return 0
    seq = list(stop_sequence) if stop_sequence else []
    k = len(seq)
    for n in range(1, min(len(tokens), max_tokens) + 1):
        if tokens[n - 1] == stop_token:
            return n
        if k and n >= k and list(tokens[n - k:n]) == seq:
            return n
        if n == max_tokens:
            return n
    return None


# ------------------------------------------------------------------------------------ oracle


def blocks_for(tokens: int, block_size: int) -> int:
    """Blocks that hold KV for `tokens` positions."""
    return -(-tokens // block_size)


class OracleStep:
    """What the prescribed schedule does in one step. (Plain classes, not dataclasses: the
    worker may exec this module without registering it in sys.modules.)"""

    __slots__ = ("decode", "ended", "free_before", "preempted", "prefill", "used")

    def __init__(self, free_before: int = 0) -> None:
        self.decode: list[int] = []  # request indices, admission order
        self.prefill: list[tuple[int, int, int]] = []  # (index, start, length)
        self.preempted: list[int] = []  # in the order they were preempted
        self.ended: list[int] = []
        self.used = 0  # blocks in use at the end of the step
        self.free_before = free_before  # free blocks at the start of the step


class _Seq:
    __slots__ = ("blocks", "cached", "generated", "index", "length", "prompt_len", "target")

    def __init__(self, index: int, prompt_len: int, length: int) -> None:
        self.index = index
        self.prompt_len = prompt_len
        self.length = length  # tokens it generates in all (its stop rule)
        self.generated = 0
        self.cached = 0  # positions whose KV is in its blocks
        self.target = 0  # positions the current prefill caches (prompt + generated at admission)
        self.blocks = 0


def schedule(specs: Sequence[RequestSpec], lengths: Sequence[int], limits: Limits,
             policy: str = "paged", max_steps: int = 100_000) -> list[OracleStep]:
    """The statement's schedule, step by step, for requests in submission order (`specs`) that
    generate `lengths[spec.index]` tokens each. policy 'static' is the baseline: a new group is
    admitted only once nothing is running (the same pool, budget and preemption rules).
    Trailing idle steps are dropped; idle steps before a late arrival are kept (empty).
    A request with `after` set is submitted by its parent's callback, the moment the parent
    ends: it joins the back of the waiting queue and may be admitted in that very step."""
    pending = deque(s for s in specs if s.after is None)
    children: dict[int, list[RequestSpec]] = {}
    for spec in specs:
        if spec.after is not None:
            children.setdefault(spec.after, []).append(spec)
    waiting: deque[_Seq] = deque()
    running: list[_Seq] = []
    free = limits.num_blocks
    steps: list[OracleStep] = []
    while pending or waiting or running:
        if len(steps) >= max_steps:
            raise RuntimeError("the schedule does not finish")
        while pending and pending[0].arrival <= len(steps):
            spec = pending.popleft()
            waiting.append(_Seq(spec.index, len(spec.prompt), int(lengths[spec.index])))
        out = OracleStep(free_before=free)
        steps.append(out)
        budget = limits.token_budget

        def release(seq: _Seq) -> None:
            nonlocal free
            free += seq.blocks
            seq.blocks = 0
            seq.cached = 0
            running.remove(seq)

        def end(seq: _Seq, out: OracleStep = out) -> None:  # freed; its callback may submit
            out.ended.append(seq.index)
            for child in children.get(seq.index, ()):
                waiting.append(_Seq(child.index, len(child.prompt), int(lengths[child.index])))

        # 1. decode, in admission order; a block is taken only at a block boundary, preempting
        #    the newest running sequence (possibly this one) while none is free.
        decoding: list[_Seq] = []
        for seq in list(running):
            if seq not in running or seq.cached < seq.target or budget == 0:
                continue
            need = blocks_for(seq.prompt_len + seq.generated, limits.block_size)
            while seq.blocks < need and free == 0:
                victim = running[-1]
                release(victim)
                waiting.appendleft(victim)
                out.preempted.append(victim.index)
                if victim is seq:
                    break
            if seq not in running:
                continue
            if seq.blocks < need:
                seq.blocks += 1
                free -= 1
            decoding.append(seq)
            budget -= 1
        for seq in decoding:  # one model call; then the finished ones free their blocks
            out.decode.append(seq.index)
            seq.cached += 1
            seq.generated += 1
            if seq.generated >= seq.length:
                release(seq)
                end(seq)

        def prefill(seq: _Seq, out: OracleStep = out) -> None:
            nonlocal budget
            m = min(seq.target - seq.cached, budget)
            out.prefill.append((seq.index, seq.cached, m))
            budget -= m
            seq.cached += m
            if seq.cached == seq.target:  # the last chunk samples the next token
                seq.generated += 1
                if seq.generated >= seq.length:
                    release(seq)
                    end(seq)

        # 2. chunked prefills already running, then 3. FIFO admission against the free blocks
        #    (never in a step that preempted, and for 'static' only into an empty engine).
        for seq in list(running):
            if seq.cached < seq.target and budget > 0:
                prefill(seq)
        admit = not out.preempted and (policy == "paged" or not running)
        while admit and waiting and budget > 0:
            seq = waiting[0]
            if seq.length == 0:
                waiting.popleft()
                end(seq)
                continue
            seq.target = seq.prompt_len + seq.generated
            need = blocks_for(seq.target, limits.block_size)
            if need > free:
                break
            waiting.popleft()
            seq.blocks, seq.cached = need, 0
            free -= need
            running.append(seq)
            prefill(seq)
        out.used = limits.num_blocks - free
    return steps


def work_steps(steps: Sequence[OracleStep]) -> int:
    """Steps that call the model at all."""
    return sum(1 for s in steps if s.decode or s.prefill)


# ------------------------------------------------------------------------------------ models


class PoolError(ValueError):
    """The engine passed the model something no engine may pass (bad block, position, token)."""


class _PagedModel:
    """What both tiers share: the pool geometry and the argument checks."""

    vocab: int
    num_blocks: int
    block_size: int
    max_positions: int

    def _check_table(self, block_table: Any, last: int) -> list[int]:
        try:
            table = [int(b) for b in block_table]
        except (TypeError, ValueError):
            raise PoolError("a block table must be a list of block ids") from None
        for b in table:
            if not 0 <= b < self.num_blocks:
                raise PoolError(f"block id {b} is outside the pool 0..{self.num_blocks - 1}")
        if len(table) * self.block_size <= last:
            raise PoolError(f"position {last} needs {blocks_for(last + 1, self.block_size)} "
                            f"block(s), the block table has {len(table)}")
        return table

    def _check_tokens(self, tokens: Sequence[int], start: int) -> list[int]:
        toks = [int(t) for t in tokens]
        if not toks:
            raise PoolError("prefill needs at least one token")
        if start < 0 or start + len(toks) > self.max_positions:
            raise PoolError(f"positions must be in 0..{self.max_positions - 1}")
        if min(toks) < 0 or max(toks) >= self.vocab:
            raise PoolError(f"tokens must be in 0..{self.vocab - 1}")
        return toks

    def _slot(self, table: list[int], position: int) -> int:
        return table[position // self.block_size] * self.block_size + position % self.block_size


class SimPagedModel(_PagedModel):
    """Deterministic stand-in for a language model with a paged KV cache. Writing position p of a
    sequence stores a 64-bit hash of (token, p) in its slot; the next token is a hash of every
    slot 0..p read back through the block table. An unwritten slot reads as 0."""

    tier = "sim"
    device = "cpu"

    def __init__(self, config: dict[str, Any], limits: Limits) -> None:
        self.vocab = int(config["vocab"])
        self.num_blocks, self.block_size = limits.num_blocks, limits.block_size
        self.max_positions = 1 << 20
        self._basis = (0xCBF29CE484222325 ^ (int(config["seed"]) * 0x9E3779B97F4A7C15)) & _MASK64
        self._pool = [0] * (limits.num_blocks * limits.block_size)

    @staticmethod
    def _entry(token: int, position: int) -> int:
        return ((token + 1) * 0x9E3779B97F4A7C15 + position * 0xD6E8FEB86659FD93) & _MASK64

    def _fold(self, entries: Sequence[int]) -> int:
        h = self._basis
        for e in entries:
            h = ((h ^ e) * _FNV_PRIME) & _MASK64
        h ^= h >> 29
        h = (h * 0xBF58476D1CE4E5B9) & _MASK64
        h ^= h >> 32
        return h % self.vocab

    def _write_and_read(self, tokens: list[int], start: int, table: list[int]) -> int:
        for i, tok in enumerate(tokens):
            self._pool[self._slot(table, start + i)] = self._entry(tok, start + i)
        last = start + len(tokens) - 1
        return self._fold([self._pool[self._slot(table, p)] for p in range(last + 1)])

    def prefill(self, request_id: str, tokens: Sequence[int], block_table: Sequence[int],
                start: int = 0) -> int:
        toks = self._check_tokens(tokens, start)
        table = self._check_table(block_table, start + len(toks) - 1)
        return self._write_and_read(toks, start, table)

    def decode(self, batch: Sequence[Any]) -> list[int]:
        items = [_decode_item(item) for item in batch]
        checked = [(self._check_tokens([tok], pos), pos, self._check_table(table, pos))
                   for _rid, tok, pos, table in items]
        return [self._write_and_read(toks, pos, table) for toks, pos, table in checked]

    def next_with_margin(self, prefix: Sequence[int]) -> tuple[int, float]:
        """The one-at-a-time reference: the same hash computed straight from the prefix."""
        return self._fold([self._entry(t, p) for p, t in enumerate(prefix)]), math.inf


def _decode_item(item: Any) -> tuple[str, int, int, Any]:
    try:
        rid, token, position, table = item
        return str(rid), int(token), int(position), table
    except (TypeError, ValueError):
        raise PoolError("a decode batch entry must be (request_id, token, position, "
                        "block_table)") from None


class TorchPagedModel(_PagedModel):
    """A small decoder-only transformer (pre-LN, learned positions, GELU MLP) whose attention
    keys and values live in a paged pool [layers, num_blocks * block_size, heads, head_dim].

    prefill and decode compute q/k/v only for the new tokens, write k/v into the slots the block
    table names, and attend over keys/values gathered back from the pool through the table (the
    new tokens' own included). `logits_full` is the same network without a cache, recomputing
    whole prefixes: the checker's one-at-a-time reference and the bench's recompute engine."""

    tier = "torch"

    def __init__(self, config: dict[str, Any], limits: Limits, device: str | None = None) -> None:
        import torch

        self._torch = torch
        self.vocab = int(config["vocab"])
        self.d_model = int(config["d_model"])
        self.heads = int(config["heads"])
        self.max_positions = int(config["max_positions"])
        self.num_blocks, self.block_size = limits.num_blocks, limits.block_size
        self.device = device or default_device()
        if self.device.startswith("cuda"):
            _strict_fp32_matmul(torch)
        gen = torch.Generator().manual_seed(int(config["seed"]))

        def uniform(*shape: int, scale: float) -> Any:
            # torch.rand draws are exact on every machine, so sandbox and worker agree bit for bit.
            return ((torch.rand(shape, generator=gen) * 2 - 1) * scale).to(self.device)

        d, v = self.d_model, self.vocab
        self.tok_emb = uniform(v, d, scale=1.0)
        self.pos_emb = uniform(self.max_positions, d, scale=0.5)
        self.layers = []
        for _ in range(int(config["layers"])):
            self.layers.append({
                "qkv": uniform(d, 3 * d, scale=2.0 / math.sqrt(d)),
                "out": uniform(d, d, scale=1.0 / math.sqrt(d)),
                "up": uniform(d, 4 * d, scale=1.0 / math.sqrt(d)),
                "up_b": uniform(4 * d, scale=0.1),
                "down": uniform(4 * d, d, scale=1.0 / math.sqrt(4 * d)),
            })
        self.head = uniform(d, v, scale=2.0 / math.sqrt(d))
        slots, dh = limits.num_blocks * limits.block_size, d // self.heads
        shape = (len(self.layers), slots, self.heads, dh)
        self.k_pool = torch.zeros(shape, device=self.device)
        self.v_pool = torch.zeros(shape, device=self.device)

    @property
    def kv_bytes_per_block(self) -> int:
        """Bytes of KV one block holds (keys and values, every layer, float32)."""
        return 2 * len(self.layers) * self.block_size * self.d_model * 4

    def _paged_logits(self, rows: list[tuple[list[int], int, list[int]]]) -> Any:
        """rows: (new tokens, start position, block table) per sequence -> last-position logits."""
        torch = self._torch
        fn = torch.nn.functional
        n = len(rows)
        m_max = max(len(toks) for toks, _, _ in rows)
        c_max = max(start + len(toks) for toks, start, _ in rows)
        ids, pos, write, valid_new = [], [], [], []
        ctx, ctx_valid = [], []
        for toks, start, table in rows:
            m = len(toks)
            ids.append(toks + [0] * (m_max - m))
            pos.append([start + j if j < m else 0 for j in range(m_max)])
            write.extend(self._slot(table, start + j) for j in range(m))
            valid_new.append([j < m for j in range(m_max)])
            c = start + m
            ctx.append([self._slot(table, q) if q < c else 0 for q in range(c_max)])
            ctx_valid.append([q < c for q in range(c_max)])
        dev = self.device
        with torch.inference_mode():
            ids_t = torch.tensor(ids, dtype=torch.long, device=dev)
            pos_t = torch.tensor(pos, dtype=torch.long, device=dev)
            new_ok = torch.tensor(valid_new, dtype=torch.bool, device=dev)
            write_t = torch.tensor(write, dtype=torch.long, device=dev)
            ctx_t = torch.tensor(ctx, dtype=torch.long, device=dev)
            key_pos = torch.arange(c_max, device=dev)[None, None, :]
            ctx_ok = torch.tensor(ctx_valid, dtype=torch.bool, device=dev)
            # query (row, j) at position pos may read key q if q <= pos and q is real; a padded
            # query reads key 0 only, so no softmax row is empty.
            allowed = (key_pos <= pos_t[:, :, None]) & ctx_ok[:, None, :]
            allowed = torch.where(new_ok[:, :, None], allowed, key_pos == 0)
            x = self.tok_emb[ids_t] + self.pos_emb[pos_t]
            dh = self.d_model // self.heads
            for li, layer in enumerate(self.layers):
                h = fn.layer_norm(x, (self.d_model,))
                q, k, v = (h @ layer["qkv"]).split(self.d_model, dim=-1)
                k_new = k.reshape(n, m_max, self.heads, dh)[new_ok]
                v_new = v.reshape(n, m_max, self.heads, dh)[new_ok]
                self.k_pool[li].index_copy_(0, write_t, k_new)
                self.v_pool[li].index_copy_(0, write_t, v_new)
                keys = self.k_pool[li][ctx_t].transpose(1, 2)  # [n, heads, c_max, dh]
                vals = self.v_pool[li][ctx_t].transpose(1, 2)
                qh = q.reshape(n, m_max, self.heads, dh).transpose(1, 2)
                scores = (qh @ keys.transpose(-1, -2)) / math.sqrt(dh)
                scores = scores.masked_fill(~allowed[:, None], float("-inf"))
                att = scores.softmax(dim=-1) @ vals
                x = x + att.transpose(1, 2).reshape(n, m_max, self.d_model) @ layer["out"]
                h = fn.layer_norm(x, (self.d_model,))
                x = x + fn.gelu(h @ layer["up"] + layer["up_b"]) @ layer["down"]
            last_idx = torch.tensor([len(t) - 1 for t, _, _ in rows], device=dev)
            last = x[torch.arange(n, device=dev), last_idx]
            return fn.layer_norm(last, (self.d_model,)) @ self.head

    def prefill(self, request_id: str, tokens: Sequence[int], block_table: Sequence[int],
                start: int = 0) -> int:
        toks = self._check_tokens(tokens, start)
        table = self._check_table(block_table, start + len(toks) - 1)
        return int(self._paged_logits([(toks, start, table)])[0].argmax())

    def decode(self, batch: Sequence[Any]) -> list[int]:
        rows = []
        for _rid, tok, pos, table in (_decode_item(item) for item in batch):
            rows.append((self._check_tokens([tok], pos), pos, self._check_table(table, pos)))
        if not rows:
            return []
        return [int(t) for t in self._paged_logits(rows).argmax(dim=-1).tolist()]

    def logits_full(self, prefixes: Sequence[Sequence[int]]) -> Any:
        """Next-token logits [len(prefixes), vocab], recomputing each whole prefix (no cache):
        left-padded, positions from 0 at the first real token, padded keys masked out."""
        torch = self._torch
        fn = torch.nn.functional
        lens = [len(p) for p in prefixes]
        n, t = len(prefixes), max(lens)
        if t > self.max_positions or min(lens) < 1:
            raise ValueError(f"prefix lengths must be in 1..{self.max_positions}")
        rows = [[0] * (t - len(p)) + [int(x) for x in p] for p in prefixes]
        dev = self.device
        with torch.inference_mode():
            ids = torch.tensor(rows, dtype=torch.long, device=dev)
            pad = t - torch.tensor(lens, device=dev)[:, None]
            cols = torch.arange(t, device=dev)[None, :]
            valid = cols >= pad
            positions = (cols - pad).clamp(min=0)
            causal = torch.ones(t, t, dtype=torch.bool, device=dev).tril()
            eye = torch.eye(t, dtype=torch.bool, device=dev)
            allowed = (causal[None] & valid[:, None, :]) | eye[None]
            x = self.tok_emb[ids] + self.pos_emb[positions]
            dh = self.d_model // self.heads
            for layer in self.layers:
                h = fn.layer_norm(x, (self.d_model,))
                q, k, v = (h @ layer["qkv"]).split(self.d_model, dim=-1)
                q, k, v = (z.view(n, t, self.heads, dh).transpose(1, 2) for z in (q, k, v))
                scores = (q @ k.transpose(-1, -2)) / math.sqrt(dh)
                scores = scores.masked_fill(~allowed[:, None], float("-inf"))
                att = scores.softmax(dim=-1) @ v
                x = x + att.transpose(1, 2).reshape(n, t, self.d_model) @ layer["out"]
                h = fn.layer_norm(x, (self.d_model,))
                x = x + fn.gelu(h @ layer["up"] + layer["up_b"]) @ layer["down"]
            return fn.layer_norm(x[:, -1], (self.d_model,)) @ self.head

    def next_with_margin(self, prefix: Sequence[int]) -> tuple[int, float]:
        """The greedy token for one prefix alone (no cache), and its lead over the runner-up."""
        logits = self.logits_full([prefix])[0].double()
        top = logits.topk(2)
        return int(top.indices[0]), float(top.values[0] - top.values[1])


def _strict_fp32_matmul(torch: Any) -> None:
    """Full float32 matmuls on CUDA: the reference decode runs on a CPU, and TF32 (about 1e-3
    relative error) could flip a clear argmax; plain float32 rounding cannot."""
    matmul = torch.backends.cuda.matmul
    try:
        matmul.fp32_precision = "ieee"
    except (AttributeError, RuntimeError, ValueError):
        matmul.allow_tf32 = False


def default_device() -> str:
    """ONSITE_MODEL_DEVICE if set, else CUDA when torch sees a GPU, else the CPU."""
    forced = os.environ.get("ONSITE_MODEL_DEVICE")
    if forced:
        return forced
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def build_model(config: dict[str, Any], limits: Limits,
                device: str | None = None) -> SimPagedModel | TorchPagedModel:
    """The model a test input names, with a fresh, zeroed KV pool."""
    if config["tier"] == "torch":
        return TorchPagedModel(config, limits, device)
    if config["tier"] != "sim":
        raise ValueError(f"unknown model tier {config['tier']!r}")
    return SimPagedModel(config, limits)


class Continuation:
    """A prompt's greedy continuation decoded one request at a time, without a cache, grown on
    demand, with each position's top-2 logit margin (inf for the simulated tier)."""

    def __init__(self, model: SimPagedModel | TorchPagedModel, prompt: Sequence[int]) -> None:
        self._model = model
        self._prefix = list(prompt)
        self._prompt_len = len(self._prefix)
        self.margins: list[float] = []

    @property
    def tokens(self) -> list[int]:
        return self._prefix[self._prompt_len:]

    def extend_to(self, n: int) -> list[int]:
        """At least the first n generated tokens (fewer only past the model's positions)."""
        while len(self._prefix) - self._prompt_len < n:
            if len(self._prefix) >= self._model.max_positions:
                break
            token, margin = self._model.next_with_margin(self._prefix)
            self._prefix.append(token)
            self.margins.append(margin)
        return self.tokens
