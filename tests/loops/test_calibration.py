"""Calibration (issue 39, point 4): each interviewer's levels per criterion against the panel's
on the same problems, the gap and the flag, the chart, and who may open the page.

Every number and every bar is checked against the levels this test planted (its own tally,
never the service's), so everything the page shows is true."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from interviews.models import CriterionScore, InterviewSession, Scorecard
from loops import calibration
from problems.models import Problem
from tests.factories import client_for, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db
SVG = "{http://www.w3.org/2000/svg}"
CRITERIA = ("correctness", "edge_cases")


def _session(problem: Problem, candidate: User) -> InterviewSession:
    start = timezone.now() - timedelta(hours=1)
    return InterviewSession.objects.create(
        problem=problem, candidate=candidate, kind="live", status="finished",
        duration=timedelta(minutes=30), started_at=start, finished_at=start + timedelta(minutes=30),
    )


def _card(session: InterviewSession, interviewer: User, levels: dict[str, int | None], *,
          submitted: bool = True) -> None:
    card = Scorecard.objects.create(session=session, interviewer=interviewer,
                                    submitted_at=timezone.now() if submitted else None)
    for criterion, level in levels.items():
        CriterionScore.objects.create(scorecard=card, criterion=criterion, level=level)


# What the test planted, per interviewer: (problem slug, criterion, level) of each counted level.
Planted = dict[str, list[tuple[str, str, int]]]


def _world() -> tuple[dict[str, User], Planted]:
    """Hank gives 1s where alice, bob and carol give 3s on the same problem (three sessions of
    add-one); dana scored one session of another problem alone; a draft and a level left empty
    count nowhere."""
    p, q = tiny_problem("add-one"), tiny_problem("add-two")
    candidate = user_with_role("cand", "candidate")
    people = {name: user_with_role(name, "interviewer") for name in
              ("alice", "bob", "carol", "dana", "hank")}
    planted: Planted = {name: [] for name in people}
    for _ in range(3):
        session = _session(p, candidate)
        for name, level in (("hank", 1), ("alice", 3), ("bob", 3), ("carol", 3)):
            _card(session, people[name], dict.fromkeys(CRITERIA, level))
            planted[name] += [("add-one", c, level) for c in CRITERIA]
    alone = _session(q, candidate)
    _card(alone, people["dana"], {"correctness": 2, "edge_cases": None})
    planted["dana"].append(("add-two", "correctness", 2))
    # A draft (never submitted) by alice: its 4s must count nowhere.
    _card(_session(p, candidate), people["alice"], dict.fromkeys(CRITERIA, 4), submitted=False)
    return people, planted


def _panel(planted: Planted, name: str, criterion: str) -> Counter[int]:
    """The levels every other interviewer gave on the problems `name` scored `criterion` on."""
    problems = {slug for slug, c, _ in planted[name] if c == criterion}
    return Counter(level for other, rows in planted.items() if other != name
                   for slug, c, level in rows if c == criterion and slug in problems)


def test_levels_gap_and_flag_follow_the_rule() -> None:
    people, planted = _world()
    rows = {r.name: r for r in calibration.calibration()}
    assert sorted(rows) == sorted(people)
    hank, alice, dana = rows["hank"], rows["alice"], rows["dana"]
    # hank: 6 levels of 1, each against a panel of nine 3s
    assert (hank.scored, hank.compared, hank.gap) == (6, 6, -2.0)
    assert hank.verdict == calibration.HARSH and hank.flagged
    # alice: each of her 3s against hank's three 1s and six 3s (mean 21/9); her draft's 4s
    # count nowhere
    assert (alice.scored, alice.compared) == (6, 6)
    assert alice.gap == round(3 - 21 / 9, 2) == 0.67
    assert alice.verdict == calibration.IN_LINE and not alice.flagged
    # dana scored alone: nothing to compare, one level (the empty one does not count)
    assert (dana.scored, dana.compared, dana.gap) == (1, 0, None)
    assert dana.verdict == calibration.NOT_ENOUGH
    for name, row in rows.items():
        for c in row.criteria:
            mine = Counter(level for _, crit, level in planted[name] if crit == c.criterion)
            assert {k: v for k, v in c.mine.items() if v} == dict(mine)
            assert {k: v for k, v in c.panel.items() if v} == dict(_panel(planted, name,
                                                                           c.criterion))


def test_the_flag_needs_enough_compared_levels_and_a_whole_level_of_gap() -> None:
    n = calibration.MIN_COMPARED
    assert calibration.verdict_of(n - 1, -3.0) == calibration.NOT_ENOUGH
    assert calibration.verdict_of(n, None) == calibration.NOT_ENOUGH
    assert calibration.verdict_of(n, -1.0) == calibration.HARSH
    assert calibration.verdict_of(n, -0.99) == calibration.IN_LINE
    assert calibration.verdict_of(n, 0.99) == calibration.IN_LINE
    assert calibration.verdict_of(n, 1.0) == calibration.LENIENT


def test_every_bar_of_the_chart_is_the_share_of_the_levels_it_counts() -> None:
    _people, planted = _world()
    for row in calibration.calibration():
        root = ET.fromstring(str(calibration.calibration_svg(row)))
        bars = list(root.iter(f"{SVG}rect"))
        # two bars (theirs, the panel's) per level per criterion, and nothing else
        assert len(bars) == 2 * len(calibration.LEVELS) * len(row.criteria)
        for bar in bars:
            criterion, level = bar.get("data-criterion"), int(bar.get("data-level") or 0)
            counted = (Counter(lv for _, c, lv in planted[row.name] if c == criterion)
                       if bar.get("class") == "mine" else _panel(planted, row.name,
                                                                 str(criterion)))
            total = sum(counted.values())
            assert int(bar.get("data-count") or -1) == counted[level]
            assert int(bar.get("data-total") or -1) == total
            height = calibration.BAR_MAX * counted[level] / total if total else 0.0
            assert float(bar.get("height") or -1) == pytest.approx(height, abs=0.05)
            title = bar.find(f"{SVG}title")
            assert title is not None and f"{counted[level]} of {total}" in (title.text or "")


def test_the_page_shows_the_table_and_charts_to_admins_and_recruiters_only() -> None:
    people, _planted = _world()
    recruiter = user_with_role("rita", "recruiter")
    admin = user_with_role("root", admin=True)
    for viewer in (recruiter, admin):
        page = client_for(viewer).get("/loops/calibration/")
        assert page.status_code == 200
        html = page.content.decode()
        hank = people["hank"].pk
        assert f'<tr data-interviewer="{hank}" class="calibration-harsh">' in html
        assert 'class="cal-gap">-2.00<' in html and 'class="cal-gap">+0.67<' in html
        assert "far from the panel: harsher" in html and "not enough scores" in html
        assert html.count('class="calibration-chart"') == len(people)
        assert f"at least {calibration.MIN_COMPARED} of their levels" in html
    for viewer in (people["alice"], user_with_role("cand2", "candidate"),
                   user_with_role("auth", "author")):
        assert client_for(viewer).get("/loops/calibration/").status_code == 403
    anonymous = client_for(None).get("/loops/calibration/")
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]


def test_a_name_cannot_inject_markup_into_the_chart() -> None:
    p = tiny_problem("add-one")
    candidate = user_with_role("cand", "candidate")
    evil = user_with_role("<script>x</script>", "interviewer")
    _card(_session(p, candidate), evil, {"<b>c</b>": 2})
    (row,) = calibration.calibration()
    svg = str(calibration.calibration_svg(row))
    assert "<script>" not in svg and "<b>" not in svg
    ET.fromstring(svg)  # still well-formed
