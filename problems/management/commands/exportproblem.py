"""`manage.py exportproblem SLUG DEST`: write a problem back out as a package folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from problems.models import Problem
from problems.package import package_write
from problems.services import problem_to_package


class Command(BaseCommand):
    help = "Export a problem (its live version) as a package folder under DEST."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("dest")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            problem = Problem.objects.get(slug=options["slug"])
        except Problem.DoesNotExist as exc:
            raise CommandError(f"unknown problem {options['slug']!r}") from exc
        folder = package_write(problem_to_package(problem=problem), Path(options["dest"]))
        self.stdout.write(str(folder))
