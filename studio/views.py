"""The authoring studio: thin views over problems.services and studio.selectors.

Only authors and admins get in: anyone signed out is sent to log in, anyone else gets 403.
Pages are server-rendered; htmx swaps in the statement preview and polls the panels of a
running validation or regrade.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.markdown import markdown_render
from core.roles import is_author
from problems.models import Problem, ProblemVersion
from problems.package import PackageError, WrongSolution
from problems.services import problem_to_package
from studio import authoring, selectors, services
from studio.forms import (
    ImportForm,
    NewProblemForm,
    PartsForm,
    StatementForm,
    TestForm,
    TestsForm,
    WrongForm,
)
from studio.models import Regrade
from studio.permissions import problem_can_edit

View = Callable[..., HttpResponse]
ACTIVE_VALIDATION = (ProblemVersion.Validation.PENDING, ProblemVersion.Validation.RUNNING)
ACTIVE_REGRADE = (Regrade.Status.QUEUED, Regrade.Status.RUNNING)


def author_required(view: View) -> View:
    """Authors and admins only. Signed out: the login page; signed in without the role: 403."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not is_author(request.user):
            raise PermissionDenied("The studio is for problem authors.")
        return view(request, *args, **kwargs)

    return wrapper


def _editable(request: HttpRequest, slug: str) -> Problem:
    """The problem, if this user may change it; other authors read it but get 403 here."""
    problem = selectors.studio_problem_get(slug=slug)
    if not problem_can_edit(user=request.user, problem=problem):
        raise PermissionDenied("Only the problem's owner, its co-authors and admins edit it.")
    return problem


def _user(request: HttpRequest) -> User | None:
    return request.user if isinstance(request.user, User) else None


def _problem_url(problem: Problem) -> HttpResponseRedirect:
    return redirect("studio:problem", slug=problem.slug)


def _version_url(version: ProblemVersion) -> HttpResponseRedirect:
    return redirect("studio:version", slug=version.problem.slug, number=version.number)


@author_required
@require_GET
def studio_index(request: HttpRequest) -> HttpResponse:
    """`/studio/`: every problem with its versions and their validation state."""
    context = {"rows": selectors.studio_problems(), "import_form": ImportForm()}
    return render(request, "studio/index.html", context)


@author_required
@require_http_methods(["GET", "POST"])
def problem_new(request: HttpRequest) -> HttpResponse:
    """`/studio/new/`: a new problem from nothing (the author owns it; it starts unpublished)."""
    form = NewProblemForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = _user(request)
        assert user is not None  # author_required
        try:
            problem = authoring.problem_create(user=user, **form.cleaned_data)
        except services.ProblemActionError as exc:
            form.add_error("slug", exc.message)
        except PackageError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"{problem.title} created as a draft: edit every part, "
                             "add tests, validate, then publish.")
            return _problem_url(problem)
    status = 400 if request.method == "POST" else 200
    return render(request, "studio/new.html", {"form": form}, status=status)


@author_required
@require_POST
def problem_import(request: HttpRequest) -> HttpResponse:
    """Upload a package `.zip` (the problems/bank/ folder format)."""
    form = ImportForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, "Choose a package .zip to import.")
        return redirect("studio:index")
    user = _user(request)
    assert user is not None  # author_required
    upload = form.cleaned_data["archive"]
    if upload.size > authoring.MAX_UPLOAD_BYTES:
        messages.error(request, f"The archive is larger than {authoring.MAX_UPLOAD_BYTES} bytes.")
        return redirect("studio:index")
    try:
        problem, version, new = authoring.problem_import_zip(data=upload.read(), user=user)
    except PackageError as exc:
        messages.error(request, f"Refused, nothing imported: {exc}")
        return redirect("studio:index")
    except services.ProblemActionError as exc:
        messages.error(request, exc.message)
        return redirect("studio:index")
    what = "imported as a new problem" if new else f"imported as v{version.number}"
    messages.success(request, f"{problem.title} {what}; it is validated in the background.")
    return _problem_url(problem)


@author_required
@require_GET
def problem_export(request: HttpRequest, slug: str) -> HttpResponse:
    """The problem as a package `.zip` (`?v=N` for a version; default the live one)."""
    problem = selectors.studio_problem_get(slug=slug)
    version = None
    if request.GET.get("v"):
        try:
            number = int(request.GET["v"])
        except ValueError as exc:
            raise Http404("no such version") from exc
        version = selectors.studio_version_get(problem=problem, number=number)
    data = authoring.problem_export_zip(problem=problem, version=version)
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{problem.slug}.zip"'
    return response


