"""Continuous vs static batching on the continuous-batching-engine problem's model (CPU).

`python -m bench.batching [--pairs N] [--device cpu|cuda] [--out PATH]` measures the reference
engine against the driver's static-batching baseline at B = 8 and B = 16 on the problem's
PyTorch decoder (support.py), over a seeded workload with geometric output lengths:

* model calls (decode steps), a counter noise cannot move, against the ideal ratio computed from
  the output lengths (support.ideal_ratio);
* wall-clock tokens/s, interleaved (static, continuous, static, ...) for >= 10 pairs after a
  warm-up pair; median and min-max of the per-pair ratio.

It writes every raw sample to bench/results/batching.json and prints one line per figure, the
last line the headline ratio. Also home of the in-process package loader used by the tests and
platform/gpu/run_suite.py: the problem folder has dashes in its name, so modules load by path.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIR = ROOT / "problems" / "bank" / "continuous-batching-engine"
RESULTS = ROOT / "bench" / "results" / "batching.json"
CAPACITIES = (8, 16)


# ------------------------------------------------------------------------------------ loading


@dataclass(frozen=True)
class Package:
    """The problem's modules, loaded the way the harness and the worker load them."""

    root: Path
    support: types.ModuleType
    driver: types.ModuleType
    checker: types.ModuleType
    public: list[dict[str, Any]]
    hidden: list[dict[str, Any]]


@dataclass(frozen=True)
class Graded:
    """One test's outcome for one solution."""

    name: str
    group: str
    tag: str
    hidden: bool
    verdict: str  # AC | WA | RE
    message: str
    seconds: float
    evidence: dict[str, Any] = field(default_factory=dict)


def _exec_module(name: str, path: Path) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__file__ = str(path)
    code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    exec(code, module.__dict__)  # noqa: S102 - the problem author's own code
    return module


@contextmanager
def _support_installed(module: types.ModuleType) -> Iterator[None]:
    """`import support` resolves to this package's support.py (as in the sandbox and worker)."""
    previous = sys.modules.get("support")
    sys.modules["support"] = module
    try:
        yield
    finally:
        if previous is not None:
            sys.modules["support"] = previous
        else:
            sys.modules.pop("support", None)


def load_package(root: Path = PACKAGE_DIR) -> Package:
    """Load support.py, driver.py, checker.py and the tests of the package at `root`."""
    support = _exec_module("support", root / "support.py")
    with _support_installed(support):
        driver = _exec_module("_onsite_driver", root / "driver.py")
        checker = _exec_module("checker", root / "checker.py")
    public = json.loads((root / "tests" / "public.json").read_text(encoding="utf-8"))
    hidden = json.loads((root / "tests" / "hidden.json").read_text(encoding="utf-8"))
    return Package(root, support, driver, checker, public, hidden)


def load_solution(path: Path) -> types.ModuleType:
    """A candidate-style solution module (reference.py, wrong/*.py, starter.py)."""
    return _exec_module("solution", path)


def grade(pkg: Package, solution: types.ModuleType, test: dict[str, Any],
          hidden: bool = True) -> Graded:
    """Run one test in-process: driver.run, a JSON round trip (as the harness does), check()."""
    start = time.process_time()
    # The test's group label (what the platform counts per group), else its input's group.
    group = str(test.get("group") or test["input"].get("group", "correctness"))
    try:
        output = json.loads(json.dumps(pkg.driver.run(solution, test["input"])))
    except Exception as exc:  # the candidate's exception is an RE verdict, not a crash here
        return Graded(test["name"], group, test["tag"], hidden, "RE",
                      f"{type(exc).__name__}: {exc}", time.process_time() - start)
    ok, message, evidence = pkg.checker.check(test["input"], test["expected"], output)
    return Graded(test["name"], group, test["tag"], hidden, "AC" if ok else "WA", message,
                  time.process_time() - start, evidence)


def grade_all(pkg: Package, solution: types.ModuleType, *, public: bool = True,
              hidden: bool = True, tier: str | None = None) -> list[Graded]:
    """Every test of the chosen sets, optionally only those of one model tier."""
    tests = [(t, False) for t in pkg.public if public] + [(t, True) for t in pkg.hidden if hidden]
    out = []
    for test, is_hidden in tests:
        if tier and pkg.support.model_config(test["input"])["tier"] != tier:
            continue
        out.append(grade(pkg, solution, test, is_hidden))
    return out


