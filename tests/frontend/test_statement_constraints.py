"""The statement shows the declared constraints (issue 36.10): rendered from problem.toml's
`[[constraints]]` into the "Constraints" section of the problem page, not copied by hand."""

from __future__ import annotations

import pytest

from problems.package import package_read
from problems.services import BANK_DIR, problem_load
from tests.factories import client_for, user_with_role

pytestmark = pytest.mark.django_db


def test_the_problem_page_renders_the_declared_constraints() -> None:
    package = package_read(BANK_DIR / "lpt-makespan")
    assert "1 <= m" not in package.statement_md  # one fact in one place: problem.toml
    problem_load(package=package)
    page = client_for(user_with_role("cand", "candidate")).get("/problems/lpt-makespan/")
    html = page.content.decode()
    section = html.split(">Constraints</h2>", 1)[1].split("<h2", 1)[0]
    assert "<code>1 &lt;= m &lt;= 2 * 10^4</code> (integers)." in section
    assert "<code>0 &lt;= len(durations) &lt;= 10^5</code>" in section
    assert "<code>0 &lt;= durations[j] &lt;= 10^9</code>" in section
    # the hand-written notes stay, after the rendered bounds
    assert section.index("len(durations)") < section.index("Expected complexity")
    assert "generate" not in section  # internal constraints are checked, not shown