def _problem_page(
    request: HttpRequest,
    problem: Problem,
    *,
    statement_form: StatementForm | None = None,
    tests_form: TestsForm | None = None,
    parts_form: PartsForm | None = None,
    wrong_form: WrongForm | None = None,
    test_form: TestForm | None = None,
    editing: tuple[str, int] | None = None,
    status: int = 200,
) -> HttpResponse:
    latest = selectors.version_latest(problem)
    editing = editing or _editing(request, latest)
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
    if tests_form is None and latest is not None:
        tests_form = TestsForm(
            initial={
                "public_tests": selectors.tests_json(latest.public_tests),
                "hidden_tests": selectors.tests_json(latest.hidden_tests),
                **latest.limits,
            }
        )
    # The editors show the newest version (a draft, perhaps); candidates read the live one's.
    statement = latest.statement_md if latest is not None else problem.statement_md
    context = {
        "problem": problem,
        "versions": selectors.studio_versions(problem),
        "latest": latest,
        "statement_form": statement_form or StatementForm(initial={"statement_md": statement}),
        "statement_html": markdown_render(
            statement_form.data.get("statement_md", statement)
            if statement_form is not None
            else statement
        ),
        "tests_form": tests_form,
        "parts_form": parts_form,
        "wrong_form": wrong_form or WrongForm(),
        "test_form": test_form,
        "editing": editing,
        "test_rows": selectors.test_rows(latest) if latest else [],
        "can_edit": problem_can_edit(user=request.user, problem=problem),
        "coauthors": list(problem.coauthors.order_by("username")),
    }
    return render(request, "studio/problem.html", context, status=status)


@author_required
@require_GET
def studio_problem(request: HttpRequest, slug: str) -> HttpResponse:
    """`/studio/<slug>/`: versions, the statement editor with preview, the tests editor."""
    return _problem_page(request, selectors.studio_problem_get(slug=slug))


@author_required
@require_POST
def statement_preview(request: HttpRequest, slug: str) -> HttpResponse:
    """An htmx fragment: the posted Markdown as the candidate will see it (sanitised)."""
    selectors.studio_problem_get(slug=slug)  # 404 for an unknown problem
    form = StatementForm(request.POST)
    source = request.POST.get("statement_md", "") if form.is_valid() else ""
    context = {"statement_html": markdown_render(source), "errors": form.errors}
    return render(request, "studio/_preview.html", context)


@author_required
@require_POST
def statement_save(request: HttpRequest, slug: str) -> HttpResponse:
    problem = _editable(request, slug)
    form = StatementForm(request.POST)
    if not form.is_valid():
        return _problem_page(request, problem, statement_form=form, status=400)
    try:
        version, created = services.problem_statement_update(
            problem=problem, statement_md=form.cleaned_data["statement_md"], user=_user(request)
        )
    except (PackageError, services.ProblemActionError) as exc:
        form.add_error("statement_md", str(exc))
        return _problem_page(request, problem, statement_form=form, status=400)
    _parts_saved(request, problem, version if created else None)
    return _problem_page_redirect(problem, "statement")


def _problem_page_redirect(problem: Problem, anchor: str) -> HttpResponseRedirect:
    response = _problem_url(problem)
    response["Location"] += f"#{anchor}"
    return response


@author_required
@require_POST
def tests_save(request: HttpRequest, slug: str) -> HttpResponse:
    """Save edited tests (and limits) as a new version: all of it, or nothing."""
    problem = _editable(request, slug)
    form = TestsForm(request.POST)
    if not form.is_valid():
        return _problem_page(request, problem, tests_form=form, status=400)
    try:
        version, created = services.version_create(
            problem=problem,
            public_json=form.cleaned_data["public_tests"],
            hidden_json=form.cleaned_data["hidden_tests"],
            limits=form.limits(),
            user=_user(request),
        )
    except PackageError as exc:
        form.add_package_error(exc)
        return _problem_page(request, problem, tests_form=form, status=400)
    except services.ProblemActionError as exc:
        form.add_error(None, exc.message)
        return _problem_page(request, problem, tests_form=form, status=400)
    if created:
        messages.success(request, f"Saved as v{version.number}. Validate it, then make it live.")
    else:
        messages.info(request, f"Nothing changed: v{version.number} already has these tests.")
    return _version_url(version)


def _editing(request: HttpRequest, latest: ProblemVersion | None) -> tuple[str, int] | None:
    """`?edit=public:2`: the test the form is filled with (ignored when there is none)."""
    where, _, number = request.GET.get("edit", "").partition(":")
    if latest is None or where not in ("public", "hidden") or not number.isdigit():
        return None
    index = int(number)
    rows = latest.public_tests if where == "public" else latest.hidden_tests
    return (where, index) if index < len(rows) else None


