"""The accessibility statement (issue 40.6): a page open to everyone, linked from the footer of
every page the site renders (base.html), signed in or not, error pages included."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

pytestmark = pytest.mark.django_db

FOOTER_LINK = re.compile(
    r'<footer class="site-footer">\s*<a href="/accessibility/">Accessibility</a>'
)


def test_the_statement_is_open_to_everyone_and_says_how_the_site_is_checked() -> None:
    response = Client().get("/accessibility/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "<h1>Accessibility statement</h1>" in page
    assert "WCAG" in page and "Esc" in page and "Known limitations" in page
    assert FOOTER_LINK.search(page)


@pytest.mark.parametrize("path", ["/", "/accounts/login/", "/no-such-page/", "/submissions/"])
def test_every_page_links_the_statement_from_its_footer(path: str) -> None:
    client = Client()
    client.force_login(User.objects.create_user("reader"))
    page = client.get(path).content.decode()
    assert FOOTER_LINK.search(page), path
    anonymous = Client().get(path, follow=True).content.decode()
    assert FOOTER_LINK.search(anonymous), path
