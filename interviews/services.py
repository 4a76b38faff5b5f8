"""Accounts for the demo install."""

from __future__ import annotations

from django.contrib.auth.models import Group, User
from django.db import transaction

from interviews.roles import AUTHOR, CANDIDATE, INTERVIEWER, ROLES


@transaction.atomic
def demo_users_ensure(*, password: str) -> dict[str, User]:
    """Create (or reset the password of) one account per role plus an admin."""
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in ROLES}
    users: dict[str, User] = {}
    specs = [
        ("candidate", [CANDIDATE], False),
        ("interviewer", [INTERVIEWER], False),
        ("author", [AUTHOR], False),
        ("admin", [INTERVIEWER, AUTHOR], True),
    ]
    for username, roles, superuser in specs:
        user, _ = User.objects.get_or_create(username=username)
        user.is_staff = user.is_superuser = superuser
        user.set_password(password)
        user.save()
        user.groups.set([groups[r] for r in roles])
        users[username] = user
    return users
