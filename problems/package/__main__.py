"""`python -m problems.package check DIR...`: validate packages, print problems."""

from __future__ import annotations

import sys

from problems.package.model import PackageError
from problems.package.reader import package_read
from problems.package.rules import package_lint


def main(argv: list[str]) -> int:
    """`python -m problems.package check DIR...`: validate packages, print problems."""
    if len(argv) < 2 or argv[0] != "check":
        print("usage: python -m problems.package check DIR [DIR...]", file=sys.stderr)
        return 2
    failed = 0
    for folder in argv[1:]:
        try:
            package = package_read(folder)
        except PackageError as exc:
            print(f"FAIL {exc}")
            failed += 1
            continue
        issues = package_lint(package)
        status = "OK  " if not issues else "LINT"
        summary = package.kind_spec.part().summary(package)
        print(f"{status} {package.slug}: {summary}"
              + ("".join(f"\n     - {i}" for i in issues)))
        failed += bool(issues)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
