"""Routes of the loop pages and their endpoints (mounted at `/loops/`)."""

from __future__ import annotations

from django.urls import URLPattern

app_name = "loops"

urlpatterns: list[URLPattern] = []
