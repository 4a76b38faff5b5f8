"""The continuous-batching-engine PyTorch tier on a GPU, in-process, in one command.

    python3 platform/gpu/run_suite.py --out /tmp/gpu_suite.json [--device auto|cuda|cpu]
        [--pairs 10] [--capacities 1,4,8,16,32,64] [--d-model 1024 --layers 8 --heads 16]
        [--engines reference.py,wrong/leaky_refill.py]

No network, Docker or Django: it loads the problem package by path (bench/batching.py) and

1. runs the hidden suite (all PyTorch tier) through driver.py (the model on CUDA when
   available, else the CPU; --device forces one) and checker.py (whose reference decode always
   runs on the CPU, as in the worker) for every bank engine: the reference, the correct
   alternatives (alternatives/*.py) and every [[wrong]] engine of problem.toml, each of which
   must get its declared verdict and fail the groups listed there; near-tie divergences the
   checker forgave (device vs CPU float rounding) are counted;
2. measures the reference against the driver's static-batching baseline at each B: model calls
   static / continuous / oracle, tokens/s as >= --pairs interleaved pairs (median, min-max),
   idle slot-steps, p50/p99 request latency (steps and seconds), peak GPU memory (CUDA), and
   the checker's verdict on a measured run. --d-model/--layers/--heads size the model for these
   figures (d_model 1024 x 8 layers is large enough that a forward pass is not launch-bound on
   an H200; the suite itself always uses the tests' own small model).

Writes a JSON report to --out (a compact "summary" first, then everything with raw samples) and
prints one line per engine and per figure; exits 1 if any engine is not as expected.
"""

from __future__ import annotations

import argparse
import json
import os
import platform as host
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "problems" / "bank" / "continuous-batching-engine"
PRIORITY = ("IE", "TLE", "MLE", "OLE", "RE", "WA", "AC")
CAPACITIES = (1, 4, 8, 16, 32, 64)


def engines() -> dict[str, dict[str, Any]]:
    """Every bank engine -> what it must get: the reference and the alternatives AC; each
    [[wrong]] engine its declared verdict, failing at least the groups problem.toml lists."""
    meta = tomllib.loads((PACKAGE / "problem.toml").read_text(encoding="utf-8"))
    out: dict[str, dict[str, Any]] = {"reference.py": {"verdict": "AC", "groups": []}}
    for path in sorted((PACKAGE / "alternatives").glob("*.py")):
        out[f"alternatives/{path.name}"] = {"verdict": "AC", "groups": []}
    for wrong in meta["wrong"]:
        out[wrong["file"]] = {"verdict": wrong["verdict"], "groups": list(wrong["groups"])}
    return out


def _device(choice: str) -> str:
    import torch

    if choice == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if choice == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda: torch sees no GPU")
    return choice


def _environment(device: str) -> dict[str, Any]:
    import torch

    env: dict[str, Any] = {"device": device, "torch": torch.__version__,
                           "cuda": torch.version.cuda, "python": host.python_version()}
    if device.startswith("cuda"):
        env["gpu"] = torch.cuda.get_device_name(0)
        env["gpu_memory_gb"] = round(torch.cuda.get_device_properties(0).total_memory / 2**30, 1)
    return env


def _suite(pkg: Any, engine_file: str) -> dict[str, Any]:
    """Every hidden test for one engine: per-test and per-group verdicts."""
    from bench.batching import grade_all, load_solution

    start = time.perf_counter()
    results = grade_all(pkg, load_solution(pkg.root / engine_file), public=False, tier="torch")
    groups: dict[str, str] = {}
    for r in results:
        groups[r.group] = min(groups.get(r.group, "AC"), r.verdict, key=PRIORITY.index)
    return {
        "verdict": min((r.verdict for r in results), key=PRIORITY.index, default="IE"),
        "groups": groups,
        "near_ties_forgiven": sum(int(r.evidence.get("near_ties_forgiven", 0)) for r in results),
        "tests": [{"name": r.name, "group": r.group, "verdict": r.verdict,
                   "cpu_s": round(r.seconds, 3), "message": r.message[:300]} for r in results],
        "wall_s": round(time.perf_counter() - start, 2),
    }


