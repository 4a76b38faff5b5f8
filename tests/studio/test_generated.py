"""Big and generated tests (issue 28.4): a generator (template with its parameters, and seed)
is stored with its test, written to the exported package and read back by import, and re-run
to rebuild its tests; the expected output is refilled from the validated reference."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from problems.models import Problem, ProblemVersion
from problems.package import PackageError, package_read, package_write
from problems.services import problem_to_package
from studio.generators import input_generate
from tests.factories import client_for
from tests.studio.versions import mark_validated

pytestmark = pytest.mark.django_db

TEMPLATE = {"args": ["$ints(50, 0, 9)"]}
SUM = "def solve(xs):\n    return sum(xs)\n"


def _newest(problem: Problem) -> Any:
    return problem.versions.order_by("-number")[0]


def _add(writer: User, **changes: str) -> Any:
    data = {"name": "many", "visibility": "hidden", "tag": "performance", "compare": "",
            "input": json.dumps(TEMPLATE), "generate": "on", "seed": "7",
            "expected": "1"} | changes  # fmt: skip
    return client_for(writer).post("/studio/add-one/test/", data)


def test_the_generator_is_stored_exported_and_read_back(
    problem: Problem, writer: User, tmp_path: Path
) -> None:
    assert _add(writer).status_code == 302
    version = _newest(problem)
    test = version.hidden_tests[-1]
    assert test["generator"] == {"template": TEMPLATE, "seed": 7}
    assert test["input"] == input_generate(TEMPLATE, seed=7)
    # the edit form shows the template and its seed, not the expansion
    page = client_for(writer).get(f"/studio/add-one/?edit=hidden:{len(version.hidden_tests) - 1}")
    form = page.context["test_form"]
    assert json.loads(form.initial["input"]) == TEMPLATE and form.initial["seed"] == 7
    assert form.initial["generate"] is True
    # exported in tests/hidden.json and read back by import
    folder = package_write(problem_to_package(problem=problem, version=version), tmp_path)
    stored = json.loads((folder / "tests" / "hidden.json").read_text())
    assert stored[-1]["generator"] == {"template": TEMPLATE, "seed": 7}
    again = package_read(folder)
    assert again.hidden_tests[-1].generator == {"template": TEMPLATE, "seed": 7}


def test_a_malformed_generator_is_refused_by_the_package_reader(
    problem: Problem, tmp_path: Path
) -> None:
    folder = package_write(problem_to_package(problem=problem), tmp_path)
    hidden = json.loads((folder / "tests" / "hidden.json").read_text())
    hidden[0]["generator"] = {"template": TEMPLATE, "seed": "seven"}
    (folder / "tests" / "hidden.json").write_text(json.dumps(hidden))
    with pytest.raises(PackageError, match=r"\[0\]\.generator"):
        package_read(folder)


@pytest.mark.docker
def test_rebuilding_reruns_the_generators_and_refills_expected(
    problem: Problem, writer: User
) -> None:
    ProblemVersion.objects.filter(problem=problem).update(reference_code=SUM)
    mark_validated(_newest(problem))
    assert _add(writer, expected="", fill_expected="on").status_code == 302
    version = _newest(problem)
    assert version.hidden_tests[-1]["expected"] == sum(input_generate(TEMPLATE, seed=7)["args"][0])
    # an author changes the seed in the stored package; a rebuild makes the tests agree again
    hidden = [dict(t) for t in version.hidden_tests]
    hidden[-1]["generator"] = {"template": TEMPLATE, "seed": 8}
    ProblemVersion.objects.filter(pk=version.pk).update(hidden_tests=hidden)
    mark_validated(_newest(problem))
    client = client_for(writer)
    assert 'id="rebuild-button"' in client.get("/studio/add-one/").content.decode()
    assert client.post("/studio/add-one/tests/rebuild/").status_code == 302
    rebuilt = _newest(problem)
    assert rebuilt.number == version.number + 1
    assert rebuilt.hidden_tests[-1]["input"] == input_generate(TEMPLATE, seed=8)
    assert rebuilt.hidden_tests[-1]["expected"] == sum(input_generate(TEMPLATE, seed=8)["args"][0])
