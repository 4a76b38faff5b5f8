"""The mock onsite's pages (`/loops/practice/`): book one, take its rounds, read its report.

Thin: the rules are `loops.services.practice`'s. Someone else's practice loop is the 404 of a
loop that does not exist; a refused booking comes back with everything typed kept."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from core.edges import form_edge
from core.errors import ApplicationError
from loops.services import practice
from problems import kinds
from problems.models import Problem

FIELDS = ("label", "kind", "problem", "topic", "minutes", "break")


def _posted_rounds(post: Any) -> list[dict[str, str]]:
    """The form's rows as typed (a row whose kind is "" is left out of the booking)."""
    return [{name: str(post.get(f"{name}-{n}", ""))[:200] for name in FIELDS}
            for n in range(1, practice.MAX_ROUNDS + 1)]


def _default_rows() -> list[dict[str, str]]:
    rows = [{"label": spec.label, "kind": spec.kind, "problem": "", "topic": "",
             "minutes": f"{spec.minutes:g}", "break": f"{spec.break_minutes:g}"}
            for spec in practice.DEFAULT_PLAN]
    empty = dict.fromkeys(FIELDS, "")
    return rows + [dict(empty, minutes="30", **{"break": "0"})
                   for _ in range(practice.MAX_ROUNDS - len(rows))]


def _page(request: HttpRequest, *, rows: list[dict[str, str]], title: str = "",
          error: str = "", status: int = 200) -> HttpResponse:
    problems = list(Problem.objects.offered().exclude(live_version=None)
                    .order_by("title", "slug"))
    topics = sorted({str(t) for p in problems for t in p.topics or []})
    choices = [{"name": k.name, "label": practice.kind_label_of(k),
                "problems": [p for p in problems if p.kind_spec is k]}
               for k in (kinds.find(name) for name in kinds.names()) if k is not None]
    context = {"loops": practice.practice_loops(request.user), "rows": rows,
               "title": title, "error": error, "kinds": choices, "topics": topics,
               "max_rounds": practice.MAX_ROUNDS}
    return render(request, "loops/practice_list.html", context, status=status)


@login_required
@require_GET
def practice_list(request: HttpRequest) -> HttpResponse:
    """`/loops/practice/`: the user's mock onsites and the form that books one."""
    return _page(request, rows=_default_rows())


def _book_refused(request: HttpRequest, exc: ApplicationError) -> HttpResponse:
    return _page(request, rows=_posted_rounds(request.POST),
                 title=str(request.POST.get("title", ""))[:200], error=exc.message, status=400)


@login_required
@form_edge(scope="sessions", on_error=_book_refused)
def practice_book(request: HttpRequest) -> HttpResponse:
    """Form: book a mock onsite; its page is where round 1 starts."""
    specs = [practice.RoundSpec(label=row["label"], kind=row["kind"], problem=row["problem"],
                                topic=row["topic"], minutes=_number(row["minutes"]),
                                break_minutes=_number(row["break"]) if row["break"] else 0)
             for row in _posted_rounds(request.POST) if row["kind"]]
    loop = practice.practice_book(candidate=request.user, rounds=specs,
                                  title=str(request.POST.get("title", "")))
    return redirect("loops:practice_loop", loop_id=loop.pk)


def _number(raw: str) -> float:
    try:
        return float(raw)
    except (TypeError, ValueError, OverflowError):
        return float("nan")  # refused by the service, with its message


@login_required
@require_GET
def practice_loop(request: HttpRequest, loop_id: int) -> HttpResponse:
    """`/loops/practice/<id>/`: the rounds in order, the next one to take, and the report."""
    try:
        loop = practice.practice_loop_for(loop_id=loop_id, user=request.user)
    except ApplicationError as exc:
        raise Http404(exc.message) from None
    return render(request, "loops/practice_loop.html",
                  practice.practice_report(loop=loop, user=request.user))


def _to_loop(request: HttpRequest, loop_id: int, **_: Any) -> str:
    return reverse("loops:practice_loop", kwargs={"loop_id": loop_id})


@login_required
@form_edge(scope="sessions", back=_to_loop, pages=("not_found",))
def practice_start(request: HttpRequest, loop_id: int, position: int) -> HttpResponse:
    """Button: take the round now (its solo session's clock starts); the session page."""
    session = practice.practice_round_start(loop_id=loop_id, user=request.user,
                                            position=position)
    return redirect("interviews:detail", session_id=session.pk)
