"""Shared by driver.py (inside the sandbox) and checker.py (in the worker), imported as `support`.

One copy of everything both sides must agree on:

* the workload: request specs from a test input (explicit list or a compact seeded generator);
* the two tiers of `model_next`: a pure-Python hash model (public tests, microseconds) and a small
  PyTorch decoder-only transformer with seeded weights (hidden tests) that recomputes the full
  prefix on every call, left-pads the variable-length batch and masks attention (causal + keys);
* the stop rule (`finish_length`) and the schedule simulator that gives the ideal call counts of
  continuous and static batching for given output lengths.

torch is imported lazily, so the simulated tier needs only the standard library.
"""

from __future__ import annotations

import math
import os
import random
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

PACKAGE = "continuous-batching-engine"

SIM_DEFAULTS: dict[str, Any] = {"tier": "sim", "vocab": 32, "seed": 0}
TORCH_DEFAULTS: dict[str, Any] = {
    "tier": "torch", "vocab": 64, "seed": 0, "layers": 2, "d_model": 64, "heads": 4,
    "max_positions": 256,
}
# A reference token may differ from the sandbox's only where the two best logits were this close:
# batch composition and device change float32 reduction order, never a clear argmax.
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
    submitted from a callback, "after": "<id>", come last and are submitted by that callback)."""
    model = model_config(test_input)
    raw = test_input.get("requests")
    if raw is None and "generate" in test_input:
        raw = _generated_requests(test_input["generate"], int(model["vocab"]))
    ids = {str(item["id"]): i for i, item in enumerate(raw or [])}
    specs = []
    for index, item in enumerate(raw or []):
        stop_seq = item.get("stop_sequence")
        after = item.get("after")
        if after is not None and ids.get(str(after), index) >= index:
            raise ValueError(f"request {item['id']!r}: 'after' must name an earlier request")
        specs.append(RequestSpec(
            index=index,
            rid=str(item["id"]),
            prompt=_int_list(item["prompt"], "prompt"),
            max_tokens=int(item["max_tokens"]),
            stop_token=None if item.get("stop_token") is None else int(item["stop_token"]),
            stop_sequence=None if stop_seq is None else _int_list(stop_seq, "stop_sequence"),
            arrival=int(item.get("arrival", 0)),
            after=None if after is None else ids[str(after)],
        ))
    return sorted(specs, key=lambda s: (s.after is not None, s.arrival, s.index))


# ------------------------------------------------------------------------------------ random


# Stop-sequence shapes over two symbols a, b: repeated tokens and self-overlapping prefixes
# (a streaming matcher that resets to 0 on a mismatch misses "a a b" after "a a a b").
_STOP_SHAPES = ("a", "aa", "ab", "aab", "aba", "abab", "aaab", "ba")
# Tokens whose decimal texts collide when joined: [1, 1] and [11] are both "11".
_TEXT_TOKENS = (0, 1, 10, 11)


def _random_request(rng: random.Random, i: int, vocab: int, spec: dict[str, Any],
                    arrival: int, earlier: list[dict[str, Any]]) -> dict[str, Any]:
    """One request of a random workload. The options of a stress test ("edge_tokens",
    "prompt_stops", "admission_submits") draw extra numbers only when on, so the workloads of
    a seed without them never change."""
    text = bool(spec.get("text"))
    pick = (lambda: rng.choice(_TEXT_TOKENS)) if text else (
        lambda: 0 if rng.random() < 0.35 else rng.randrange(vocab))
    if spec.get("edge_tokens") and not text:
        plain = pick

        def pick() -> int:
            # Both ends of the vocabulary half the time: stop token 0 (falsy), the largest id.
            return rng.choice((0, vocab - 1)) if rng.random() < 0.5 else plain()
    item: dict[str, Any] = {
        "id": f"r{i}",
        "prompt": [rng.randrange(vocab) for _ in range(rng.randint(1, 3))],
        "max_tokens": rng.choice((0, 1, 1, 2)) if rng.random() < 0.3 else rng.randint(2, 10),
        "arrival": arrival,
    }
    kinds = rng.random()
    if kinds < 0.3 or kinds >= 0.75:
        item["stop_token"] = pick()
    if kinds >= 0.45:
        a, b = pick(), pick()
        item["stop_sequence"] = [a if c == "a" else b for c in rng.choice(_STOP_SHAPES)]
        # Often the previous request's stop sequence (as with one chat template for all): a
        # slot refilled after its occupant stopped part-way through it must start from zero.
        shared = [r["stop_sequence"] for r in earlier[-3:] if r.get("stop_sequence")]
        if shared and rng.random() < 0.6:
            item["stop_sequence"] = list(shared[-1])
        if spec.get("prompt_stops") and rng.random() < 0.4:
            # Begins inside the prompt: only its generated part may end the request (a matcher
            # run over prompt + generated ends it early when the model continues it).
            tail = item["prompt"][-rng.randint(1, len(item["prompt"])):]
            item["stop_sequence"] = [*tail, *(pick() for _ in range(rng.randint(1, 2)))]
    # A max_tokens == 0 parent calls back during admission: its child may take a slot in the
    # same step.
    parents = [r for r in earlier if r["max_tokens"] > 0]
    if spec.get("callback_submits") and parents and rng.random() < 0.2:
        item["after"] = rng.choice(parents)["id"]
    if spec.get("admission_submits"):
        # More max_tokens == 0 requests, and children of theirs: a free slot left in the step
        # their callback runs in belongs to the child.
        if rng.random() < 0.2:
            item["max_tokens"] = 0
        zeros = [r for r in earlier if r["max_tokens"] <= 0 and not r.get("after")]
        if zeros and rng.random() < 0.5:
            item["after"] = rng.choice(zeros)["id"]
    return item


def expand_workloads(test_input: dict[str, Any]) -> list[dict[str, Any]]:
    """The workloads of a test: the input itself, or for a randomised test
    ("random": {"seed", "workloads", "capacities", "max_requests", "text", "callback_submits",
    "edge_tokens", "prompt_stops", "admission_submits"}) that many small workloads expanded from
    the seed, each its own engine run (the seed is the test's: every workload is reproducible)."""
    spec = test_input.get("random")
    if spec is None:
        return [test_input]
    rng = random.Random(int(spec["seed"]))
    vocab = int(model_config(test_input)["vocab"])
    capacities = [int(b) for b in spec.get("capacities", (1, 2, 3, 4, 8, 16, 64))]
    out = []
    for _ in range(int(spec["workloads"])):
        capacity = rng.choice(capacities)
        n = rng.randint(0, int(spec.get("max_requests", 16)))
        requests: list[dict[str, Any]] = []
        arrival = 0
        for i in range(n):
            if rng.random() < 0.25:  # mid-run, and now and then after an idle gap
                arrival += rng.choice((1, 1, 2, 3, 12))
            requests.append(_random_request(rng, i, vocab, spec, arrival, requests))
        out.append({"group": test_input.get("group"), "model": test_input.get("model"),
                    "capacity": capacity, "requests": requests,
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
    sequence completed as a suffix of the generated tokens. None if `tokens` ends before any.
    Only generated tokens count: a stop token or sequence inside the prompt never matches."""
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


# ------------------------------------------------------------------------------------ schedules


def simulate(lengths: Sequence[int], arrivals: Sequence[int], capacity: int,
             policy: str = "continuous") -> list[int]:
    """Batch size of each step under the statement's rules, for requests in submission order with
    these output lengths and arrival steps. 'continuous' refills free slots every step; 'static'
    admits a new batch only once the previous one has completely finished. 0 = no model call."""
    order = sorted(range(len(lengths)), key=lambda i: (arrivals[i], i))
    waiting: deque[int] = deque()
    active: dict[int, int] = {}  # request -> tokens generated
    pos, step, occupancy = 0, 0, []
    while pos < len(order) or waiting or active:
        while pos < len(order) and arrivals[order[pos]] <= step:
            waiting.append(order[pos])
            pos += 1
        if policy == "continuous" or not active:
            while waiting and len(active) < capacity:
                req = waiting.popleft()
                if lengths[req] > 0:  # max_tokens 0 ends at admission, without a slot
                    active[req] = 0
        occupancy.append(len(active))
        for req in list(active):
            active[req] += 1
            if active[req] >= lengths[req]:
                del active[req]
        step += 1
    while occupancy and occupancy[-1] == 0:
        occupancy.pop()
    return occupancy


def model_calls(lengths: Sequence[int], arrivals: Sequence[int], capacity: int,
                policy: str) -> int:
    """Number of model_next calls (decode steps) the policy needs."""
    return sum(1 for n in simulate(lengths, arrivals, capacity, policy) if n)


def ideal_ratio(lengths: Sequence[int], arrivals: Sequence[int], capacity: int) -> float:
    """Static-batching calls / continuous-batching calls for these output lengths at this B."""
    cont = model_calls(lengths, arrivals, capacity, "continuous")
    return model_calls(lengths, arrivals, capacity, "static") / cont if cont else 1.0


# ------------------------------------------------------------------------------------ models


class SimModel:
    """Deterministic stand-in for a language model: the next token is a hash of the whole prefix
    (FNV-1a over 64 bits), so any change anywhere in a prefix changes the continuation."""

    tier = "sim"
    device = "cpu"

    def __init__(self, vocab: int, seed: int) -> None:
        self.vocab = vocab
        self._basis = (0xCBF29CE484222325 ^ (seed * 0x9E3779B97F4A7C15)) & _MASK64

    def next_token(self, prefix: Sequence[int]) -> int:
        h = self._basis
        for tok in prefix:
            h = ((h ^ (tok + 1)) * _FNV_PRIME) & _MASK64
        h ^= h >> 29
        h = (h * 0xBF58476D1CE4E5B9) & _MASK64
        h ^= h >> 32
        return h % self.vocab

    def __call__(self, prefixes: Sequence[Sequence[int]]) -> list[int]:
        return [self.next_token(p) for p in prefixes]

    def next_with_margin(self, prefix: Sequence[int]) -> tuple[int, float]:
        return self.next_token(prefix), math.inf


class TorchModel:
    """A small decoder-only transformer (pre-LN, learned positions, GELU MLP, untied output).

    Every call recomputes the whole prefix of every sequence, as a server without a KV cache
    would. The batch is left-padded to a common length; each sequence's positions start at 0 at
    its first real token, and attention is causal with padded keys masked out, so a sequence gets
    the same logits alone or in any batch, up to float32 rounding."""

    tier = "torch"

    def __init__(self, config: dict[str, Any], device: str | None = None) -> None:
        import torch

        self._torch = torch
        self.vocab = int(config["vocab"])
        self.d_model = int(config["d_model"])
        self.heads = int(config["heads"])
        self.max_positions = int(config["max_positions"])
        self.device = device or default_device()
        if self.device.startswith("cuda"):
            _strict_fp32_matmul(torch)
        gen = torch.Generator().manual_seed(int(config["seed"]))

        def uniform(*shape: int, scale: float) -> Any:
            # torch.rand draws are exact on every machine (no transcendental functions), so the
            # sandbox and the worker build bit-identical weights from the seed.
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

    def logits(self, prefixes: Sequence[Sequence[int]]) -> Any:
        """Next-token logits [len(prefixes), vocab] at each sequence's last position."""
        torch = self._torch
        fn = torch.nn.functional
        lens = [len(p) for p in prefixes]
        n, t = len(prefixes), max(lens)
        if t > self.max_positions or min(lens) < 1:
            raise ValueError(f"prefix lengths must be in 1..{self.max_positions}")
        rows = [[0] * (t - len(p)) + [int(x) for x in p] for p in prefixes]
        with torch.inference_mode():
            ids = torch.tensor(rows, dtype=torch.long, device=self.device)
            if int(ids.min()) < 0 or int(ids.max()) >= self.vocab:
                raise ValueError(f"tokens must be in 0..{self.vocab - 1}")
            pad = t - torch.tensor(lens, device=self.device)[:, None]  # [n, 1] pad count per row
            cols = torch.arange(t, device=self.device)[None, :]
            valid = cols >= pad  # [n, t] real tokens
            positions = (cols - pad).clamp(min=0)
            causal = torch.ones(t, t, dtype=torch.bool, device=self.device).tril()
            eye = torch.eye(t, dtype=torch.bool, device=self.device)
            # query i may see key j if j <= i and j is real; a padded query sees itself only, so
            # no softmax row is empty (no NaN) and real rows never read padded ones.
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
            last = fn.layer_norm(x[:, -1], (self.d_model,))
            return last @ self.head

    def __call__(self, prefixes: Sequence[Sequence[int]]) -> list[int]:
        if not prefixes:
            return []
        return [int(t) for t in self.logits(prefixes).argmax(dim=-1).tolist()]

    def next_with_margin(self, prefix: Sequence[int]) -> tuple[int, float]:
        """The greedy token for one prefix alone, and its lead over the runner-up logit."""
        logits = self.logits([prefix])[0].double()
        top = logits.topk(2)
        return int(top.indices[0]), float(top.values[0] - top.values[1])


def _strict_fp32_matmul(torch: Any) -> None:
    """Full float32 matmuls on CUDA. The grader's reference decode runs on a CPU; TF32 (about
    1e-3 relative error) could flip a clear argmax, plain float32 rounding (about 1e-6) cannot."""
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


def build_model(config: dict[str, Any], device: str | None = None) -> SimModel | TorchModel:
    """The model a test input names (see model_config)."""
    if config["tier"] == "torch":
        return TorchModel(config, device)
    if config["tier"] != "sim":
        raise ValueError(f"unknown model tier {config['tier']!r}")
    return SimModel(int(config["vocab"]), int(config["seed"]))


class Continuation:
    """A prompt's greedy continuation from a model run on each prefix alone, grown on demand,
    with each position's top-2 logit margin (inf for the simulated tier)."""

    def __init__(self, model: SimModel | TorchModel, prompt: Sequence[int]) -> None:
        self._model = model
        self._prefix = list(prompt)
        self._prompt_len = len(self._prefix)
        self.margins: list[float] = []

    @property
    def tokens(self) -> list[int]:
        return self._prefix[self._prompt_len:]

    def extend_to(self, n: int) -> list[int]:
        """At least the first n generated tokens (fewer only past the model's positions)."""
        limit = getattr(self._model, "max_positions", None)
        while len(self._prefix) - self._prompt_len < n:
            if limit is not None and len(self._prefix) >= limit:
                break
            token, margin = self._model.next_with_margin(self._prefix)
            self._prefix.append(token)
            self.margins.append(margin)
        return self.tokens
