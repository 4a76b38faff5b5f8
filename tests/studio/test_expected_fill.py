"""Expected outputs need only the reference (issue 34.6): filling them asks that the reference
passes the tests (its check in a validation, whatever the known-wrong solutions got there: a
declared-TLE one cannot get its TLE before the big tests exist; else the reference graded alone
on them), and that it passes the test being filled within the limits; a refusal names the limit
it hit."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from grading.sandboxing import sandbox_limits
from problems.models import Problem, ProblemVersion
from studio.services.testcases import limit_refusal
from tests.factories import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(writer: User) -> Client:
    return client_for(writer)


def newest(problem: Problem) -> Any:
    return problem.versions.order_by("-number").first()


def check(role: str, name: str, status: str, message: str) -> dict[str, Any]:
    return {"role": role, "name": name, "status": status, "message": message}


def validated(version: ProblemVersion, *, reference: str) -> None:
    """A finished validation as the report stores it: the reference's check, and a declared
    TLE wrong solution that got AC (its big tests do not exist yet)."""
    ProblemVersion.objects.filter(pk=version.pk).update(
        validation="failed",
        validation_report={
            "checks": [
                check("reference", "reference.py", reference, "passes every test"),
                check("starter", "starter.py", "pass", "does not pass (WA)"),
                check("wrong", "wrong/quadratic.py", "fail", "declared TLE, got AC"),
            ],
            "passed": False,
        },
    )


def fill(client: Client, name: str, args: str) -> Any:
    return client.post(
        "/studio/add-one/test/",
        {
            "name": name,
            "visibility": "hidden",
            "tag": "performance",
            "group": "",
            "compare": "",
            "input": f'{{"args": [{args}]}}',
            "expected": "",
            "fill_expected": "on",
        },
    )


@pytest.mark.docker
def test_a_reference_that_fails_the_tests_writes_no_expected_output(
    problem: Problem, client: Client
) -> None:
    ProblemVersion.objects.filter(problem=problem).update(
        reference_code="def solve(x):\n    return x + 2\n"
    )
    validated(newest(problem), reference="fail")
    refused = fill(client, "big 1", "41")
    assert refused.status_code == 400 and problem.versions.count() == 1
    assert "the reference of v1 gets WA on test &#x27;public 0&#x27;" in refused.content.decode()


@pytest.mark.docker
def test_without_a_validation_the_reference_alone_is_checked_on_the_tests(
    problem: Problem, client: Client
) -> None:
    """No validation at all (no wrong solution run): the reference graded alone on the tests
    is enough; the test being edited is not one it must pass (its output is refilled)."""
    response = fill(client, "big 1", "41")
    assert response.status_code == 302, response.content.decode()[-2000:]
    assert newest(problem).hidden_tests[-1]["expected"] == 42
    index = str(len(newest(problem).hidden_tests) - 1)
    edit = {
        "name": "big 1",
        "visibility": "hidden",
        "tag": "performance",
        "group": "",
        "compare": "",
        "input": '{"args": [41]}',
        "where": "hidden",
        "index": index,
    }
    assert client.post("/studio/add-one/test/", edit | {"expected": "0"}).status_code == 302
    assert newest(problem).hidden_tests[-1]["expected"] == 0  # a wrong output, by hand
    refilled = client.post("/studio/add-one/test/", edit | {"expected": "", "fill_expected": "on"})
    assert refilled.status_code == 302, refilled.content.decode()[-2000:]
    assert newest(problem).hidden_tests[-1]["expected"] == 42


@pytest.mark.docker
def test_a_failed_validation_whose_reference_passed_fills_expected_outputs(
    problem: Problem, client: Client
) -> None:
    """The reported block: a declared-TLE wrong solution fails validation until the big tests
    exist, and the big tests' expected outputs needed a passed validation."""
    validated(newest(problem), reference="pass")
    response = fill(client, "big 1", "41")
    assert response.status_code == 302, response.content.decode()[-2000:]
    assert newest(problem).hidden_tests[-1] == {
        "name": "big 1",
        "input": {"args": [41]},
        "expected": 42,
        "tag": "performance",
    }


@pytest.mark.docker
def test_an_output_over_a_limit_is_refused_naming_the_limit(
    problem: Problem, client: Client
) -> None:
    ProblemVersion.objects.filter(problem=problem).update(
        reference_code=(
            "def solve(x):\n    if x < 0:\n        print('y' * 100_000)\n        return 0\n"
            "    return 'x' * x\n"
        )
    )
    validated(newest(problem), reference="pass")
    # 1.4 MB returned: over the sandbox's result limit, which every solution has
    big = fill(client, "big 3", "1400000").content.decode()
    assert (
        "the reference&#x27;s output on test &#x27;big 3&#x27; is over the result limit "
        "of 1 MB (1048576 bytes)"
    ) in big
    # printed past the problem's output limit
    loud = fill(client, "loud", "-1").content.decode()
    assert (
        "the reference printed more than the output limit of 64 KB (65536 bytes of stdout "
        "and stderr) on test &#x27;loud&#x27; (limits: output_bytes)"
    ) in loud
    assert problem.versions.count() == 1


@pytest.mark.parametrize(
    ("status", "error", "says"),
    [
        ("output", "result exceeded the result cap", "over the result limit of 1 MB"),
        ("output", "stdout/stderr exceeded 65536 bytes", "(limits: output_bytes)"),
        (
            "cpu",
            "CPU time limit of 2 s exceeded",
            "CPU time limit of 2 s on test 'big 3' (limits: test_cpu_seconds)",
        ),
        ("timeout", "wall time limit", "wall time limit of"),
        (
            "memory",
            "memory limit exceeded",
            "memory limit of 256 MB on test 'big 3' (limits: memory_mb)",
        ),
    ],
)
def test_each_refusal_names_its_limit(status: str, error: str, says: str) -> None:
    limits = sandbox_limits({})
    outcome = SimpleNamespace(status=status, error=error)
    assert says in limit_refusal(outcome, limits, "big 3")
