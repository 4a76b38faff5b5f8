"""The text of a PDF the site rendered, for tests that read reports."""

from __future__ import annotations

import re
import zlib


def pdf_text(body: bytes) -> str:
    """The text of a PDF: fpdf2 deflates its content streams. Each is inflated from where
    it starts to where the deflate data says it ends (a stream whose last byte is a carriage
    return must not lose it to a line-ending pattern)."""
    chunks = [body.decode("latin-1")]
    for start in re.finditer(rb"stream\r?\n", body):
        try:
            chunks.append(zlib.decompressobj().decompress(body[start.end() :]).decode("latin-1"))
        except zlib.error:
            continue
    return "\n".join(chunks)
