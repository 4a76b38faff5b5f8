"""What a malformed package is, and the size bound every source file of one keeps: the leaf the
package reader (problems/package.py) and the readers of a package's other parts (the coverage
map, problems/coverage.py) share, so neither has to import the other. Django-free."""

from __future__ import annotations

from pathlib import Path

MAX_SOURCE_BYTES = 256 * 1024


class PackageError(Exception):
    """A malformed package: the message names the file and the field."""

    def __init__(self, path: Path | str, field_name: str, problem: str) -> None:
        super().__init__(f"{path}: {field_name}: {problem}")
        self.path = str(path)
        self.field = field_name
        self.problem = problem

    def relative_to(self, base: Path) -> PackageError:
        """The same error with its path from `base` (`tiny/problem.toml`): the scratch folder
        a studio edit or an upload is read from is the server's business, never the author's."""
        for start in (base, base.resolve()):
            try:
                return PackageError(Path(self.path).relative_to(start), self.field, self.problem)
            except ValueError:
                continue
        return self
