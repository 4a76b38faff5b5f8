"""The one error type of the studio's services."""

from __future__ import annotations

from core.errors import ApplicationError

# ---------------------------------------------------------------- authoring: errors and edits


class ProblemActionError(ApplicationError):
    """An authoring action the rules refuse (not_validated, no_version, conflict...)."""
