"""The prepared GPU check (platform/gpu/run_suite.py), run here on the CPU with small sizes: one
command, no Docker, no Django; a JSON report with each engine's verdict against what
problem.toml expects, and per-B figures (model calls static / continuous / oracle, interleaved
tokens/s pairs, idle slot-steps, latency percentiles, the checker's verdict and near-ties)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "platform" / "gpu" / "run_suite.py"

pytestmark = pytest.mark.slow


def _run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    out = tmp_path / "gpu_suite.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--device", "cpu", "--out", str(out), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    report = json.loads(out.read_text()) if out.exists() else {}
    return done, report


def test_gpu_suite_script_reports_verdicts_and_figures_on_the_cpu(tmp_path: Path) -> None:
    engines = ",".join(
        ["reference.py", "alternatives/numpy_engine.py", "wrong/static_batching.py",
         "wrong/lifo_admission.py"]
    )  # fmt: skip
    done, report = _run(
        tmp_path,
        "--pairs", "2",
        "--capacities", "1,4",
        "--batches", "2",
        "--d-model", "32",
        "--layers", "1",
        "--heads", "2",
        "--engines", engines,
    )  # fmt: skip

    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    summary = report["summary"]
    assert summary["ok"] is True
    assert summary["environment"]["device"] == "cpu"
    assert summary["environment"]["torch"] and "cuda" in summary["environment"]
    assert summary["model"] == {"d_model": 32, "layers": 1, "heads": 2}
    assert {name: e["as_expected"] for name, e in summary["engines"].items()} == dict.fromkeys(
        engines.split(","), True
    )
    assert report["engines"]["reference.py"]["verdict"] == "AC"
    assert report["engines"]["wrong/lifo_admission.py"]["groups"]["random schedules"] == "WA"
    figures = {f["B"]: f for f in summary["throughput"]}
    assert set(figures) == {1, 4}
    for fig in figures.values():
        assert fig["calls_continuous"] == fig["calls_oracle"]
        assert fig["pairs"] == 2 and len(fig["wall_ratio"]) == 3
        assert fig["checker_ok"] is True and fig["near_ties_forgiven"] >= 0
        assert fig["peak_gpu_memory_mb"] is None  # no CUDA here
        assert fig["latency_steps_p50_p99"][0] <= fig["latency_steps_p50_p99"][1]
    # B = 1: static and continuous are the same schedule; at B = 4 static needs more calls and
    # keeps decoding dead rows (idle slot-steps).
    assert figures[1]["calls_static"] == figures[1]["calls_continuous"]
    assert figures[4]["calls_static"] > figures[4]["calls_continuous"]
    assert figures[4]["idle_slot_steps"]["static"] > figures[4]["idle_slot_steps"]["continuous"]


def test_every_bank_engine_is_in_the_gpu_suite() -> None:
    sys.path.insert(0, str(SCRIPT.parent))
    import run_suite

    listed = run_suite.engines()
    package = SCRIPT.parents[2] / "problems" / "bank" / "continuous-batching-engine"
    on_disk = {f"wrong/{p.name}" for p in (package / "wrong").glob("*.py")}
    on_disk |= {f"alternatives/{p.name}" for p in (package / "alternatives").glob("*.py")}

    assert set(listed) == on_disk | {"reference.py"}
    assert all(listed[f]["groups"] for f in listed if f.startswith("wrong/"))
