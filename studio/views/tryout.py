"""Try a version as a candidate: any version of a problem (a draft included) in the
candidate's own page, for the problem's authors and admins.

The page is the candidate's (`frontend/problem_detail.html`) filled from the version instead of
the live problem, under a banner naming the version. Its Run and Submit post the version's
number, so they grade on that version and are stored as try-outs (`Submission.trial`): never
the problem's stats, never its regrades, never the live version's. Anyone else, another author
included, gets a 404, as for any draft (core.visibility's DRAFT_PROBLEM row).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from core.markdown import markdown_render
from grading.problempage import version_page_of
from grading.services import GradingError, version_for_trial
from problems import kinds
from problems.models import ProblemVersion


@dataclass(frozen=True)
class TriedProblem:
    """What the candidate's page reads of a problem, taken from one of its versions."""

    slug: str
    title: str
    difficulty: str
    kind: str
    topics: list[str]
    hints: list[str]
    starter_code: str
    published: bool
    custom_reference: bool

    @property
    def kind_spec(self) -> kinds.Kind:
        """Its kind, as problems.kinds declares it (the page asks it, as of a problem)."""
        return kinds.kind_of(self.kind)

    @classmethod
    def of(cls, version: ProblemVersion) -> TriedProblem:
        return cls(
            slug=version.problem.slug,
            title=version.title or version.problem.title,
            difficulty=version.difficulty,
            kind=version.kind,
            topics=list(version.topics),
            hints=[str(h) for h in version.hints],
            starter_code=version.starter_code,
            published=version.problem.published,
            custom_reference=version.custom_reference,
        )


@dataclass(frozen=True)
class Tryout:
    """The banner's facts: which version, and whether candidates see it."""

    number: int
    live: bool
    live_number: int | None  # what candidates see: None when the problem is not published
    state: str  # the version's validation: draft, pending, running, passed, failed


def _version(request: HttpRequest, slug: str, number: int) -> ProblemVersion:
    try:
        return version_for_trial(user=request.user, problem_slug=slug, number=number)
    except GradingError as exc:
        raise Http404("No such problem.") from exc


@login_required
@require_GET
def version_tryout(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """`/studio/<slug>/v<n>/try/`: version n in the candidate's page, to run and submit."""
    version = _version(request, slug, number)
    problem = version.problem
    live = problem.live_version
    context = {
        "problem": TriedProblem.of(version),
        "tryout": Tryout(
            number=version.number,
            live=live is not None and live.pk == version.pk,
            live_number=live.number if live is not None and problem.published else None,
            state=version.validation,
        ),
        **version_page_of(version),
    }
    return render(request, "frontend/problem_detail.html", context)


@login_required
@require_GET
def version_tryout_hint(request: HttpRequest, slug: str, number: int, hint: int) -> HttpResponse:
    """An htmx fragment: the version's hint `hint` (1-based), as the candidate's page asks."""
    version = _version(request, slug, number)
    hints = [str(h) for h in version.hints]
    if not 1 <= hint <= len(hints):
        raise Http404("No such hint.")
    context = {
        "problem": TriedProblem.of(version),
        "tryout": Tryout(number=version.number, live=False, live_number=None,
                         state=version.validation),
        "number": hint,
        "hint_html": markdown_render(hints[hint - 1]),
        "hint_count": len(hints),
        "next_number": hint + 1 if hint < len(hints) else None,
    }
    return render(request, "frontend/_hint.html", context)
