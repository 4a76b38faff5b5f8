"""The tests: all of them saved as JSON lists, or one at a time from the table (add, edit,
duplicate, delete, fill the expected output from the reference)."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse

from core.edges import form_edge
from grading.inputchecks import InputCheckError
from problems.models import ProblemVersion
from problems.package import PackageError
from studio import selectors
from studio.forms import (
    LimitsForm,
    TestForm,
    TestsForm,
)
from studio.services.conflicts import EditConflict
from studio.services.errors import ProblemActionError
from studio.services.inputcheck import (
    InputsMismatch,
    tests_save_check,
    version_constraint_problem,
    version_input_problem,
)
from studio.services.testcases import (
    expected_from_reference,
    generated_tests_rebuild,
    test_edit,
)
from studio.services.versions import version_create
from studio.views.access import (
    author_required,
    editable,
    problem_back,
    problem_page_redirect,
    request_user,
    version_url,
)
from studio.views.conflicts import (
    CONFLICT_STATUS,
    ConflictShown,
    based,
    merged_tell,
    merging_with,
)
from studio.views.problems import problem_page


@author_required
@form_edge(scope="studio", back=problem_back)
def tests_save(request: HttpRequest, slug: str) -> HttpResponse:
    """Save edited tests as a new version: all of it, or nothing (limits: `limits_save`)."""
    problem = editable(request, slug)
    form = TestsForm(request.POST)
    note = merging_with(request, problem)
    if not form.is_valid():
        return problem_page(request, problem, tests_form=form, status=400)
    try:
        # The inputs this save adds or changes, checked before the save (one sandbox at most).
        inputs_check = tests_save_check(
            problem=problem,
            public_json=form.cleaned_data["public_tests"],
            hidden_json=form.cleaned_data["hidden_tests"],
        )
        version, created = version_create(
            problem=problem,
            public_json=form.cleaned_data["public_tests"],
            hidden_json=form.cleaned_data["hidden_tests"],
            user=request_user(request),
            check=inputs_check,
            **based(request),
        )
    except EditConflict as exc:
        shown = ConflictShown.of(request, "tests", exc)
        return problem_page(request, problem, tests_form=form, conflict=shown,
                            status=CONFLICT_STATUS)
    except InputsMismatch as exc:
        for field, problems in exc.problems.items():
            for problem_text in problems:
                form.add_error(field, f"does not fit the driver: {problem_text}")
        return problem_page(request, problem, tests_form=form, status=400)
    except PackageError as exc:
        form.add_package_error(exc)
        return problem_page(request, problem, tests_form=form, status=400)
    except (ProblemActionError, InputCheckError) as exc:
        form.add_error(None, exc.message)
        return problem_page(request, problem, tests_form=form, status=400)
    if created:
        messages.success(request, f"Saved as v{version.number}. Validate it, then make it live.")
    else:
        messages.info(request, f"Nothing changed: v{version.number} already has these tests.")
    merged_tell(request, note)
    return version_url(version)


@author_required
@form_edge(scope="studio", back=problem_back)
def limits_save(request: HttpRequest, slug: str) -> HttpResponse:
    """Save the limits alone as a new version (issue 34.5): the form posts four numbers and
    its base, never the tests, so it works whatever their number and size."""
    problem = editable(request, slug)
    form = LimitsForm(request.POST)
    if not form.is_valid():
        return problem_page(request, problem, limits_form=form, status=400)
    note = merging_with(request, problem)
    try:
        version, created = version_create(
            problem=problem, limits=form.limits(), user=request_user(request), **based(request)
        )
    except EditConflict as exc:
        shown = ConflictShown.of(request, "limits", exc)
        return problem_page(request, problem, limits_form=form, conflict=shown,
                            status=CONFLICT_STATUS)
    except PackageError as exc:
        form.add_package_error(exc)
        return problem_page(request, problem, limits_form=form, status=400)
    except ProblemActionError as exc:
        form.add_error(None, exc.message)
        return problem_page(request, problem, limits_form=form, status=400)
    if created:
        messages.success(request, f"Limits saved as draft v{version.number}. Validate it, then "
                         "make it live.")
    else:
        messages.info(request, f"Nothing changed: v{version.number} already has these limits.")
    merged_tell(request, note)
    return problem_page_redirect(problem, "limits")


def _test_saved(request: HttpRequest, version: ProblemVersion, created: bool) -> HttpResponse:
    if created:
        messages.success(request, f"Saved as draft v{version.number}. Validate it, then make it "
                         "live.")
    else:
        messages.info(request, f"Nothing changed: v{version.number} already has these tests.")
    return problem_page_redirect(version.problem, "test-table")


def _edited_name(latest: ProblemVersion | None, editing: tuple[str, int] | None) -> set[str]:
    """The name the edited test has now: its old expected output is the one being refilled."""
    if latest is None or editing is None:
        return set()
    rows = latest.public_tests if editing[0] == "public" else latest.hidden_tests
    return {str(rows[editing[1]]["name"])} if editing[1] < len(rows) else set()


@author_required
@form_edge(scope="studio", back=problem_back)
def test_save(request: HttpRequest, slug: str) -> HttpResponse:
    """Add a test, or (with `where` and `index`) replace one; the expected output can be filled
    from the reference, graded in the sandbox."""
    problem = editable(request, slug)
    form = TestForm(request.POST)
    note = merging_with(request, problem)
    where, index = request.POST.get("where", ""), request.POST.get("index", "")
    editing = (where, int(index)) if where in ("public", "hidden") and index.isdigit() else None
    if not form.is_valid():
        return problem_page(request, problem, test_form=form, editing=editing, status=400)
    test = form.test()
    latest = selectors.version_latest(problem)
    if latest and (broken := version_constraint_problem(latest, test["input"])):
        form.add_error("input", f"breaks the statement's constraints: {broken}")
        return problem_page(request, problem, test_form=form, editing=editing, status=400)
    try:  # a custom driver's own check runs in the sandbox
        problem_text = version_input_problem(latest, test["input"]) if latest else ""
    except InputCheckError as exc:
        form.add_error("input", exc.message)
        return problem_page(request, problem, test_form=form, editing=editing, status=400)
    if problem_text:
        form.add_error("input", f"does not fit the driver: {problem_text}")
        return problem_page(request, problem, test_form=form, editing=editing, status=400)
    try:
        if form.cleaned_data["fill_expected"]:
            test["expected"] = expected_from_reference(
                problem=problem, test_input=test["input"], test_name=str(test.get("name", "")),
                excluding=_edited_name(latest, editing),
            )
        version, created = test_edit(
            problem=problem,
            user=request_user(request),
            op="update" if editing else "add",
            where=editing[0] if editing else form.cleaned_data["visibility"],
            index=editing[1] if editing else None,
            to=form.cleaned_data["visibility"],
            test=test,
            **based(request),
        )
    except EditConflict as exc:
        shown = ConflictShown.of(request, "test-form", exc)
        return problem_page(request, problem, test_form=form, editing=editing, conflict=shown,
                            status=CONFLICT_STATUS)
    except PackageError as exc:
        form.add_error(None, f"{exc.field}: {exc.problem}")
        return problem_page(request, problem, test_form=form, editing=editing, status=400)
    except ProblemActionError as exc:
        form.add_error(None, exc.message)
        return problem_page(request, problem, test_form=form, editing=editing, status=400)
    merged_tell(request, note)
    return _test_saved(request, version, created)


@author_required
@form_edge(scope="studio", back=problem_back)
def test_action(request: HttpRequest, slug: str, where: str, index: int, op: str) -> HttpResponse:
    """Duplicate or delete one test."""
    problem = editable(request, slug)
    if op not in ("duplicate", "delete"):
        raise Http404("no such action")
    note = merging_with(request, problem)
    try:
        version, created = test_edit(
            problem=problem, user=request_user(request), op=op, where=where, index=index,
            **based(request),
        )
    except EditConflict as exc:
        shown = ConflictShown.of(request, "test-table", exc)
        return problem_page(request, problem, conflict=shown, status=CONFLICT_STATUS)
    except (PackageError, ProblemActionError) as exc:
        messages.error(request, str(exc))
        return problem_page_redirect(problem, "test-table")
    merged_tell(request, note)
    return _test_saved(request, version, created)


@author_required
@form_edge(scope="studio", back=problem_back)
def generated_rebuild(request: HttpRequest, slug: str) -> HttpResponse:
    """Re-run the stored generators and refill their expected outputs (one new draft)."""
    problem = editable(request, slug)
    note = merging_with(request, problem)
    try:
        version, created = generated_tests_rebuild(
            problem=problem, user=request_user(request), **based(request)
        )
    except EditConflict as exc:
        shown = ConflictShown.of(request, "rebuild", exc)
        return problem_page(request, problem, conflict=shown, status=CONFLICT_STATUS)
    except (PackageError, ProblemActionError, InputCheckError) as exc:
        messages.error(request, str(exc))
        return problem_page_redirect(problem, "test-table")
    merged_tell(request, note)
    return _test_saved(request, version, created)
