"""Rules up front (issue 28, point 6): the package checks a version must pass are on the editor
pages from its content, before any validation, each green once it holds; the author sees the
group names candidates will read."""

from __future__ import annotations

import re

import pytest

from problems.models import ProblemVersion
from problems.package import package_lint, package_read, package_rules
from problems.services import BANK_DIR
from studio.services.rules import version_rules, version_shown_labels
from tests.factories import client_for, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db


def _rule(html: str, what: str) -> str:
    match = re.search(rf'<li class="rule (rule-\w+)" data-rule="{what}">.*?</li>', html, re.S)
    assert match, what
    return match.group(0)


def test_the_rules_are_one_list_and_lint_is_their_unmet_part() -> None:
    package = package_read(BANK_DIR / "token-bucket")
    rules = package_rules(package)
    assert all(rule.ok for rule in rules) and package_lint(package) == []
    assert {r.what for r in rules} >= {"hidden tests", "known-wrong solutions", "hints"}


def test_the_editor_and_version_pages_list_the_checks_before_any_validation() -> None:
    writer = user_with_role("writer", "author")
    problem = tiny_problem(published=False, hidden=7)
    problem.owner = writer
    problem.save()
    version = problem.versions.get()
    assert version.validation_report == {}  # never validated
    client = client_for(writer)
    for url in ("/studio/add-one/", "/studio/add-one/v1/"):
        html = client.get(url).content.decode()
        hidden = _rule(html, "hidden tests")
        assert "rule-open" in hidden and "12 hidden tests: <strong>7/12</strong>" in hidden
        assert "rule-ok" in _rule(html, "hidden tests tagged correctness")
        assert "rule-open" in _rule(html, "known-wrong solutions")
    rules = {r.what: r for r in version_rules(version)}
    assert rules["public tests"].have == 2 and not rules["public tests"].ok


def test_the_author_sees_the_group_names_candidates_will_see() -> None:
    writer = user_with_role("writer", "author")
    problem = tiny_problem(published=False, hidden=4)
    problem.owner = writer
    problem.save()
    version = problem.versions.get()
    hidden = [dict(t, group="empty") if i < 2 else t for i, t in enumerate(version.hidden_tests)]
    ProblemVersion.objects.filter(pk=version.pk).update(hidden_tests=hidden)
    version.refresh_from_db()
    labels = [(label.name, label.kind, label.tests) for label in version_shown_labels(version)]
    assert labels == [("empty", "group", 2), ("correctness", "tag", 1), ("edge_cases", "tag", 1)]
    html = client_for(writer).get("/studio/add-one/").content.decode()
    assert 'data-label="empty"' in html and "“RE in empty”" in html
