"""Copied code, stored and compared incrementally (issue 41.2): a background job per Submit.

Every Submit (practice, in a session, and a session's final submission) gets a `CodePrint`
row, a job of the one lifecycle (grading/jobs.py) on the background lane: the worker
fingerprints the code (grading/similarity.py, the version's starter and reference taken out),
finds the earlier submissions of the same problem that share most fingerprints through the
inverted index `CodePrintHash` (one bounded index lookup per fingerprint of the new
submission, never a pass over every stored pair), scores the few best exactly, and stores its
hashes in the index for the submissions that come later. A later submission that matches an
earlier one raises the earlier one's score too, so either side of a copy is flagged. A
person's own earlier submissions are never a match.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from core import visibility
from grading import jobs, similarity
from grading.lanes import Lane
from grading.models import CodePrint, CodePrintHash, Submission
from problems.models import ProblemVersion

# The submissions that share most fingerprints with a new one are scored exactly; the rest
# share fewer, and a share can only be as high as what is shared.
CANDIDATES = 25
# A fingerprint in more than this many of a problem's submissions is its common code.
MAX_POSTINGS = 100
# Values per lookup statement (SQLite allows 500 terms in a compound SELECT).
LOOKUP_CHUNK = 200
BUDGET_SECONDS = 60.0

CODEPRINTS = jobs.JobTable(
    model=CodePrint,
    status_field="status",
    waiting=(CodePrint.Status.QUEUED, CodePrint.Status.RETRYING),
    running=CodePrint.Status.RUNNING,
    retrying=CodePrint.Status.RETRYING,
    failed=CodePrint.Status.FAILED,
)
CODEPRINT_JOBS = jobs.register(
    jobs.JobKind(
        name="codeprint",
        table=CODEPRINTS,
        task="grading.tasks.fingerprint_submission",
        queue_kind=lambda codeprint: "cpu",  # tokenizing, whatever the problem runs on
        lane=lambda codeprint: Lane.BACKGROUND,
        budget_seconds=lambda codeprint: BUDGET_SECONDS,
    )
)


def threshold() -> float:
    return float(settings.ONSITE_SIMILARITY_THRESHOLD)


def pack(hashes: Iterable[int]) -> bytes:
    """Sorted distinct fingerprints as 8-byte big-endian signed integers."""
    return np.array(sorted(set(hashes)), dtype=">i8").tobytes()


def unpack(blob: bytes | memoryview) -> frozenset[int]:
    return frozenset(np.frombuffer(bytes(blob), dtype=">i8").tolist())


@dataclass(frozen=True)
class Shape:
    """What every solution of one version shares (the names it forces, its boilerplate), and
    its known solutions' fingerprints (file, fingerprints, code)."""

    keep: frozenset[str]
    ignore: frozenset[int]
    known: tuple[tuple[str, similarity.Fingerprints, str], ...] = ()


@functools.lru_cache(maxsize=64)
def _shape(
    version_id: int, starter: str, reference: str, known: tuple[tuple[str, str], ...]
) -> Shape:
    keep = similarity.forced_names(starter)
    ignore = similarity.boilerplate(starter, reference, keep=keep)
    prints = tuple(
        (name, similarity.fingerprint(code, keep=keep, ignore=ignore), code) for name, code in known
    )
    return Shape(keep, ignore, prints)


def shape_of(submission: Submission) -> Shape:
    version = submission.version
    known = tuple(
        (str(k.get("file", "")), str(k.get("code", "")))
        for k in (version.known_solutions or [])
        if isinstance(k, dict)
    )
    return _shape(version.pk, version.starter_code or "", version.reference_code or "", known)


def fingerprint_of(submission: Submission) -> similarity.Fingerprints:
    shape = shape_of(submission)
    return similarity.fingerprint(submission.code, keep=shape.keep, ignore=shape.ignore)


def codeprint_request(*, submission: Submission) -> CodePrint | None:
    """Queue the fingerprinting of a Submit once the transaction commits (None for others:
    a Run, a scratch run, an author's try-out)."""
    if submission.mode != Submission.Mode.SUBMIT or submission.trial:
        return None
    codeprint = CodePrint.objects.create(submission=submission, problem_id=submission.problem_id)
    CODEPRINT_JOBS.enqueue_on_commit(codeprint)
    return codeprint


