"""The printed rate card: one A4 page, the same content as the home page (standard §6).

Rendering is locked down: the URL fetcher serves only files inside the template asset folder and
refuses every other URL (network, `file:` elsewhere, `data:`), so nothing in an edition can make
the renderer fetch anything. The PDF is tagged (PDF/UA-1) and embeds its fonts.

Nothing but the rate card's PDF is made here: the rate cards are keyed by this module's code, and
no other product is (`publish/product_code.py`).
"""

from __future__ import annotations

import mimetypes
from pathlib import Path
from urllib.parse import unquote, urlparse

from weasyprint import HTML
from weasyprint.urls import URLFetcher, URLFetcherResponse

from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import atomic_write_bytes
from ledgerrate.publish.card import DISCLAIMER, RateCard, rate_card
from ledgerrate.publish.card_html import ASSETS, SIZES, render_ratecard_html
from ledgerrate.schema import EditionManifest, EditionResults, ErrataFile

__all__ = ["ASSETS", "DISCLAIMER", "RefusingFetcher", "ratecard_pdf", "render_ratecard_pdf"]


class RefusingFetcher(URLFetcher):
    """Serves files from one folder and refuses everything else."""

    def __init__(self, root: Path) -> None:
        super().__init__(allowed_protocols={"file"})
        self.root = root.resolve()
        self.refused: list[str] = []

    def fetch(self, url: str, headers: dict[str, str] | None = None) -> URLFetcherResponse:
        parsed = urlparse(url)
        if parsed.scheme == "file" and not parsed.netloc:
            path = Path(unquote(parsed.path)).resolve()
            if path.is_file() and self.root in path.parents:
                kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
                return URLFetcherResponse(
                    url, body=path.read_bytes(), headers={"Content-Type": kind}
                )
        self.refused.append(url)
        raise ValueError(f"refused by the rate-card renderer: {url}")


def render_ratecard_pdf(
    results: EditionResults,
    manifest: EditionManifest,
    out: Path,
    *,
    provisional: bool = False,
    errata: ErrataFile | None = None,
    site_url: str | None = None,
) -> Path:
    """Write the edition's one-page rate card PDF to `out` atomically and return its path."""
    card = rate_card(results, manifest, provisional=provisional, errata=errata, site_url=site_url)
    atomic_write_bytes(out, ratecard_pdf(card))
    return out


def ratecard_pdf(card: RateCard) -> bytes:
    """The card as a one-page PDF, at the largest type size that keeps it on one page."""
    for size in SIZES:
        document = HTML(
            string=render_ratecard_html(card, size),
            base_url=ASSETS.as_uri() + "/",
            url_fetcher=RefusingFetcher(ASSETS),
        ).render(pdf_variant="pdf/ua-1", pdf_tags=True)
        if len(document.pages) == 1:
            break
    else:
        raise UsageProblem(
            f"edition {card.edition}: the rate card does not fit on one A4 page even at "
            f"{SIZES[-1]} pt; shorten the workload units or model names in edition.yaml"
        )
    return document.write_pdf(pdf_variant="pdf/ua-1", pdf_tags=True, uncompressed_pdf=False)