def _summary(report: dict[str, Any]) -> dict[str, Any]:
    """The compact part of the report (what platform/gpu/README.md quotes)."""
    figures = []
    for fig in report["throughput"]:
        lat = fig["latency"]["continuous"]
        figures.append({
            "B": fig["capacity"], "calls_static": fig["static_calls"],
            "calls_continuous": fig["continuous_calls"], "calls_oracle": fig["oracle_calls"],
            "tokens_per_s_continuous": round(fig["continuous_tokens_per_s_median"]),
            "tokens_per_s_static": round(fig["static_tokens_per_s_median"]),
            "wall_ratio": [round(fig["wall_ratio_median"], 2), round(fig["wall_ratio_min"], 2),
                           round(fig["wall_ratio_max"], 2)],
            "pairs": len(fig["samples"]),
            "idle_slot_steps": fig["idle_slot_steps"],
            "latency_steps_p50_p99": [lat["latency_steps_p50"], lat["latency_steps_p99"]],
            "latency_s_p50_p99": [round(lat["latency_s_p50"], 4), round(lat["latency_s_p99"], 4)],
            "peak_gpu_memory_mb": fig["peak_gpu_memory_mb"],
            "checker_ok": fig["checker"]["ok"],
            "near_ties_forgiven": fig["checker"]["near_ties_forgiven"],
        })
    return {
        "environment": report["environment"], "model": report["model"], "ok": report["ok"],
        "engines": {name: {"verdict": e["verdict"], "as_expected": e["as_expected"],
                           "near_ties_forgiven": e["near_ties_forgiven"]}
                    for name, e in report["engines"].items()},
        "throughput": figures,
    }


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="where to write the JSON report")
    parser.add_argument("--device", choices=("auto", "cuda", "cpu"), default="auto")
    parser.add_argument("--pairs", type=int, default=10, help="interleaved timing pairs per B")
    parser.add_argument("--capacities", default=",".join(map(str, CAPACITIES)),
                        help="comma-separated batch sizes for the throughput figures")
    parser.add_argument("--d-model", type=int, default=None, help="model width for the figures")
    parser.add_argument("--layers", type=int, default=None, help="model depth for the figures")
    parser.add_argument("--heads", type=int, default=None, help="attention heads (divide d_model)")
    parser.add_argument("--batches", type=int, default=6, help="batches' worth of requests per B")
    parser.add_argument("--engines", default="", help="comma-separated engine files (default all)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from bench.batching import load_package, measure, summary_lines

    device = _device(args.device)
    os.environ["ONSITE_MODEL_DEVICE"] = device  # the driver builds its model on this device
    if device == "cpu":
        import torch

        torch.set_num_threads(1)  # as in the sandbox: one thread, no OpenMP contention
    model = {k: v for k, v in (("d_model", args.d_model), ("layers", args.layers),
                               ("heads", args.heads)) if v is not None}
    if "d_model" in model and "heads" not in model:
        model["heads"] = max(1, model["d_model"] // 64)
    pkg = load_package()
    expected = engines()
    chosen = [e for e in args.engines.split(",") if e] or list(expected)
    report: dict[str, Any] = {"environment": _environment(device), "model": model or "tests'",
                              "engines": {}}
    ok = True
    for engine_file in chosen:
        want = expected[engine_file]
        suite = _suite(pkg, engine_file)
        failed = {g for g, v in suite["groups"].items() if v != "AC"}
        passed = suite["verdict"] == want["verdict"] and set(want["groups"]) <= failed
        suite["expected"] = want
        suite["as_expected"] = passed
        report["engines"][engine_file] = suite
        ok &= passed
        print(f"{engine_file}: {suite['verdict']} (failed {sorted(failed)}; "
              f"{'as expected' if passed else 'NOT as expected'}; "
              f"{suite['near_ties_forgiven']} near-tie(s) forgiven; {suite['wall_s']} s)")
    capacities = [int(b) for b in args.capacities.split(",") if b]
    figures = [measure(pkg, b, max(args.pairs, 1), device, model or None, args.batches)
               for b in capacities]
    report["throughput"] = figures
    report["ok"] = ok and all(f["checker"]["ok"] for f in figures)
    full = {"summary": _summary(report), **report}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(full, indent=1) + "\n", encoding="utf-8")
    for line in summary_lines(figures):
        print(line)
    print(json.dumps(full["summary"]))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