def candidates(
    *, problem_id: int, hashes: Iterable[int], exclude_user_id: int, limit: int = CANDIDATES
) -> list[tuple[int, int]]:
    """The stored prints of the problem sharing most of `hashes`: (codeprint id, shared).

    One index lookup per hash, each reading at most MAX_POSTINGS + 1 entries: a fingerprint
    found in more of the problem's submissions than that is the problem's common code, not a
    copy between two people (MOSS's `-m`), and is skipped. So the work per new submission is
    bounded by its own fingerprints, whatever the number stored.
    """
    counts: dict[int, int] = {}
    for posting in _postings(problem_id, sorted(set(hashes))).values():
        if len(posting) > MAX_POSTINGS:
            continue
        for codeprint_id in posting:
            counts[codeprint_id] = counts.get(codeprint_id, 0) + 1
    own = set(
        CodePrint.objects.filter(pk__in=counts, submission__user_id=exclude_user_id).values_list(
            "pk", flat=True
        )
    )
    best = sorted(
        ((pk, n) for pk, n in counts.items() if pk not in own), key=lambda item: (-item[1], item[0])
    )
    return best[:limit]


def _postings(problem_id: int, values: list[int]) -> dict[int, list[int]]:
    """Each value's posting list, at most MAX_POSTINGS + 1 entries of it, in few queries.

    One statement per LOOKUP_CHUNK values: a UNION ALL of one bounded index range each (an
    ORM query per value costs more in Python than in the database)."""
    table = CodePrintHash._meta.db_table
    one = (
        f"SELECT * FROM (SELECT value, codeprint_id FROM {table} "  # noqa: S608 (names are ours)
        f"WHERE problem_id = %s AND value = %s LIMIT {MAX_POSTINGS + 1}) AS p{{n}}"
    )
    found: dict[int, list[int]] = {value: [] for value in values}
    with connection.cursor() as cursor:
        for start in range(0, len(values), LOOKUP_CHUNK):
            chunk = values[start : start + LOOKUP_CHUNK]
            sql = " UNION ALL ".join(one.format(n=n) for n in range(len(chunk)))
            cursor.execute(sql, [p for value in chunk for p in (problem_id, value)])
            for value, codeprint_id in cursor.fetchall():
                found[value].append(codeprint_id)
    return found


def codeprint_compute(*, codeprint_id: int) -> jobs.Outcome:
    """Fingerprint one Submit, score it against the closest stored ones, index it."""
    claim = CODEPRINTS.claim(codeprint_id)
    if claim is jobs.Outcome.FAILED:
        CODEPRINTS.give_up(codeprint_id, finished_at=timezone.now())
        return jobs.Outcome.FAILED
    if not isinstance(claim, jobs.Claim):
        return claim
    codeprint = CodePrint.objects.select_related("submission__version").get(pk=codeprint_id)
    submission = codeprint.submission
    own = fingerprint_of(submission)
    match: Submission | None = None
    score = 0.0
    found = candidates(
        problem_id=codeprint.problem_id, hashes=own.hashes, exclude_user_id=submission.user_id
    )
    others = CodePrint.objects.select_related("submission__version").in_bulk(
        [pk for pk, _ in found]
    )
    for pk, _shared in found:
        forward = similarity.share(own, unpack(others[pk].hashes))
        if forward > score:
            match, score = others[pk].submission, forward
    known_name = ""
    for name, known, _code in shape_of(submission).known:  # the package's known/*.py
        forward = similarity.share(own, known.hashes)
        if forward > score:
            match, score, known_name = None, forward, name
    if match is not None and score >= threshold():
        # The earlier one is flagged too when it is (mostly) in the new one.
        other = next(cp for cp in others.values() if cp.submission_id == match.pk)
        backward = similarity.share(fingerprint_of(match), own.hashes)
        if backward > other.match_score:
            CodePrint.objects.filter(pk=other.pk, match_score__lt=backward).update(
                match=submission, match_known="", match_score=backward
            )
    with transaction.atomic():
        finished = CODEPRINTS.finish(
            claim,
            status=CodePrint.Status.DONE,
            hashes=pack(own.hashes),
            match=match,
            match_known=known_name,
            match_score=score,
            finished_at=timezone.now(),
        )
        if finished:
            CodePrintHash.objects.filter(codeprint_id=codeprint_id).delete()
            CodePrintHash.objects.bulk_create(
                CodePrintHash(problem_id=codeprint.problem_id, value=h, codeprint_id=codeprint_id)
                for h in sorted(own.hashes)
            )
    return jobs.Outcome.DONE


