"""`manage.py seeddemo`: demo accounts (candidate, interviewer, author, recruiter, admin)."""

from __future__ import annotations

import secrets
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from interviews.services import demo_users_ensure


class Command(BaseCommand):
    help = "Create the demo accounts and print their passwords."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--password", help="one password for every demo account")

    def handle(self, *args: Any, **options: Any) -> None:
        password = options["password"] or secrets.token_urlsafe(9)
        for username in demo_users_ensure(password=password):
            self.stdout.write(f"  {username:<12} password: {password}")
