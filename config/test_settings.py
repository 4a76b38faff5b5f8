"""Test overrides: fast hashing, eager nothing (Celery and Redis are real in the tests)."""

import os

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
ONSITE_SANDBOX_POOL_SIZE = 0
# Every studio save a version of its own, as the tests written before collapsing expect; the
# collapsing tests turn it on for themselves.
ONSITE_STUDIO_COLLAPSE_SECONDS = 0
ONSITE_GRADE_RETRY_BASE_SECONDS = 0.5
# Unit tests match questions lexically (instant); tests/interviews/test_matching.py and the
# browser flows use the real model (see their settings), as every deployment does.
ONSITE_CLARIFY_EMBEDDER = os.environ.get(
    "ONSITE_CLARIFY_EMBEDDER", "interviews.matching.lexical_embed"
)
# Limits high enough for any test; tests of the limits themselves lower one with override.
ONSITE_RATES = {scope: "10000/min" for scope in ONSITE_RATES}  # noqa: F405

if DATABASES["default"]["ENGINE"].endswith("sqlite3"):  # noqa: F405
    # A file, not memory: Celery workers and the ASGI server started by tests share it.
    # One file per test run, so concurrent runs on one machine never share a database.
    DATABASES["default"]["TEST"] = {  # noqa: F405
        "NAME": str(VAR_DIR / f"test_onsite_{os.getpid()}.sqlite3")  # noqa: F405
    }

# Each pytest-xdist worker counts in a cache of its own: the workers' databases hand out the
# same user ids, so a shared rate-limit bucket ("rate:<scope>:user:<id>") let one worker's
# posts count against another's (tests/conftest.py empties this worker's counters per test).
CACHES = {
    "default": {
        **CACHES["default"],  # noqa: F405
        "KEY_PREFIX": f"test-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}",
    }
}
