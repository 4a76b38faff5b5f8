"""Limits have a form of their own (issue 34.5): it posts the limits and its base alone, so it
saves whatever the number and size of the tests; the JSON form is not offered for tests too big
to post, and a post over the site's upload limit is told why, never a bare 400."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.contrib.auth.models import User

from problems.models import Problem, ProblemVersion
from studio.services.revisions import version_revision
from tests.factories import client_for

pytestmark = pytest.mark.django_db


def big_tests(problem: Problem, count: int = 3) -> None:
    """Hidden tests of about 6.5 MB together, as the reported problem had."""
    version = problem.versions.get()
    big = [
        {
            "name": f"big {i}",
            "input": {"args": [i]},
            "expected": "x" * 2_200_000,
            "tag": "performance",
        }
        for i in range(count)
    ]
    ProblemVersion.objects.filter(pk=version.pk).update(hidden_tests=[*version.hidden_tests, *big])


def test_limits_save_alone_whatever_the_size_of_the_tests(problem: Problem, writer: User) -> None:
    big_tests(problem)
    v1 = problem.versions.get()
    assert len(json.dumps(v1.hidden_tests)) > 6_000_000
    client = client_for(writer)
    page = client.get("/studio/add-one/").content.decode()
    # the limits form carries the limits and its base, the tests nowhere
    form = page[page.index('id="limits-form"') :]
    form = form[: form.index("</form>")]
    assert 'name="memory_mb"' in form and 'name="base" value="1.0"' in form
    assert "big 0" not in form and 'name="hidden_tests"' not in form
    # tests too big to post in one form are not offered as one
    assert 'id="tests-too-big"' in page and 'id="tests-form"' not in page
    response = client.post(
        "/studio/add-one/limits/",
        dict(v1.limits) | {"memory_mb": 512, "base": version_revision(v1).token},
    )
    assert response.status_code == 302 and response["Location"].endswith("#limits")
    v2 = problem.versions.order_by("-number").first()
    assert v2 is not None and v2.number == 2
    assert v2.limits["memory_mb"] == 512 and v2.hidden_tests == v1.hidden_tests


def test_a_post_over_the_upload_limit_says_why_never_a_bare_400(
    problem: Problem, writer: User
) -> None:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    huge = json.dumps(
        [{"name": "h", "input": {}, "expected": "x" * (limit + 10), "tag": "edge_cases"}]
    )
    response = client_for(writer).post(
        "/studio/add-one/tests/", {"public_tests": "[]", "hidden_tests": huge, "base": "1.0"}
    )
    assert response.status_code == 413
    page = response.content.decode()
    assert "Not saved: what you sent is too large" in page
    assert f"over the 2.5\xa0MB ({limit} bytes) one form may send" in page
    assert "save the limits with their own form" in page
    assert 'href="/studio/add-one/"' in page
    assert problem.versions.count() == 1
