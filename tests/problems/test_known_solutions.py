"""Known solutions (issue 41.3): a package's known/*.py travel through reading, loading,
exporting and the version that grades, and a Submit that matches one is flagged."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grading import copies
from grading.models import CodePrint
from grading.services import submission_create
from problems.package import KnownSolution, package_read, package_write
from problems.services import BANK_DIR, problem_load, problem_to_package
from tests.factories import user_with_role

LEAKED = """
from collections import OrderedDict


class LRUCache:
    def __init__(self, capacity):
        self.room = capacity
        self.memo = OrderedDict()
        self.log = []

    def get(self, key):
        self.log.append(("get", key))
        if key not in self.memo:
            return -1
        value = self.memo.pop(key)
        self.memo[key] = value
        return value

    def put(self, key, value):
        self.log.append(("put", key, value))
        if self.room <= 0:
            return
        self.memo.pop(key, None)
        self.memo[key] = value
        while len(self.memo) > self.room:
            self.memo.popitem(last=False)
"""


def _package_with_known(tmp_path: Path) -> Path:
    folder = tmp_path / "lru-cache"
    shutil.copytree(BANK_DIR / "lru-cache", folder)
    (folder / "known").mkdir()
    (folder / "known" / "forum_post.py").write_text(LEAKED)
    return folder


def test_known_solutions_are_read_and_written_back(tmp_path: Path) -> None:
    package = package_read(_package_with_known(tmp_path))

    assert package.known == (KnownSolution("known/forum_post.py", LEAKED),)
    again = package_read(package_write(package, tmp_path / "out"))
    assert again.known == package.known


@pytest.mark.django_db
def test_a_submit_matching_a_known_solution_is_flagged(tmp_path: Path) -> None:
    # Given the problem loaded with a known solution
    problem, _ = problem_load(package=package_read(_package_with_known(tmp_path)))
    version = problem.live_version
    assert version is not None
    assert version.known_solutions == [{"file": "known/forum_post.py", "code": LEAKED}]
    assert problem_to_package(problem=problem).known == (
        KnownSolution("known/forum_post.py", LEAKED),
    )

    # When a candidate submits it, renamed and without its comments
    code = LEAKED.replace("memo", "store").replace("room", "limit")
    user = user_with_role("ann", "candidate")
    submission = submission_create(user=user, problem_slug=problem.slug, code=code, mode="submit")
    codeprint = CodePrint.objects.get(submission=submission)
    copies.codeprint_compute(codeprint_id=codeprint.pk)

    # Then its print names the known solution, above the threshold
    codeprint.refresh_from_db()
    assert codeprint.match is None
    assert codeprint.match_known == "known/forum_post.py"
    assert codeprint.match_score >= copies.threshold()
    pair = copies.side_by_side(codeprint)
    assert pair is not None and pair.other is None and pair.other_regions
    admin = user_with_role("root", admin=True)
    view = copies.copied_code_view(submission=submission, user=admin)
    assert view is not None and view["known"] == "known/forum_post.py"
    assert any(line["hit"] for line in view["other_lines"])
