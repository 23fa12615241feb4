"""Rendering invoice HTML to PDF with weasyprint, and reading the PDF's text layer back.

Two properties matter more than looks. Rendering never reaches outside the process: every URL
weasyprint asks for (http, https, file, data) is refused, so a stray `<img src>` can neither
leak a request nor read a local file; fonts come from the system's fontconfig (DejaVu) and
CSS is inline. And the bytes are reproducible: no creation date, no random document id, so the
same HTML gives the same PDF in any process, which the dataset hash relies on.
"""

from __future__ import annotations

import io

import pdfplumber
from weasyprint import HTML
from weasyprint.urls import URLFetcher


class RefusingFetcher(URLFetcher):
    """A url_fetcher that fetches nothing and remembers what it was asked for."""

    def __init__(self) -> None:
        super().__init__(fail_on_errors=False)
        self.refused: list[str] = []

    def fetch(self, url: str, headers: object = None) -> object:
        self.refused.append(url)
        raise ValueError(f"resource fetching is disabled: {url}")

    def open(self, url: object, data: object = None, timeout: object = None) -> object:
        # OpenerDirector.open is the other door into urllib; shut it too.
        raise ValueError("resource fetching is disabled")


def render_pdf(html: str, fetcher: RefusingFetcher | None = None) -> bytes:
    """PDF bytes for `html`; identical input gives identical bytes in any process."""
    document = HTML(string=html, base_url=None, url_fetcher=fetcher or RefusingFetcher())
    return document.write_pdf(pdf_identifier=False, uncompressed_pdf=False)


def text_layer(pdf: bytes) -> list[str]:
    """The text of each page as pdfplumber extracts it: what a text-only model gets to read."""
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        return [(page.extract_text() or "").strip() for page in document.pages]


def page_count(pdf: bytes) -> int:
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        return len(document.pages)
