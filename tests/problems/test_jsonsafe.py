"""Non-finite floats in tests survive the database (SQLite and PostgreSQL refuse bare NaN)."""

from __future__ import annotations

import math

import pytest

from problems.models import ProblemVersion
from tests.factories import tiny_problem


@pytest.mark.django_db
def test_nan_and_infinities_round_trip_through_the_database() -> None:
    version = tiny_problem().live_version
    assert version is not None
    version.hidden_tests = [
        {
            "name": "n",
            "input": {"args": [[1.0, math.inf]]},
            "expected": [math.nan, -math.inf, {"$float": "x"}],
            "tag": "edge_cases",
        }
    ]
    version.save()
    stored = ProblemVersion.objects.get(pk=version.pk).hidden_tests[0]
    assert math.isnan(stored["expected"][0]) and stored["expected"][1] == -math.inf
    assert stored["expected"][2] == {"$float": "x"}  # an unknown tag stays a plain object
    assert stored["input"]["args"][0][1] == math.inf
