"""A version as its package's files (studio.services.diffs): a design's reference board is one
of them, one element per line, so a diff between versions (and a refused save's "what changed
since") names the element that moved, and only it."""

from __future__ import annotations

from dataclasses import replace

from problems.package import DESIGN_BOARD, package_read
from problems.services import BANK_DIR
from studio.services.diffs import package_files, packages_diff

DESIGN = package_read(BANK_DIR / "batch-inference-api")


def test_a_moved_board_element_is_one_changed_line_of_the_board_file() -> None:
    board = [dict(e) for e in DESIGN.reference_board]
    moved = dict(board[0], x=board[0]["x"] + 5)
    after = replace(DESIGN, reference_board=(moved, *board[1:]))
    assert package_files(DESIGN)[DESIGN_BOARD].count("\n") == len(board) + 1
    (diff,) = packages_diff(DESIGN, after)
    assert (diff.path, diff.status, diff.added, diff.removed) == (DESIGN_BOARD, "changed", 1, 1)
    assert f'"id": "{moved["id"]}"' in next(line.text for line in diff.lines if line.kind == "add")


def test_a_problem_without_a_board_has_no_board_file() -> None:
    assert DESIGN_BOARD not in package_files(replace(DESIGN, reference_board=()))
