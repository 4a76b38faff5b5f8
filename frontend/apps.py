"""The candidate-facing pages: the problem list, the problem page with its editor, login."""

from __future__ import annotations

from django.apps import AppConfig


class FrontendConfig(AppConfig):
    name = "frontend"
    verbose_name = "Candidate pages"
