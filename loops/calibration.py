"""Calibration: how each interviewer's rubric levels compare with the panel's on the same problems.

Read from the submitted scorecards (`interviews.Scorecard`, `interviews.CriterionScore`); a draft
scorecard or a criterion left without a level counts nowhere. For one interviewer:

* **their distribution**: per criterion, how many of their levels were 1, 2, 3 and 4;
* **the panel's distribution**: per criterion, the levels every *other* interviewer gave on the
  problems this interviewer scored that criterion on (the same problem and criterion, any session);
* **the gap**: the mean, over this interviewer's levels that have a panel (someone else scored the
  same criterion on the same problem), of (their level − the panel's mean level on that problem
  and criterion). Negative: harsher than the panel; positive: more lenient.

**The flag** (written here once, and said on the page): an interviewer is *far from the panel*
when at least `MIN_COMPARED` of their levels have a panel and the gap is `FLAG_GAP` levels or
more either way. With fewer compared levels the page says "not enough scores" and flags nobody.

Nothing here writes; the chart (`calibration_svg`) is drawn from the same numbers the table shows.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from interviews.models import CriterionScore
from problems.package import criterion_title

LEVELS = (1, 2, 3, 4)
# The flag's rule (the module's docstring): how many compared levels, and how far apart.
MIN_COMPARED = 6
FLAG_GAP = 1.0

IN_LINE = "in_line"
HARSH = "harsh"
LENIENT = "lenient"
NOT_ENOUGH = "not_enough"
VERDICT_WORDS = {
    IN_LINE: "in line with the panel",
    HARSH: "far from the panel: harsher",
    LENIENT: "far from the panel: more lenient",
    NOT_ENOUGH: "not enough scores",
}


@dataclass
class CriterionRow:
    """One criterion of one interviewer: their level counts and the panel's."""

    criterion: str
    title: str
    mine: dict[int, int]
    panel: dict[int, int]

    @property
    def mine_total(self) -> int:
        return sum(self.mine.values())

    @property
    def panel_total(self) -> int:
        return sum(self.panel.values())

    @property
    def mine_mean(self) -> float | None:
        return _mean_of_counts(self.mine)

    @property
    def panel_mean(self) -> float | None:
        return _mean_of_counts(self.panel)


@dataclass
class InterviewerCalibration:
    user_id: int
    name: str
    scored: int  # their levels, all criteria
    compared: int  # of those, the levels with a panel on the same problem and criterion
    gap: float | None  # None: nothing compared
    verdict: str
    criteria: list[CriterionRow] = field(default_factory=list)

    @property
    def verdict_words(self) -> str:
        return VERDICT_WORDS[self.verdict]

    @property
    def flagged(self) -> bool:
        return self.verdict in (HARSH, LENIENT)


def _mean_of_counts(counts: dict[int, int]) -> float | None:
    total = sum(counts.values())
    return sum(level * n for level, n in counts.items()) / total if total else None


def verdict_of(compared: int, gap: float | None) -> str:
    """The flag's rule (see the module): enough compared levels, and a gap of FLAG_GAP or more."""
    if compared < MIN_COMPARED or gap is None:
        return NOT_ENOUGH
    if gap <= -FLAG_GAP:
        return HARSH
    if gap >= FLAG_GAP:
        return LENIENT
    return IN_LINE


def _levels() -> list[tuple[int, str, int, str, int]]:
    """(interviewer id, name, problem id, criterion, level) of every level of every submitted
    scorecard."""
    rows = (CriterionScore.objects.filter(scorecard__submitted_at__isnull=False,
                                          level__in=LEVELS)
            .values_list("scorecard__interviewer_id", "scorecard__interviewer__username",
                         "scorecard__session__problem_id", "criterion", "level")
            .order_by("scorecard__interviewer_id", "id"))
    return [(int(u), str(name), int(p), str(c), int(level or 0))
            for u, name, p, c, level in rows]