def _version_context(request: HttpRequest, version: ProblemVersion) -> dict[str, Any]:
    problem = version.problem
    regrade = selectors.regrade_latest(version)
    state = services.version_validation_state(version)
    report = version.validation_report or {}
    timing = report.get("timing") or {}
    suggested = timing.get("suggested_limit_seconds")
    wall, cpu = version.limits.get("test_wall_seconds"), version.limits.get("test_cpu_seconds")
    return {
        "problem": problem,
        "version": version,
        "state": state,
        "report": report,
        "checks": report.get("checks", []),
        "timing": timing,
        # Offer the suggested limit only when it would change something.
        "limit_differs": suggested is not None and not wall == cpu == suggested,
        "live": problem.live_version_id == version.pk,
        "regrade": regrade,
        "regrade_items": selectors.regrade_items(regrade) if regrade else [],
        "transitions": selectors.regrade_transitions(regrade) if regrade else [],
        "can_edit": problem_can_edit(user=request.user, problem=problem),
        "polling": version.validation in ACTIVE_VALIDATION
        or (regrade is not None and regrade.status in ACTIVE_REGRADE),
    }


@author_required
@require_GET
def version_detail(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """A version: its validation report, its regrade preview, and the actions on it."""
    problem = selectors.studio_problem_get(slug=slug)
    version = selectors.studio_version_get(problem=problem, number=number)
    return render(request, "studio/version.html", _version_context(request, version))


@author_required
@require_GET
def version_panel(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """An htmx fragment polled while a validation or regrade runs."""
    problem = selectors.studio_problem_get(slug=slug)
    version = selectors.studio_version_get(problem=problem, number=number)
    return render(request, "studio/_version_panel.html", _version_context(request, version))


@author_required
@require_POST
def version_validate(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    problem = _editable(request, slug)
    version = selectors.studio_version_get(problem=problem, number=number)
    if services.version_validation_request(version=version):
        messages.info(request, f"Validating v{version.number} on the {problem.queue} queue.")
    else:
        messages.warning(request, f"v{version.number} is being validated already.")
    return _version_url(version)


@author_required
@require_POST
def version_regrade(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    problem = _editable(request, slug)
    version = selectors.studio_version_get(problem=problem, number=number)
    regrade = services.version_regrade_preview(version=version, user=_user(request))
    messages.info(request, f"Regrading {regrade.total} past submission(s) against v{number}.")
    return _version_url(version)


@author_required
@require_POST
def version_live(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    problem = _editable(request, slug)
    version = selectors.studio_version_get(problem=problem, number=number)
    try:
        services.version_make_live(version=version)
    except services.ProblemActionError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"v{version.number} is live: new submissions grade on it.")
    return _version_url(version)


@author_required
@require_POST
def version_apply_limit(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """A new version from this one with the time limit the validation suggested."""
    problem = _editable(request, slug)
    version = selectors.studio_version_get(problem=problem, number=number)
    timing = (version.validation_report or {}).get("timing") or {}
    seconds = timing.get("suggested_limit_seconds")
    if not isinstance(seconds, int | float):
        messages.error(request, "This version has no timing report to take a limit from.")
        return _version_url(version)
    limits = {"test_wall_seconds": float(seconds), "test_cpu_seconds": float(seconds)}
    try:
        new, created = services.version_create(
            problem=problem, base=version, limits=limits, user=_user(request)
        )
    except (PackageError, services.ProblemActionError) as exc:
        messages.error(request, str(exc))
        return _version_url(version)
    if created:
        messages.success(request, f"Saved as v{new.number} with a {seconds:g} s limit.")
    else:
        messages.info(request, f"v{new.number} already has these tests and limits.")
    return _version_url(new)


@author_required
@require_POST
def problem_publish(request: HttpRequest, slug: str) -> HttpResponse:
    problem = _editable(request, slug)
    try:
        services.problem_publish(problem=problem)
    except services.ProblemActionError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"{problem.title} is published.")
    return _problem_url(problem)


@author_required
@require_POST
def problem_unpublish(request: HttpRequest, slug: str) -> HttpResponse:
    problem = _editable(request, slug)
    services.problem_unpublish(problem=problem)
    messages.success(request, f"{problem.title} is hidden from candidates.")
    return _problem_url(problem)


@author_required
@require_POST
def coauthor_add(request: HttpRequest, slug: str) -> HttpResponse:
    problem = _editable(request, slug)
    try:
        user = services.problem_coauthor_add(
            problem=problem, username=request.POST.get("username", "").strip()
        )
    except services.ProblemActionError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"{user.username} can now edit {problem.title}.")
    return _problem_page_redirect(problem, "authors")


@author_required
@require_POST
def coauthor_remove(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    problem = _editable(request, slug)
    services.problem_coauthor_remove(problem=problem, user_id=user_id)
    messages.success(request, "Co-author removed.")
    return _problem_page_redirect(problem, "authors")


def _parts_saved(request: HttpRequest, problem: Problem, new: ProblemVersion | None) -> None:
    if new is not None:
        messages.success(request, f"Saved as draft v{new.number}. Candidates see the live "
                         "version until you validate this one and make it live.")
    else:
        messages.info(request, "Nothing changed: the newest version already has this.")


@author_required
@require_POST
def parts_save(request: HttpRequest, slug: str) -> HttpResponse:
    """Save the code, prose and grading settings of the package; all of it, or nothing."""
    problem = _editable(request, slug)
    form = PartsForm(request.POST)
    if not form.is_valid():
        return _problem_page(request, problem, parts_form=form, status=400)
    try:
        problem, new = authoring.problem_parts_update(
            problem=problem, user=_user(request), parts=form.parts()
        )
    except (PackageError, services.ProblemActionError) as exc:
        form.add_error(None, str(exc))
        return _problem_page(request, problem, parts_form=form, status=400)
    _parts_saved(request, problem, new)
    return _problem_page_redirect(problem, "parts")


@author_required
@require_POST
def wrong_add(request: HttpRequest, slug: str) -> HttpResponse:
    """Add (or replace, by file name) a known-wrong solution with the verdict it must get."""
    problem = _editable(request, slug)
    form = WrongForm(request.POST)
    if not form.is_valid():
        return _problem_page(request, problem, wrong_form=form, status=400)
    data = form.cleaned_data
    wrong = WrongSolution(data["file"], data["verdict"], data["why"], data["code"])
    try:
        problem, new = authoring.wrong_solution_put(
            problem=problem, user=_user(request), wrong=wrong
        )
    except (PackageError, services.ProblemActionError) as exc:
        form.add_error(None, str(exc))
        return _problem_page(request, problem, wrong_form=form, status=400)
    _parts_saved(request, problem, new)
    return _problem_page_redirect(problem, "wrong")


@author_required
@require_POST
def wrong_delete(request: HttpRequest, slug: str, index: int) -> HttpResponse:
    problem = _editable(request, slug)
    try:
        problem, new = authoring.wrong_solution_delete(
            problem=problem, user=_user(request), index=index
        )
    except services.ProblemActionError as exc:
        raise Http404(exc.message) from exc
    _parts_saved(request, problem, new)
    return _problem_page_redirect(problem, "wrong")


def _test_saved(request: HttpRequest, version: ProblemVersion, created: bool) -> HttpResponse:
    if created:
        messages.success(request, f"Saved as draft v{version.number}. Validate it, then make it "
                         "live.")
    else:
        messages.info(request, f"Nothing changed: v{version.number} already has these tests.")
    return _problem_page_redirect(version.problem, "test-table")


@author_required
@require_POST
def test_save(request: HttpRequest, slug: str) -> HttpResponse:
    """Add a test, or (with `where` and `index`) replace one; the expected output can be filled
    from the reference, graded in the sandbox."""
    problem = _editable(request, slug)
    form = TestForm(request.POST)
    where, index = request.POST.get("where", ""), request.POST.get("index", "")
    editing = (where, int(index)) if where in ("public", "hidden") and index.isdigit() else None
    if not form.is_valid():
        return _problem_page(request, problem, test_form=form, editing=editing, status=400)
    test = form.test()
    try:
        if form.cleaned_data["fill_expected"]:
            test["expected"] = authoring.expected_from_reference(
                problem=problem, test_input=test["input"]
            )
        version, created = authoring.test_edit(
            problem=problem,
            user=_user(request),
            op="update" if editing else "add",
            where=editing[0] if editing else form.cleaned_data["visibility"],
            index=editing[1] if editing else None,
            to=form.cleaned_data["visibility"],
            test=test,
        )
    except PackageError as exc:
        form.add_error(None, f"{exc.field}: {exc.problem}")
        return _problem_page(request, problem, test_form=form, editing=editing, status=400)
    except services.ProblemActionError as exc:
        form.add_error(None, exc.message)
        return _problem_page(request, problem, test_form=form, editing=editing, status=400)
    return _test_saved(request, version, created)


@author_required
@require_POST
def test_action(request: HttpRequest, slug: str, where: str, index: int, op: str) -> HttpResponse:
    """Duplicate or delete one test."""
    problem = _editable(request, slug)
    if op not in ("duplicate", "delete"):
        raise Http404("no such action")
    try:
        version, created = authoring.test_edit(
            problem=problem, user=_user(request), op=op, where=where, index=index
        )
    except (PackageError, services.ProblemActionError) as exc:
        messages.error(request, str(exc))
        return _problem_page_redirect(problem, "test-table")
    return _test_saved(request, version, created)
