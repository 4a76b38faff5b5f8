"""Editor settings kept for the account (core/editorprefs.py): each value checked, stored over
the defaults, answered by the JSON edge, and rendered into the desk of any browser."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from core.editorprefs import DEFAULTS, editor_prefs_clean, editor_prefs_get, editor_prefs_save
from core.errors import ApplicationError
from tests.factories import client_for, tiny_problem, user_with_role

URL = "/accounts/editor-preferences"


def test_each_setting_is_checked_against_its_choices() -> None:
    assert editor_prefs_clean({"theme": "dark", "fontSize": 18}) == {
        "theme": "dark",
        "fontSize": 18,
    }
    for bad in (
        {"theme": "neon"},
        {"fontSize": 17},
        {"fontSize": True},
        {"wrap": 1},
        {"wrap": "yes"},
        {"keymap": None},
        {"colour": "red"},
    ):
        with pytest.raises(ApplicationError) as refused:
            editor_prefs_clean(bad)
        assert refused.value.code == "bad_preferences"
        assert next(iter(bad)) in refused.value.message


@pytest.mark.django_db
def test_saved_settings_merge_over_the_defaults_and_stay_per_user() -> None:
    one, other = user_with_role("one", "candidate"), user_with_role("other", "candidate")
    assert editor_prefs_get(one) is None  # never changed: the browser's own copy stands
    editor_prefs_save(user=one, changes={"theme": "dark"})
    stored = editor_prefs_save(user=one, changes={"fontSize": 20})
    assert stored == DEFAULTS | {"theme": "dark", "fontSize": 20}
    assert editor_prefs_get(one) == stored and editor_prefs_get(other) is None
    with pytest.raises(ApplicationError):
        editor_prefs_save(user=one, changes={"theme": "dark", "fontSize": 99})
    assert editor_prefs_get(one) == stored  # a refused save changes nothing, not half of it


@pytest.mark.django_db
def test_the_endpoint_stores_for_the_signed_in_user_and_refuses_bad_input() -> None:
    user = user_with_role("prefs", "candidate")
    client = client_for(user)
    answer = client.post(URL, json.dumps({"keymap": "vim"}), content_type="application/json")
    assert answer.status_code == 200 and answer.json()["prefs"]["keymap"] == "vim"
    bad = client.post(URL, json.dumps({"keymap": "nano"}), content_type="application/json")
    assert bad.status_code == 400 and bad.json()["code"] == "bad_preferences"
    assert client.get(URL).status_code == 405
    anonymous = Client().post(URL, json.dumps({"keymap": "vim"}), content_type="application/json")
    assert anonymous.status_code == 302  # to the login page; nothing stored
    assert editor_prefs_get(user) == DEFAULTS | {"keymap": "vim"}


@pytest.mark.django_db
def test_the_desk_carries_the_stored_settings_into_any_browser() -> None:
    problem = tiny_problem()
    user = user_with_role("reader", "candidate")
    page = client_for(user).get(f"/problems/{problem.slug}/").content.decode()
    assert '<script id="editor-prefs-data" type="application/json">null</script>' in page
    editor_prefs_save(user=user, changes={"theme": "dark"})
    page = client_for(user).get(f"/problems/{problem.slug}/").content.decode()
    assert '"theme": "dark"' in page and 'data-prefs-url="/accounts/editor-preferences"' in page
