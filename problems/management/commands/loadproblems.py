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
        parser.add_argument(
            "--no-input-check",
            action="store_true",
            help="skip checking each test's input against its driver (a custom driver's "
            "check_input runs in the sandbox)",
        )
        parser.add_argument(
            "--input-check",
            action="store_true",
            help="check the inputs even of the bank shipped in the repo",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        root = Path(options["path"])
        if not root.exists():
            raise CommandError(f"{root}: no such file or directory")
        if not root.is_dir():
            raise CommandError(f"{root}: not a folder (give a package folder or a folder of "
                               "them)")
        # The bank shipped in the repo is checked by its own test (every input against its
        # driver, in-process and in the sandbox), so a start (`make run`) does not pay a
        # container per custom package for it; any other folder is the author's, and checked.
        shipped = root.resolve() == BANK_DIR.resolve() and not options["input_check"]
        check = not (options["no_input_check"] or shipped)
        try:
            loaded = problem_load_folder(root=root, publish=not options["unpublished"], check=check)
        except PackageError as exc:
            # The file (from its package's folder) and the field: a message, not a traceback.
            raise CommandError(f"refused, nothing loaded: {exc}") from None
        for problem, created in loaded:
            state = "new version" if created else "unchanged"
            live = problem.live_version.number if problem.live_version else "-"
            design = "" if problem.kind_spec.runs_code else f", {problem.kind}: nothing to grade"
            self.stdout.write(f"{problem.slug}: {state} (live v{live}{design})")
        self.stdout.write(f"{len(loaded)} problem(s) loaded")
