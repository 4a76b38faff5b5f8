"""A minimal valid problem package on disk for the package tests, and the bank's folder."""

from __future__ import annotations

import json
from pathlib import Path

BANK = Path(__file__).resolve().parents[2] / "problems" / "bank"


TOML = """
slug = "tiny"
title = "Tiny"
difficulty = "easy"
hints = ["one", "two"]

[grading]
driver = "function"
entry = "solve"
compare = "exact"

[[wrong]]
file = "wrong/off_by_one.py"
verdict = "WA"
why = "adds two"
groups = ["small"]
says = "expected"

[[clarification]]
question = "Negative numbers?"
answer = "Yes."
key = true

[[rubric]]
criterion = "correctness"
weight = 2
strong = "adds one"
levels = ["a", "b", "c", "d"]
"""


def make_package(root: Path) -> Path:
    folder = root / "tiny"
    (folder / "tests").mkdir(parents=True)
    (folder / "wrong").mkdir()
    (folder / "problem.toml").write_text(TOML)
    (folder / "statement.md").write_text("# Tiny\nReturn x + 1.")
    (folder / "starter.py").write_text("def solve(x):\n    raise NotImplementedError\n")
    (folder / "reference.py").write_text("def solve(x):\n    return x + 1\n")
    (folder / "wrong" / "off_by_one.py").write_text("def solve(x):\n    return x + 2\n")
    public = [{"name": f"p{i}", "input": {"args": [i]}, "expected": i + 1} for i in range(3)]
    hidden = [
        {"name": f"h{i}", "input": {"args": [i]}, "expected": i + 1, "tag": "edge_cases"}
        for i in range(2)
    ]
    (folder / "tests" / "public.json").write_text(json.dumps(public))
    (folder / "tests" / "hidden.json").write_text(json.dumps(hidden))
    return folder
