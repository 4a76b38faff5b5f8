"""A NUL in any request text is a 400 at the door (PostgreSQL text columns cannot hold it)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from core.errors import ApplicationError
from core.jsonbody import json_body_parse

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("send", [
    lambda c: c.get("/problems/?q=a%00b"),
    lambda c: c.get("/problems/?a%00=1"),
    lambda c: c.post("/accounts/login/", "username=a%00&password=x",
                     content_type="application/x-www-form-urlencoded"),
    lambda c: c.post("/accounts/login/", {"username": "a\x00", "password": "x"}),  # multipart
])  # fmt: skip
def test_text_with_a_nul_is_refused_before_any_view(send) -> None:  # type: ignore[no-untyped-def]
    answer = send(Client())
    assert answer.status_code == 400
    assert b"NUL" in answer.content


def test_text_without_a_nul_reaches_the_view() -> None:
    get_user_model().objects.create_user("ada", password="pw-long-enough-1")
    client = Client()
    assert client.get("/accounts/login/?next=/").status_code == 200
    answer = client.post("/accounts/login/", {"username": "ada", "password": "pw-long-enough-1"})
    assert answer.status_code == 302


def test_a_json_string_with_an_escaped_nul_is_bad_json() -> None:
    with pytest.raises(ApplicationError) as refused:
        json_body_parse(b'{"text": ["ok", {"k": "a\\u0000b"}]}')
    assert refused.value.code == "bad_json"
    # The escape written as text (a backslash, then u0000) is ordinary text.
    assert json_body_parse(b'{"code": "s = \\"\\\\u0000\\""}') == {"code": 's = "\\u0000"'}
