"""A problem's page and its editors: the index, a new problem, the statement with its live
preview, the code and prose parts, the wrong solutions. Every save is a draft version."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.forms import Form
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from core.edges import form_edge
from core.markdown import markdown_render
from problems import kinds
from problems.models import Problem, ProblemVersion
from problems.package import DESIGN_BOARD, KnownSolution, PackageError, WrongSolution
from problems.services import problem_to_package, statement_shown
from studio import selectors
from studio.forms import (
    ImportForm,
    KnownForm,
    LimitsForm,
    NewProblemForm,
    PartsForm,
    StatementForm,
    TestForm,
    TestsForm,
    WrongForm,
)
from studio.permissions import problem_can_edit
from studio.services.conflicts import EditConflict
from studio.services.errors import ProblemActionError
from studio.services.problems import (
    known_solution_delete,
    known_solution_put,
    problem_create,
    problem_parts_update,
    wrong_solution_delete,
    wrong_solution_put,
)
from studio.services.publishing import limit_below_suggestion
from studio.services.revisions import version_revision
from studio.services.rules import version_rules, version_shown_labels
from studio.services.versions import problem_statement_update
from studio.views.access import (
    author_required,
    editable,
    index_back,
    problem_back,
    problem_page_redirect,
    problem_url,
    request_user,
)
from studio.views.conflicts import (
    CONFLICT_STATUS,
    ConflictShown,
    based,
    merged_tell,
    merging_with,
)


@author_required
@require_GET
def studio_index(request: HttpRequest) -> HttpResponse:
    """`/studio/`: every problem with its versions and their validation state."""
    context = {"rows": selectors.studio_problems(), "import_form": ImportForm()}
    return render(request, "studio/index.html", context)


@author_required
@form_edge(scope="studio", methods=("GET", "POST"), back=index_back)
def problem_new(request: HttpRequest) -> HttpResponse:
    """`/studio/new/`: a new problem from nothing (the author owns it; it starts unpublished)."""
    form = NewProblemForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = request_user(request)
        assert user is not None  # author_required
        try:
            problem = problem_create(user=user, **form.cleaned_data)
        except ProblemActionError as exc:
            form.add_error("slug", exc.message)
        except PackageError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"{problem.title} created as a draft: edit every part, "
                             "add tests, validate, then publish.")
            return problem_url(problem)
    status = 400 if request.method == "POST" else 200
    return render(request, "studio/new.html", {"form": form}, status=status)


def problem_page(
    request: HttpRequest,
    problem: Problem,
    *,
    statement_form: StatementForm | None = None,
    tests_form: TestsForm | None = None,
    limits_form: LimitsForm | None = None,
    parts_form: PartsForm | None = None,
    wrong_form: WrongForm | None = None,
    known_form: KnownForm | None = None,
    test_form: TestForm | None = None,
    editing: tuple[str, int] | None = None,
    conflict: ConflictShown | None = None,
    status: int = 200,
) -> HttpResponse:
    latest = selectors.version_latest(problem)
    editing = editing or test_being_edited(request, latest)
    if wrong_form is None:
        wrong_form = wrong_being_edited(request, latest)
    if test_form is None:
        test_form = TestForm(initial={"visibility": "public", "tag": "correctness"})
        if editing is not None and latest is not None:
            where, index = editing
            test = (latest.public_tests if where == "public" else latest.hidden_tests)[index]
            test_form = TestForm(initial=TestForm.initial_from(test, where))
    if parts_form is None and latest is not None:
        parts_form = PartsForm(
            initial=PartsForm.initial_from(problem_to_package(problem=problem, version=latest))
        )
    tests_bytes = 0
    if tests_form is None and latest is not None:
        tests_form = TestsForm(
            initial={
                "public_tests": selectors.tests_json(latest.public_tests),
                "hidden_tests": selectors.tests_json(latest.hidden_tests),
            }
        )
        tests_bytes = sum(len(str(tests_form.initial[name]).encode()) for name in
                          ("public_tests", "hidden_tests"))
    if limits_form is None and latest is not None:
        limits_form = LimitsForm(initial=dict(latest.limits))
    # The editors show the newest version (a draft, perhaps); candidates read the live one's.
    statement = latest.statement_md if latest is not None else problem.statement_md
    context = {
        "problem": problem,
        # Its kind: a design problem's page has no tests, driver or wrong solutions to edit.
        "problem_kind": kinds.kind_of(latest.kind if latest is not None else problem.kind),
        "versions": selectors.studio_versions(problem),
        "latest": latest,
        "statement_form": statement_form or StatementForm(initial={"statement_md": statement}),
        # As the candidate will read it: the declared constraints rendered in (issue 36.10).
        "statement_html": markdown_render(statement_shown(
            statement_form.data.get("statement_md", statement)
            if statement_form is not None
            else statement,
            latest,
        )),
        "tests_form": tests_form,
        "limits_form": limits_form,
        # Tests too big for one form post (issue 34.5) are edited one at a time in the table:
        # the JSON form is not offered, so it cannot fail on its size.
        "tests_bytes": tests_bytes,
        "tests_too_big": tests_bytes > settings.DATA_UPLOAD_MAX_MEMORY_SIZE * 0.9,
        "post_limit_bytes": settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
        "parts_form": parts_form,
        "wrong_form": wrong_form or WrongForm(),
        "known_form": known_form or KnownForm(),
        "wrong_editing": wrong_form is not None and wrong_form.initial.get("file"),
        "test_form": test_form,
        "editing": editing,
        "test_rows": selectors.test_rows(latest) if latest else [],
        "can_edit": problem_can_edit(user=request.user, problem=problem),
        "coauthors": list(problem.coauthors.order_by("username")),
        # The state every form here is based on (a hidden field): a save from a page older
        # than the newest version is refused, not let to overwrite it.
        "base_token": version_revision(latest).token if latest is not None else "",
        "conflict": conflict,
        "collapse_seconds": settings.ONSITE_STUDIO_COLLAPSE_SECONDS,
        # Issue 28.6: the package checks and the labels candidates see, before any validation.
        "rules": version_rules(latest) if latest else [],
        "shown_labels": version_shown_labels(latest) if latest else [],
        "low_limit": limit_below_suggestion(problem.live_version),
        "generated_count": sum(
            isinstance(t.get("generator"), dict)
            for t in (latest.public_tests + latest.hidden_tests if latest else [])
        ),
    }
    return render(request, "studio/problem.html", context, status=status)


@author_required
@require_GET
def studio_problem(request: HttpRequest, slug: str) -> HttpResponse:
    """`/studio/<slug>/`: versions, the statement editor with preview, the tests editor."""
    return problem_page(request, selectors.studio_problem_get(slug=slug))


@author_required
@form_edge(scope=None)  # a preview: renders, changes nothing
def statement_preview(request: HttpRequest, slug: str) -> HttpResponse:
    """An htmx fragment: the posted Markdown as the candidate will see it (sanitised)."""
    problem = selectors.studio_problem_get(slug=slug)  # 404 for an unknown problem
    form = StatementForm(request.POST)
    source = request.POST.get("statement_md", "") if form.is_valid() else ""
    shown = statement_shown(source, selectors.version_latest(problem)) if source else ""
    context = {"statement_html": markdown_render(shown), "errors": form.errors}
    return render(request, "studio/_preview.html", context)


@author_required
@form_edge(scope="studio", back=problem_back)
def statement_save(request: HttpRequest, slug: str) -> HttpResponse:
    problem = editable(request, slug)
    form = StatementForm(request.POST)
    if not form.is_valid():
        return problem_page(request, problem, statement_form=form, status=400)
    note = merging_with(request, problem)
    try:
        version, created = problem_statement_update(
            problem=problem,
            statement_md=form.cleaned_data["statement_md"],
            user=request_user(request),
            **based(request),
        )
    except EditConflict as exc:
        shown = ConflictShown.of(request, "statement", exc)
        return problem_page(request, problem, statement_form=form, conflict=shown,
                            status=CONFLICT_STATUS)
    except (PackageError, ProblemActionError) as exc:
        form.add_error("statement_md", str(exc))
        return problem_page(request, problem, statement_form=form, status=400)
    _parts_saved(request, problem, version if created else None)
    merged_tell(request, note)
    return problem_page_redirect(problem, "statement")


def test_being_edited(
    request: HttpRequest, latest: ProblemVersion | None
) -> tuple[str, int] | None:
    """`?edit=public:2`: the test the form is filled with (ignored when there is none)."""
    where, _, number = request.GET.get("edit", "").partition(":")
    if latest is None or where not in ("public", "hidden") or not number.isdigit():
        return None
    index = int(number)
    rows = latest.public_tests if where == "public" else latest.hidden_tests
    return (where, index) if index < len(rows) else None


def wrong_being_edited(request: HttpRequest, latest: ProblemVersion | None) -> WrongForm | None:
    """`?wrong=2`: the form filled with that known-wrong solution, its code in the editor."""
    number = request.GET.get("wrong", "")
    if latest is None or not number.isdigit() or int(number) >= len(latest.wrong_solutions):
        return None
    wrong = WrongSolution.from_dict(latest.wrong_solutions[int(number)])
    return WrongForm(initial={
        "file": wrong.file, "verdict": wrong.verdict, "why": wrong.why, "code": wrong.code,
        "groups": ", ".join(wrong.groups), "says": wrong.says,
    })


def _parts_saved(request: HttpRequest, problem: Problem, new: ProblemVersion | None) -> None:
    if new is not None:
        messages.success(request, f"Saved as draft v{new.number}. Candidates see the live "
                         "version until you validate this one and make it live.")
    else:
        messages.info(request, "Nothing changed: the newest version already has this.")


@author_required
@form_edge(scope="studio", back=problem_back)
def parts_save(request: HttpRequest, slug: str) -> HttpResponse:
    """Save the code, prose and grading settings of the package; all of it, or nothing."""
    problem = editable(request, slug)
    form = PartsForm(request.POST)
    if not form.is_valid():
        return problem_page(request, problem, parts_form=form, status=400)
    note = merging_with(request, problem)
    try:
        problem, new = problem_parts_update(
            problem=problem, user=request_user(request), parts=form.parts(), **based(request)
        )
    except EditConflict as exc:
        shown = ConflictShown.of(request, "parts", exc)
        return problem_page(request, problem, parts_form=form, conflict=shown,
                            status=CONFLICT_STATUS)
    except PackageError as exc:
        if exc.path.endswith(DESIGN_BOARD):  # the board's JSON: its error at its field
            form.add_error("reference_board", f"{exc.field}: {exc.problem}")
        else:
            form.add_error(None, str(exc))
        return problem_page(request, problem, parts_form=form, status=400)
    except ProblemActionError as exc:
        form.add_error("kind" if exc.code == "kind_change" else None, exc.message)
        return problem_page(request, problem, parts_form=form, status=400)
    _parts_saved(request, problem, new)
    merged_tell(request, note)
    return problem_page_redirect(problem, "parts")


@author_required
@form_edge(scope="studio", back=problem_back)
def wrong_add(request: HttpRequest, slug: str) -> HttpResponse:
    """Add (or replace, by file name) a known-wrong solution with the verdict it must get."""
    problem = editable(request, slug)
    form = WrongForm(request.POST)
    if not form.is_valid():
        return problem_page(request, problem, wrong_form=form, status=400)
    data = form.cleaned_data
    wrong = WrongSolution(
        data["file"], data["verdict"], data["why"], data["code"], data["groups"], data["says"]
    )
    return _row_put(request, problem, form, part="wrong",
                    put=partial(wrong_solution_put, wrong=wrong))


def _row_put(request: HttpRequest, problem: Problem, form: Form, *, part: str,
             put: Callable[..., tuple[Problem, ProblemVersion | None]]) -> HttpResponse:
    """Add or replace one row of a part that is a list of files (`put`: its service, the row
    given), as a new draft; a stale page gets the conflict shown at the part's form, a
    refused row its error there, the form as it was typed either way."""
    typed: dict[str, Any] = {f"{part}_form": form}
    note = merging_with(request, problem)
    try:
        problem, new = put(problem=problem, user=request_user(request), **based(request))
    except EditConflict as exc:
        shown = ConflictShown.of(request, part, exc)
        return problem_page(request, problem, conflict=shown, status=CONFLICT_STATUS, **typed)
    except (PackageError, ProblemActionError) as exc:
        form.add_error(None, str(exc))
        return problem_page(request, problem, status=400, **typed)
    _parts_saved(request, problem, new)
    merged_tell(request, note)
    return problem_page_redirect(problem, part)


def _row_delete(request: HttpRequest, slug: str, index: int, *, part: str,
                remove: Callable[..., tuple[Problem, ProblemVersion | None]]) -> HttpResponse:
    """Drop one row of a part that is a list of files (`remove`: its service), as a new draft;
    a stale page gets the conflict shown at the part's table, a missing row a 404."""
    problem = editable(request, slug)
    note = merging_with(request, problem)
    try:
        problem, new = remove(
            problem=problem, user=request_user(request), index=index, **based(request)
        )
    except EditConflict as exc:
        shown = ConflictShown.of(request, f"{part}-table", exc)
        return problem_page(request, problem, conflict=shown, status=CONFLICT_STATUS)
    except ProblemActionError as exc:
        raise Http404(exc.message) from exc
    _parts_saved(request, problem, new)
    merged_tell(request, note)
    return problem_page_redirect(problem, part)


@author_required
@form_edge(scope="studio", back=problem_back)
def wrong_delete(request: HttpRequest, slug: str, index: int) -> HttpResponse:
    return _row_delete(request, slug, index, part="wrong", remove=wrong_solution_delete)


@author_required
@form_edge(scope="studio", back=problem_back)
def known_add(request: HttpRequest, slug: str) -> HttpResponse:
    """Add (or replace, by file name) a known solution: Submits matching it are flagged."""
    problem = editable(request, slug)
    form = KnownForm(request.POST)
    if not form.is_valid():
        return problem_page(request, problem, known_form=form, status=400)
    known = KnownSolution(form.cleaned_data["file"], form.cleaned_data["code"])
    return _row_put(request, problem, form, part="known",
                    put=partial(known_solution_put, known=known))


@author_required
@form_edge(scope="studio", back=problem_back)
def known_delete(request: HttpRequest, slug: str, index: int) -> HttpResponse:
    return _row_delete(request, slug, index, part="known", remove=known_solution_delete)
