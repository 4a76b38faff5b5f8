"""The prepared GPU check (platform/gpu/run_suite.py), run here on the CPU: one command, no
Docker, no Django, a JSON report with verdicts and throughput ratios at B = 8 and 16."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def test_gpu_suite_script_reports_verdicts_and_ratios_on_the_cpu(tmp_path: Path) -> None:
    out = tmp_path / "gpu_suite.json"
    done = subprocess.run(
        [
            sys.executable,
            "platform/gpu/run_suite.py",
            "--device",
            "cpu",
            "--pairs",
            "1",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    report = json.loads(out.read_text())
    assert report["ok"] is True
    engines = report["engines"]
    assert engines["reference.py"]["verdict"] == "AC"
    assert engines["wrong/static_batching.py"]["groups"]["work_conservation"] == "WA"
    assert engines["wrong/leaky_refill.py"]["verdict"] == "WA"
    ratios = {entry["capacity"]: entry for entry in report["throughput"]}
    assert set(ratios) == {8, 16}
    for entry in ratios.values():
        assert entry["calls_ratio"] >= 0.7 * entry["ideal_ratio"]
