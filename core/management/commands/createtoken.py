"""`manage.py createtoken <username> [--name NAME]`: a new API token, its secret printed once.

The same token the tokens page makes (stored hashed, revocable there), for scripts and for an
operator setting up automation without a browser.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import ApplicationError
from core.tokens import token_create


class Command(BaseCommand):
    help = "Create an API token for a user and print its secret (shown only this once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", default="command line")

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"no user {options['username']!r}")
        try:
            _, secret = token_create(user=user, name=options["name"])
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(secret)
