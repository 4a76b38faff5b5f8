"""Server-rendered inline SVG charts: a session's timeline, and scores over time.

Every piece of text that goes into the SVG is escaped here; the result is marked safe only
after that, so a question's text cannot inject markup into the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from problems.package import criterion_title

PASSED_COLOR = "#1a7f37"
FAIL_COLOR = "#cf222e"
EDIT_COLOR = "#8c959f"
QUESTION_COLOR = "#0969da"
SERIES_COLORS = ("#0969da", "#1a7f37", "#bf8700", "#8250df", "#cf222e", "#1b7c83", "#57606a")


@dataclass(frozen=True)
class Mark:
    t_ms: int
    kind: str  # "run" | "question"
    label: str
    ok: bool = False
    pending: bool = False  # a run still grading: neither passed nor failed yet

    @property
    def clock(self) -> str:
        """mm:ss since the session started (as evidence labels show a moment)."""
        return _clock(self.t_ms)


def _clock(ms: int) -> str:
    seconds = ms // 1000
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


def timeline_svg(*, duration_ms: int, edits_ms: list[int], marks: list[Mark],
                 width: int = 720, buckets: int = 40) -> SafeString:
    """Edits as a bar histogram, runs as dots (green passed, red not, grey still grading),
    questions as diamonds."""
    duration = max(duration_ms, 1)
    left, right, top = 10, 10, 10
    plot_w = width - left - right
    bar_base, bar_h = 70, 50
    counts = [0] * buckets
    for t in edits_ms:
        counts[min(buckets - 1, max(0, t * buckets // duration))] += 1
    peak = max(counts) or 1
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="timeline-chart" role="img" '
             f'viewBox="0 0 {width} 130" width="{width}" height="130">',
             "<title>Timeline of edits, runs and questions</title>"]
    step = plot_w / buckets
    for i, count in enumerate(counts):
        if not count:
            continue
        h = bar_h * count / peak
        parts.append(f'<rect class="edits" x="{left + i * step:.1f}" y="{bar_base - h:.1f}" '
                     f'width="{max(step - 1, 1):.1f}" height="{h:.1f}" fill="{EDIT_COLOR}">'
                     f"<title>{count} edit{'' if count == 1 else 's'}</title></rect>")
    parts.append(f'<line x1="{left}" y1="{bar_base}" x2="{left + plot_w}" y2="{bar_base}" '
                 'stroke="#57606a"/>')
    for mark in marks:
        x = left + plot_w * min(mark.t_ms, duration) / duration
        label = escape(f"{_clock(mark.t_ms)} {mark.label}")
        if mark.kind == "run":
            color = EDIT_COLOR if mark.pending else PASSED_COLOR if mark.ok else FAIL_COLOR
            parts.append(f'<circle class="run" cx="{x:.1f}" cy="{bar_base + 18}" r="5" '
                         f'fill="{color}"><title>{label}</title></circle>')
        else:
            y = bar_base + 38
            parts.append(f'<path class="question" d="M{x:.1f} {y - 6} l6 6 l-6 6 l-6 -6 z" '
                         f'fill="{QUESTION_COLOR}"><title>{label}</title></path>')
    parts.append(f'<text x="{left}" y="{top + 118}" font-size="10">00:00</text>')
    parts.append(f'<text x="{left + plot_w}" y="{top + 118}" font-size="10" '
                 f'text-anchor="end">{escape(_clock(duration))}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every text above went through escape()


def scores_svg(*, points: dict[str, list[tuple[datetime, float]]], width: int = 720,
               height: int = 220) -> SafeString:
    """One line per criterion (`points` by its key, named by its one title): its level (1-4)
    at each scored session, oldest on the left."""
    left, right, top, bottom = 30, 140, 10, 25
    plot_w, plot_h = width - left - right, height - top - bottom
    moments = sorted({when for series in points.values() for when, _ in series})
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="scores-chart" role="img" '
             f'viewBox="0 0 {width} {height}" width="{width}" height="{height}">',
             "<title>Rubric levels over time</title>"]
    for grid in range(1, 5):
        y = top + plot_h * (4 - grid) / 3
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" '
                     f'stroke="#d0d7de"/><text x="{left - 6}" y="{y + 4:.1f}" font-size="10" '
                     f'text-anchor="end">{grid}</text>')
    if not moments:
        parts.append("</svg>")
        return mark_safe("".join(parts))  # noqa: S308 - constant markup only
    index = {when: i for i, when in enumerate(moments)}

    def x_of(when: datetime) -> float:
        return left + (plot_w * index[when] / (len(moments) - 1) if len(moments) > 1
                       else plot_w / 2)

    for n, (criterion, series) in enumerate(sorted(points.items())):
        color = SERIES_COLORS[n % len(SERIES_COLORS)]
        coords = [(x_of(when), top + plot_h * (4 - level) / 3) for when, level in sorted(series)]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        key, name = escape(criterion), escape(criterion_title(criterion))
        parts.append(f'<polyline class="series" data-criterion="{key}" points="{path}" '
                     f'fill="none" stroke="{color}" stroke-width="2"/>')
        for (x, y), (when, level) in zip(coords, sorted(series), strict=True):
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"><title>'
                         f"{name}: {level:.1f} on {when:%Y-%m-%d}</title></circle>")
        legend_y = top + 14 * n + 8
        parts.append(f'<rect x="{left + plot_w + 10}" y="{legend_y - 8}" width="10" height="10" '
                     f'fill="{color}"/><text x="{left + plot_w + 24}" y="{legend_y + 1}" '
                     f'font-size="11">{name}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every text above went through escape()
