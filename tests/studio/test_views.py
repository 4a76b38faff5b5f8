"""The authoring studio through Django's test client, for each role: candidates and
interviewers are refused, authors and admins work. Nothing here grades (see test_validation and
test_versions for that): reports and regrades are stored directly."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from grading.models import Submission
from problems.models import Problem, ProblemVersion
from studio.models import Regrade, RegradeItem
from tests.factories import ADD_ONE, client_for, user_with_role
from tests.studio.versions import mark_validated

pytestmark = pytest.mark.django_db

STATEMENT = """# Add one

Return `x + 1`.

```python
def solve(x):
    return x + 1
```

<script>alert("x")</script>
<a href="javascript:alert(1)">click</a>
"""


def edit_data(problem: Problem, **changes: Any) -> dict[str, Any]:
    live = problem.live_version
    assert live is not None
    data = {
        "public_tests": json.dumps(live.public_tests),
        "hidden_tests": json.dumps(live.hidden_tests),
        **live.limits,
    }
    return data | changes


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


# ---------------------------------------------------------------- who gets in


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/studio/"),
        ("get", "/studio/add-one/"),
        ("get", "/studio/add-one/v1/"),
        ("get", "/studio/add-one/v1/panel/"),
        ("post", "/studio/add-one/statement/preview/"),
        ("post", "/studio/add-one/tests/"),
        ("post", "/studio/add-one/v1/validate/"),
        ("post", "/studio/add-one/v1/live/"),
        ("post", "/studio/add-one/publish/"),
    ],
)
def test_only_authors_and_admins_get_in(problem: Problem, method: str, path: str) -> None:
    anonymous = getattr(Client(), method)(path)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
    for role in ("candidate", "interviewer"):
        response = getattr(client_for(user_with_role(role, role)), method)(path)
        assert response.status_code == 403, role
    problem.refresh_from_db()
    assert not problem.published and problem.versions.count() == 1


def test_authors_and_admins_see_every_problem_with_versions_and_states(
    problem: Problem, author: Client
) -> None:
    version = ProblemVersion.objects.get(number=1)
    mark_validated(version)
    ProblemVersion.objects.create(
        **{
            f.name: getattr(version, f.name)
            for f in ProblemVersion._meta.concrete_fields
            if f.name not in ("id", "number", "validation", "validation_report")
        },
        number=2,
    )
    admin = client_for(user_with_role("root", admin=True))
    for client in (author, admin):
        html = client.get("/studio/").content.decode()
        assert 'href="/studio/add-one/"' in html
        assert re.search(r"v1 <span class=\"state state-passed\"", html)
        assert re.search(r"v2 <span class=\"state state-pending\"", html)


# ---------------------------------------------------------------- statement


def test_the_preview_is_sanitised_html_with_highlighted_code(
    problem: Problem, author: Client
) -> None:
    response = author.post("/studio/add-one/statement/preview/", {"statement_md": STATEMENT})
    html = response.content.decode()
    assert response.status_code == 200
    assert "<h1>Add one</h1>" in html and '<div class="codehilite">' in html
    assert '<span class="k">def</span>' in html  # Pygments classes survive the sanitiser
    assert "<script" not in html and "javascript:" not in html
    problem.refresh_from_db()
    assert problem.statement_md == "Return x + 1."  # a preview saves nothing


def test_the_problem_page_wires_the_live_preview_with_htmx(
    problem: Problem, author: Client
) -> None:
    html = author.get("/studio/add-one/").content.decode()
    assert 'hx-post="/studio/add-one/statement/preview/"' in html
    assert 'hx-include="closest form"' in html and 'id="statement-preview"' in html
    assert "frontend/studio.js" in html  # the studio bundle, which carries htmx


def test_every_python_part_is_a_textarea_the_studio_bundle_turns_into_an_editor(
    problem: Problem, author: Client
) -> None:
    html = author.get("/studio/add-one/").content.decode()
    assert "frontend/studio.js" in html and "frontend/bundle.js" not in html
    coded = set(re.findall(r'<textarea name="(\w+)"[^>]*data-code="python"', html))
    assert coded == {
        "starter_code",
        "reference_code",
        "driver_code",
        "checker_code",
        "support_code",
        "code",
    }
    # the prose and JSON parts stay plain textareas (no JSON mode in the bundle)
    assert not re.search(r'<textarea name="(hints|rubric|public_tests)"[^>]*data-code', html)


def test_saving_the_statement_makes_a_draft_version(problem: Problem, author: Client) -> None:
    response = author.post("/studio/add-one/statement/", {"statement_md": STATEMENT})
    assert response.status_code == 302
    v2 = problem.versions.get(number=2)
    assert (v2.statement_md, v2.validation, v2.change_note) == (STATEMENT, "draft", "statement")
    assert v2.public_tests == problem.versions.get(number=1).public_tests
    problem.refresh_from_db()
    assert problem.statement_md == "Return x + 1."  # what candidates read: v1's, still live
    # the editor shows the draft back
    assert "click" in author.get("/studio/add-one/").content.decode()


# ---------------------------------------------------------------- tests editor


def test_the_tests_editor_shows_the_newest_version_tests(problem: Problem, author: Client) -> None:
    html = author.get("/studio/add-one/").content.decode()
    assert "secret 2" in html and "public 1" in html
    assert 'name="test_wall_seconds"' in html


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"public_tests": "[{]"}, "public_tests", "file: invalid JSON"),
        (
            {"hidden_tests": '[{"name": "h", "input": {}, "expected": 2, "tag": "speed"}]'},
            "hidden_tests",
            "[0].tag: &#x27;speed&#x27; is not one of correctness, edge_cases, performance",
        ),
        (
            {"hidden_tests": '[{"name": "h", "expected": 2, "tag": "edge_cases"}]'},
            "hidden_tests",
            "[0].input: missing",
        ),
        ({"test_wall_seconds": "500"}, "test_wall_seconds", "500.0 outside [0.1, 120.0]"),
        ({"memory_mb": "abc"}, "memory_mb", "Enter a whole number."),
    ],
)
def test_a_bad_edit_is_refused_with_the_error_on_its_field(
    problem: Problem, author: Client, changes: dict[str, str], field: str, message: str
) -> None:
    # Limits have their own form (issue 34.5); the tests form posts the tests alone.
    is_limit = field not in ("public_tests", "hidden_tests")
    url, form = ("limits", "limits_form") if is_limit else ("tests", "tests_form")
    response = author.post(f"/studio/add-one/{url}/", edit_data(problem, **changes))
    assert response.status_code == 400
    assert message in response.content.decode()
    assert list(response.context[form].errors) == [field]
    assert problem.versions.count() == 1  # never a half-saved version


def test_good_tests_are_saved_as_a_new_version_and_the_live_one_stays(
    problem: Problem, author: Client
) -> None:
    live = problem.live_version
    assert live is not None
    hidden = [*live.hidden_tests, {"name": "big", "input": {"args": [9]}, "expected": 10,
                                   "tag": "performance"}]  # fmt: skip
    response = author.post(
        "/studio/add-one/tests/", edit_data(problem, hidden_tests=json.dumps(hidden)), follow=True
    )
    assert response.redirect_chain[-1][0] == "/studio/add-one/v2/"
    assert "Saved as v2" in " ".join(messages_of(response))
    problem.refresh_from_db()
    assert problem.live_version == live and problem.versions.count() == 2
    unchanged = author.post(
        "/studio/add-one/tests/", edit_data(problem, hidden_tests=json.dumps(hidden)), follow=True
    )
    assert "Nothing changed" in " ".join(messages_of(unchanged))


# ---------------------------------------------------------------- validation, live, publish

REPORT: dict[str, Any] = {
    "passed": False,
    "failed_checks": ["wrong/not_wrong.py"],
    "checks": [
        {"role": "reference", "name": "reference.py", "expected": "AC", "got": "AC",
         "status": "pass", "why": "", "passed_tests": 5, "total_tests": 5, "tests": [],
         "message": "passes every test"},
        {"role": "wrong", "name": "wrong/not_wrong.py", "expected": "WA", "got": "AC",
         "status": "fail", "why": "forgets the +1", "passed_tests": 5, "total_tests": 5,
         "tests": [], "message": "declared WA, got AC"},
    ],
    "timing": {"status": "warn", "limit_ms": 2000.0, "slowest_ms": 1500.0,
               "slowest_test": "secret 1", "multiplier": 3.0, "floor_seconds": 1.0,
               "flag_fraction": 0.5, "suggested_limit_seconds": 4.5, "flagged": ["secret 1"],
               "warnings": ["1 test(s) take the reference over 50% of the 2 s limit"],
               "tests": [{"name": "secret 1", "hidden": True, "tag": "edge_cases",
                          "verdict": "AC", "time_ms": 1500.0, "percent_of_limit": 75.0,
                          "flagged": True}]},
    "lint": {"status": "warn", "issues": ["needs at least 12 hidden tests"]},
    "error": "",
}  # fmt: skip


def test_the_version_page_shows_the_report(problem: Problem, author: Client) -> None:
    ProblemVersion.objects.filter(number=1).update(validation="failed", validation_report=REPORT)
    html = author.get("/studio/add-one/v1/").content.decode()
    assert "declared WA, got AC" in html and "forgets the +1" in html
    assert 'id="suggested-limit">4.5 s' in html
    assert 'class="flagged"' in html and "75.0%" in html
    assert "needs at least 12 hidden tests" in html
    assert "state state-failed" in html and 'id="live-button"' not in html  # v1 is live
    assert "hx-trigger" not in html  # nothing running: no polling


def test_a_running_validation_is_polled(problem: Problem, author: Client) -> None:
    ProblemVersion.objects.filter(number=1).update(validation="running")
    html = author.get("/studio/add-one/v1/").content.decode()
    assert 'hx-get="/studio/add-one/v1/panel/"' in html and 'hx-trigger="every 2s"' in html
    panel = author.get("/studio/add-one/v1/panel/").content.decode()
    assert panel.lstrip().startswith('<div id="version-panel"')


def test_validate_queues_the_job_and_refuses_a_second_while_running(
    problem: Problem, author: Client
) -> None:
    ProblemVersion.objects.filter(number=1).update(validation="failed")
    first = author.post("/studio/add-one/v1/validate/", follow=True)
    assert ProblemVersion.objects.get(number=1).validation == "pending"
    # The polled panel says it, and stops saying it when the result comes (issue 36.10); no
    # message outlives it.
    assert not any("Validating" in m for m in messages_of(first))
    page = first.content.decode()
    assert 'id="validating-note">Queued for validation on the cpu queue.' in page
    assert 'hx-trigger="every 2s"' in page
    ProblemVersion.objects.filter(number=1).update(
        validation="running", validation_started_at=timezone.now()
    )
    second = author.post("/studio/add-one/v1/validate/", follow=True)
    assert "v1 is being validated already" in " ".join(messages_of(second))
    assert ProblemVersion.objects.get(number=1).validation == "running"
    assert "Validating v1 on the cpu queue (running)…" in second.content.decode()
    # The result comes: the next poll of the panel has no banner and stops polling.
    ProblemVersion.objects.filter(number=1).update(validation="failed")
    panel = author.get("/studio/add-one/v1/panel/").content.decode()
    assert "validating-note" not in panel and "Validating" not in panel
    assert "hx-trigger" not in panel


def test_make_live_and_publish_need_a_passed_validation(problem: Problem, author: Client) -> None:
    v1 = ProblemVersion.objects.get(number=1)
    v2 = ProblemVersion.objects.create(
        **{
            f.name: getattr(v1, f.name)
            for f in ProblemVersion._meta.concrete_fields
            if f.name not in ("id", "number")
        },
        number=2,
    )
    page = author.get("/studio/add-one/v2/").content.decode()
    assert re.search(r'id="live-button"[^>]*disabled', page)
    refused = author.post("/studio/add-one/v2/live/", follow=True)
    assert "has not passed validation (pending)" in " ".join(messages_of(refused))
    refused = author.post("/studio/add-one/publish/", follow=True)
    assert "has not passed validation" in " ".join(messages_of(refused))
    mark_validated(v2)
    page = author.get("/studio/add-one/v2/").content.decode()
    assert not re.search(r'id="live-button"[^>]*disabled', page)
    author.post("/studio/add-one/v2/live/")
    problem.refresh_from_db()
    assert problem.live_version == v2
    published = author.post("/studio/add-one/publish/", follow=True)
    problem.refresh_from_db()
    assert problem.published and "is published" in " ".join(messages_of(published))
    author.post("/studio/add-one/unpublish/")
    problem.refresh_from_db()
    assert not problem.published


def test_the_suggested_limit_becomes_a_new_version(problem: Problem, author: Client) -> None:
    ProblemVersion.objects.filter(number=1).update(validation="failed", validation_report=REPORT)
    assert 'id="apply-limit-button"' in author.get("/studio/add-one/v1/").content.decode()
    response = author.post("/studio/add-one/v1/limit/", follow=True)
    assert response.redirect_chain[-1][0] == "/studio/add-one/v2/"
    v2 = ProblemVersion.objects.get(number=2)
    assert v2.limits["test_wall_seconds"] == v2.limits["test_cpu_seconds"] == 4.5
    # v2 already has the suggested limit: no button offering it again.
    ProblemVersion.objects.filter(pk=v2.pk).update(validation_report=REPORT)
    assert 'id="apply-limit-button"' not in author.get("/studio/add-one/v2/").content.decode()


def test_the_regrade_preview_shows_verdict_changes(problem: Problem, author: Client) -> None:
    v1 = problem.live_version
    assert v1 is not None
    cand = user_with_role("cand", "candidate")
    submission = Submission.objects.create(
        user=cand, problem=problem, version=v1, mode="submit", code=ADD_ONE,
        status="done", verdict="AC", passed=5, total=5,
    )  # fmt: skip
    regrade = Regrade.objects.create(version=v1, status="done", total=1, done=1, changed=1)
    RegradeItem.objects.create(
        regrade=regrade, submission=submission, old_version_number=1, old_verdict="AC",
        old_passed=5, old_total=5, new_verdict="WA", new_passed=4, new_total=6, changed=True,
    )  # fmt: skip
    html = author.get("/studio/add-one/v1/").content.decode()
    assert "<strong>1</strong> would change verdict" in html
    assert f'data-submission="{submission.pk}"' in html and "cand" in html
    assert re.search(
        r"verdict-AC\">AC</span> → <span class=\"verdict verdict-WA\">WA</span> × 1", html
    )


def test_regrade_button_creates_a_preview(problem: Problem, author: Client) -> None:
    response = author.post("/studio/add-one/v1/regrade/", follow=True)
    assert "Regrading 0 past submission(s) against v1" in " ".join(messages_of(response))
    assert Regrade.objects.filter(version__number=1).count() == 1


# ---------------------------------------------------------------- Django admin


def test_admin_lists_problems_and_versions_and_validates_from_an_action(problem: Problem) -> None:
    admin = client_for(user_with_role("root", admin=True))
    html = admin.get("/admin/problems/problem/").content.decode()
    assert "add-one" in html and "Live validation" in html
    versions = admin.get("/admin/problems/problemversion/").content.decode()
    assert "Tests (public + hidden)" in versions and "2 + 3" in versions
    v1 = ProblemVersion.objects.get(number=1)
    ProblemVersion.objects.filter(pk=v1.pk).update(validation="failed")
    response = admin.post(
        "/admin/problems/problemversion/",
        {"action": "validate", "_selected_action": [v1.pk]},
        follow=True,
    )
    assert "Queued validation of 1 version(s)" in response.content.decode()
    assert ProblemVersion.objects.get(pk=v1.pk).validation == "pending"


def test_the_editor_round_trips_non_finite_numbers(problem: Problem, author: Client) -> None:
    live = problem.live_version
    assert live is not None
    ProblemVersion.objects.filter(pk=live.pk).update(
        public_tests=[*live.public_tests, {"name": "nan", "input": {"args": [float("nan")]},
                                           "expected": float("nan"), "tag": "edge_cases"}],
    )  # fmt: skip
    form = author.get("/studio/add-one/").context["tests_form"]
    public = form.initial["public_tests"]
    assert public.count("\n") == 4 and "NaN" in public  # one test per line
    response = author.post(
        "/studio/add-one/tests/",
        edit_data(problem, public_tests=public, hidden_tests=form.initial["hidden_tests"]),
        follow=True,
    )
    assert "Nothing changed" not in " ".join(messages_of(response))  # tests_hash was a stub
    v2 = ProblemVersion.objects.get(number=2)
    assert v2.public_tests[-1]["expected"] != v2.public_tests[-1]["expected"]  # NaN survived