# ------------------------------------------------------------------------------------ measuring


def workload(capacity: int, model: dict[str, Any] | None = None,
             batches: int = 6) -> dict[str, Any]:
    """The benchmark input at one capacity: `batches` batches' worth of requests, geometric
    lengths; `model` overrides the PyTorch model's config (e.g. {"d_model": 1024, "layers": 8,
    "heads": 16} so a forward pass is not launch-bound on a big GPU)."""
    return {
        "capacity": capacity, "group": "throughput",
        "model": {"tier": "torch", "seed": 3, **(model or {})},
        "generate": {"seed": 1000 + capacity, "n": batches * capacity, "prompt_len": [3, 8],
                     "mean_tokens": 12, "max_cap": 64},
    }


def _percentile(values: list[float], p: float) -> float:
    """Nearest rank."""
    ordered = sorted(values)
    return ordered[max(0, -(-len(ordered) * p // 100) - 1)] if ordered else 0.0


def _latency(record: dict[str, Any], specs: list[Any]) -> dict[str, float]:
    """Per-request latency: steps from submission to the callback's step (inclusive), and
    seconds from the start of the submission step to the end of the callback's step."""
    ends = record.get("step_end_s") or []
    steps, seconds = [], []
    for index, step, *_rest in record["callbacks"]:
        arrival = specs[index].arrival
        steps.append(step - arrival + 1)
        if ends and step < len(ends):
            begin = ends[arrival - 1] if arrival > 0 and arrival - 1 < len(ends) else 0.0
            seconds.append(ends[step] - begin)
    return {"latency_steps_p50": _percentile(steps, 50),
            "latency_steps_p99": _percentile(steps, 99),
            "latency_s_p50": _percentile(seconds, 50), "latency_s_p99": _percentile(seconds, 99)}


def _idle_slot_steps(record: dict[str, Any], capacity: int) -> int:
    """Slot-steps that did no useful work over the run's model calls: empty slots, and the dead
    rows of finished requests that static batching keeps decoding (the driver puts those down
    to no request, -1). Continuous batching has them only in the final drain."""
    return sum(capacity - sum(1 for o in owners if o >= 0) for _step, owners in record["calls"])


def measure(pkg: Package, capacity: int, pairs: int, device: str,
            model: dict[str, Any] | None = None, batches: int = 6) -> dict[str, Any]:
    """Calls and interleaved wall-clock samples for the reference vs the static baseline, with
    the oracle's call count, idle slot-steps, request latency, peak GPU memory (CUDA) and the
    checker's verdict on one continuous run (near-tie divergences it forgave, device vs CPU)."""
    support, driver = pkg.support, pkg.driver
    reference = load_solution(pkg.root / "reference.py")
    test_input = workload(capacity, model, batches)
    config = support.model_config(test_input)
    net = support.build_model(config, device=device)
    specs = support.parse_requests(test_input)
    lengths = [s.max_tokens for s in specs]  # no stop conditions: lengths are max_tokens
    arrivals = [s.arrival for s in specs]
    ideal = support.ideal_ratio(lengths, arrivals, capacity)
    cuda = str(net.device).startswith("cuda")
    torch = None
    if cuda:
        import torch
    samples: list[dict[str, float]] = []
    calls: dict[str, int] = {}
    records: dict[str, dict[str, Any]] = {}
    peak = 0
    for pair in range(pairs + 1):  # pair 0 is the warm-up, not kept
        sample: dict[str, float] = {}
        for name, engine in (("static", driver.StaticBatchingEngine),
                             ("continuous", reference.Engine)):
            if torch is not None:
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
            record = driver.drive(engine, net, specs, capacity, timings=True)
            if torch is not None:
                torch.cuda.synchronize()
                peak = max(peak, int(torch.cuda.max_memory_allocated()))
            calls[name] = len(record["calls"])
            records[name] = record
            sample[f"{name}_wall_s"] = record["wall_s"]
        sample["ratio"] = sample["static_wall_s"] / sample["continuous_wall_s"]
        if pair:
            samples.append(sample)
    cont_record = dict(records["continuous"], device=str(net.device), baseline=None)
    output = json.loads(json.dumps(cont_record))
    base = records["static"]
    output["baseline"] = {"calls": len(base["calls"]), "steps": base["steps"],
                          "wall_s": base["wall_s"],
                          "lengths": [len(t or []) for t in _lengths_by_index(base, len(specs))]}
    ok, message, evidence = pkg.checker.check(test_input, None, output)
    ratios = [s["ratio"] for s in samples]
    tokens = sum(lengths)
    return {
        "capacity": capacity, "requests": len(specs), "tokens": tokens, "device": str(net.device),
        "model": {k: config[k] for k in ("d_model", "layers", "heads", "vocab")},
        "ideal_ratio": ideal, "static_calls": calls["static"],
        "continuous_calls": calls["continuous"],
        "oracle_calls": support.model_calls(lengths, arrivals, capacity, "continuous"),
        "calls_ratio": calls["static"] / calls["continuous"],
        "idle_slot_steps": {name: _idle_slot_steps(records[name], capacity)
                            for name in ("static", "continuous")},
        "latency": {name: _latency(records[name], specs) for name in ("static", "continuous")},
        "peak_gpu_memory_mb": round(peak / 2**20, 1) if cuda else None,
        "checker": {"ok": ok, "near_ties_forgiven": evidence.get("near_ties_forgiven", 0),
                    "message": message[:300]},
        "wall_ratio_median": statistics.median(ratios), "wall_ratio_min": min(ratios),
        "wall_ratio_max": max(ratios),
        "continuous_tokens_per_s_median": statistics.median(
            tokens / s["continuous_wall_s"] for s in samples),
        "static_tokens_per_s_median": statistics.median(
            tokens / s["static_wall_s"] for s in samples),
        "samples": samples,
    }


def _lengths_by_index(record: dict[str, Any], n: int) -> list[list[int] | None]:
    out: list[list[int] | None] = [None] * n
    for index, _step, tokens, *_rest in record["callbacks"]:
        out[index] = tokens
    return out


def summary_lines(figures: list[dict[str, Any]]) -> list[str]:
    """One line per figure; the last one is the headline (largest B, model-call ratio)."""
    lines = []
    for fig in figures:
        b = fig["capacity"]
        lat = fig["latency"]["continuous"]
        lines.append(f"B={b} model calls: static {fig['static_calls']} / continuous "
                     f"{fig['continuous_calls']} (oracle {fig['oracle_calls']}) = "
                     f"{fig['calls_ratio']:.2f}x (ideal {fig['ideal_ratio']:.2f}x for these "
                     f"{fig['requests']} lengths); idle slot-steps static "
                     f"{fig['idle_slot_steps']['static']}, continuous "
                     f"{fig['idle_slot_steps']['continuous']}")
        lines.append(f"B={b} wall-clock tokens/s on {fig['device']}: continuous/static "
                     f"median {fig['wall_ratio_median']:.2f}x (min {fig['wall_ratio_min']:.2f}, "
                     f"max {fig['wall_ratio_max']:.2f}; {len(fig['samples'])} interleaved pairs; "
                     f"{fig['continuous_tokens_per_s_median']:.0f} vs "
                     f"{fig['static_tokens_per_s_median']:.0f} tokens/s); continuous latency "
                     f"p50 {lat['latency_steps_p50']:.0f} / p99 {lat['latency_steps_p99']:.0f} "
                     f"steps; checker {'ok' if fig['checker']['ok'] else 'FAILED'}, "
                     f"{fig['checker']['near_ties_forgiven']} near-tie(s) forgiven"
                     + (f"; peak GPU memory {fig['peak_gpu_memory_mb']} MB"
                        if fig["peak_gpu_memory_mb"] is not None else ""))
    top = figures[-1]
    lines.append(f"headline: continuous batching makes {top['calls_ratio']:.2f}x fewer model "
                 f"calls than static at B={top['capacity']} (ideal {top['ideal_ratio']:.2f}x), "
                 f"{top['wall_ratio_median']:.2f}x the tokens/s")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Measure, write bench/results/batching.json (or --out), print the summary lines."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=10, help="timed pairs after the warm-up")
    parser.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args([] if argv is None else argv)
    import torch

    if args.device == "cpu":
        torch.set_num_threads(1)  # a shared 2-core box: one thread is the stable choice
    pkg = load_package()
    figures = [measure(pkg, b, max(args.pairs, 1), args.device) for b in CAPACITIES]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    report = {"benchmark": "continuous-vs-static-batching", "torch": torch.__version__,
              "figures": figures}
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    for line in summary_lines(figures):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
