"""The Content-Security-Policy every response carries (pages, the admin, error pages, the API).

Defence in depth behind the Markdown sanitiser (core/markdown.py), chat and notes: should some
HTML ever get past it, the browser still runs no script and applies no style that the site did
not ship itself.

- Scripts only from the site's own files ('self'): no inline <script>, no `on*` attributes, no
  eval. Server data reaches scripts through `json_script` (type application/json, never run)
  or `data-` attributes.
- Styles only from the site's own stylesheets, plus the <style> elements the bundles create
  (CodeMirror's style-mod) when they carry this response's nonce; htmx's own indicator <style>
  is switched off (the `htmx-config` meta tag in base.html) and site.css has those rules.
  Style *attributes* are refused too, except the few exact values the bundles set, allowed by
  hash (`STYLE_ATTRIBUTE_VALUES`); a script setting `element.style.x` (CSSOM) is not affected.
- Images from the site and `data:` URLs, plus `ONSITE_CSP_IMG_SRC` for statements that show
  pictures from another host (core/markdown.py allows http(s) image URLs).
- Connections to the site itself, and its websockets (ws: / wss: of the same host: Channels).
- Never framed (frame-ancestors 'none', as X-Frame-Options DENY), no plugins, no <base>, forms
  only to the site.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponseBase

HEADER = "Content-Security-Policy"
REPORT_ONLY_HEADER = "Content-Security-Policy-Report-Only"

# The remote caret and selection colours of the live session's shared editor (the
# interview bundle reads them from the page, `csp_context`): y-codemirror.next sets them as
# style attributes, so their exact values are what the policy allows by hash.
CURSOR_COLORS: dict[str, dict[str, str]] = {
    "candidate": {"color": "#2f5bd3", "colorLight": "#2f5bd333"},
    "interviewer": {"color": "#c2410c", "colorLight": "#c2410c33"},
}


def _cursor_style_values() -> list[str]:
    # The formats y-codemirror.next (y-remote-selections.js) writes: the caret, the selection.
    values = []
    for colors in CURSOR_COLORS.values():
        values.append(f"background-color: {colors['color']}; border-color: {colors['color']}")
        values.append(f"background-color: {colors['colorLight']}")
    return values


# Every style attribute value the site's own scripts set through setAttribute/innerHTML.
STYLE_ATTRIBUTE_VALUES: tuple[str, ...] = tuple(_cursor_style_values())


def _source_hash(value: str) -> str:
    digest = hashlib.sha256(value.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


_STYLE_ATTRIBUTE_HASHES = " ".join(_source_hash(value) for value in STYLE_ATTRIBUTE_VALUES)


def csp_nonce(request: HttpRequest) -> str:
    """This request's nonce for the <style> elements the bundles create ("" outside the
    middleware, e.g. a template rendered by a test's RequestFactory)."""
    # Set by the middleware before the view runs, so a wrapper such as DRF's Request (which
    # reads unknown attributes from the HttpRequest it wraps) sees the same one.
    return str(getattr(request, "csp_nonce", ""))


def _websocket_sources(request: HttpRequest) -> str:
    # 'self' covers ws:/wss: of the same host only in CSP Level 3 browsers; naming them is
    # what older ones need. A host Django refuses gets no websocket source at all.
    try:
        host = request.get_host()
    except DisallowedHost:
        return ""
    return f" ws://{host} wss://{host}"


def policy_build(request: HttpRequest, *, nonce: str) -> str:
    """The header's value for this request, whose <style> elements carry `nonce`."""
    images = " ".join(["'self'", "data:", *settings.ONSITE_CSP_IMG_SRC])
    directives = [
        "default-src 'self'",
        "script-src 'self'",
        f"style-src 'self' 'nonce-{nonce}'",
        f"style-src-elem 'self' 'nonce-{nonce}'",
        f"style-src-attr 'unsafe-hashes' {_STYLE_ATTRIBUTE_HASHES}",
        f"img-src {images}",
        "font-src 'self'",
        f"connect-src 'self'{_websocket_sources(request)}",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
    return "; ".join(directives)


class ContentSecurityPolicyMiddleware:
    """Sets the policy on every response (report-only while `ONSITE_CSP_REPORT_ONLY` is on)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        nonce = secrets.token_urlsafe(16)
        request.csp_nonce = nonce  # type: ignore[attr-defined]
        response = self.get_response(request)
        header = REPORT_ONLY_HEADER if settings.ONSITE_CSP_REPORT_ONLY else HEADER
        response[header] = policy_build(request, nonce=nonce)
        return response


def csp_context(request: HttpRequest) -> dict[str, object]:
    """Template context: the nonce (a meta tag hands it to the bundles) and the cursor colours."""
    return {"csp_nonce": csp_nonce(request), "cursor_colors": CURSOR_COLORS}