def calibration() -> list[InterviewerCalibration]:
    """Every interviewer with a submitted level, by name: their distributions, gap and flag."""
    levels = _levels()
    # Per (problem, criterion): every level given there, by interviewer.
    by_spot: dict[tuple[int, str], dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    names: dict[int, str] = {}
    for user_id, name, problem_id, criterion, level in levels:
        by_spot[(problem_id, criterion)][user_id].append(level)
        names[user_id] = name
    out = []
    for user_id, name in sorted(names.items(), key=lambda item: (item[1].lower(), item[0])):
        mine: dict[str, dict[int, int]] = defaultdict(lambda: dict.fromkeys(LEVELS, 0))
        panel: dict[str, dict[int, int]] = defaultdict(lambda: dict.fromkeys(LEVELS, 0))
        differences: list[float] = []
        scored = 0
        for (_problem_id, criterion), givers in by_spot.items():
            own = givers.get(user_id)
            if not own:
                continue
            others = [lv for giver, given in givers.items() if giver != user_id for lv in given]
            scored += len(own)
            for level in own:
                mine[criterion][level] += 1
            for level in others:
                panel[criterion][level] += 1
            if others:
                panel_mean = sum(others) / len(others)
                differences.extend(level - panel_mean for level in own)
        gap = round(sum(differences) / len(differences), 2) if differences else None
        rows = [CriterionRow(criterion=c, title=criterion_title(c), mine=dict(mine[c]),
                             panel=dict(panel[c])) for c in sorted(mine)]
        out.append(InterviewerCalibration(
            user_id=user_id, name=name, scored=scored, compared=len(differences), gap=gap,
            verdict=verdict_of(len(differences), gap), criteria=rows))
    return out


# ---------------------------------------------------------------- the chart

MINE_COLOR = "#0969da"
PANEL_COLOR = "#8c959f"
BAR_MAX = 46  # the height of a bar holding every level of its side


def share(counts: dict[int, int], level: int) -> float:
    """The share (0 to 1) of one side's levels at `level`."""
    total = sum(counts.values())
    return counts.get(level, 0) / total if total else 0.0


def calibration_svg(person: InterviewerCalibration) -> SafeString:
    """One row per criterion: for each level 1-4, two bars side by side, the interviewer's share
    of their levels at that level (blue) and the panel's (grey); each bar's tooltip says the
    count it stands for, and its data attributes carry the same numbers for the tests."""
    # Each criterion's name above its row of bars, so the chart stays narrow enough for a phone.
    left, group_w, row_h, top = 8, 80, BAR_MAX + 34, 18
    width = left * 2 + group_w * len(LEVELS)
    height = top + row_h * max(1, len(person.criteria)) + 4
    title = escape(f"Levels of {person.name} against the panel's, per criterion")
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="calibration-chart" role="img" '
             f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
             f'data-interviewer="{person.user_id}">', f"<title>{title}</title>"]
    for i, level in enumerate(LEVELS):
        x = left + group_w * i + group_w / 2
        parts.append(f'<text x="{x:.1f}" y="12" font-size="11" text-anchor="middle">'
                     f"level {level}</text>")
    for row_index, row in enumerate(person.criteria):
        row_top = top + row_h * row_index
        base = row_top + 20 + BAR_MAX
        name = escape(row.title)
        parts.append(f'<text x="{left}" y="{row_top + 13}" font-size="12" '
                     f'font-weight="600">{name}</text>')
        parts.append(f'<line x1="{left}" y1="{base}" x2="{width - left}" y2="{base}" '
                     'stroke="#d0d7de"/>')
        for i, level in enumerate(LEVELS):
            x0 = left + group_w * i + 17
            for side, counts, color, dx in (("mine", row.mine, MINE_COLOR, 0),
                                            ("panel", row.panel, PANEL_COLOR, 24)):
                part = share(counts, level)
                count = counts.get(level, 0)
                h = BAR_MAX * part
                who = escape(person.name) if side == "mine" else "the panel"
                parts.append(
                    f'<rect class="{side}" data-criterion="{escape(row.criterion)}" '
                    f'data-level="{level}" data-count="{count}" '
                    f'data-total="{sum(counts.values())}" x="{x0 + dx}" y="{base - h:.1f}" '
                    f'width="20" height="{h:.1f}" fill="{color}"><title>{name}, level {level}: '
                    f"{who} {count} of {sum(counts.values())}</title></rect>")
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every text above went through escape()


def page_context() -> dict[str, Any]:
    """The calibration page: every interviewer with their chart, and the rule in numbers."""
    people = calibration()
    return {"people": [{"row": p, "chart": calibration_svg(p)} for p in people],
            "min_compared": MIN_COMPARED, "flag_gap": FLAG_GAP,
            "flagged": sum(p.flagged for p in people)}
