from __future__ import annotations

from django.apps import AppConfig


class CoreConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "core"

    def ready(self) -> None:
        # Connects the login-lock signal receivers (a refusal while locked is logged).
        from core import loginlock  # noqa: F401
