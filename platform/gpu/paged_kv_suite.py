"""The paged-kv-engine PyTorch tier on a GPU, in-process, in one command.

    python3 platform/gpu/paged_kv_suite.py --out /tmp/paged_kv_suite.json [--device auto|cuda|cpu]

No network, Docker or Django: it loads the problem package by path (bench/paged_kv.py), runs
the hidden suite's PyTorch-tier tests through driver.py (the model and its KV pool on CUDA when
available, else the CPU; --device forces one) and checker.py (whose reference decode always
runs on the CPU, as in the worker) for the reference engine and three known-wrong engines, then
measures the paged engine against the stateless recompute engine at B = 8 and 16 (or
--capacities): tokens/s, interleaved, and the KV memory the paged engine used.

Writes a JSON report to --out and prints a short summary; exits 1 if the reference fails a test
or a wrong engine passes every test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform as host
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ENGINES = (
    "reference.py",
    "wrong/stale_block_after_preemption.py",
    "wrong/wrong_victim.py",
    "wrong/prefill_over_budget.py",
)
PRIORITY = ("IE", "TLE", "MLE", "OLE", "RE", "WA", "AC")


def _device(choice: str) -> str:
    import torch

    if choice == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if choice == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda: torch sees no GPU")
    return choice


def _environment(device: str) -> dict[str, Any]:
    import torch

    env: dict[str, Any] = {
        "device": device,
        "torch": torch.__version__,
        "python": host.python_version(),
    }
    if device == "cuda":
        env["gpu"] = torch.cuda.get_device_name(0)
        env["cuda"] = torch.version.cuda
    return env


def _suite(pkg: Any, engine_file: str) -> dict[str, Any]:
    """Every PyTorch-tier hidden test for one engine: per-test and per-group verdicts."""
    from bench.batching import grade_all, load_solution

    start = time.perf_counter()
    results = grade_all(pkg, load_solution(pkg.root / engine_file), public=False, tier="torch")
    groups: dict[str, str] = {}
    for r in results:
        groups[r.group] = min(groups.get(r.group, "AC"), r.verdict, key=PRIORITY.index)
    return {
        "verdict": min((r.verdict for r in results), key=PRIORITY.index, default="IE"),
        "groups": groups,
        "tests": [
            {
                "name": r.name,
                "group": r.group,
                "verdict": r.verdict,
                "cpu_s": round(r.seconds, 3),
                "message": r.message[:300],
            }
            for r in results
        ],
        "wall_s": round(time.perf_counter() - start, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="where to write the JSON report")
    parser.add_argument("--device", choices=("auto", "cuda", "cpu"), default="auto")
    parser.add_argument("--pairs", type=int, default=5, help="interleaved timing pairs per B")
    parser.add_argument("--capacities", type=int, nargs="+", default=[8, 16])
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from bench.paged_kv import measure, package, summary_lines

    device = _device(args.device)
    os.environ["ONSITE_MODEL_DEVICE"] = device  # the driver builds its model on this device
    if device == "cpu":
        import torch

        torch.set_num_threads(1)
    pkg = package()
    report: dict[str, Any] = {"environment": _environment(device), "engines": {}}
    ok = True
    for engine_file in ENGINES:
        suite = _suite(pkg, engine_file)
        report["engines"][engine_file] = suite
        expected = (
            suite["verdict"] == "AC" if engine_file == "reference.py" else suite["verdict"] != "AC"
        )
        suite["as_expected"] = expected
        ok &= expected
        print(
            f"{engine_file}: {suite['verdict']} groups {suite['groups']} "
            f"({'as expected' if expected else 'NOT as expected'}; {suite['wall_s']} s)"
        )
    figures = [measure(pkg, b, max(args.pairs, 1), device) for b in args.capacities]
    report["throughput"] = figures
    report["ok"] = ok
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    for line in summary_lines(figures):
        print(line)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
