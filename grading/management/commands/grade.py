"""`manage.py grade SLUG SOLUTION.py --mode run|submit [--json]`: grade synchronously."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.verdicts import NOT_RUN
from grading.judge import JudgeError
from grading.services import GradingError, grade_now
from problems.models import Problem


class Command(BaseCommand):
    help = "Grade a solution file through the sandbox pipeline and print the result."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("solution")
        parser.add_argument("--mode", choices=["run", "submit"], default="submit")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        problem = Problem.objects.filter(slug=options["slug"]).first()
        if problem is None:
            raise CommandError(f"unknown problem {options['slug']!r}", returncode=2)
        path = Path(options["solution"])
        if not path.is_file():
            raise CommandError(f"{path}: no such file", returncode=2)
        try:
            judgement = grade_now(
                problem=problem, code=path.read_text(encoding="utf-8"), mode=options["mode"]
            )
        except (JudgeError, GradingError) as exc:
            raise CommandError(f"not graded: {exc}", returncode=1) from exc
        if options["json"]:
            self.stdout.write(json.dumps(judgement.as_json()))
            return
        for test in judgement.tests:
            if test.verdict == NOT_RUN:
                self.stdout.write(f"{'-':<4} {'not run':<32}  {test.name}")
                continue
            times = f"CPU {test.cpu_ms:8.1f} ms wall {test.time_ms:8.1f} ms"
            self.stdout.write(f"{test.verdict:<4} {times}  {test.name}")
        self.stdout.write(f"{judgement.verdict}: passed {judgement.passed} of {judgement.total}")