def paste_match(*, version: ProblemVersion, text: str, exclude_user_id: int) -> tuple[float, str]:
    """A large paste in a session (issue 41.5): the share of its fingerprints found in another
    candidate's stored Submit of the problem, or in one of its known solutions, and which
    ("known/<name>.py", or "" for another candidate's code, never named here). (0.0, "") when
    it matches nothing (or is too small to judge)."""
    shape = shape_of(Submission(version=version))
    own = similarity.fingerprint(text, keep=shape.keep, ignore=shape.ignore)
    score, known_name = 0.0, ""
    found = candidates(
        problem_id=version.problem_id, hashes=own.hashes, exclude_user_id=exclude_user_id
    )
    stored = CodePrint.objects.in_bulk([pk for pk, _ in found])
    for pk, _shared in found:
        score = max(score, similarity.share(own, unpack(stored[pk].hashes)))
    for name, known, _code in shape.known:
        forward = similarity.share(own, known.hashes)
        if forward > score:
            score, known_name = forward, name
    return score, known_name


@dataclass(frozen=True)
class SideBySide:
    """A flagged submission and its closest match, the shared stretches marked on each side."""

    score: float
    own_code: str
    own_regions: list[similarity.Region]
    other: Submission | None  # None: a known solution of the package
    other_code: str
    other_regions: list[similarity.Region]


def side_by_side(codeprint: CodePrint) -> SideBySide | None:
    """The matched regions of a print and its closest match (None without a match)."""
    submission = codeprint.submission
    shape = shape_of(submission)
    other = codeprint.match
    if other is not None:
        other_code = other.code
        theirs = similarity.fingerprint(other_code, keep=shape.keep, ignore=shape.ignore)
    else:
        found = [(p, code) for name, p, code in shape.known if name == codeprint.match_known]
        if not codeprint.match_known or not found:
            return None
        theirs, other_code = found[0]
    own = similarity.fingerprint(submission.code, keep=shape.keep, ignore=shape.ignore)
    left, right = similarity.matched_regions(
        own, theirs, source_a=submission.code, source_b=other_code
    )
    return SideBySide(codeprint.match_score, submission.code, left, other, other_code, right)


def _lines(code: str, regions: list[similarity.Region]) -> list[dict[str, Any]]:
    """The code's lines, each marked when a matched region covers it (1-based numbers)."""
    hit = {n for r in regions for n in range(r.first_line, r.last_line + 1)}
    return [
        {"number": n, "text": text, "hit": n in hit}
        for n, text in enumerate(code.splitlines(), start=1)
    ]


def copied_code_view(
    *, submission: Submission, user: Any, channel: visibility.Channel = visibility.Channel.PAGE,
    viewer: visibility.Viewer | None = None,
) -> dict[str, Any] | None:
    """What `user` sees of `submission`'s closest match: the one builder every channel calls.

    None when the policy refuses the viewer (`core.visibility.COPIED_CODE`: the session's
    interviewers and admins; never the candidate) or when nothing is above the threshold. The
    other candidate's name and code are there only for a viewer who may see the other
    submission's flag as well (who may see both sessions); for everyone else the other side
    is "another candidate's submission", its matched lines as counts. A prompt to look, never
    a verdict: nothing here changes a score. `viewer`: who the reader already is to the
    submission where a caller resolved it another way (a loop's hiring packet: a judge of the
    loop reads its rounds as their reviewers do, `core.visibility.loop_round_viewer`).
    """
    if viewer is None:
        viewer = visibility.viewer_of("submission", submission, user)
    if not visibility.may_see(visibility.COPIED_CODE, viewer, channel):
        return None
    codeprint = (
        CodePrint.objects.filter(submission=submission, status=CodePrint.Status.DONE)
        .select_related("submission__version", "match__user")
        .first()
    )
    if codeprint is None or codeprint.match_score < threshold():
        return None
    view: dict[str, Any] = {
        "percent": round(100 * codeprint.match_score),
        "threshold_percent": round(100 * threshold()),
        "known": codeprint.match_known,
        "other_named": False,
        "other_name": "",
        "own_lines": _lines(submission.code, []),
        "other_lines": [],
        "other_matched": 0,
    }
    pair = side_by_side(codeprint)
    if pair is None:
        return view
    view["own_lines"] = _lines(submission.code, pair.own_regions)
    view["other_matched"] = sum(r.last_line - r.first_line + 1 for r in pair.other_regions)
    if pair.other is None:  # a known solution: part of the package, as the reference is
        view["other_lines"] = _lines(pair.other_code, pair.other_regions)
        return view
    other_viewer = visibility.viewer_of("submission", pair.other, user)
    if visibility.may_see(visibility.COPIED_CODE, other_viewer, channel):
        view["other_named"] = True
        view["other_name"] = pair.other.user.get_username()
        view["other_submission"] = pair.other.pk
        view["other_lines"] = _lines(pair.other_code, pair.other_regions)
    return view
