"""/api/docs works offline: Swagger UI comes from our own static files, not a CDN."""

from __future__ import annotations

import re

import pytest
from django.contrib.staticfiles import finders
from django.test import Client


@pytest.mark.django_db
def test_the_api_docs_page_loads_swagger_ui_from_our_static_files() -> None:
    response = Client().get("/api/docs")
    assert response.status_code == 200
    html = response.content.decode()
    assert "cdn.jsdelivr" not in html and "unpkg" not in html
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', html)
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets), assets
    for asset in assets:
        # Every file the page names is one this project serves.
        assert finders.find(asset.removeprefix("/static/")), asset
        # ...and serves (whitenoise, no internet involved).
        served = Client().get(asset)
        assert served.status_code == 200, asset
        served.close()
