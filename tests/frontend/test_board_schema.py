"""The board schema's two implementations agree: frontend/js/board/schema.js, run by node
(tests/frontend/js/board_schema.mjs), gives every shared vector of
tests/fixtures/board_elements.json the problem the fixture records (what
interviews/boardschema.py gives, tests/interviews/test_boardschema.py), and gives random values
(Hypothesis: valid elements with fields replaced by junk, and junk) the same answer as the
Python schema, word for word; and those values, written into a board through Yjs with the
real binding, never crash a page."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from interviews import boardschema
from tests import boardvectors

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"
SCRIPT = Path(__file__).resolve().parent / "js" / "board_schema.mjs"


def node(mode: str, path: Path) -> Any:
    if shutil.which("node") is None:
        pytest.skip("node is needed")
    done = subprocess.run(
        ["node", str(SCRIPT), str(FRONTEND), mode, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_js_schema_gives_every_shared_vector_its_recorded_answer() -> None:
    data = boardvectors.load()
    answers = node("cases", boardvectors.FIXTURE)
    expected = [case["problem"] for case in data["cases"]]
    wrong = [
        (case["name"], got)
        for case, got in zip(data["cases"], answers, strict=True)
        if got != case["problem"]
    ]
    assert wrong == [] and answers == expected


def test_the_js_and_python_schemas_agree_on_random_values(tmp_path: Path) -> None:
    values: list[tuple[str, Any]] = []

    @settings(
        max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
    )
    @given(boardvectors.board_values())
    def collect(item: tuple[str, Any]) -> None:
        values.append(item)

    collect()
    path = tmp_path / "values.json"
    # Python's own JSON keeps integers exact (a huge one stays huge in both); NaN is encoded.
    path.write_text(json.dumps([[key, boardvectors.encode(value)] for key, value in values]))
    found = node("values", path)
    answers = found["problems"]
    python = [boardschema.element_problem(value, key) for key, value in values]
    disagree = [
        (values[i], python[i], answers[i]) for i in range(len(values)) if python[i] != answers[i]
    ]
    assert disagree == [], disagree[:3]
    assert any(a is None for a in answers) and any(a is not None for a in answers)
    # Written into a board one update each, with the real binding on a stand-in that throws
    # where Excalidraw throws: no page crashes, and the scene holds only valid elements.
    assert found["crashed"] is None and found["sceneValid"] is True, found
    assert found["drawn"] > 0 and found["skipped"] > 0
