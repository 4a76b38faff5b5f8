"""Paged KV cache vs stateless recompute on the paged-kv-engine problem's PyTorch decoder.

`python -m bench.paged_kv [--pairs N] [--device cpu|cuda] [--capacities 8 16] [--out PATH]`
runs the same seeded workload (geometric output lengths, no stop rules) at each batch size B
through two engines on the same weights (support.py's TorchPagedModel):

* paged: the package's reference engine (driver.drive records it), over a pool sized for B
  worst-case sequences (num_blocks = B x blocks for the longest request), block_size 16 and a
  token budget of 256; decode reads K/V through block tables, nothing is recomputed;
* recompute: continuous batching with B slots that recomputes every prefix on every call
  (TorchPagedModel.logits_full, no cache), the continuous-batching problem's model design.

Figures: wall-clock tokens/s, interleaved (recompute, paged, recompute, ...) for N pairs after a
warm-up pair, median and min-max of the per-pair ratio; model calls; the mean number of
sequences per decode call; the KV memory the paged engine used (peak blocks x bytes per block)
against the pool; the fraction of requests whose tokens agree between the engines. Raw samples
go to bench/results/paged_kv.json; the last printed line is the headline ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

from bench.batching import Package, load_package, load_solution

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIR = ROOT / "problems" / "bank" / "paged-kv-engine"
RESULTS = ROOT / "bench" / "results" / "paged_kv.json"
CAPACITIES = (8, 16)
BLOCK_SIZE = 16
TOKEN_BUDGET = 256


def package() -> Package:
    return load_package(PACKAGE_DIR)


def workload(capacity: int) -> dict[str, Any]:
    """The benchmark input at one B: 4 batches' worth of requests, geometric lengths."""
    n, longest = 4 * capacity, 8 + 64
    return {
        "group": "throughput",
        "model": {"tier": "torch", "seed": 3},
        "num_blocks": capacity * -(-longest // BLOCK_SIZE),
        "block_size": BLOCK_SIZE,
        "token_budget": TOKEN_BUDGET,
        "generate": {
            "seed": 2000 + capacity,
            "n": n,
            "prompt_len": [3, 8],
            "mean_tokens": 16,
            "max_cap": 64,
        },
    }


class RecomputeEngine:
    """Continuous batching without a KV cache: B slots refilled FIFO every step, one full-prefix
    forward per step (max_tokens is the only stop rule in the benchmark workload)."""

    def __init__(self, model: Any, capacity: int) -> None:
        self._model = model
        self._capacity = capacity
        self._waiting: deque[Any] = deque()
        self._slots: list[list[Any]] = []  # [spec, generated]
        self.calls = 0
        self.outputs: dict[int, list[int]] = {}

    def submit(self, spec: Any) -> None:
        self._waiting.append(spec)

    def run(self) -> None:
        while self._waiting or self._slots:
            while self._waiting and len(self._slots) < self._capacity:
                self._slots.append([self._waiting.popleft(), []])
            prefixes = [list(spec.prompt) + out for spec, out in self._slots]
            tokens = self._model.logits_full(prefixes).argmax(dim=-1).tolist()
            self.calls += 1
            for slot, token in zip(self._slots, tokens, strict=True):
                slot[1].append(int(token))
            for spec, out in [s for s in self._slots if len(s[1]) >= s[0].max_tokens]:
                self.outputs[spec.index] = out
            self._slots = [s for s in self._slots if len(s[1]) < s[0].max_tokens]


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def _run_paged(
    pkg: Package, engine: Any, test_input: dict[str, Any], device: str
) -> dict[str, Any]:
    support = pkg.support
    limits = support.limits_of(test_input)
    model = support.build_model(support.model_config(test_input), limits, device=device)
    specs = support.parse_requests(test_input)
    _sync(device)
    start = time.perf_counter()
    record = pkg.driver.drive(engine, model, specs, limits)
    _sync(device)
    record["wall_s"] = time.perf_counter() - start
    record["kv_bytes_per_block"] = model.kv_bytes_per_block
    return record


def _run_recompute(
    pkg: Package, test_input: dict[str, Any], capacity: int, device: str
) -> tuple[RecomputeEngine, float]:
    support = pkg.support
    limits = support.limits_of(test_input)
    model = support.build_model(support.model_config(test_input), limits, device=device)
    engine = RecomputeEngine(model, capacity)
    for spec in support.parse_requests(test_input):
        engine.submit(spec)
    _sync(device)
    start = time.perf_counter()
    engine.run()
    _sync(device)
    return engine, time.perf_counter() - start


def measure(pkg: Package, capacity: int, pairs: int, device: str) -> dict[str, Any]:
    """Interleaved wall-clock pairs and the counters for one B."""
    reference = load_solution(PACKAGE_DIR / "reference.py")
    test_input = workload(capacity)
    specs = pkg.support.parse_requests(test_input)
    tokens = sum(s.max_tokens for s in specs)
    samples: list[dict[str, float]] = []
    paged: dict[str, Any] = {}
    recompute: RecomputeEngine | None = None
    for pair in range(pairs + 1):  # pair 0 is the warm-up, not kept
        recompute, recompute_s = _run_recompute(pkg, test_input, capacity, device)
        paged = _run_paged(pkg, reference.Engine, test_input, device)
        if pair:
            samples.append(
                {
                    "recompute_wall_s": recompute_s,
                    "paged_wall_s": paged["wall_s"],
                    "ratio": recompute_s / paged["wall_s"],
                }
            )
    assert recompute is not None
    limits = pkg.support.limits_of(test_input)
    used = [limits.num_blocks - (f or 0) for f in paged["free"]]
    decode_sizes = [n for _s, n in paged["decode_calls"]]
    agree = sum(1 for s in specs if paged["generated"][s.index] == recompute.outputs[s.index])
    ratios = [s["ratio"] for s in samples]
    per_block = int(paged["kv_bytes_per_block"])
    return {
        "capacity": capacity,
        "device": device,
        "requests": len(specs),
        "tokens": tokens,
        "num_blocks": limits.num_blocks,
        "block_size": limits.block_size,
        "token_budget": limits.token_budget,
        "paged_model_steps": len({row[0] for row in paged["decode"] + paged["prefill"]}),
        "paged_decode_calls": len(decode_sizes),
        "paged_mean_decode_batch": statistics.fmean(decode_sizes) if decode_sizes else 0.0,
        "recompute_calls": recompute.calls,
        "kv_peak_blocks": max(used, default=0),
        "kv_peak_bytes": max(used, default=0) * per_block,
        "kv_pool_bytes": limits.num_blocks * per_block,
        "tokens_agree_fraction": agree / len(specs) if specs else 1.0,
        "wall_ratio_median": statistics.median(ratios),
        "wall_ratio_min": min(ratios),
        "wall_ratio_max": max(ratios),
        "paged_tokens_per_s_median": statistics.median(tokens / s["paged_wall_s"] for s in samples),
        "recompute_tokens_per_s_median": statistics.median(
            tokens / s["recompute_wall_s"] for s in samples
        ),
        "samples": samples,
    }


def summary_lines(figures: list[dict[str, Any]]) -> list[str]:
    """One line per figure; the last one is the headline (largest B, tokens/s ratio)."""
    lines = []
    for fig in figures:
        b = fig["capacity"]
        lines.append(
            f"B={b} tokens/s on {fig['device']}: paged/recompute median "
            f"{fig['wall_ratio_median']:.2f}x (min {fig['wall_ratio_min']:.2f}, max "
            f"{fig['wall_ratio_max']:.2f}; {len(fig['samples'])} interleaved pairs; "
            f"{fig['paged_tokens_per_s_median']:.0f} vs "
            f"{fig['recompute_tokens_per_s_median']:.0f} tokens/s)"
        )
        lines.append(
            f"B={b} calls: paged {fig['paged_decode_calls']} decode calls (mean batch "
            f"{fig['paged_mean_decode_batch']:.1f}), recompute {fig['recompute_calls']}"
            f"; KV used: peak {fig['kv_peak_blocks']} of {fig['num_blocks']} blocks = "
            f"{fig['kv_peak_bytes'] / 1024:.0f} KiB of a {fig['kv_pool_bytes'] / 1024:.0f}"
            f" KiB pool; tokens agree for {fig['tokens_agree_fraction']:.0%} of requests"
        )
    top = figures[-1]
    lines.append(
        f"headline: the paged KV engine decodes {top['wall_ratio_median']:.2f}x the "
        f"tokens/s of the stateless recompute engine at B={top['capacity']} on "
        f"{top['device']}"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Measure, write bench/results/paged_kv.json (or --out), print the summary lines."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=5, help="timed pairs after the warm-up")
    parser.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    parser.add_argument("--capacities", type=int, nargs="+", default=list(CAPACITIES))
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args([] if argv is None else argv)
    import torch

    if args.device == "cpu":
        torch.set_num_threads(1)  # a shared 2-core box: one thread is the stable choice
    pkg = package()
    figures = [measure(pkg, b, max(args.pairs, 1), args.device) for b in args.capacities]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    report = {"benchmark": "paged-kv-vs-recompute", "torch": torch.__version__, "figures": figures}
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    for line in summary_lines(figures):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
