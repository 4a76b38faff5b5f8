"""Reads for the authoring studio."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Prefetch, QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404

from problems.models import Problem, ProblemVersion
from studio.models import LimitConfirmation, Regrade, RegradeItem
from studio.services.validations import version_validation_state

# The test lists, code and prose are the heavy part of a version; lists and tables never need
# them (the programs a validation grades stay: they tell whether its report is stale).
_HEAVY = (
    "public_tests", "hidden_tests", "driver_code", "checker_code", "support_code",
    "statement_md", "hints", "follow_ups", "clarifications", "rubric",
)


@dataclass(frozen=True)
class VersionRow:
    """A version as the studio lists it."""

    version: ProblemVersion
    state: str  # pending | running | passed | failed | stale
    live: bool
    latest: bool
    live_label: str = ""  # what the studio calls it (live_label)


def live_label(problem: Problem, version: ProblemVersion) -> str:
    """What the studio calls `version` (issue 36.10: a label says what is so): "live" only
    when candidates get it (the problem is published and this is its live version, not a
    draft); "current, unpublished" for the version an unpublished problem would publish;
    "" for every other version."""
    if problem.live_version_id != version.pk:
        return ""
    if problem.published and version.validation != ProblemVersion.Validation.DRAFT:
        return "live"
    return "current, unpublished"


def _rows(problem: Problem, versions: list[ProblemVersion]) -> list[VersionRow]:
    latest = max((v.number for v in versions), default=0)
    return [
        VersionRow(
            version=v,
            state=version_validation_state(v),
            live=v.pk == problem.live_version_id,
            latest=v.number == latest,
            live_label=live_label(problem, v),
        )
        for v in sorted(versions, key=lambda v: -v.number)
    ]


def studio_problems() -> list[tuple[Problem, list[VersionRow]]]:
    """Every problem, by title, with its versions newest first and their validation state."""
    problems = (
        Problem.objects.order_by("title")
        .select_related("owner")
        .prefetch_related(Prefetch("versions", queryset=ProblemVersion.objects.defer(*_HEAVY)))
    )
    return [(p, _rows(p, list(p.versions.all()))) for p in problems]


def studio_problem_get(*, slug: str) -> Problem:
    return get_object_or_404(Problem, slug=slug)


def studio_versions(problem: Problem) -> list[VersionRow]:
    """The problem's versions newest first, with who saved each and what it changed."""
    versions = (
        problem.versions.select_related("created_by")
        .defer(*_HEAVY)
        # How many earlier states one author's consecutive saves folded into it.
        .annotate(rewrites=Count("revisions"))
    )
    return _rows(problem, list(versions))


def studio_version_get(*, problem: Problem, number: int) -> ProblemVersion:
    return get_object_or_404(
        ProblemVersion.objects.select_related("problem"), problem=problem, number=number
    )


def version_latest(problem: Problem) -> ProblemVersion | None:
    return problem.versions.order_by("-number").first()


def tests_json(tests: list[dict[str, Any]]) -> str:
    """A version's tests as the editor shows them: a JSON list, one test per line.

    NaN and ±inf come out as Python's json writes them (NaN, Infinity), which the package
    reader accepts back.
    """
    lines = [json.dumps(t, allow_nan=True, ensure_ascii=False) for t in tests]
    return "[\n" + ",\n".join(lines) + "\n]" if lines else "[]"


def regrade_latest(version: ProblemVersion) -> Regrade | None:
    return version.regrades.order_by("-created_at", "-pk").first()


def regrade_items(regrade: Regrade, *, changed_only: bool = False) -> QuerySet[RegradeItem]:
    items = regrade.items.select_related("submission__user").order_by("-changed", "-submission_id")
    return items.filter(changed=True) if changed_only else items


def regrade_transitions(regrade: Regrade) -> list[tuple[str, str, int]]:
    """How many submissions went from each old verdict to each new one (changes only)."""
    pairs = Counter(
        regrade.items.filter(changed=True).values_list("old_verdict", "new_verdict")
    )
    return [(old, new, count) for (old, new), count in pairs.most_common()]


@dataclass(frozen=True)
class TestRow:
    """A test as the studio's table shows it (input and expected clipped for the table)."""

    __test__ = False  # not a pytest class

    where: str  # public | hidden
    index: int
    name: str
    tag: str
    group: str
    compare: str
    input_text: str
    expected_text: str
    # Whether the cell shows only the start (issue 28.4: a download link gives the whole).
    input_clipped: bool = False
    expected_clipped: bool = False
    expected_chars: int = 0
    generated: bool = False


def _clipped(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, allow_nan=True, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _row(where: str, index: int, t: dict[str, Any]) -> TestRow:
    input_text, expected_text = _clipped(t["input"]), _clipped(t["expected"])
    expected_chars = len(json.dumps(t["expected"], allow_nan=True, ensure_ascii=False))
    return TestRow(
        where, index, t["name"], t.get("tag", "correctness"), t.get("group") or "",
        t.get("compare") or "", input_text, expected_text,
        input_clipped=input_text.endswith("…"), expected_clipped=expected_text.endswith("…"),
        expected_chars=expected_chars, generated=isinstance(t.get("generator"), dict),
    )  # fmt: skip


def test_rows(version: ProblemVersion) -> list[TestRow]:
    return [
        _row(where, index, t)
        for where, tests in (("public", version.public_tests), ("hidden", version.hidden_tests))
        for index, t in enumerate(tests)
    ]


def test_part(*, version: ProblemVersion, where: str, index: int, part: str) -> Any:
    """One test's whole input or expected output; Http404 when there is no such test."""
    tests = {"public": version.public_tests, "hidden": version.hidden_tests}.get(where)
    if tests is None or part not in ("input", "expected") or not 0 <= index < len(tests):
        raise Http404("no such test")
    return tests[index][part]


def limit_confirmations(version: ProblemVersion) -> list[LimitConfirmation]:
    """The recorded confirmations of publishing `version` below its suggested limit."""
    return list(version.limit_confirmations.select_related("confirmed_by"))
