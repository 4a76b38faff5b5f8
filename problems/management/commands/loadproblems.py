"""`manage.py loadproblems [PATH]`: load problem packages, idempotently."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from problems.package import PackageError
from problems.services import BANK_DIR, problem_load_folder


class Command(BaseCommand):
    help = "Load problem packages (default: the bank in the repo). Safe to run again."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", nargs="?", default=str(BANK_DIR))
        parser.add_argument("--unpublished", action="store_true", help="do not publish")

    def handle(self, *args: Any, **options: Any) -> None:
        root = Path(options["path"])
        if not root.exists():
            raise CommandError(f"{root}: no such file or directory")
        try:
            loaded = problem_load_folder(root=root, publish=not options["unpublished"])
        except PackageError as exc:
            raise CommandError(f"refused, nothing loaded: {exc}") from exc
        for problem, created in loaded:
            state = "new version" if created else "unchanged"
            live = problem.live_version.number if problem.live_version else "-"
            self.stdout.write(f"{problem.slug}: {state} (live v{live})")
        self.stdout.write(f"{len(loaded)} problem(s) loaded")
