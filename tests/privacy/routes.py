"""Every URL route of the site, from the resolver, for the route walks."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver
from django.utils.regex_helper import normalize


@dataclass(frozen=True)
class Route:
    template: str  # "sessions/%(session_id)s/run"
    params: tuple[str, ...]
    callback: Callable[..., Any]
    name: str


def url_routes(
    resolver: URLResolver | None = None, prefix: str = "", params: tuple[str, ...] = ()
) -> Iterator[Route]:
    """Every URL pattern under `resolver`, with its full path as a format string (the very
    normalisation `reverse` uses)."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        template, names = normalize(entry.pattern.regex.pattern)[0]
        if isinstance(entry, URLResolver):
            yield from url_routes(entry, prefix + template, params + tuple(names))
        else:
            assert isinstance(entry, URLPattern)
            yield Route(prefix + template, params + tuple(names), entry.callback, entry.name or "")
