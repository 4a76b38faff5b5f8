"""Test overrides: fast hashing, eager nothing (Celery and Redis are real in the tests)."""

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
ONSITE_SANDBOX_POOL_SIZE = 0
ONSITE_GRADE_RETRY_BASE_SECONDS = 0.5
REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"submissions": "10000/min"}}  # noqa: F405
