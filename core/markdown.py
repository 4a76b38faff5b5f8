"""Problem statements and hints: Markdown to safe HTML.

Markdown passes raw HTML through, and statements come from problem authors and (later) from an
admin form, so the rendered HTML is sanitised with nh3 (an allow-list HTML cleaner) before it
reaches a page: no script, no event handler attributes, no `javascript:` or `data:` URLs, no
inline styles. Code highlighting survives because Pygments only needs `class` attributes on
`div`/`pre`/`code`/`span`, and those are allowed (classes cannot run code).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import markdown as md
import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

# CSS class of the highlighted block; frontend/static/frontend/pygments.css styles it.
CODE_CSS_CLASS = "codehilite"


class _TableCodePipes(Treeprocessor):
    """`\\|` inside a code span of a table cell is a pipe, as in GitHub's Markdown.

    The tables extension splits cells on unescaped pipes, so an author writes `int \\| None`
    in a cell; Python-Markdown then keeps the backslash inside the code span (code is
    verbatim), and the page would show `int \\| None`. Runs after the inline patterns."""

    def run(self, root: Any) -> None:
        for cell in (*root.iter("td"), *root.iter("th")):
            for code in cell.iter("code"):
                if code.text and "\\|" in code.text:
                    code.text = type(code.text)(code.text.replace("\\|", "|"))


class _TableCodePipesExtension(Extension):
    def extendMarkdown(self, md_instance: Any) -> None:
        md_instance.treeprocessors.register(_TableCodePipes(md_instance), "table_code_pipes", 5)


_EXTENSIONS: list[Any] = [
    "fenced_code", "codehilite", "tables", "sane_lists", _TableCodePipesExtension(),
]
_EXTENSION_CONFIGS: dict[str, dict[str, Any]] = {
    # guess_lang off: an unlabelled block stays plain rather than being highlighted as some
    # random language; authors label Python blocks with ```python.
    "codehilite": {"css_class": CODE_CSS_CLASS, "guess_lang": False},
    # Alignment as the `align` attribute, since the sanitiser drops `style`.
    "tables": {"use_align_attribute": True},
}

ALLOWED_TAGS = frozenset(
    {
        "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "div", "dl", "dt", "em",
        "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "kbd", "li", "ol", "p", "pre",
        "s", "span", "strong", "sub", "sup", "table", "tbody", "td", "th", "thead", "tr", "ul",
    }
)  # fmt: skip
ALLOWED_ATTRIBUTES: dict[str, set[str]] = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "img": {"src", "alt", "title"},
    "code": {"class"},
    "div": {"class"},
    "pre": {"class"},
    "span": {"class"},
    "ol": {"start"},
    "td": {"align"},
    "th": {"align"},
}
# Relative URLs (no scheme) stay allowed; every other scheme, javascript: and data: included,
# is removed with its attribute.
ALLOWED_URL_SCHEMES = frozenset({"http", "https", "mailto"})


def html_sanitize(html: str) -> str:
    """Cleans untrusted HTML down to the allow-list above (script and style content dropped)."""
    return nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=set(ALLOWED_URL_SCHEMES),
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )


@lru_cache(maxsize=256)
def _render(source: str) -> str:
    # A fresh Markdown instance per call: instances keep state between conversions.
    html = md.markdown(source, extensions=_EXTENSIONS, extension_configs=_EXTENSION_CONFIGS)
    return html_sanitize(html)


def markdown_render(source: str) -> SafeString:
    """Renders Markdown to sanitised HTML that templates may output without escaping."""
    # mark_safe is sound only because _render's output went through html_sanitize.
    return mark_safe(_render(source))  # noqa: S308
