"""The closed verdict vocabulary and its display order (worst first)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

AC: Final = "AC"
WA: Final = "WA"
TLE: Final = "TLE"
MLE: Final = "MLE"
OLE: Final = "OLE"
RE: Final = "RE"
IE: Final = "IE"
# Not a verdict: the mark of a test that was not run, because an earlier test of its group
# ran out of time (grading/judge.py). It never decides a run's verdict and is never a pass.
NOT_RUN: Final = ""

# Display priority, worst first: the overall verdict of a run is the worst of its tests.
PRIORITY: Final = (IE, TLE, MLE, OLE, RE, WA, AC)
VERDICTS: Final = frozenset(PRIORITY)
CHOICES: Final = [(v, v) for v in PRIORITY]


def worst(verdicts: Iterable[str]) -> str:
    """The worst of `verdicts`, tests not run aside; IE for none (a run without tests is the
    platform's fault)."""
    found = [v for v in verdicts if v != NOT_RUN]
    return min(found, key=PRIORITY.index) if found else IE
