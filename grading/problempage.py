"""The candidate's problem page: what every page that sets a problem before someone to work on
renders around its statement and its desk. Practice (`/problems/<slug>/`, a design problem's
page too), an author's try-out of a version (studio/views/tryout.py) and a session's desk
(interviews/views.py) all build it here, so they show one statement (its declared input
constraints rendered in), one set of time limits and one custom-input example.

Here and not in problems: the limits a statement shows and the custom input a desk starts with
are grading's (grading.sandboxing, grading.scratch).
"""

from __future__ import annotations

from typing import Any

from core.markdown import markdown_render
from grading.sandboxing import statement_time_limits
from grading.scratch import custom_example
from problems.kinds import kind_of
from problems.models import Problem, ProblemVersion
from problems.services import statement_shown


def problem_page(
    *,
    statement_md: str,
    version: ProblemVersion | None,
    kind: str,
    custom_reference: bool,
    hint_count: int,
) -> dict[str, Any]:
    """The page's context around a problem: `statement_md` as shown with what `version` (the
    one its runs grade on; None for a problem with no version yet) declares, and, for a kind
    that runs code, the code desk's facts (time limits, custom input, reference answers)."""
    runs_code = kind_of(kind).runs_code
    return {
        "statement_html": markdown_render(statement_shown(statement_md, version)),
        "hint_count": hint_count,
        "time_limits": statement_time_limits(version.limits)
        if runs_code and version is not None else None,
        "custom_example": custom_example(version) if runs_code else None,
        "custom_reference": custom_reference if runs_code else False,
    }


def problem_page_of(problem: Problem) -> dict[str, Any]:
    """The page of a problem as candidates get it (practice, a session): its live version."""
    return problem_page(
        statement_md=problem.statement_md,
        version=problem.live_version,
        kind=problem.kind,
        custom_reference=problem.custom_reference,
        hint_count=len(problem.hints),
    )


def version_page_of(version: ProblemVersion) -> dict[str, Any]:
    """The page of one version of a problem (an author's try-out, a draft perhaps)."""
    return problem_page(
        statement_md=version.statement_md,
        version=version,
        kind=version.kind,
        custom_reference=version.custom_reference,
        hint_count=len(version.hints),
    )
