"""Rules up front (issue 28, point 6): what a version must pass to be published, computed from
its content as soon as it is saved, before any validation, and what candidates will read of
its hidden tests (their tags and group names: "2/3 passed in empty input", "RE in empty")."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from problems.models import ProblemVersion
from problems.package import PackageError, Rule, package_rules
from problems.services import problem_to_package


@dataclass(frozen=True)
class ShownLabel:
    """A label candidates see beside a pass count of hidden tests."""

    name: str
    kind: str  # "group" or "tag"
    tests: int


def version_rules(version: ProblemVersion) -> list[Rule]:
    """The bank's package checks with this version's count on each (one list: package_rules)."""
    try:
        package = problem_to_package(problem=version.problem, version=version)
    except (PackageError, KeyError, TypeError, ValueError):
        return []  # a row the package format cannot read has no counts to show
    return package_rules(package)


def version_shown_labels(version: ProblemVersion) -> list[ShownLabel]:
    """The group names (and, for tests without a group, the tags) candidates see for the
    hidden tests, each with how many tests it names; group names first, as the results do."""
    groups = Counter(t["group"] for t in version.hidden_tests if t.get("group"))
    tags = Counter(t.get("tag", "") for t in version.hidden_tests if not t.get("group"))
    return [ShownLabel(name, "group", n) for name, n in sorted(groups.items())] + [
        ShownLabel(name, "tag", n) for name, n in sorted(tags.items()) if name
    ]
